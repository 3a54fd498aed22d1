"""Invariants of the engine that hold for every valid config, and its numerics at the edges."""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llm
from llm import engine, readable

EPS = 1e-5
VOCAB = ["the", "cat", "sat", "on", "mat", ".", "a", "dog", "ran", "it"]


@st.composite
def runs(draw: st.DrawFn) -> tuple[llm.AttentionConfig, list[str], bool]:
    d_model = draw(st.integers(1, 32))
    n_heads = draw(st.sampled_from(llm.divisors(d_model)))
    seed = draw(st.integers(0, llm.MAX_SEED))
    tokens = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=12))
    return llm.AttentionConfig(d_model, n_heads, seed), tokens, draw(st.booleans())


def _run(cfg: llm.AttentionConfig, tokens: list[str], causal: bool) -> tuple:
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    return x, params, llm.multi_head_attention(x, params, causal=causal)


@settings(max_examples=80, deadline=None)
@given(runs())
def test_pattern_and_entropy_invariants(case: tuple) -> None:
    cfg, tokens, causal = case
    t = len(tokens)
    x, params, trace = _run(cfg, tokens, causal)
    top = llm.max_row_entropy(t, causal)
    assert trace.causal is causal
    assert np.array_equal(trace.mask, llm.causal_mask(t, causal))
    for head in trace.heads:
        p = head.pattern
        assert p.shape == (t, t) and p.dtype == np.float64
        assert np.all(p >= 0.0) and np.all(p <= 1.0)
        np.testing.assert_allclose(llm.row_sums(p), np.ones(t), rtol=0, atol=1e-12)
        if causal:
            assert np.all(p[np.triu_indices(t, 1)] == 0.0)  # exactly zero, not approx
            assert np.all(np.isneginf(head.masked[np.triu_indices(t, 1)]))
        # the steps in between: scaled = scores / sqrt(d_head), masked keeps what may be seen
        np.testing.assert_allclose(head.scaled, head.scores / math.sqrt(cfg.d_head), rtol=1e-15)
        assert np.array_equal(head.masked[trace.mask], head.scaled[trace.mask])
        h = llm.row_entropy(p)
        assert np.all(h >= 0.0)
        assert np.all(h <= top + 1e-12)  # ln(i + 1) causal, ln T without, up to rounding
        sharp = llm.head_sharpness(p, causal)
        assert 0.0 <= sharp <= 1.0
        assert llm.classify_head(p, causal) in ("sharp", "mixed", "diffuse")
        np.testing.assert_allclose(llm.head_entropy(p), h.mean(), rtol=1e-15)
        for i in range(t):
            parts = llm.value_contributions(p, head.v, i)
            assert parts.shape == (t, cfg.d_head)
            np.testing.assert_allclose(parts.sum(axis=0), head.z[i], rtol=1e-12, atol=1e-12)
            if causal:
                assert np.all(parts[i + 1 :] == 0.0)  # the future adds nothing


@settings(max_examples=80, deadline=None)
@given(runs(), st.sampled_from([1e-5, 1e-3, 0.5]))
def test_layer_norm_rows_mean_zero_std_below_one(case: tuple, eps: float) -> None:
    cfg, tokens, causal = case
    x, _, trace = _run(cfg, tokens, causal)
    resid, ln_out = llm.residual_layer_norm(x, trace.attn_out, eps=eps)
    assert np.array_equal(resid, x + trace.attn_out)
    mean, std = llm.row_stats(ln_out)
    var = resid.var(axis=-1)
    np.testing.assert_allclose(mean, 0.0, atol=1e-12)
    # std sqrt(var / (var + eps)), slightly below 1 because eps sits inside the sqrt
    np.testing.assert_allclose(std, np.sqrt(var / (var + eps)), rtol=1e-12, atol=1e-12)
    assert np.all(std < 1.0)


