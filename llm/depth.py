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

The gradients are ``llm.backward``'s formulas with the heads batched (``attend_backward``; the
tests check it against ``attention_backward`` and finite differences). LayerNorm has no gain or
bias and eps = LN_EPS; there is no final LayerNorm after the last layer.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from llm.backward import layer_norm_backward
from llm.config import LN_EPS, AttentionConfig, LabError
from llm.data import MAX_TOKENS, Params, embed, init_params
from llm.engine import causal_mask, layer_norm

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


def rms(x: np.ndarray) -> np.ndarray | float:
    """Root mean square of every entry of each matrix: sqrt(mean(x²)).

    Shapes: [..., T, d] -> [...] (a float for one matrix).
    """
    return _scalar(np.sqrt((x**2).mean(axis=(-2, -1))))


def mean_cosine(x: np.ndarray) -> np.ndarray | float:
    """Mean cosine similarity of the rows over pairs i < j; 1.0 for a single row.

    Shapes: [..., T, d] -> [...] in [-1, 1] (a float for one matrix). A zero row counts as
    pointing nowhere (cosine 0).
    """
    t = x.shape[-2]
    if t == 1:
        return _scalar(np.ones(x.shape[:-2]))
    norms = np.linalg.norm(x, axis=-1, keepdims=True)  # [..., T, 1]
    unit = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0.0)
    cos = unit @ unit.swapaxes(-1, -2)  # [..., T, T]
    i, j = np.triu_indices(t, k=1)
    return _scalar(cos[..., i, j].mean(axis=-1))


def rank_one_distance(x: np.ndarray) -> np.ndarray | float:
    """How far the rows are from all being the same: ||x - 1 mean_row(x)||_F / ||x||_F.

    Shapes: [..., T, d] -> [...] in [0, 1] (a float for one matrix); 0 when every token carries
    one vector (and for x = 0).
    """
    total = np.linalg.norm(x, axis=(-2, -1))
    spread = np.linalg.norm(x - x.mean(axis=-2, keepdims=True), axis=(-2, -1))
    out = np.divide(spread, total, out=np.zeros_like(total), where=total > 0.0)
    return _scalar(out)


def _scalar(a: np.ndarray) -> np.ndarray | float:
    return float(a) if a.ndim == 0 else a


def _check(n_layers: int, variant: str) -> None:
    whole = isinstance(n_layers, int | np.integer) and not isinstance(n_layers, bool)
    if not (whole and 1 <= n_layers <= MAX_LAYERS):
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
    """Layer l's weights: init_params with seed cfg.seed + l, wrapped modulo 2**32.

    Read-only and shared: layer l of seed s is layer l - 1 of seed s + 1, so a stack one seed
    further (the seed box's + and -) draws one layer's weights instead of all of them.
    """
    return tuple(
        _layer_weights(dataclasses.replace(cfg, seed=(cfg.seed + i) % 2**32))
        for i in range(n_layers)
    )


@functools.lru_cache(maxsize=2 * MAX_LAYERS)
def _layer_weights(cfg: AttentionConfig) -> Params:
    """``init_params(cfg)``, drawn once while it is among the last 48 layers' weights used
    (two stacks of 24: at d_model 64 they are 128 kB a layer), its arrays read-only."""
    params = init_params(cfg)
    for w in (params.W_Q, params.W_K, params.W_V, params.W_O):
        w.setflags(write=False)
    return params


def probe(cfg: AttentionConfig, t: int) -> np.ndarray:
    """The fixed direction the loss reads the output along: N(0, 1), from cfg.seed alone.

    Shapes: -> [T, d_model]; the same for every variant and every depth.
    """
    return np.random.default_rng([cfg.seed, PROBE_STREAM]).standard_normal((t, cfg.d_model))


@dataclass(frozen=True)
class Attended:
    """One batched sublayer's forward pass, kept for its backward (a leading [...] of stacks).

    Shapes: q_scaled (q / sqrt(d_head)), k, v, z [..., H, T, d_head]; pattern_t [..., H, T, T],
    the pattern transposed (rows = key, cols = query); attn_out [..., T, d_model]; w_qkv: the
    layer's W_Q, W_K, W_V, each [d_model, H·d_head] (``_flat``), the backward's too.
    """

    q_scaled: np.ndarray
    k: np.ndarray
    v: np.ndarray
    pattern_t: np.ndarray
    z: np.ndarray
    attn_out: np.ndarray
    w_qkv: tuple[np.ndarray, np.ndarray, np.ndarray]


def _flat(w: np.ndarray) -> np.ndarray:
    """Every head's weights side by side. Shapes: [H, d_model, d_head] -> [d_model, H·d_head]."""
    return w.transpose(1, 0, 2).reshape(w.shape[1], -1)


def _split(m: np.ndarray, n_heads: int) -> np.ndarray:
    """Shapes: [..., T, H·d_head] -> [..., H, T, d_head], head 0 first."""
    return m.reshape(*m.shape[:-1], n_heads, -1).swapaxes(-3, -2)


