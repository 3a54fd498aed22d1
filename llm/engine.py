"""The vectorized engine the app runs: one multi-head attention sublayer, traced step by step.

For each head h (an explicit loop, then a concat, as in picoGPT):

    q, k, v   = x @ W_Q[h], x @ W_K[h], x @ W_V[h]       [T, d_model] -> [T, d_head]
    scores    = q @ k.T                                   [T, T], rows = query, cols = key
    scaled    = scores / (temperature * sqrt(d_head))     without sqrt(d_head) when scale is off
    pattern   = softmax(mask(scaled))                     masked (j > i) = -inf -> exactly 0.0
    z         = pattern @ v                               [T, d_head]
concat = [z_0 | ... | z_{H-1}]  [T, d_model];   attn_out = concat @ W_O   [T, d_model]
resid = x + attn_out;   ln_out = (resid - mean) / sqrt(var + eps)   per row, population var

The chapters' formula is the default: temperature 1, scaled by sqrt(d_head). Same names as the
readable ``llm.attention`` / ``llm.nn`` where they overlap, same numbers to 1e-12. The lesson
analytics that read a trace (sharpness, asymmetry, contributions) are in ``llm.analysis``.
float64 throughout; nothing here returns NaN or inf for a valid config.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm.config import LN_EPS, LabError, check_temperature
from llm.data import Params


@dataclass(frozen=True)
class HeadTrace:
    """Every intermediate of one head. Shapes: q k v z [T, d_head]; the rest [T, T]."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scores: np.ndarray  # raw q @ k.T (not yet scaled)
    scaled: np.ndarray  # scores / (temperature * sqrt(d_head)), or / temperature without scale
    masked: np.ndarray  # scaled with -inf where a query may not look (j > i under the mask)
    pattern: np.ndarray  # softmax of each masked row; rows sum to 1
    z: np.ndarray  # pattern @ v


@dataclass(frozen=True)
class Trace:
    """The whole sublayer. Shapes: concat, attn_out [T, d_model]; mask [T, T] (True = may look)."""

    heads: tuple[HeadTrace, ...]
    concat: np.ndarray
    attn_out: np.ndarray
    mask: np.ndarray
    causal: bool
    temperature: float = 1.0  # the softmax temperature every head used
    scale: bool = True  # whether the scores were divided by sqrt(d_head)


def causal_mask(t: int, causal: bool = True) -> np.ndarray:
    """True where query i may look at key j: j <= i under the causal mask, everywhere otherwise.

    Shapes: -> [T, T] bool.
    """
    if not causal:
        return np.ones((t, t), dtype=bool)
    return np.tril(np.ones((t, t), dtype=bool))


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; -inf entries become exactly 0.0.

    Shapes: [..., n] -> [..., n]. Subtracting the row max avoids overflow for huge scores.
    """
    shifted = scores - scores.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=-1, keepdims=True)


def score_divisor(d_head: int, temperature: float = 1.0, scale: bool = True) -> float:
    """What the raw scores are divided by: temperature * sqrt(d_head), or temperature alone.

    Example: score_divisor(4) == 2.0; score_divisor(4, temperature=0.5, scale=False) == 0.5
    """
    return check_temperature(temperature) * (float(np.sqrt(d_head)) if scale else 1.0)


def attention_head(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    mask: np.ndarray,
    temperature: float = 1.0,
    scale: bool = True,
) -> HeadTrace:
    """One head with every step kept. Shapes: x [T, d_model], w_* [d_model, d_head]."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # [T, d_model] -> [T, d_head]
    scores = q @ k.T  # [T, d_head] @ [d_head, T] -> [T, T]
    scaled = scores / score_divisor(q.shape[-1], temperature, scale)
    masked = np.where(mask, scaled, -np.inf)
    pattern = softmax(masked)  # [T, T], rows sum to 1
    z = pattern @ v  # [T, T] @ [T, d_head] -> [T, d_head]
    return HeadTrace(
        q=q, k=k, v=v, scores=scores, scaled=scaled, masked=masked, pattern=pattern, z=z
    )


def multi_head_attention(
    x: np.ndarray,
    params: Params,
    causal: bool = True,
    temperature: float = 1.0,
    scale: bool = True,
) -> Trace:
    """Run every head on x, concatenate their z along the features, project through W_O.

    Shapes: x [T, d_model] -> Trace with concat, attn_out [T, d_model].
    temperature in [0.05, 20] (LabError outside, or for NaN/inf); scale=False drops sqrt(d_head).
    """
    temperature = check_temperature(temperature)
    scale = bool(scale)
    mask = causal_mask(x.shape[0], causal)
    heads = tuple(
        attention_head(x, params.W_Q[h], params.W_K[h], params.W_V[h], mask, temperature, scale)
        for h in range(params.W_Q.shape[0])
    )
    concat = np.concatenate([head.z for head in heads], axis=-1)  # H × [T, d_head] -> [T, d_model]
    attn_out = concat @ params.W_O  # [T, d_model] @ [d_model, d_model] -> [T, d_model]
    return Trace(
        heads=heads,
        concat=concat,
        attn_out=attn_out,
        mask=mask,
        causal=causal,
        temperature=temperature,
        scale=scale,
    )


def row_entropy(pattern: np.ndarray) -> np.ndarray:
    """Shannon entropy -Σ p ln p of each row, natural log, 0 ln 0 = 0.

    Shapes: [T, T] -> [T].
    """
    safe = np.where(pattern > 0.0, pattern, 1.0)  # ln 1 = 0 stands in for 0 ln 0
    return -(pattern * np.log(safe)).sum(axis=-1)


def head_entropy(pattern: np.ndarray) -> float:
    """Mean row entropy of one head: low = sharp (few keys per row), high = diffuse.

    Shapes: [T, T] -> scalar.
    """
    return float(row_entropy(pattern).mean())


def max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    """The largest |a - b| over all entries: how far two computations of one thing disagree.

    Shapes: [...] and the same shape -> scalar; 0.0 when they agree exactly.
    """
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The residual connection, a + b. Shapes: [T, d] + [T, d] -> [T, d]."""
    return a + b


def _check_eps(eps: float) -> None:
    if not (np.isfinite(eps) and eps > 0.0):
        raise LabError("eps_range", f"eps must be a positive number, got {eps!r}.", value=eps)


def layer_norm(x: np.ndarray, eps: float = LN_EPS) -> np.ndarray:
    """Each row to mean 0, std 1: (x - mean) / sqrt(var + eps), population variance.

    Shapes: [T, d] -> [T, d]. A constant row gives zeros (eps > 0 keeps the division finite).
    """
    _check_eps(eps)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def residual_layer_norm(
    x: np.ndarray, sublayer_out: np.ndarray, eps: float = LN_EPS
) -> tuple[np.ndarray, np.ndarray]:
    """resid = x + sublayer_out, then ln_out = layer_norm(resid): returns (resid, ln_out).

    Shapes: [T, d_model], [T, d_model] -> ([T, d_model], [T, d_model]).
    """
    resid = add(x, sublayer_out)
    return resid, layer_norm(resid, eps)


def row_stats(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population std (divide by n) of every row. Shapes: [T, d] -> ([T], [T])."""
    return m.mean(axis=-1), m.std(axis=-1)
