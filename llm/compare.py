"""The cross-check the app shows: the readable list-of-lists code against the numpy engine.

Both implementations run on the same X and the same weights; for every intermediate the largest
absolute difference between them is reported (it should be at floating-point noise, < 1e-12).
"""

from __future__ import annotations

import numpy as np

from llm import engine, nn
from llm.data import Params

# the quantities compared, in the order of the sublayer (per-head ones first)
HEAD_QUANTITIES = ("q", "k", "v", "scores", "pattern", "z")
QUANTITIES = (*HEAD_QUANTITIES, "concat", "attn_out", "resid", "ln_out")


def readable_run(
    x: np.ndarray, params: Params, causal: bool = True, eps: float = 1e-5
) -> dict[str, list]:
    """Run ``llm.nn`` (plain Python lists) on X and the weights, keeping every intermediate.

    Shapes: x [T, d_model] -> per-head quantities as H lists of [T × d_head] or [T × T];
    concat, attn_out, resid, ln_out as [T × d_model] lists.
    """
    heads, concat, attn_out = nn.multi_head_attention(
        x.tolist(),
        params.W_Q.tolist(),
        params.W_K.tolist(),
        params.W_V.tolist(),
        params.W_O.tolist(),
        causal,
    )
    resid, ln_out = nn.residual_layer_norm(x.tolist(), attn_out, eps)
    out: dict[str, list] = {name: [head[name] for head in heads] for name in HEAD_QUANTITIES}
    return out | {"concat": concat, "attn_out": attn_out, "resid": resid, "ln_out": ln_out}


def engine_run(
    x: np.ndarray, params: Params, causal: bool = True, eps: float = 1e-5
) -> dict[str, np.ndarray]:
    """The same intermediates from the numpy engine, stacked like ``readable_run``'s.

    Shapes: per-head quantities [H, T, d_head] or [H, T, T]; the rest [T, d_model].
    """
    return traced_outputs(x, engine.multi_head_attention(x, params, causal), eps)


def traced_outputs(x: np.ndarray, trace: engine.Trace, eps: float = 1e-5) -> dict[str, np.ndarray]:
    """``engine_run``'s intermediates from a sublayer the engine already ran on X.

    Shapes: x [T, d_model], a trace of H heads -> as ``engine_run``.
    """
    resid, ln_out = engine.residual_layer_norm(x, trace.attn_out, eps)
    out = {
        name: np.stack([getattr(head, name) for head in trace.heads]) for name in HEAD_QUANTITIES
    }
    return out | {
        "concat": trace.concat,
        "attn_out": trace.attn_out,
        "resid": resid,
        "ln_out": ln_out,
    }


def max_differences(
    readable: dict[str, list], engine_out: dict[str, np.ndarray]
) -> dict[str, float]:
    """The largest absolute difference of each quantity between the two runs.

    Shapes: two dicts of matching arrays -> {quantity: scalar}. Exact 0.0 where both agree.
    """
    return {name: engine.max_abs_diff(readable[name], engine_out[name]) for name in QUANTITIES}


def compare_implementations(
    x: np.ndarray, params: Params, causal: bool = True, eps: float = 1e-5
) -> dict[str, float]:
    """Run both implementations and return the largest absolute difference per quantity.

    Shapes: x [T, d_model] -> {quantity: scalar} for q k v scores pattern z concat attn_out
    resid ln_out.
    Example: max(compare_implementations(x, params).values()) < 1e-12
    """
    return max_differences(readable_run(x, params, causal, eps), engine_run(x, params, causal, eps))


def agree(differences: dict[str, float], tol: float = 1e-12) -> bool:
    """True when every largest difference is below tol: the two implementations agree.

    Shapes: {quantity: scalar} -> bool.
    """
    return all(d < tol for d in differences.values())
