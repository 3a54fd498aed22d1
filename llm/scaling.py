"""Why divide by √d_k, measured: the spread of q·k and the softmax's sharpness as d_k grows.

A score q·k is a sum of d_k products. With features of about unit size, each product adds about
the same variance, so the spread (standard deviation) of the raw scores grows like √d_k, and a
softmax of ever wider scores ends on one key per row. Dividing by √d_k keeps the spread where it
was, whatever d_k. Measured on the lab's own X, for d_k = 1 … D:

    W_Q, W_K   [d_model, D]  drawn from the seed as ``init_params`` draws the lab's:
                             N(0, 1) × QK_GAIN / √d_model; width d_k takes the first d_k columns
    raw_d      = (X W_Q[:, :d]) (X W_K[:, :d])ᵀ                       [T, T]
    raw_std    = std of raw_d over the pairs the mask keeps (population std)
    scaled_std = raw_std / √d                                          (the scores softmax sees)
    entropy    = mean row entropy of softmax(mask(raw_d / √d)) and of softmax(mask(raw_d))
    top        = mean over rows of the largest probability, the same two ways
    exponent   = p of the least-squares fit raw_std ~ d_k ** p on the logs (√d_k is p = 0.5)

Shapes: every measured series is [D], one number per d_k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm.analysis import max_head_entropy
from llm.data import QK_GAIN
from llm.engine import causal_mask, row_entropy, softmax

MAX_D_K = 64  # the widest head measured


@dataclass(frozen=True)
class Scaling:
    """The sweep over d_k. Shapes: every array [D], index d - 1 for d_k = d."""

    d_k: np.ndarray  # 1, 2, ..., D
    raw_std: np.ndarray  # spread of q·k, grows like √d_k
    scaled_std: np.ndarray  # spread of q·k / √d_k, stays near constant
    raw_entropy: np.ndarray  # mean row entropy of the pattern without √d_k
    scaled_entropy: np.ndarray  # ... with it
    raw_top: np.ndarray  # mean largest probability of a row without √d_k
    scaled_top: np.ndarray  # ... with it
    max_entropy: float  # the ceiling: mean of ln(keys a row may see)
    exponent: float  # raw_std grows like d_k ** exponent (0.5 for √d_k); NaN for one token


def scaling_weights(d_model: int, seed: int, max_d_k: int = MAX_D_K) -> tuple[np.ndarray, ...]:
    """W_Q and W_K of the widest head, drawn from the seed with the lab's scale.

    Shapes: -> W_Q, W_K [d_model, max_d_k].
    """
    rng = np.random.default_rng(seed)
    gain = QK_GAIN / np.sqrt(d_model)
    w_q = rng.standard_normal((d_model, max_d_k)) * gain
    w_k = rng.standard_normal((d_model, max_d_k)) * gain
    return w_q, w_k


def power_law_exponent(x: np.ndarray, y: np.ndarray) -> float:
    """The p of the least-squares fit y ~ c * x ** p on the logs; NaN unless every y > 0.

    Shapes: x [N], y [N] -> scalar.
    Example: power_law_exponent(np.array([1.0, 4.0]), np.array([3.0, 6.0])) == 0.5
    """
    if len(x) < 2 or not np.all(y > 0.0):
        return float("nan")
    lx, ly = np.log(x), np.log(y)
    lx0 = lx - lx.mean()
    return float((lx0 * (ly - ly.mean())).sum() / (lx0**2).sum())


def scaling_sweep(x: np.ndarray, seed: int, causal: bool = True, max_d_k: int = MAX_D_K) -> Scaling:
    """Spread of the scores and sharpness of the pattern for every d_k from 1 to ``max_d_k``.

    Shapes: x [T, d_model] -> Scaling of [max_d_k] series.
    Example: s = scaling_sweep(x, 0); s.raw_std[63] / s.raw_std[0] is near √64 = 8
    """
    w_q, w_k = scaling_weights(x.shape[1], seed, max_d_k)
    q, k = x @ w_q, x @ w_k  # [T, d_model] -> [T, D]
    # raw[d - 1] = the scores of width d: the running sum of one feature's q_i k_j at a time
    products = np.einsum("ic,jc->cij", q, k)  # [D, T, T]
    raw = np.cumsum(products, axis=0)  # [D, T, T]
    d_k = np.arange(1, max_d_k + 1)
    mask = causal_mask(x.shape[0], causal)
    raw_std = raw[:, mask].std(axis=-1)  # [D]: over the pairs a query may see
    stats = {}
    for name, scores in (("raw", raw), ("scaled", raw / np.sqrt(d_k)[:, None, None])):
        pattern = softmax(np.where(mask, scores, -np.inf))  # [D, T, T]
        stats[f"{name}_entropy"] = row_entropy(pattern).mean(axis=-1)
        stats[f"{name}_top"] = pattern.max(axis=-1).mean(axis=-1)
    return Scaling(
        d_k=d_k,
        raw_std=raw_std,
        scaled_std=raw_std / np.sqrt(d_k),
        max_entropy=max_head_entropy(x.shape[0], causal),
        exponent=power_law_exponent(d_k.astype(np.float64), raw_std),
        **stats,
    )