def test_layer_norm_std_formula_on_a_fixed_row() -> None:
    row = np.array([[0.0, 0.01, -0.01, 0.0]])  # var = 5e-5: eps is not negligible here
    mean, std = llm.row_stats(llm.layer_norm(row))
    assert abs(mean[0]) < 1e-15
    # sqrt(5e-5 / 6e-5) = sqrt(5 / 6) ≈ 0.9129
    np.testing.assert_allclose(std, [math.sqrt(5 / 6)], rtol=1e-12)


def test_max_row_entropy() -> None:
    np.testing.assert_allclose(
        llm.max_row_entropy(5, causal=True),
        [0.0, math.log(2), math.log(3), math.log(4), math.log(5)],
    )
    assert llm.max_row_entropy(5, causal=False).tolist() == [math.log(5)] * 5
    # chapter 9: a head over five tokens can reach ln 5 ≈ 1.61 at most without the mask
    assert llm.max_head_entropy(5, causal=False) == pytest.approx(1.61, abs=0.005)
    assert llm.max_row_entropy(1, causal=True).tolist() == [0.0]


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("t", range(1, llm.MAX_TOKENS + 1))
def test_head_sharpness_bounds_at_the_extremes(t: int, causal: bool) -> None:
    uniform = llm.softmax(np.where(llm.causal_mask(t, causal), 0.0, -np.inf))
    sharp = llm.head_sharpness(uniform, causal)
    assert 0.0 <= sharp <= 1.0  # never 1.0000000000000002 from rounding
    if t > 1:
        assert sharp == pytest.approx(1.0, abs=1e-12)
        assert llm.classify_head(uniform, causal) == "diffuse"
    one_hot = np.eye(t)
    assert llm.head_sharpness(one_hot, causal) == 0.0
    assert llm.classify_head(one_hot, causal) == "sharp"


def test_classify_head_thresholds() -> None:
    # two tokens without the mask: max mean entropy ln 2; rows [1, 0] and [p, 1 - p]
    def pattern_with_fraction(f: float) -> np.ndarray:
        # find p with H(p) = 2 f ln 2 (mean of 0 and H(p) is f ln 2) by bisection
        lo, hi = 1e-12, 0.5
        for _ in range(200):
            mid = (lo + hi) / 2
            h = -(mid * math.log(mid) + (1 - mid) * math.log(1 - mid))
            lo, hi = (mid, hi) if h < 2 * f * math.log(2) else (lo, mid)
        return np.array([[1.0, 0.0], [lo, 1 - lo]])

    # one row one-hot caps the fraction at 1/2 here
    for f, kind in [(0.2, "sharp"), (0.32, "sharp"), (0.34, "mixed"), (0.49, "mixed")]:
        p = pattern_with_fraction(f)
        assert llm.head_sharpness(p, causal=False) == pytest.approx(f, abs=1e-9)
        assert llm.classify_head(p, causal=False) == kind
    # a fraction above two thirds needs both rows diffuse
    assert llm.classify_head(np.array([[0.5, 0.5], [0.4, 0.6]]), causal=False) == "diffuse"


def test_one_head_with_identity_w_o_gives_z() -> None:
    cfg = llm.AttentionConfig(d_model=6, n_heads=1, seed=3)
    x = llm.embed(llm.tokenize("a dog ran after the cat"), cfg)
    params = llm.init_params(cfg)
    params = llm.Params(W_Q=params.W_Q, W_K=params.W_K, W_V=params.W_V, W_O=np.eye(6))
    for causal in (True, False):
        trace = llm.multi_head_attention(x, params, causal=causal)
        assert np.array_equal(trace.concat, trace.heads[0].z)
        assert np.array_equal(trace.attn_out, trace.heads[0].z)


def test_concat_puts_heads_side_by_side() -> None:
    cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=0)
    x, params, trace = _run(cfg, llm.tokenize("the cat sat on the mat"), True)
    for h, head in enumerate(trace.heads):
        assert np.array_equal(trace.concat[:, 2 * h : 2 * h + 2], head.z)
    np.testing.assert_allclose(trace.attn_out, trace.concat @ params.W_O, rtol=1e-15)


