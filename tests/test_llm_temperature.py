"""Temperature and the √d_head switch: the chapters' defaults unchanged, hand-made cases, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llm
from llm import attention
from tests.strategies import lab_runs

VOCAB = ["the", "cat", "sat", "on", "mat", ".", "a", "dog"]


def _old_pattern(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, causal: bool) -> np.ndarray:
    """The formula as the chapters write it: softmax(mask(q kᵀ / sqrt(d_head)))."""
    q, k = x @ w_q, x @ w_k
    scaled = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        scaled = np.where(np.tril(np.ones(scaled.shape, dtype=bool)), scaled, -np.inf)
    exps = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    return exps / exps.sum(axis=-1, keepdims=True)


def runs() -> st.SearchStrategy[tuple[llm.AttentionConfig, list[str], bool]]:
    return lab_runs(max_d_model=24, max_tokens=10, vocab=len(VOCAB))


@settings(max_examples=60, deadline=None)
@given(runs())
def test_defaults_give_the_chapters_numbers(case: tuple) -> None:
    cfg, tokens, causal = case
    x, params = llm.embed(tokens, cfg), llm.init_params(cfg)
    default = llm.multi_head_attention(x, params, causal=causal)
    explicit = llm.multi_head_attention(x, params, causal, temperature=1.0, scale=True)
    assert (default.temperature, default.scale) == (1.0, True)
    for h, head in enumerate(default.heads):
        old = _old_pattern(x, params.W_Q[h], params.W_K[h], causal)
        assert np.max(np.abs(head.pattern - old)) <= 1e-15
        np.testing.assert_array_equal(head.pattern, explicit.heads[h].pattern)
    np.testing.assert_array_equal(default.attn_out, explicit.attn_out)


@settings(max_examples=60, deadline=None)
@given(runs(), st.floats(0.05, 20.0), st.booleans())
def test_temperature_and_scale_match_the_readable_formula(
    case: tuple, temperature: float, scale: bool
) -> None:
    """The readable softmax on scores / temperature (and / sqrt(d_head) if scaled) agrees."""
    cfg, tokens, causal = case
    x, params = llm.embed(tokens, cfg), llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, causal, temperature=temperature, scale=scale)
    assert (trace.temperature, trace.scale) == (temperature, scale)
    d_k = cfg.d_head if scale else 1  # the readable code divides by sqrt(d_k): 1 leaves it out
    for head in trace.heads:
        divided = (head.scores / temperature).tolist()
        want = np.array(attention.scale_mask_softmax(divided, d_k, causal))
        np.testing.assert_allclose(head.pattern, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(head.z, head.pattern @ head.v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(head.pattern.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_two_tokens_by_hand() -> None:
    """x = I (2 tokens, d_model 2, one head), W_Q = W_K = 2·I: scores = 4·I, d_head 2."""
    eye = np.eye(2)
    params = llm.Params(
        W_Q=2 * eye[None], W_K=2 * eye[None], W_V=eye[None] * [[1.0, 0.0], [0.0, 3.0]], W_O=eye
    )
    for temperature, scale, divisor in [
        (1.0, True, math.sqrt(2)),
        (0.5, False, 0.5),
        (4, True, 4 * math.sqrt(2)),
    ]:
        trace = llm.multi_head_attention(eye, params, False, temperature=temperature, scale=scale)
        head = trace.heads[0]
        np.testing.assert_array_equal(head.scores, [[4.0, 0.0], [0.0, 4.0]])
        p, q = 1 / (1 + math.exp(-4 / divisor)), 1 / (1 + math.exp(4 / divisor))  # p + q = 1
        np.testing.assert_allclose(head.scaled, [[4 / divisor, 0], [0, 4 / divisor]], rtol=1e-15)
        np.testing.assert_allclose(head.pattern, [[p, q], [q, p]], rtol=1e-12)
        np.testing.assert_allclose(head.z, [[p, 3 * q], [q, 3 * p]], rtol=1e-12)
    # causal: the first row sees itself only, the second softmax([0, 4] / (0.5 * sqrt 2))
    trace = llm.multi_head_attention(eye, params, True, temperature=0.5)
    a = 4 / (0.5 * math.sqrt(2))
    p, q = 1 / (1 + math.exp(-a)), 1 / (1 + math.exp(a))
    np.testing.assert_allclose(trace.heads[0].pattern, [[1.0, 0.0], [q, p]], rtol=1e-12)
    assert trace.heads[0].pattern[0, 1] == 0.0  # masked stays exactly zero


def test_no_scale_is_a_temperature_of_one_over_sqrt_d_head() -> None:
    cfg = llm.AttentionConfig(d_model=16, n_heads=4, seed=3)  # d_head 4: sqrt = 2 exactly
    x, params = llm.embed(llm.tokenize("the cat sat on the mat"), cfg), llm.init_params(cfg)
    off = llm.multi_head_attention(x, params, temperature=1.0, scale=False)
    on = llm.multi_head_attention(x, params, temperature=0.5, scale=True)
    np.testing.assert_allclose(off.attn_out, on.attn_out, rtol=0, atol=1e-15)
    assert llm.score_divisor(4) == 2.0
    assert llm.score_divisor(4, temperature=0.5, scale=False) == 0.5


def test_cold_is_sharp_and_hot_is_uniform() -> None:
    cfg = llm.AttentionConfig()
    x, params = llm.embed(llm.tokenize("the cat sat on mat"), cfg), llm.init_params(cfg)
    top = llm.max_head_entropy(5, causal=True)
    cold = [
        llm.head_entropy(h.pattern)
        for h in llm.multi_head_attention(x, params, temperature=0.05).heads
    ]
    base = [llm.head_entropy(h.pattern) for h in llm.multi_head_attention(x, params).heads]
    hot = [
        llm.head_entropy(h.pattern)
        for h in llm.multi_head_attention(x, params, temperature=20).heads
    ]
    for c, b, w in zip(cold, base, hot, strict=True):
        assert c < b < w <= top + 1e-12
        assert top - w < 0.01  # nearly uniform over the visible keys
    assert max(cold) < 0.2 * top  # close to one key per row (0.15 of 0.96 on the worst head)


@pytest.mark.parametrize(
    "bad", [0, -1, 0.049, 20.001, 1e9, math.nan, math.inf, -math.inf, "abc", None]
)
def test_temperature_outside_the_range_is_a_lab_error(bad: object) -> None:
    cfg = llm.AttentionConfig(d_model=4, n_heads=2)
    x, params = llm.embed(["a", "b"], cfg), llm.init_params(cfg)
    with pytest.raises(llm.LabError) as err:
        llm.multi_head_attention(x, params, temperature=bad)  # type: ignore[arg-type]
    assert isinstance(err.value, ValueError)
    assert err.value.code == "temperature_range"
    assert err.value.params == {"value": bad, "low": 0.05, "high": 20.0}
    assert str(err.value).startswith("temperature must be a number between 0.05 and 20, got ")


@pytest.mark.parametrize("edge", [0.05, 20, 20.0, "2.5"])
def test_the_range_includes_its_ends(edge: object) -> None:
    assert llm.check_temperature(edge) == float(edge)  # type: ignore[arg-type]
    assert (llm.MIN_TEMPERATURE, llm.MAX_TEMPERATURE) == (0.05, 20.0)


def test_one_eps_constant() -> None:
    assert llm.LN_EPS == 1e-5
    x = np.array([[1.0, 2.0, 4.0]])
    np.testing.assert_array_equal(llm.layer_norm(x), llm.layer_norm(x, llm.LN_EPS))
    assert llm.layer_norm(x)[0, 0] != llm.layer_norm(x, 1e-3)[0, 0]
