"""Readable attention helpers: chapter 8, one head by hand, on plain lists.

Every step of one attention head, written so it can be read on screen:

    Q = X·W_Q    K = X·W_K    V = X·W_V                       (project)
    S[i][j] = Q[i] · K[j]                                     (score every pair)
    A[i] = softmax(S[i] / sqrt(d_k)), with S[i][j] = -inf for j > i   (scale, mask, softmax)
    out = A · V                                               (mix the values)

Row-vector convention: a token is a row, so we write ``x @ W``, never ``W @ x``.
Rows of a (T, T) matrix are queries ("who looks"), columns are keys ("who is looked at").

Shapes: x [T × d_model]; wq, wk, wv [d_model × d_head]; q, k, v, out [T × d_head]; S, A [T × T].
The vectorized engine in ``llm.engine`` computes the same numbers with numpy.
"""

from __future__ import annotations

import math

Vector = list[float]
Matrix = list[Vector]


def dot(a: Vector, b: Vector) -> float:
    """Sum of element-wise products.

    Shapes: [n] · [n] -> scalar.
    Example: dot([1, 2], [3, 4]) == 11
    Chapter 8 writes sum(x * y for x, y in zip(a, b)). The brackets make the products a list
    first, which Python sums faster than a generator (docs/performance.md): the same products
    added in the same order, so the same number to the last bit. Every matmul below is made
    of dots.
    """
    return sum([x * y for x, y in zip(a, b)])


def softmax(values: Vector) -> Vector:
    """Turn a row of scores into a distribution that sums to 1.

    Shapes: [n] -> [n]. Subtracting the max changes nothing mathematically but keeps
    exp() from overflowing; a score of -inf (masked) becomes exactly 0.0.
    Example: softmax([0.0, 0.0]) == [0.5, 0.5]
    """
    m = max(values)
    exps = [math.exp(v - m) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def matmul(x: Matrix, w: Matrix) -> Matrix:
    """Matrix product x · w: row i of the result is row i of x against every column of w.

    Shapes: [n × k] · [k × m] -> [n × m].
    Example: matmul([[1, 2]], [[1, 0], [0, 1]]) == [[1, 2]]
    """
    columns = list(zip(*w))  # the columns of w, each of length k
    return [[dot(row, col) for col in columns] for row in x]


def transpose(m: Matrix) -> Matrix:
    """Swap rows and columns.

    Shapes: [n × m] -> [m × n].
    """
    return [list(col) for col in zip(*m)]


def attention_scores(q: Matrix, k: Matrix) -> Matrix:
    """S[i][j] = q_i · k_j: how relevant token j is to token i (not symmetric).

    Shapes: q [T × d_head], k [T × d_head] -> S [T × T], rows = query, cols = key.
    """
    return [[dot(query, key) for key in k] for query in q]


def scale_mask_softmax(scores: Matrix, d_k: int, causal: bool = True) -> Matrix:
    """Divide by sqrt(d_k), hide the future (j > i) with -inf, softmax each row.

    Shapes: [T × T] -> [T × T]; every row sums to 1, masked cells are exactly 0.0.
    """
    scale = math.sqrt(d_k)
    masked = [
        [s / scale if (j <= i or not causal) else float("-inf") for j, s in enumerate(row)]
        for i, row in enumerate(scores)
    ]
    return [softmax(row) for row in masked]


def mix_values(pattern: Matrix, v: Matrix) -> Matrix:
    """out[i] = sum_j pattern[i][j] * v[j]: each output row is an average of value rows.

    Shapes: pattern [T × T], v [T × d_head] -> [T × d_head]. Same as matmul(pattern, v).
    """
    return [
        [sum(p * value[d] for p, value in zip(probs, v)) for d in range(len(v[0]))]
        for probs in pattern
    ]


def causal_attention(x: Matrix, wq: Matrix, wk: Matrix, wv: Matrix) -> Matrix:
    """One causal attention head, the four steps in one loop over queries.

    Shapes: x [T × d_model], wq/wk/wv [d_model × d_head] -> [T × d_head].
    """
    # [1] the three learned views of x
    q = matmul(x, wq)
    k = matmul(x, wk)
    v = matmul(x, wv)
    scale = math.sqrt(len(k[0]))

    out: Matrix = []
    for i, query in enumerate(q):
        # [2] compare query i with every key; j <= i is the causal mask
        scores = [dot(query, key) / scale if j <= i else float("-inf") for j, key in enumerate(k)]
        # [3] scores -> a distribution over the keys
        pattern = softmax(scores)
        # [4] the pattern-weighted average of the value rows
        out += [[sum(p * value[d] for p, value in zip(pattern, v)) for d in range(len(v[0]))]]
    return out