def _merge(m: np.ndarray) -> np.ndarray:
    """Shapes: [..., H, T, d_head] -> [..., T, H·d_head], the inverse of ``_split``."""
    m = m.swapaxes(-3, -2)
    return m.reshape(*m.shape[:-2], -1)


@functools.lru_cache(maxsize=MAX_TOKENS)
def _masks(t: int) -> tuple[np.ndarray, np.ndarray]:
    """The transposed causal mask [key, query] as 1.0 / 0.0, and as 0.0 / -1e300 to add.

    Shapes: -> [T, T], [T, T], read-only (one pair per T, shared).
    """
    visible = causal_mask(t).T.astype(np.float64)
    below = np.where(visible > 0.0, 0.0, -1e300)
    visible.setflags(write=False)
    below.setflags(write=False)
    return visible, below


def attend(x: np.ndarray, params: Params, out: np.ndarray | None = None) -> Attended:
    """``multi_head_attention(x, params).attn_out`` (causal, scaled) for a batch of inputs.

    The engine's formulas with the heads and the stacks as array axes instead of loops, the
    [T, T] steps in place and on the transposed pattern (numpy reduces a short last axis slowly):
    the four variants of a 24-layer stack run in one pass. The tests compare it with the engine.
    Shapes: x [..., T, d_model] -> attn_out [..., T, d_model]. ``out``: where to write the
    pattern (the ``pattern_t`` kept), [..., H, T, T]; a new array when None.
    """
    n_heads, _, d_head = params.W_Q.shape
    w_qkv = (_flat(params.W_Q), _flat(params.W_K), _flat(params.W_V))  # [d_model, H·d_head]
    q, k, v = (_split(x @ w, n_heads) for w in w_qkv)
    q_scaled = q / np.sqrt(d_head)  # [..., H, T, d_head]
    # scaled scores transposed [..., H, key, query]
    p_t = np.matmul(k, q_scaled.swapaxes(-1, -2), out=out)
    visible, below = _masks(x.shape[-2])  # [key, query]: 1 / 0, and 0 / -1e300 where masked
    p_t += below  # masked: far below every visible score
    p_t -= p_t.max(axis=-2, keepdims=True)  # softmax over the keys, as llm.engine.softmax ...
    # ... but floored at e^-600 ≈ 3e-261, so that neither exp nor the backward's products work
    # in the slow subnormal range (deep stacks give scores millions apart); no column sum moves
    # by more than T · 3e-261 (masked pairs too: exp is as slow far below -600)
    np.maximum(p_t, -600.0, out=p_t)
    np.exp(p_t, out=p_t)
    p_t *= visible  # masked pairs: exactly 0
    p_t *= 1.0 / (np.ones(p_t.shape[-2]) @ p_t)[..., None, :]  # each query's column sums to 1
    z = p_t.swapaxes(-1, -2) @ v  # pattern @ v: [..., H, T, d_head]
    attn_out = _merge(z) @ params.W_O  # [..., T, d_model] @ [d_model, d_model]
    return Attended(q_scaled, k, v, p_t, z, attn_out, w_qkv)


def attend_backward(
    a: Attended, params: Params, d_attn_out: np.ndarray, work: np.ndarray | None = None
) -> np.ndarray:
    """d loss / d x through ``attend``: ``attention_backward(...).x`` for a batch of inputs.

    Shapes: d_attn_out [..., T, d_model] -> [..., T, d_model]. ``work``: an array of the
    pattern's shape to hold d pattern (overwritten); a new one when None.
    """
    n_heads, _, d_head = params.W_Q.shape
    d_z = _split(d_attn_out @ params.W_O.T, n_heads)  # [..., H, T, d_head]
    d_v = a.pattern_t @ d_z  # patternᵀ @ d_z
    # d pattern, transposed [..., H, key, query]; in place:
    d_t = np.matmul(a.v, d_z.swapaxes(-1, -2), out=work)
    # softmax_backward's row sum, Σ_j d_pattern[i, j] pattern[i, j], is d_z[i] · z[i]
    d_t -= ((d_z * a.z) @ np.ones(d_z.shape[-1]))[..., None, :]
    d_t *= a.pattern_t  # d scaled, transposed
    d_q = (d_t.swapaxes(-1, -2) @ a.k) / np.sqrt(d_head)  # d scaled @ k, then through the scale
    d_k = d_t @ a.q_scaled  # d scaledᵀ @ q_scaled
    return sum(_merge(d) @ w.T for d, w in zip((d_q, d_k, d_v), a.w_qkv))  # [..., T, d_model]


@functools.lru_cache(maxsize=64)  # six lookups a layer, on a handful of variant tuples
def _rows(variants: tuple[str, ...], name: str) -> slice | list[int]:
    """Which stacks of a batch are wired as ``name``: a slice when they stand together (as in
    VARIANTS: a view, where a list of rows would copy them), else their list."""
    rows = [i for i, v in enumerate(variants) if v == name]
    if not rows:
        return slice(0, 0)
    if rows == list(range(rows[0], rows[-1] + 1)):
        return slice(rows[0], rows[-1] + 1)
    return rows


