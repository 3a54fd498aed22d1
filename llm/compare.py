"""The cross-check the app shows: one sublayer through either implementation, and how far apart.

``llm.engine`` (numpy) and ``llm.readable`` (the chapters' list code) answer the same calls, so
one function runs either on the same X and the same weights; for every intermediate the largest
absolute difference between the two runs is reported (it should be at floating-point noise,
< 1e-12).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from llm import engine, readable
from llm.config import LN_EPS
from llm.data import Params

# the quantities compared, in the order of the sublayer (per-head ones first)
HEAD_QUANTITIES = ("q", "k", "v", "scores", "pattern", "z")
QUANTITIES = (*HEAD_QUANTITIES, "concat", "attn_out", "resid", "ln_out")


def outputs(impl: ModuleType, x: np.ndarray, trace: object, eps: float = LN_EPS) -> dict:
    """Every compared quantity of a sublayer that ``impl`` ran on X, with its residual and
    LayerNorm computed by the same ``impl``.

    Shapes: x [T, d_model], a trace of H heads -> per-head quantities as H matrices of
    [T, d_head] or [T, T]; concat, attn_out, resid, ln_out [T, d_model]. Arrays from
    ``llm.engine``, lists from ``llm.readable``.
    """
    resid, ln_out = impl.residual_layer_norm(x, trace.attn_out, eps)
    per_head = {name: [getattr(head, name) for head in trace.heads] for name in HEAD_QUANTITIES}
    rest = {"concat": trace.concat, "attn_out": trace.attn_out, "resid": resid, "ln_out": ln_out}
    return per_head | rest


def run(
    impl: ModuleType, x: np.ndarray, params: Params, causal: bool = True, eps: float = LN_EPS
) -> dict:
    """Run the sublayer through ``impl`` (``llm.engine`` or ``llm.readable``), every
    intermediate kept. Shapes: as ``outputs``.
    Example: run(readable, x, params)["ln_out"]  # a [T × d_model] list
    """
    return outputs(impl, x, impl.multi_head_attention(x, params, causal), eps)


def max_differences(a: dict, b: dict) -> dict[str, float]:
    """The largest absolute difference of each quantity between two runs.

    Shapes: two dicts of matching matrices -> {quantity: scalar}. Exact 0.0 where both agree.
    """
    return {name: engine.max_abs_diff(a[name], b[name]) for name in QUANTITIES}


def compare_implementations(
    x: np.ndarray, params: Params, causal: bool = True, eps: float = LN_EPS
) -> dict[str, float]:
    """Run both implementations and return the largest absolute difference per quantity.

    Shapes: x [T, d_model] -> {quantity: scalar} for q k v scores pattern z concat attn_out
    resid ln_out.
    Example: max(compare_implementations(x, params).values()) < 1e-12
    """
    return max_differences(
        run(readable, x, params, causal, eps), run(engine, x, params, causal, eps)
    )


def head_differences(
    x: np.ndarray, params: Params, trace: engine.Trace, h: int
) -> dict[str, float]:
    """Head h of an engine trace against the readable code's run of that head on the same X,
    weights, mask, temperature and scale: the largest difference of each of its quantities.

    Shapes: x [T, d_model] -> {q k v scores pattern z: scalar}.
    """
    w = (params.W_Q[h], params.W_K[h], params.W_V[h])
    mine = readable.attention_head(x, *w, trace.mask, trace.temperature, trace.scale)
    theirs = trace.heads[h]
    return {
        name: engine.max_abs_diff(getattr(mine, name), getattr(theirs, name))
        for name in HEAD_QUANTITIES
    }


def layer_norm_differences(
    x: np.ndarray, attn_out: np.ndarray, eps: float = LN_EPS
) -> dict[str, float]:
    """The residual and LayerNorm of both implementations on the same X and attn_out.

    Shapes: x, attn_out [T, d_model] -> {resid, ln_out: scalar}.
    """
    a = readable.residual_layer_norm(x, attn_out, eps)
    b = engine.residual_layer_norm(x, attn_out, eps)
    return {name: engine.max_abs_diff(m, n) for name, m, n in zip(("resid", "ln_out"), a, b)}


def agree(differences: dict[str, float], tol: float = 1e-12) -> bool:
    """True when every largest difference is below tol: the two implementations agree.

    Shapes: {quantity: scalar} -> bool.
    """
    return all(d < tol for d in differences.values())
