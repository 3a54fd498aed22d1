"""Readable multi-head helpers: chapter 9, many heads, residual and LayerNorm, on plain lists.

    concat = [head_0 | head_1 | ... | head_{H-1}]        (T × H·d_head = T × d_model)
    attn_out = concat · W_O                               (W_O is d_model × d_model)
    H(row) = -Σ p ln p  (0 ln 0 = 0)     head entropy = mean of H(row) over rows
    resid = x + attn_out                                  (the residual connection)
    ln_out[i] = (resid[i] - mean_i) / sqrt(var_i + eps)   (LayerNorm, per row, population var)

Every function keeps the row-vector convention of chapter 8 and returns plain lists.
The vectorized engine in ``llm.engine`` computes the same numbers with numpy.
"""

from __future__ import annotations

import math

from llm.attention import Matrix, Vector, matmul, mix_values, scale_mask_softmax, transpose


def add(a: Matrix, b: Matrix) -> Matrix:
    """Element-wise sum: the residual connection keeps a and adds the change b.

    Shapes: [T × d] + [T × d] -> [T × d].
    """
    return [[x + y for x, y in zip(row_a, row_b, strict=True)] for row_a, row_b in zip(a, b)]


def layer_norm(x: Matrix, eps: float = 1e-5) -> Matrix:
    """Give every row mean 0 and std 1 (eps inside the sqrt avoids dividing by zero).

    Shapes: [T × d] -> [T × d]. Each row is normalized on its own.
    """
    out: Matrix = []
    for row in x:
        mean = sum(row) / len(row)
        var = sum((value - mean) ** 2 for value in row) / len(row)  # population variance
        denom = math.sqrt(var + eps)
        out += [[(value - mean) / denom for value in row]]
    return out


def residual_layer_norm(
    x: Matrix, sublayer_out: Matrix, eps: float = 1e-5
) -> tuple[Matrix, Matrix]:
    """x + sublayer(x), then LayerNorm: returns (resid, ln_out).

    Shapes: [T × d_model], [T × d_model] -> ([T × d_model], [T × d_model]).
    """
    resid = add(x, sublayer_out)
    return resid, layer_norm(resid, eps)


def row_stats(m: Matrix) -> tuple[Vector, Vector]:
    """Mean and population std of every row.

    Shapes: [T × d] -> ([T], [T]).
    """
    means = [sum(row) / len(row) for row in m]
    stds = [math.sqrt(sum((v - mu) ** 2 for v in row) / len(row)) for row, mu in zip(m, means)]
    return means, stds


def concat_heads(head_outputs: list[Matrix]) -> Matrix:
    """Put the heads side by side along the features: row i = [head0[i] ... headH[i]].

    Shapes: H × [T × d_head] -> [T × H·d_head].
    """
    return [sum((head[i] for head in head_outputs), []) for i in range(len(head_outputs[0]))]


def combine_heads(head_outputs: list[Matrix], w_o: Matrix) -> Matrix:
    """Concatenate the heads, then project through W_O so they can mix.

    Shapes: H × [T × d_head], W_O [d_model × d_model] -> [T × d_model].
    """
    return matmul(concat_heads(head_outputs), w_o)


def row_entropy(pattern: Matrix) -> Vector:
    """Shannon entropy of each row, -Σ p ln p, natural log, with 0 ln 0 = 0.

    Shapes: [T × T] -> [T]. 0 = all on one token; ln(n) = spread evenly over n tokens.
    """
    return [-sum(p * math.log(p) for p in row if p > 0.0) for row in pattern]


def head_entropy(pattern: Matrix) -> float:
    """The mean row entropy of one head's pattern: low = sharp, high = diffuse.

    Shapes: [T × T] -> scalar.
    """
    entropies = row_entropy(pattern)
    return sum(entropies) / len(entropies)


def attention_head(
    x: Matrix, wq: Matrix, wk: Matrix, wv: Matrix, causal: bool = True
) -> dict[str, Matrix]:
    """One head, step by step, keeping every intermediate.

    Shapes: x [T × d_model], w* [d_model × d_head] -> q k v z [T × d_head], scores pattern [T × T].
    """
    q, k, v = matmul(x, wq), matmul(x, wk), matmul(x, wv)
    scores = matmul(q, transpose(k))  # [T × d_head] · [d_head × T] -> [T × T]
    pattern = scale_mask_softmax(scores, len(q[0]), causal)
    return {
        "q": q,
        "k": k,
        "v": v,
        "scores": scores,
        "pattern": pattern,
        "z": mix_values(pattern, v),
    }


def multi_head_attention(
    x: Matrix,
    wq: list[Matrix],
    wk: list[Matrix],
    wv: list[Matrix],
    w_o: Matrix,
    causal: bool = True,
) -> tuple[list[dict[str, Matrix]], Matrix, Matrix]:
    """Every head on the same x, then concat and W_O: returns (heads, concat, attn_out).

    Shapes: x [T × d_model], wq[h] [d_model × d_head] for each of H heads,
    W_O [d_model × d_model] -> concat, attn_out [T × d_model].
    """
    heads = [attention_head(x, q, k, v, causal) for q, k, v in zip(wq, wk, wv, strict=True)]
    concat = concat_heads([head["z"] for head in heads])
    return heads, concat, matmul(concat, w_o)


def head_entropies(patterns: list[Matrix]) -> Vector:
    """The mean row entropy of every head, one number per head.

    Shapes: H × [T × T] -> [H].
    """
    return [head_entropy(pattern) for pattern in patterns]


def add_and_norm(x: Matrix, sublayer_out: Matrix, eps: float = 1e-5) -> Matrix:
    """The residual connection, then LayerNorm: only the normalized matrix.

    Shapes: [T × d_model], [T × d_model] -> [T × d_model].
    """
    return layer_norm(add(x, sublayer_out), eps)
