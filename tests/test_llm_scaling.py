"""The √d_k measurement: every number against a direct computation, and the trend it shows."""

from __future__ import annotations

import math

import numpy as np
import pytest

import llm
from llm import engine
from llm.scaling import MAX_D_K, power_law_exponent, scaling_sweep, scaling_weights

TOL = {"rtol": 1e-12, "atol": 1e-12}


def _lab(d_model: int, seed: int, text: str = "the cat sat on the mat") -> np.ndarray:
    return llm.embed(llm.tokenize(text), llm.AttentionConfig(d_model, 1, seed))


@pytest.mark.parametrize(
    ("d_model", "seed", "causal"), [(8, 0, True), (4, 7, False), (16, 3, True)]
)
def test_every_width_against_a_direct_computation(d_model: int, seed: int, causal: bool) -> None:
    x = _lab(d_model, seed)
    s = scaling_sweep(x, seed, causal)
    w_q, w_k = scaling_weights(d_model, seed)
    mask = llm.causal_mask(x.shape[0], causal)
    assert s.d_k.tolist() == list(range(1, MAX_D_K + 1))
    for d in (1, 2, 5, 17, 64):
        q, k = x @ w_q[:, :d], x @ w_k[:, :d]
        raw = q @ k.T
        seen = raw[mask]
        np.testing.assert_allclose(s.raw_std[d - 1], seen.std(), **TOL)
        np.testing.assert_allclose(s.scaled_std[d - 1], (seen / math.sqrt(d)).std(), **TOL)
        # the engine's own head of width d, with and without sqrt(d_k), gives the same patterns
        v = np.zeros((d_model, 1))
        for scale, prefix in ((True, "scaled"), (False, "raw")):
            head = engine.attention_head(x, w_q[:, :d], w_k[:, :d], v, mask, scale=scale)
            entropy = getattr(s, f"{prefix}_entropy")[d - 1]
            top = getattr(s, f"{prefix}_top")[d - 1]
            np.testing.assert_allclose(entropy, llm.head_entropy(head.pattern), **TOL)
            np.testing.assert_allclose(top, head.pattern.max(axis=1).mean(), **TOL)
    assert s.max_entropy == llm.max_head_entropy(x.shape[0], causal)


def test_the_weights_are_drawn_like_the_labs() -> None:
    w_q, w_k = scaling_weights(8, 5)
    assert w_q.shape == w_k.shape == (8, MAX_D_K)
    rng = np.random.default_rng(5)
    first = rng.standard_normal((8, MAX_D_K)) * llm.QK_GAIN / math.sqrt(8)
    np.testing.assert_allclose(w_q, first, rtol=1e-15)
    assert not np.array_equal(w_q, w_k)
    # the lab's seed decides: another seed, other weights
    assert not np.array_equal(scaling_weights(8, 6)[0], w_q)


def _slope(d_k: np.ndarray, series: np.ndarray) -> float:
    """The exponent p of the best fit series ~ d_k ** p (least squares on the logs, numpy's)."""
    return float(np.polyfit(np.log(d_k), np.log(series), 1)[0])


def test_power_law_exponent() -> None:
    x = np.array([1.0, 4.0, 9.0, 16.0])
    assert power_law_exponent(x, 3.0 * np.sqrt(x)) == pytest.approx(0.5, abs=1e-12)
    assert power_law_exponent(x, x**2) == pytest.approx(2.0, abs=1e-12)
    assert power_law_exponent(np.array([1.0, 4.0]), np.array([3.0, 6.0])) == pytest.approx(0.5)
    assert np.isnan(power_law_exponent(x, np.array([0.0, 1.0, 2.0, 3.0])))


def test_raw_spread_grows_like_sqrt_d_k_and_the_scaled_one_does_not() -> None:
    slopes = []
    for seed in range(12):
        s = scaling_sweep(_lab(8, seed), seed)
        raw, scaled = _slope(s.d_k, s.raw_std), _slope(s.d_k, s.scaled_std)
        assert s.exponent == pytest.approx(raw, abs=1e-9)  # the sweep's own fit
        # one seed, six tokens: a noisy curve, but always growing, and about as √d_k
        assert 0.25 < raw < 0.8, seed
        assert scaled == pytest.approx(raw - 0.5, abs=1e-9)  # divided by d_k ** 0.5
        slopes.append(raw)
        # without √d_k the wide heads end nearer one-hot: lower entropy, a larger top probability
        wide = slice(31, 64)
        assert s.raw_entropy[wide].mean() < s.scaled_entropy[wide].mean(), seed
        assert s.raw_top[wide].mean() > s.scaled_top[wide].mean(), seed
    assert np.mean(slopes) == pytest.approx(0.5, abs=0.1)


def test_one_token_and_the_bounds() -> None:
    s = scaling_sweep(_lab(8, 0, "cat"), 0)
    assert np.all(s.raw_std == 0.0) and np.all(s.scaled_std == 0.0) and np.isnan(s.exponent)
    assert np.all(s.raw_entropy == 0.0) and np.all(s.raw_top == 1.0)
    s = scaling_sweep(_lab(8, 0), 0, causal=False)
    for series in (s.raw_entropy, s.scaled_entropy):
        assert np.all(series >= 0.0) and np.all(series <= s.max_entropy + 1e-12)
    for series in (s.raw_top, s.scaled_top):
        assert np.all(series >= 1 / 6 - 1e-12) and np.all(series <= 1.0)