def layer_forward(
    x: np.ndarray, params: Params, variants: tuple[str, ...], pattern: np.ndarray | None = None
) -> tuple[np.ndarray, Attended]:
    """One layer for every stack of the batch, each wired as its variant: (output, the pass).

    Shapes: x [V, T, d_model] -> [V, T, d_model]; under pre_ln the attention reads LN(x).
    ``pattern``: where ``attend`` writes the pass's pattern, [V, H, T, T].
    """
    pre, post, none = (_rows(variants, v) for v in ("pre_ln", "post_ln", "none"))
    read = x.copy()
    read[pre] = layer_norm(x[pre])  # what attn reads: LN(x) under pre_ln, x elsewhere
    a = attend(read, params, pattern)
    out = x + a.attn_out  # residual and pre_ln; post_ln before its LN
    out[post] = layer_norm(out[post])
    out[none] = a.attn_out[none]
    return out, a


def layer_backward(
    x: np.ndarray,
    params: Params,
    variants: tuple[str, ...],
    a: Attended,
    d_out: np.ndarray,
    work: np.ndarray | None = None,
) -> np.ndarray:
    """d loss / d x given d loss / d output, for (output, a) = layer_forward(x, params, variants).

    none: through attn;  residual: d_out + through attn;  post_ln: the same after LN's backward;
    pre_ln: d_out + LN's backward of what comes through attn.  Shapes: [V, T, d_model].
    ``work``: ``attend_backward``'s, [V, H, T, T].
    """
    pre, post, none = (_rows(variants, v) for v in ("pre_ln", "post_ln", "none"))
    d_attn = d_out.copy()  # d loss / d attn_out
    d_attn[post] = layer_norm_backward(x[post] + a.attn_out[post], d_out[post], LN_EPS)
    d_read = attend_backward(a, params, d_attn, work)  # d loss / d what attn read
    d_x = d_attn + d_read  # residual, post_ln: the skip path and the path through attn
    d_x[none] = d_read[none]
    d_x[pre] = d_out[pre] + layer_norm_backward(x[pre], d_read[pre], LN_EPS)
    return d_x


def depth_stacks(
    cfg: AttentionConfig,
    tokens: list[str],
    n_layers: int = 12,
    variants: tuple[str, ...] = VARIANTS,
) -> dict[str, DepthStack]:
    """``depth_stack`` for several variants at once: the same weights, one batched pass.

    Shapes: T tokens -> {variant: DepthStack}. LabError as for ``depth_stack``.
    """
    for variant in variants:
        _check(n_layers, variant)
    variants = tuple(variants)
    params = layer_params(cfg, n_layers)
    x0 = embed(tokens, cfg)  # [T, d_model]
    xs = np.empty((n_layers + 1, len(variants), *x0.shape))  # every layer's input, every stack
    xs[0] = x0
    # every layer's pattern in one array, and one array for the backward's d pattern: written
    # in place instead of 2 · L arrays of [V, H, T, T] allocated, touched page by page, freed
    n_heads, t = params[0].W_Q.shape[0], len(tokens)
    patterns = np.empty((n_layers, len(variants), n_heads, t, t))
    passes = []
    for i, p in enumerate(params):
        xs[i + 1], a = layer_forward(xs[i], p, variants, patterns[i])
        passes.append(a)
    target = probe(cfg, len(tokens))
    grad = np.broadcast_to(target, xs.shape[1:])  # d loss / d x_L = probe, in every stack
    grad_norm = np.empty(xs.shape[:2])  # [L+1, V]
    grad_norm[n_layers] = np.linalg.norm(target)
    work = np.empty_like(patterns[0])
    for i in range(n_layers - 1, -1, -1):
        grad = layer_backward(xs[i], params[i], variants, passes[i], grad, work)
        grad_norm[i] = np.linalg.norm(grad, axis=(-2, -1))
    x_all = xs.swapaxes(0, 1)  # [V, L+1, T, d_model]
    # every stack's measures at once: [L+1, V] each
    sizes, alike, spread = rms(xs), mean_cosine(xs), rank_one_distance(xs)
    return {
        v: DepthStack(
            variant=v,
            params=params,
            x=x_all[i],
            rms=sizes[:, i],
            similarity=alike[:, i],
            collapse=spread[:, i],
            probe=target,
            grad_norm=grad_norm[:, i],
        )
        for i, v in enumerate(variants)
    }


def depth_stack(
    cfg: AttentionConfig, tokens: list[str], n_layers: int = 12, variant: str = "pre_ln"
) -> DepthStack:
    """Stack n_layers sublayers in one of the four ways and measure every layer's input.

    Shapes: T tokens -> DepthStack with x [L+1, T, d_model] and four curves [L+1].
    LabError for an unknown variant or n_layers outside 1..24.
    """
    return depth_stacks(cfg, tokens, n_layers, (variant,))[variant]
