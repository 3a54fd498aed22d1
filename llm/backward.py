"""Backward passes of the sublayer's pieces: attention and LayerNorm, by the chain rule, by hand.

Given the gradient of a loss with respect to a piece's output, return the gradient with respect to
its input (and its weights). Per head, reading the forward pass of ``llm.engine`` backwards:

    d_W_O    = concatᵀ @ d_attn_out                     d_concat = d_attn_out @ W_Oᵀ
    d_z      = d_concat[:, h·d_head : (h+1)·d_head]
    d_v      = patternᵀ @ d_z                            d_pattern = d_z @ vᵀ
    d_scaled = pattern * (d_pattern - Σ_j d_pattern * pattern)   softmax, row by row
    d_scores = d_scaled / (temperature * sqrt(d_head))          (/ temperature without scale)
    d_q      = d_scores @ k                              d_k = d_scoresᵀ @ q
    d_W_Q    = xᵀ @ d_q,   d_W_K = xᵀ @ d_k,   d_W_V = xᵀ @ d_v
    d_x      = Σ_h  d_q @ W_Q[h]ᵀ + d_k @ W_K[h]ᵀ + d_v @ W_V[h]ᵀ

Masked pairs have pattern 0, so d_scaled is 0 there: no gradient flows where a query may not look.
LayerNorm without gain or bias, y = (x - mean) / sigma with sigma = sqrt(var + eps), per row of n:

    d_x = (d_y - mean(d_y) - y * mean(d_y * y)) / sigma

float64, row vectors, shapes as in the forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm.config import LN_EPS
from llm.data import Params
from llm.engine import Trace, score_divisor


@dataclass(frozen=True)
class AttentionGrads:
    """Gradients of a loss through one sublayer, each the shape of what it differentiates.

    Shapes: x [T, d_model]; W_Q, W_K, W_V [n_heads, d_model, d_head]; W_O [d_model, d_model].
    """

    x: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray


def softmax_backward(pattern: np.ndarray, d_pattern: np.ndarray) -> np.ndarray:
    """Through a row softmax: d_in = pattern * (d_pattern - Σ_j d_pattern * pattern), per row.

    Shapes: [T, T], [T, T] -> [T, T]. Zero wherever the pattern is zero (masked pairs).
    """
    return pattern * (d_pattern - (d_pattern * pattern).sum(axis=-1, keepdims=True))


def attention_backward(
    x: np.ndarray, params: Params, trace: Trace, d_attn_out: np.ndarray
) -> AttentionGrads:
    """Gradients of a loss with respect to x and every weight, given d loss / d attn_out.

    ``trace`` is ``multi_head_attention(x, params, ...)``: its pattern carries the mask, and its
    temperature and scale say what the scores were divided by.
    Shapes: x [T, d_model], d_attn_out [T, d_model] -> AttentionGrads (see its shapes).
    """
    d_concat = d_attn_out @ params.W_O.T  # [T, d_model] @ [d_model, d_model] -> [T, d_model]
    d_x = np.zeros_like(x)
    d_w = {name: np.zeros_like(getattr(params, name)) for name in ("W_Q", "W_K", "W_V")}
    for h, head in enumerate(trace.heads):
        d_head = head.q.shape[-1]
        d_z = d_concat[:, h * d_head : (h + 1) * d_head]  # [T, d_model] -> [T, d_head]
        d_v = head.pattern.T @ d_z  # [T, T] @ [T, d_head] -> [T, d_head]
        d_pattern = d_z @ head.v.T  # [T, d_head] @ [d_head, T] -> [T, T]
        d_scaled = softmax_backward(head.pattern, d_pattern)  # [T, T]
        d_scores = d_scaled / score_divisor(d_head, trace.temperature, trace.scale)
        d_q = d_scores @ head.k  # [T, T] @ [T, d_head] -> [T, d_head]
        d_k = d_scores.T @ head.q  # [T, T] @ [T, d_head] -> [T, d_head]
        for name, d_out in (("W_Q", d_q), ("W_K", d_k), ("W_V", d_v)):
            d_w[name][h] = x.T @ d_out  # [d_model, T] @ [T, d_head] -> [d_model, d_head]
            d_x += d_out @ getattr(params, name)[h].T  # [T, d_head] -> [T, d_model]
    d_w_o = trace.concat.T @ d_attn_out  # [d_model, T] @ [T, d_model] -> [d_model, d_model]
    return AttentionGrads(x=d_x, W_Q=d_w["W_Q"], W_K=d_w["W_K"], W_V=d_w["W_V"], W_O=d_w_o)


def layer_norm_backward(x: np.ndarray, d_out: np.ndarray, eps: float = LN_EPS) -> np.ndarray:
    """Through LayerNorm without gain or bias: (d_out - mean(d_out) - y mean(d_out y)) / sigma.

    Shapes: x [T, d], d_out [T, d] -> [T, d]. Each row of the result sums to zero.
    """
    # every row mean below is a sum / n: np.mean's own arithmetic, without its Python overhead
    n = x.shape[-1]
    x_c = x - x.sum(axis=-1, keepdims=True) / n  # [T, d], centred
    sigma = np.sqrt((x_c * x_c).sum(axis=-1, keepdims=True) / n + eps)  # [T, 1]
    y = x_c / sigma  # [T, d], the forward output
    centred = d_out - d_out.sum(axis=-1, keepdims=True) / n
    return (centred - y * ((d_out * y).sum(axis=-1, keepdims=True) / n)) / sigma
