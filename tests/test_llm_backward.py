"""attention_backward and layer_norm_backward against central finite differences and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm
from tests.finite_differences import numeric_gradient as _numeric


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    scale = max(np.linalg.norm(got), np.linalg.norm(want))
    return float(np.linalg.norm(got - want) / scale) if scale > 0 else 0.0


def _cases() -> list[tuple[int, int, int, bool, float, bool]]:
    """(T, d_model, n_heads, causal, temperature, scale): T = 1 and every switch included."""
    rng = np.random.default_rng(2026)
    cases = [(1, 4, 2, True, 1.0, True), (1, 3, 1, False, 0.3, False), (2, 2, 2, True, 1.0, True)]
    for _ in range(21):
        d_model = int(rng.integers(1, 9))
        n_heads = int(rng.choice(llm.divisors(d_model)))
        temperature = float(rng.choice([1.0, 0.4, 2.5, 7.0]))
        t = int(rng.integers(1, 7))
        cases.append(
            (t, d_model, n_heads, bool(rng.integers(2)), temperature, bool(rng.integers(2)))
        )
    return cases


@pytest.mark.parametrize(("t", "d_model", "n_heads", "causal", "temperature", "scale"), _cases())
def test_attention_backward_matches_finite_differences(
    t: int, d_model: int, n_heads: int, causal: bool, temperature: float, scale: bool
) -> None:
    rng = np.random.default_rng(t * 1000 + d_model * 10 + n_heads)
    cfg = llm.AttentionConfig(d_model, n_heads, seed=int(rng.integers(2**32)))
    p = llm.init_params(cfg)
    params = llm.Params(W_Q=p.W_Q.copy(), W_K=p.W_K.copy(), W_V=p.W_V.copy(), W_O=p.W_O.copy())
    x = rng.standard_normal((t, d_model))
    probe = rng.standard_normal((t, d_model))  # loss = sum(attn_out * probe)

    def loss() -> float:
        out = llm.multi_head_attention(x, params, causal, temperature, scale).attn_out
        return float((out * probe).sum())

    trace = llm.multi_head_attention(x, params, causal, temperature, scale)
    g = llm.attention_backward(x, params, trace, probe)
    for name, got, wrt in [
        ("x", g.x, x),
        ("W_Q", g.W_Q, params.W_Q),
        ("W_K", g.W_K, params.W_K),
        ("W_V", g.W_V, params.W_V),
        ("W_O", g.W_O, params.W_O),
    ]:
        assert got.shape == wrt.shape, name
        want = _numeric(loss, wrt)
        if t == 1 and name in ("W_Q", "W_K"):  # one key: the pattern is 1 whatever the scores
            np.testing.assert_array_equal(got, 0.0)
            assert np.abs(want).max() < 1e-10  # the differences see only rounding
        else:
            assert _relative(got, want) <= 1e-6, name


def test_masked_pairs_pass_no_gradient() -> None:
    """Under the causal mask, token 0's output ignores token 1: d out[0] / d x[1] is zero."""
    cfg = llm.AttentionConfig(4, 2, seed=5)
    x, params = llm.embed(["a", "b", "c"], cfg), llm.init_params(cfg)
    d_out = np.zeros((3, 4))
    d_out[0] = 1.0
    causal = llm.attention_backward(x, params, llm.multi_head_attention(x, params, True), d_out)
    np.testing.assert_array_equal(causal.x[1:], 0.0)
    full = llm.attention_backward(x, params, llm.multi_head_attention(x, params, False), d_out)
    assert np.abs(full.x[1:]).min() > 0.0