def test_same_config_same_arrays() -> None:
    tokens = llm.tokenize("the cat sat on the mat")
    cfg = llm.AttentionConfig(d_model=16, n_heads=4, seed=42)
    a = _run(cfg, tokens, True)
    b = _run(llm.AttentionConfig(d_model=16, n_heads=4, seed=42), list(tokens), True)
    assert np.array_equal(a[0], b[0])
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        assert np.array_equal(getattr(a[1], name), getattr(b[1], name))
    for ha, hb in zip(a[2].heads, b[2].heads, strict=True):
        for name in ("q", "k", "v", "scores", "scaled", "masked", "pattern", "z"):
            assert np.array_equal(getattr(ha, name), getattr(hb, name))
    assert np.array_equal(a[2].concat, b[2].concat)
    assert np.array_equal(a[2].attn_out, b[2].attn_out)
    # another seed gives other weights
    c = llm.init_params(llm.AttentionConfig(d_model=16, n_heads=4, seed=43))
    assert not np.array_equal(a[1].W_Q, c.W_Q)


def test_embed_same_token_same_row() -> None:
    cfg = llm.AttentionConfig(d_model=8, n_heads=2, seed=5)
    tokens = ["the", "cat", "the", "mat", "the"]
    x = llm.embed(tokens, cfg)
    assert x.shape == (5, 8) and x.dtype == np.float64
    assert np.array_equal(x[0], x[2]) and np.array_equal(x[0], x[4])
    assert not np.array_equal(x[0], x[1])
    # depends only on (token, d_model, seed): not on position, sentence or head count
    other = llm.embed(["mat", "dog", "the"], llm.AttentionConfig(d_model=8, n_heads=8, seed=5))
    assert np.array_equal(other[0], x[3]) and np.array_equal(other[2], x[0])
    assert np.array_equal(x[1], llm.token_vector("cat", 8, 5))
    assert not np.array_equal(llm.token_vector("cat", 8, 6), x[1])
    assert not np.array_equal(llm.token_vector("cat", 16, 5)[:8], x[1])


def test_pinned_token_vectors() -> None:
    """A change of hash (blake2b of 'seed|d_model|token') or of the RNG breaks every link."""
    assert llm.token_vector("the", 8, 0).tolist() == [
        -0.7025149702035846,
        0.0691206075651778,
        0.7571947173184685,
        0.5503228429872211,
        -0.4175675909181245,
        0.6610417148549682,
        -2.72387430092016,
        -0.4180513882381071,
    ]
    assert llm.token_vector("cat", 4, 0).tolist() == [
        0.1897444652850581,
        0.509427584520481,
        -1.1210292669603565,
        -1.071066582882096,
    ]
    assert llm.token_vector("the", 8, 1)[:3].tolist() == [
        0.5986415705898098,
        0.616075649826525,
        -0.6291433662544799,
    ]


def test_pinned_init_params_seed_0() -> None:
    p = llm.init_params(llm.AttentionConfig(d_model=8, n_heads=4, seed=0))
    assert p.W_Q.shape == p.W_K.shape == p.W_V.shape == (4, 8, 2)
    assert p.W_O.shape == (8, 8)
    assert p.W_Q[0, 0].tolist() == [0.08890469193522228, -0.09341224466100137]
    assert p.W_K[3, 7].tolist() == [-1.0060303523945902, 0.1827537210711624]
    assert p.W_V[1, 2].tolist() == [-0.2841621201722847, 0.3818954368975704]
    assert p.W_O[0, :3].tolist() == [
        0.3842527089560034,
        -0.017891238090811116,
        -0.10009982693294282,
    ]
    assert p.W_O[7, 7] == 0.3014921130947692
    # W_Q's first entries are default_rng(0)'s first normals times QK_GAIN / sqrt(d_model)
    first = np.random.default_rng(0).standard_normal(2)
    np.testing.assert_allclose(p.W_Q[0, 0], first * llm.QK_GAIN / math.sqrt(8), rtol=1e-15)


