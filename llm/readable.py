"""The readable implementation behind the engine's interface: chapters 8 and 9's list code.

``llm.readable`` answers the same calls as ``llm.engine`` (same names, same arguments, a trace
with the same field names) with the chapters' own functions from ``llm.attention`` and ``llm.nn``,
on plain Python lists. Arrays given to it (X, the weights of ``Params``) are turned into lists
first; what it returns is lists, where the engine returns numpy arrays:

    trace = readable.multi_head_attention(x, params, causal=True)
    trace.heads[h].q / k / v / z [T × d_head];  .scores / .pattern [T × T]  (rows = query)
    trace.concat / trace.attn_out [T × d_model];  trace.mask [T × T] bool (True = may look)

so one test body runs over ``llm.engine`` and ``llm.readable`` alike, and ``llm.compare`` runs both.
The what-ifs (temperature, no √d_k) divide the scores before the chapter's softmax step; with
their defaults every number is the chapter's own, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llm import nn
from llm.attention import Matrix, Vector, attention_scores, matmul, mix_values, scale_mask_softmax
from llm.attention import softmax as softmax_row
from llm.config import LN_EPS, LabError, check_temperature
from llm.data import Params


@dataclass(frozen=True)
class HeadTrace:
    """Every intermediate of one head. Shapes: q k v z [T × d_head]; scores pattern [T × T]."""

    q: Matrix
    k: Matrix
    v: Matrix
    scores: Matrix  # raw q · k for every pair (not yet scaled)
    pattern: Matrix  # softmax of each scaled, masked row; rows sum to 1
    z: Matrix  # pattern · v


@dataclass(frozen=True)
class Trace:
    """The whole sublayer. Shapes: concat, attn_out [T × d_model]; mask [T × T], True = may look."""

    heads: tuple[HeadTrace, ...]
    concat: Matrix
    attn_out: Matrix
    mask: list[list[bool]]
    causal: bool
    temperature: float = 1.0  # the softmax temperature every head used
    scale: bool = True  # whether the scores were divided by sqrt(d_head)


def _lists(m: object) -> list:
    """Plain Python lists of floats: an array's ``tolist()``, a list as it is."""
    return m.tolist() if hasattr(m, "tolist") else m  # type: ignore[union-attr]


def causal_mask(t: int, causal: bool = True) -> list[list[bool]]:
    """True where query i may look at key j: j <= i under the causal mask, everywhere otherwise.

    Shapes: -> [T × T] bool.
    """
    return [[j <= i or not causal for j in range(t)] for i in range(t)]


def softmax(scores: Vector | Matrix) -> Vector | Matrix:
    """The chapter's softmax of one row, or of every row of a matrix; -inf becomes exactly 0.0.

    Shapes: [n] -> [n]; [T × n] -> [T × n].
    """
    scores = _lists(scores)
    if scores and isinstance(scores[0], list):
        return [softmax_row(row) for row in scores]
    return softmax_row(scores)


def attention_head(
    x: Matrix,
    w_q: Matrix,
    w_k: Matrix,
    w_v: Matrix,
    mask: list[list[bool]],
    temperature: float = 1.0,
    scale: bool = True,
) -> HeadTrace:
    """One head with every step kept, through the chapter's matmul, scores, softmax and mix.

    Shapes: x [T × d_model], w_* [d_model × d_head], mask [T × T] -> HeadTrace.
    The mask is one of the chapter's two: ``causal_mask(T, True)`` or ``causal_mask(T, False)``.
    """
    mask = _lists(mask)
    causal = not all(mask[0])  # the causal mask lets the first query see only itself
    if mask != causal_mask(len(mask), causal):
        raise LabError("mask", "The readable code knows two masks: causal (j <= i) or none.")
    return _head(*map(_lists, (x, w_q, w_k, w_v)), causal, check_temperature(temperature), scale)


def _head(
    x: Matrix, w_q: Matrix, w_k: Matrix, w_v: Matrix, causal: bool, temperature: float, scale: bool
) -> HeadTrace:
    q, k, v = matmul(x, w_q), matmul(x, w_k), matmul(x, w_v)  # [T × d_model] -> [T × d_head]
    scores = attention_scores(q, k)  # [T × T], rows = query, cols = key
    # a temperature divides the scores first; 1.0 leaves them as they are (s / 1.0 == s)
    cooled = scores if temperature == 1.0 else [[s / temperature for s in row] for row in scores]
    pattern = scale_mask_softmax(cooled, len(q[0]) if scale else 1, causal)  # sqrt(1) = 1
    return HeadTrace(q=q, k=k, v=v, scores=scores, pattern=pattern, z=mix_values(pattern, v))


def multi_head_attention(
    x: Matrix,
    params: Params,
    causal: bool = True,
    temperature: float = 1.0,
    scale: bool = True,
) -> Trace:
    """Every head on the same x, then the chapter's concat and W_O.

    Shapes: x [T × d_model], params as ``llm.init_params`` draws them -> Trace with concat,
    attn_out [T × d_model]. temperature in [0.05, 20]; scale=False drops sqrt(d_head).
    """
    x = _lists(x)
    temperature, scale = check_temperature(temperature), bool(scale)
    weights = zip(_lists(params.W_Q), _lists(params.W_K), _lists(params.W_V), strict=True)
    heads = tuple(_head(x, *w, causal, temperature, scale) for w in weights)
    concat = nn.concat_heads([head.z for head in heads])  # H × [T × d_head] -> [T × d_model]
    attn_out = matmul(concat, _lists(params.W_O))  # [T × d_model] -> [T × d_model]
    mask = causal_mask(len(x), causal)
    return Trace(heads, concat, attn_out, mask, causal, temperature, scale)


def row_entropy(pattern: Matrix) -> Vector:
    """Shannon entropy -Σ p ln p of each row, natural log, 0 ln 0 = 0. Shapes: [T × T] -> [T]."""
    return nn.row_entropy(_lists(pattern))


def head_entropy(pattern: Matrix) -> float:
    """Mean row entropy of one head: low = sharp, high = diffuse. Shapes: [T × T] -> scalar."""
    return nn.head_entropy(_lists(pattern))


def add(a: Matrix, b: Matrix) -> Matrix:
    """The residual connection, a + b. Shapes: [T × d] + [T × d] -> [T × d]."""
    return nn.add(_lists(a), _lists(b))


def _check_eps(eps: float) -> None:
    if not (math.isfinite(eps) and eps > 0.0):
        raise LabError("eps_range", f"eps must be a positive number, got {eps!r}.", value=eps)


def layer_norm(x: Matrix, eps: float = LN_EPS) -> Matrix:
    """Each row to mean 0, std 1: (x - mean) / sqrt(var + eps). Shapes: [T × d] -> [T × d]."""
    _check_eps(eps)
    return nn.layer_norm(_lists(x), eps)


def residual_layer_norm(
    x: Matrix, sublayer_out: Matrix, eps: float = LN_EPS
) -> tuple[Matrix, Matrix]:
    """resid = x + sublayer_out, then LayerNorm: returns (resid, ln_out).

    Shapes: [T × d_model], [T × d_model] -> ([T × d_model], [T × d_model]).
    """
    _check_eps(eps)
    return nn.residual_layer_norm(_lists(x), _lists(sublayer_out), eps)


def row_stats(m: Matrix) -> tuple[Vector, Vector]:
    """Mean and population std (divide by n) of every row. Shapes: [T × d] -> ([T], [T])."""
    return nn.row_stats(_lists(m))
