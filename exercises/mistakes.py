"""The usual mistakes of each cell, and the engine's right answers they are told apart from.

A mistake is what a learner's function returns when it makes that mistake: ``wrong(*args)`` on
the same arguments as the cell. The right answers and the wrong ones share one function each
(``pattern_of``, ``attention``, ``norm``, ``stack``), a keyword away from each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llm import engine


@dataclass(frozen=True)
class Mistake:
    """A usual wrong answer: ``wrong(*args)`` is what that mistake returns."""

    code: str
    wrong: Callable[..., np.ndarray]


def masked(scores: np.ndarray, d_k: float, causal: bool) -> np.ndarray:
    """Scaled scores with -inf where a query may not look, as the engine masks them.

    Shapes: [T, T] -> [T, T].
    """
    return np.where(engine.causal_mask(len(scores), causal), scores / math.sqrt(d_k), -np.inf)


def pattern_of(scores: np.ndarray, d_k: float, causal: bool, columns: bool = False) -> np.ndarray:
    """The engine's softmax of each row; ``columns`` = the mistake of a softmax over columns.

    Shapes: [T, T] -> [T, T].
    """
    scaled = masked(scores, d_k, causal)
    return engine.softmax(scaled.T).T if columns else engine.softmax(scaled)


def attention(
    x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, **kw: Any
) -> np.ndarray:
    """The engine's causal head; ``d_k``, ``causal``, ``columns`` give the usual mistakes.

    Shapes: x [T, d_model], wq wk wv [d_model, d_head] -> [T, d_head].
    """
    if not kw:
        return engine.attention_head(x, wq, wk, wv, engine.causal_mask(len(x))).z
    q, k, v = x @ wq, x @ wk, x @ wv
    d_k = kw.get("d_k", q.shape[1])
    return pattern_of(q @ k.T, d_k, kw.get("causal", True), kw.get("columns", False)) @ v


def entropies(patterns: Sequence[np.ndarray], log: Callable = np.log) -> np.ndarray:
    """Mean row entropy per head with another log: the mistake of a base-2 log.

    Shapes: H × [T, T] -> [H].
    """
    rows = [-(p * log(np.where(p > 0.0, p, 1.0))).sum(axis=-1) for p in patterns]
    return np.array([r.mean() for r in rows])


def norm(
    m: np.ndarray, eps: float, ddof: int = 0, axis: int = -1, inside: bool = True
) -> np.ndarray:
    """LayerNorm's usual mistakes: n - 1, eps outside the sqrt, no eps, over the columns.

    Shapes: [T, d_model] -> [T, d_model].
    """
    mean = m.mean(axis=axis, keepdims=True)
    std = m.std(axis=axis, ddof=ddof, keepdims=True)
    denom = np.sqrt(std**2 + eps) if inside else std + eps
    with np.errstate(divide="ignore", invalid="ignore"):  # no eps: a constant row is 0 / 0
        return (m - mean) / denom


def stack(
    x: np.ndarray, ws: Sequence[np.ndarray], eps: float, wiring: str = "post_ln"
) -> np.ndarray:
    """Layers of ``x = LN(x + x · w)``, or one of the usual wrong wirings of the recipe.

    ``pre_ln`` x + LN(x) · w (LN before the residual); ``norm_first`` LN(x) + x · w;
    ``no_residual`` LN(x · w); ``no_norm`` x + x · w; ``norm_once`` one LN after the last layer;
    ``not_chained`` every layer reads the input, not the layer before; ``sample_std`` and
    ``eps_outside`` LayerNorm's own mistakes. Shapes: [T, d_model], L × [d_model, d_model]
    -> [T, d_model].
    """
    first = x
    for w in ws:
        if wiring == "pre_ln":
            x = x + norm(x, eps) @ w
        elif wiring == "norm_first":
            x = norm(x, eps) + x @ w
        elif wiring == "no_residual":
            x = norm(x @ w, eps)
        elif wiring in ("no_norm", "norm_once"):
            x = x + x @ w
        elif wiring == "not_chained":
            x = norm(first + first @ w, eps)
        elif wiring == "sample_std":
            x = norm(x + x @ w, eps, ddof=1)
        elif wiring == "eps_outside":
            x = norm(x + x @ w, eps, inside=False)
        else:
            x = engine.residual_layer_norm(x, x @ w, eps)[1]
    return norm(x, eps) if wiring == "norm_once" else x


SCORES = (
    Mistake("scores_transposed", lambda q, k: k @ q.T),
    Mistake("scores_scaled", lambda q, k: q @ k.T / math.sqrt(q.shape[1])),
)
SOFTMAX = (
    Mistake("no_scale", lambda s, d_k, causal: pattern_of(s, 1.0, causal)),
    Mistake("scale_by_dk", lambda s, d_k, causal: pattern_of(s, float(d_k) ** 2, causal)),
    Mistake("no_mask", lambda s, d_k, causal: pattern_of(s, d_k, False)),
    Mistake("mask_when_off", lambda s, d_k, causal: pattern_of(s, d_k, True)),
    Mistake("softmax_columns", lambda s, d_k, causal: pattern_of(s, d_k, causal, columns=True)),
)
MIX = (Mistake("pattern_transposed", lambda p, v: p.T @ v),)
ENTROPY = (
    Mistake("entropy_sign", lambda ps: -entropies(ps)),
    Mistake("entropy_log2", lambda ps: entropies(ps, np.log2)),
    Mistake("entropy_sum", lambda ps: entropies(ps) * np.array([len(p) for p in ps])),
)
COMBINE = (
    Mistake("no_w_o", lambda outs, w_o: np.concatenate(outs, axis=1)),
    Mistake("w_o_transposed", lambda outs, w_o: np.concatenate(outs, axis=1) @ w_o.T),
    Mistake("heads_reversed", lambda outs, w_o: np.concatenate(outs[::-1], axis=1) @ w_o),
    Mistake("concat_tokens", lambda outs, w_o: np.concatenate(outs, axis=0)),
)
ADD_NORM = (
    Mistake("no_residual", lambda x, sub, eps: norm(sub, eps)),
    Mistake("residual_only", lambda x, sub, eps: x + sub),
    Mistake("sample_std", lambda x, sub, eps: norm(x + sub, eps, ddof=1)),
    Mistake("eps_outside", lambda x, sub, eps: norm(x + sub, eps, inside=False)),
    Mistake("no_eps", lambda x, sub, eps: norm(x + sub, 0.0)),
    Mistake("norm_columns", lambda x, sub, eps: norm(x + sub, eps, axis=0)),
)
ATTENTION = (
    Mistake("no_scale", lambda *a: attention(*a, d_k=1.0)),
    Mistake("no_mask", lambda *a: attention(*a, causal=False)),
    Mistake("softmax_columns", lambda *a: attention(*a, columns=True)),
)
DEPTH = tuple(
    Mistake(code, lambda x, ws, eps, wiring=wiring: stack(x, ws, eps, wiring))
    for code, wiring in (
        ("depth_pre_ln", "pre_ln"),
        ("depth_norm_first", "norm_first"),
        ("depth_no_residual", "no_residual"),
        ("depth_no_norm", "no_norm"),
        ("depth_norm_once", "norm_once"),
        ("depth_not_chained", "not_chained"),
        ("sample_std", "sample_std"),
        ("eps_outside", "eps_outside"),
    )
)