def test_asymmetry() -> None:
    sym = np.array([[1.0, 2.0, 3.0], [2.0, 5.0, -1.0], [3.0, -1.0, 0.0]])
    anti = np.array([[0.0, 2.0, -3.0], [-2.0, 0.0, 4.0], [3.0, -4.0, 0.0]])
    assert llm.asymmetry(sym) == 0.0
    assert llm.asymmetry(anti) == pytest.approx(1.0, abs=1e-15)
    assert llm.asymmetry(np.zeros((3, 3))) == 0.0
    # [[0, 1], [0, 0]]: ||S - Sᵀ|| = sqrt 2, ||S|| = 1 -> sqrt(2) / 2
    assert llm.asymmetry(np.array([[0.0, 1.0], [0.0, 0.0]])) == pytest.approx(math.sqrt(2) / 2)
    rng = np.random.default_rng(7)
    for _ in range(20):
        m = rng.standard_normal((5, 5))
        assert 0.0 <= llm.asymmetry(m) <= 1.0
    # W_Q = W_K makes q = k, so the scores are symmetric
    cfg = llm.AttentionConfig(d_model=4, n_heads=1, seed=1)
    params = llm.init_params(cfg)
    x = llm.embed(llm.tokenize("the cat sat on mat"), cfg)
    head = llm.attention_head(x, params.W_Q[0], params.W_Q[0], params.W_V[0], llm.causal_mask(5))
    assert llm.asymmetry(head.scores) == pytest.approx(0.0, abs=1e-15)
    head = llm.attention_head(x, params.W_Q[0], params.W_K[0], params.W_V[0], llm.causal_mask(5))
    assert llm.asymmetry(head.scores) > 0.05


# ---------------------------------------------------------------- numerics


SWEEP = [
    (1, 1, 1, True),
    (1, 1, 32, False),
    (4, 4, 5, True),
    (8, 4, 5, False),
    (64, 64, 32, True),
    (63, 7, 17, False),
    (512, 64, 32, True),
    (512, 64, 32, False),
    (512, 1, 32, True),
    (512, 512 // 64, 3, False),
]


@pytest.mark.parametrize(("d_model", "n_heads", "t", "causal"), SWEEP)
@pytest.mark.parametrize("seed", [0, llm.MAX_SEED])
def test_no_nan_or_inf_in_a_trace(
    d_model: int, n_heads: int, t: int, causal: bool, seed: int
) -> None:
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed)
    tokens = [VOCAB[i % len(VOCAB)] + str(i // 3) for i in range(t)]
    x, params, trace = _run(cfg, tokens, causal)
    assert len(trace.heads) == n_heads
    arrays = [x, params.W_Q, params.W_K, params.W_V, params.W_O, trace.concat, trace.attn_out]
    for head in trace.heads:
        arrays += [head.q, head.k, head.v, head.scores, head.scaled, head.pattern, head.z]
        arrays.append(llm.row_entropy(head.pattern))
        assert math.isfinite(llm.head_entropy(head.pattern))
        assert math.isfinite(llm.head_sharpness(head.pattern, causal))
        # -inf in `masked` marks exactly the hidden cells, nothing else is infinite
        assert np.array_equal(np.isfinite(head.masked), trace.mask)
        assert not np.isnan(head.masked).any()
    resid, ln_out = llm.residual_layer_norm(x, trace.attn_out)
    arrays += [resid, ln_out, *llm.row_stats(ln_out)]
    for a in arrays:
        assert np.all(np.isfinite(a))
    assert trace.attn_out.shape == ln_out.shape == (t, d_model)


@pytest.mark.parametrize("impl", [engine, readable], ids=["engine", "readable"])
def test_softmax_batched_with_masked_rows(impl: ModuleType) -> None:
    scores = np.array([[1e300, -np.inf, -1e300], [-np.inf, -np.inf, 0.0], [3.0, 3.0, 3.0]])
    p = np.asarray(impl.softmax(scores))
    assert p.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1 / 3, 1 / 3, 1 / 3]]
