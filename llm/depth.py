"""Depth: the attention sublayer stacked 1 to 24 times in four ways, measured layer by layer.

Chapter 9, section 3, says why every sublayer is wrapped in a residual and a LayerNorm. Stacking
L sublayers (layer l drawn as ``init_params`` with seed cfg.seed + l, causal mask on) shows it:

    none      x_{l+1} = attn(x_l)
    residual  x_{l+1} = x_l + attn(x_l)
    post_ln   x_{l+1} = LN(x_l + attn(x_l))          the chapter's recipe (and the 2017 paper's)
    pre_ln    x_{l+1} = x_l + attn(LN(x_l))          GPT-2 and most models since

and at every layer's input x_l [T, d_model]:

    rms        = sqrt(mean(x_l²))                               how large the activations are
    similarity = mean over i < j of cos(x_l[i], x_l[j])         how alike the token rows point
    collapse   = ||x_l - 1 mean_row(x_l)||_F / ||x_l||_F        distance from rank one, 0: collapsed
    grad_norm  = ||d loss / d x_l||_F,  loss = sum(x_L * probe)  how much gradient reaches layer l

The gradients come from ``llm.backward``. LayerNorm has no gain or bias and eps = LN_EPS; there is
no final LayerNorm after the last layer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from llm.backward import attention_backward, layer_norm_backward
from llm.config import LN_EPS, AttentionConfig, LabError
from llm.data import Params, embed, init_params
from llm.engine import Trace, layer_norm, multi_head_attention

VARIANTS = ("none", "residual", "post_ln", "pre_ln")
MAX_LAYERS = 24  # beyond this the charts say nothing new
PROBE_STREAM = 1  # the probe's draw: SeedSequence([cfg.seed, 1]), apart from every layer's seed


@dataclass(frozen=True)
class DepthStack:
    """A stack at initialization and what it measures at every layer's input (L layers).

    Shapes: x [L+1, T, d_model] (x[0] = embed(tokens), x[L] = the output); rms, similarity,
    collapse, grad_norm [L+1]; probe [T, d_model]; params: L Params, layer 0 first.
    """

    variant: str
    params: tuple[Params, ...]
    x: np.ndarray
    rms: np.ndarray
    similarity: np.ndarray
    collapse: np.ndarray
    probe: np.ndarray
    grad_norm: np.ndarray


def rms(x: np.ndarray) -> float:
    """Root mean square of every entry: sqrt(mean(x²)). Shapes: [T, d] -> scalar."""
    return float(np.sqrt(np.mean(x**2)))


def mean_cosine(x: np.ndarray) -> float:
    """Mean cosine similarity of the rows over pairs i < j; 1.0 for a single row.

    Shapes: [T, d] -> scalar in [-1, 1]. A zero row counts as pointing nowhere (cosine 0).
    """
    t = x.shape[0]
    if t == 1:
        return 1.0
    norms = np.linalg.norm(x, axis=-1, keepdims=True)  # [T, 1]
    unit = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0.0)
    cos = unit @ unit.T  # [T, T]
    return float(cos[np.triu_indices(t, k=1)].mean())


def rank_one_distance(x: np.ndarray) -> float:
    """How far the rows are from all being the same: ||x - 1 mean_row(x)||_F / ||x||_F.

    Shapes: [T, d] -> scalar in [0, 1]; 0 when every token carries one vector (and for x = 0).
    """
    total = np.linalg.norm(x)
    spread = np.linalg.norm(x - x.mean(axis=0, keepdims=True))
    return float(spread / total) if total > 0.0 else 0.0


def _check(n_layers: int, variant: str) -> None:
    if isinstance(n_layers, bool) or not isinstance(n_layers, int | np.integer):
        n_layers = -1  # reported below like any other layer count out of range
    if not 1 <= n_layers <= MAX_LAYERS:
        raise LabError(
            "layers_range",
            f"n_layers must be a whole number from 1 to {MAX_LAYERS}, got {n_layers!r}.",
            value=n_layers,
            low=1,
            high=MAX_LAYERS,
        )
    if variant not in VARIANTS:
        raise LabError(
            "variant_name",
            f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}.",
            value=variant,
            options=", ".join(VARIANTS),
        )


def layer_params(cfg: AttentionConfig, n_layers: int) -> tuple[Params, ...]:
    """Layer l's weights: init_params with seed cfg.seed + l, wrapped modulo 2**32."""
    return tuple(
        init_params(dataclasses.replace(cfg, seed=(cfg.seed + i) % 2**32)) for i in range(n_layers)
    )


def probe(cfg: AttentionConfig, t: int) -> np.ndarray:
    """The fixed direction the loss reads the output along: N(0, 1), from cfg.seed alone.

    Shapes: -> [T, d_model]; the same for every variant and every depth.
    """
    return np.random.default_rng([cfg.seed, PROBE_STREAM]).standard_normal((t, cfg.d_model))


def layer_forward(x: np.ndarray, params: Params, variant: str) -> tuple[np.ndarray, Trace]:
    """One layer of the stack, and the trace of its attention (what the backward pass reads).

    Shapes: [T, d_model] -> [T, d_model]. Under pre_ln the trace is that of attn(LN(x)).
    """
    trace = multi_head_attention(layer_norm(x) if variant == "pre_ln" else x, params)
    if variant == "none":
        return trace.attn_out, trace
    resid = x + trace.attn_out
    return (layer_norm(resid) if variant == "post_ln" else resid), trace


def layer_backward(
    x: np.ndarray, params: Params, variant: str, trace: Trace, d_next: np.ndarray
) -> np.ndarray:
    """d loss / d x given d loss / d out, where (out, trace) = layer_forward(x, params, variant).

    Shapes: x, d_next [T, d_model] -> [T, d_model].
    """
    if variant == "pre_ln":
        d_u = attention_backward(layer_norm(x), params, trace, d_next).x  # through attn
        return d_next + layer_norm_backward(x, d_u, LN_EPS)  # identity path + through LN
    if variant == "post_ln":
        d_next = layer_norm_backward(x + trace.attn_out, d_next, LN_EPS)  # d loss / d resid
    d_x = attention_backward(x, params, trace, d_next).x
    return d_x if variant == "none" else d_next + d_x


def depth_stack(
    cfg: AttentionConfig, tokens: list[str], n_layers: int = 12, variant: str = "pre_ln"
) -> DepthStack:
    """Stack n_layers sublayers in one of the four ways and measure every layer's input.

    Shapes: T tokens -> DepthStack with x [L+1, T, d_model] and four curves [L+1].
    LabError for an unknown variant or n_layers outside 1..24.
    """
    _check(n_layers, variant)
    params = layer_params(cfg, n_layers)
    xs, traces = [embed(tokens, cfg)], []  # every layer's input [T, d_model], its attention
    for p in params:
        out, trace = layer_forward(xs[-1], p, variant)
        xs.append(out)
        traces.append(trace)
    target = probe(cfg, len(tokens))
    grads = [target]  # d loss / d x_L = probe
    for i in range(n_layers - 1, -1, -1):
        grads.append(layer_backward(xs[i], params[i], variant, traces[i], grads[-1]))
    grads.reverse()  # grads[l] = d loss / d x_l
    return DepthStack(
        variant=variant,
        params=params,
        x=np.stack(xs),  # (L+1) × [T, d_model] -> [L+1, T, d_model]
        rms=np.array([rms(x) for x in xs]),
        similarity=np.array([mean_cosine(x) for x in xs]),
        collapse=np.array([rank_one_distance(x) for x in xs]),
        probe=target,
        grad_norm=np.array([float(np.linalg.norm(g)) for g in grads]),
    )
