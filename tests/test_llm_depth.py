"""depth_stack against a direct computation, its variants against each other, its errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm
from llm import depth

STEP = 1e-3  # the five-point central stencil, as in tests/test_llm_backward.py


def _direct(cfg: llm.AttentionConfig, tokens: list[str], n_layers: int, variant: str) -> list:
    """The stack written out from the formulas, one layer at a time."""
    xs = [llm.embed(tokens, cfg)]
    for layer in range(n_layers):
        p = llm.init_params(llm.AttentionConfig(cfg.d_model, cfg.n_heads, cfg.seed + layer))
        x = xs[-1]
        if variant == "none":
            xs.append(llm.multi_head_attention(x, p, causal=True).attn_out)
        elif variant == "residual":
            xs.append(x + llm.multi_head_attention(x, p, causal=True).attn_out)
        elif variant == "post_ln":
            xs.append(llm.layer_norm(x + llm.multi_head_attention(x, p).attn_out, 1e-5))
        else:
            xs.append(x + llm.multi_head_attention(llm.layer_norm(x, 1e-5), p).attn_out)
    return xs


def _cosine_by_pairs(x: np.ndarray) -> float:
    rows = x.tolist()
    pairs = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    if not pairs:
        return 1.0
    cos = [
        sum(a * b for a, b in zip(rows[i], rows[j], strict=True))
        / (math.hypot(*rows[i]) * math.hypot(*rows[j]))
        for i, j in pairs
    ]
    return sum(cos) / len(cos)


def _numeric_grad(stack: llm.DepthStack, layer: int) -> np.ndarray:
    """d sum(x_L * probe) / d x_layer by finite differences, running layers layer..L-1 again."""

    def loss(x: np.ndarray) -> float:
        for p in stack.params[layer:]:
            x = depth.layer_forward(x[None], p, (stack.variant,))[0][0]
        return float((x * stack.probe).sum())

    x0 = stack.x[layer].copy()
    grad = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        values = []
        for k in (-2, -1, 1, 2):
            x = x0.copy()
            x[idx] += k * STEP
            values.append(loss(x))
        grad[idx] = (values[0] - 8 * values[1] + 8 * values[2] - values[3]) / (12 * STEP)
    return grad


@pytest.mark.parametrize("variant", llm.VARIANTS)
def test_the_stack_matches_a_direct_computation(variant: str) -> None:
    cfg = llm.AttentionConfig(d_model=4, n_heads=2, seed=11)
    tokens = ["the", "cat", "sat", "the"]
    st = llm.depth_stack(cfg, tokens, n_layers=3, variant=variant)
    want = _direct(cfg, tokens, 3, variant)
    assert st.variant == variant and len(st.params) == 3
    assert st.x.shape == (4, 4, 4)
    for layer, x in enumerate(want):
        np.testing.assert_allclose(st.x[layer], x, rtol=0, atol=1e-13)
        assert st.rms[layer] == pytest.approx(math.sqrt(sum(v * v for v in x.ravel()) / 16), 1e-13)
        assert st.similarity[layer] == pytest.approx(_cosine_by_pairs(x), abs=1e-13)
        mean = x.mean(axis=0)
        spread = math.sqrt(sum(((row - mean) ** 2).sum() for row in x))
        assert st.collapse[layer] == pytest.approx(spread / math.sqrt((x**2).sum()), abs=1e-13)
    for layer in range(4):
        grad = _numeric_grad(st, layer)
        assert st.grad_norm[layer] == pytest.approx(np.linalg.norm(grad), rel=1e-6)


@pytest.mark.parametrize(("t", "d_model", "n_heads"), [(1, 4, 2), (2, 2, 1), (5, 8, 4), (7, 12, 3)])
def test_the_batched_heads_match_the_engine_and_its_backward(
    t: int, d_model: int, n_heads: int
) -> None:
    rng = np.random.default_rng(t + d_model)
    x, d_out = rng.standard_normal((t, d_model)), rng.standard_normal((t, d_model))
    params = llm.init_params(llm.AttentionConfig(d_model, n_heads, seed=t))
    trace = llm.multi_head_attention(x, params, causal=True)
    batched = depth.attend(x, params)
    np.testing.assert_allclose(batched.attn_out, trace.attn_out, rtol=0, atol=1e-13)
    for h, head in enumerate(trace.heads):
        np.testing.assert_allclose(batched.pattern_t[h].T, head.pattern, rtol=0, atol=1e-14)
    want = llm.attention_backward(x, params, trace, d_out).x
    np.testing.assert_allclose(depth.attend_backward(batched, params, d_out), want, atol=1e-12)
    # scores thousands apart, as deep residual stacks give: the floored softmax still agrees
    wide = llm.multi_head_attention(300 * x, params, causal=True)
    floored = depth.attend(300 * x, params)
    for h, head in enumerate(wide.heads):
        np.testing.assert_allclose(floored.pattern_t[h].T, head.pattern, rtol=1e-13, atol=1e-250)
    assert np.all(np.isfinite(floored.attn_out))


def test_all_variants_at_once_are_each_variant_alone() -> None:
    cfg, tokens = llm.AttentionConfig(12, 3, seed=9), llm.tokenize("a b a c d")
    together = depth.depth_stacks(cfg, tokens, 6)
    assert list(together) == list(llm.VARIANTS)
    for variant, st in together.items():
        alone = llm.depth_stack(cfg, tokens, 6, variant)
        assert st.variant == variant
        for name in ("x", "rms", "similarity", "collapse", "grad_norm", "probe"):
            np.testing.assert_allclose(getattr(st, name), getattr(alone, name), rtol=1e-13)
    with pytest.raises(llm.LabError):
        depth.depth_stacks(cfg, tokens, 6, ("none", "foo"))


def test_layer_weights_and_probe() -> None:
    cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=llm.MAX_SEED)
    st = llm.depth_stack(cfg, ["a", "b", "c"], n_layers=3, variant="none")
    for layer, seed in enumerate([2**32 - 1, 0, 1]):  # seeds wrap modulo 2**32
        p = llm.init_params(llm.AttentionConfig(8, 4, seed))
        np.testing.assert_array_equal(st.params[layer].W_Q, p.W_Q)
        np.testing.assert_array_equal(st.params[layer].W_O, p.W_O)
    assert st.probe.shape == (3, 8)
    assert st.grad_norm[-1] == pytest.approx(np.linalg.norm(st.probe), rel=1e-15)
    for variant in llm.VARIANTS:  # one probe for every variant and depth
        other = llm.depth_stack(cfg, ["a", "b", "c"], n_layers=7, variant=variant)
        np.testing.assert_array_equal(other.probe, st.probe)
    seed_1 = llm.depth_stack(llm.AttentionConfig(8, 4, 1), ["a", "b", "c"], 1, "none")
    assert np.abs(seed_1.probe - st.probe).min() > 0.0  # it depends on the seed
    layer_stream = np.random.default_rng(cfg.seed).standard_normal(st.probe.size)
    assert not np.allclose(st.probe.ravel(), layer_stream)  # not layer 0's W_Q drawn again


def test_a_shorter_stack_is_the_start_of_a_longer_one() -> None:
    cfg, tokens = llm.AttentionConfig(), llm.tokenize("the cat sat on mat")
    for variant in llm.VARIANTS:
        short = llm.depth_stack(cfg, tokens, 4, variant)
        long = llm.depth_stack(cfg, tokens, 12, variant)
        np.testing.assert_array_equal(short.x, long.x[:5])
        np.testing.assert_array_equal(short.collapse, long.collapse[:5])
        assert short.x.shape == (5, 5, 8) and long.grad_norm.shape == (13,)


def test_the_variants_agree_where_they_must() -> None:
    cfg, tokens = llm.AttentionConfig(), llm.tokenize("the cat sat on mat")
    stacks = {v: llm.depth_stack(cfg, tokens, 1, v) for v in llm.VARIANTS}
    x0, attn = stacks["none"].x[0], stacks["none"].x[1]
    for st in stacks.values():  # the same input, the same weights
        np.testing.assert_array_equal(st.x[0], llm.embed(tokens, cfg))
    np.testing.assert_allclose(stacks["residual"].x[1], x0 + attn, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        stacks["post_ln"].x[1], llm.layer_norm(stacks["residual"].x[1]), rtol=0, atol=1e-15
    )
    # on rows of mean 0 and variance 1 - eps, LN(x) = x: pre_ln and residual are one layer
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 8))
    x = (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True) * math.sqrt(1 - 1e-5)
    np.testing.assert_allclose(llm.layer_norm(x), x, rtol=0, atol=1e-14)
    p, d = stacks["none"].params[0], rng.standard_normal((5, 8))
    pair = ("pre_ln", "residual")  # one batch of two stacks, as depth_stacks runs them
    out, passed = depth.layer_forward(np.stack([x, x]), p, pair)
    np.testing.assert_allclose(out[0], out[1], rtol=0, atol=1e-13)
    # the gradients differ only by what LayerNorm's Jacobian removes from d_x
    g_pre, g_res = depth.layer_backward(np.stack([x, x]), p, pair, passed, np.stack([d, d]))
    assert not np.allclose(g_pre, g_res)
    np.testing.assert_allclose(g_pre - d, llm.layer_norm_backward(x, g_res - d), atol=1e-12)
    # post_ln keeps every layer's input at rms 1 (sqrt(var / (var + eps)), a hair below)
    post = llm.depth_stack(cfg, tokens, 24, "post_ln")
    assert np.all(np.abs(post.rms[1:] - 1.0) < 1e-4) and np.all(post.rms[1:] < 1.0)


def test_one_token() -> None:
    st = llm.depth_stack(llm.AttentionConfig(), ["cat"], 5, "pre_ln")
    np.testing.assert_array_equal(st.similarity, 1.0)
    np.testing.assert_array_equal(st.collapse, 0.0)  # one row is its own mean
    assert np.all(np.isfinite(st.grad_norm)) and st.grad_norm.shape == (6,)


def test_the_measures_by_hand() -> None:
    assert llm.mean_cosine(np.array([[1.0, 0.0], [0.0, 2.0]])) == 0.0
    assert llm.mean_cosine(np.array([[1.0, 0.0], [2.0, 0.0], [-3.0, 0.0]])) == pytest.approx(
        (1 - 1 - 1) / 3
    )
    assert llm.mean_cosine(np.array([[0.0, 0.0], [1.0, 0.0]])) == 0.0  # a zero row points nowhere
    # rows [1, 0] and [3, 0]: mean [2, 0], spread sqrt 2, norm sqrt 10
    assert llm.rank_one_distance(np.array([[1.0, 0.0], [3.0, 0.0]])) == pytest.approx(
        math.sqrt(0.2), rel=1e-15
    )
    assert llm.rank_one_distance(np.ones((4, 3))) == 0.0
    assert llm.rank_one_distance(np.zeros((4, 3))) == 0.0
    assert depth.rms(np.array([[3.0, 4.0]])) == pytest.approx(math.sqrt(12.5), rel=1e-15)


@pytest.mark.parametrize("bad", [0, 25, -1, 100, 1.5, True, "3", None])
def test_layers_outside_the_range(bad: object) -> None:
    with pytest.raises(llm.LabError) as err:
        llm.depth_stack(llm.AttentionConfig(), ["a"], n_layers=bad)  # type: ignore[arg-type]
    assert isinstance(err.value, ValueError)
    assert err.value.code == "layers_range"
    assert (err.value.params["low"], err.value.params["high"]) == (1, 24)
    assert str(err.value) == f"n_layers must be a whole number from 1 to 24, got {bad!r}."
    assert err.value.params["value"] == bad


@pytest.mark.parametrize("bad", ["foo", "None", "", "pre-ln", "PRE_LN"])
def test_unknown_variant(bad: str) -> None:
    with pytest.raises(llm.LabError) as err:
        llm.depth_stack(llm.AttentionConfig(), ["a"], 3, variant=bad)
    assert err.value.code == "variant_name"
    assert err.value.params == {"value": bad, "options": "none, residual, post_ln, pre_ln"}


def test_every_layer_count_runs() -> None:
    for n_layers in (1, 24):
        st = llm.depth_stack(llm.AttentionConfig(16, 4, 3), llm.tokenize("a b c d"), n_layers)
        assert st.x.shape == (n_layers + 1, 4, 16)
        for curve in (st.rms, st.similarity, st.collapse, st.grad_norm):
            assert curve.shape == (n_layers + 1,) and np.all(np.isfinite(curve))


def test_a_batch_wired_in_any_order_is_each_stack_on_its_own() -> None:
    # pre_ln rows 0 and 2 apart (a list of rows), residual and none alone (slices)
    cfg = llm.AttentionConfig(d_model=8, n_heads=2, seed=5)
    p = depth.layer_params(cfg, 1)[0]
    rng = np.random.default_rng(6)
    x, d = rng.standard_normal((4, 5, 8)), rng.standard_normal((4, 5, 8))
    wiring = ("pre_ln", "residual", "pre_ln", "none")
    out, passed = depth.layer_forward(x, p, wiring)
    d_x = depth.layer_backward(x, p, wiring, passed, d)
    for i, variant in enumerate(wiring):
        one_out, one_pass = depth.layer_forward(x[i : i + 1], p, (variant,))
        one_d = depth.layer_backward(x[i : i + 1], p, (variant,), one_pass, d[i : i + 1])
        np.testing.assert_allclose(out[i], one_out[0], rtol=0, atol=1e-14)
        np.testing.assert_allclose(d_x[i], one_d[0], rtol=0, atol=1e-13)
    assert not np.allclose(out[0], out[1])  # pre_ln reads LN(x), residual x