@pytest.mark.parametrize("temperature", [1.0, 2.0])
def test_two_tokens_by_hand(temperature: float) -> None:
    """d_model 1, one head, every weight 1: x = [2, 1], so q = k = v = x and d_head = 1.

    Row 0 sees itself: out0 = x0. Row 1: scores [x1 x0, x1²] = [2, 1], p = softmax([2, 1] / tau),
    out1 = p0 x0 + p1 x1. With loss out0 + out1, the chain rule gives by hand
    d x0 = 1 + p0 + p0 p1 (x0 - x1) x1 / tau,  d x1 = p1 + p0 p1 (x0 - 2 x1)(x0 - x1) / tau,
    d W_Q = d W_K = p0 p1 (x1 x0 - x1²)(x0 - x1) / tau,  d W_V = d W_O = x0 + p0 x0 + p1 x1.
    """
    one = np.ones((1, 1, 1))
    params = llm.Params(W_Q=one, W_K=one, W_V=one, W_O=np.ones((1, 1)))
    x = np.array([[2.0], [1.0]])
    trace = llm.multi_head_attention(x, params, causal=True, temperature=temperature)
    g = llm.attention_backward(x, params, trace, np.ones((2, 1)))
    p0 = 1 / (1 + math.exp(-1 / temperature))  # softmax([2, 1] / tau)[0]
    p1 = 1 - p0
    np.testing.assert_allclose(trace.heads[0].pattern[1], [p0, p1], rtol=1e-14)
    np.testing.assert_allclose(g.x, [[1 + p0 + p0 * p1 / temperature], [p1]], rtol=1e-14)
    np.testing.assert_allclose(g.W_Q, [[[p0 * p1 / temperature]]], rtol=1e-14)
    np.testing.assert_allclose(g.W_K, [[[p0 * p1 / temperature]]], rtol=1e-14)
    np.testing.assert_allclose(g.W_V, [[[3 + p0]]], rtol=1e-14)
    np.testing.assert_allclose(g.W_O, [[3 + p0]], rtol=1e-14)
    if temperature == 1.0:  # p0 = e / (1 + e)
        assert g.x[0, 0] == pytest.approx(1.9276705118, abs=1e-10)
        assert g.W_Q[0, 0, 0] == pytest.approx(0.1966119332, abs=1e-10)


@pytest.mark.parametrize(("t", "d", "eps"), [(1, 1, 1e-5), (1, 5, 1e-5), (4, 3, 1e-3), (6, 8, 0.5)])
def test_layer_norm_backward_matches_finite_differences(t: int, d: int, eps: float) -> None:
    rng = np.random.default_rng(t * 100 + d)
    x = rng.standard_normal((t, d)) * 3.0
    probe = rng.standard_normal((t, d))
    got = llm.layer_norm_backward(x, probe, eps)
    want = _numeric(lambda: float((llm.layer_norm(x, eps) * probe).sum()), x)
    assert got.shape == (t, d)
    assert _relative(got, want) <= 1e-6 or np.abs(got - want).max() < 1e-9  # d = 1: both 0
    np.testing.assert_allclose(got.sum(axis=-1), 0.0, atol=1e-12)  # a shift changes nothing


def test_layer_norm_backward_by_hand() -> None:
    """A row [1, -1] normalizes to ±1/sigma, sigma = sqrt(1 + eps): only eps lets it move.

    With d_out = [1, 0]: d_x = (d_out - 1/2 - y / (2 sigma)) / sigma
                              = eps / (2 (1 + eps)^1.5) · [1, -1].
    """
    eps = 1e-5
    got = llm.layer_norm_backward(np.array([[1.0, -1.0]]), np.array([[1.0, 0.0]]), eps)
    want = eps / (2 * (1 + eps) ** 1.5)
    np.testing.assert_allclose(got, [[want, -want]], rtol=1e-9)
    assert llm.layer_norm_backward(np.array([[1.0, -1.0]]), np.array([[1.0, 0.0]])) == (
        pytest.approx(got, rel=1e-15)
    )  # the default eps is LN_EPS


def test_softmax_backward_by_hand() -> None:
    """pattern [0.25, 0.75], d_pattern [1, 0]: d = [0.25 (1 - 0.25), 0.75 (0 - 0.25)]."""
    got = llm.softmax_backward(np.array([[0.25, 0.75]]), np.array([[1.0, 0.0]]))
    np.testing.assert_allclose(got, [[0.1875, -0.1875]], rtol=1e-15)
