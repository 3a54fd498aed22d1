"""The readable list-of-lists code (llm.attention, llm.nn) and the numpy engine (llm.engine).

Part 1 runs the SAME test body on both implementations through a thin adapter each (lists in and
out for the readable code, arrays for the engine); every adapter returns numpy arrays so the body
can compare. Part 2 cross-checks the two directly with hypothesis over many random shapes: same
inputs, same outputs to 1e-12 for every intermediate of the trace.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llm
from llm import attention, engine, nn

TOL = {"rtol": 1e-12, "atol": 1e-12}
E = math.e


def _lists(m: object) -> list:
    """A nested list of Python floats, whatever was given (list or array)."""
    return np.asarray(m, dtype=np.float64).tolist()


class Readable:
    """llm.attention / llm.nn: plain lists in, plain lists out (turned into arrays here)."""

    name = "readable"

    def softmax(self, row: list[float]) -> np.ndarray:
        return np.array(attention.softmax(_lists(row)))

    def add(self, a: object, b: object) -> np.ndarray:
        return np.array(nn.add(_lists(a), _lists(b)))

    def layer_norm(self, x: object, eps: float = 1e-5) -> np.ndarray:
        return np.array(nn.layer_norm(_lists(x), eps))

    def residual_layer_norm(
        self, x: object, out: object, eps: float = 1e-5
    ) -> tuple[np.ndarray, np.ndarray]:
        resid, ln_out = nn.residual_layer_norm(_lists(x), _lists(out), eps)
        return np.array(resid), np.array(ln_out)

    def row_stats(self, m: object) -> tuple[np.ndarray, np.ndarray]:
        mean, std = nn.row_stats(_lists(m))
        return np.array(mean), np.array(std)

    def row_entropy(self, pattern: object) -> np.ndarray:
        return np.array(nn.row_entropy(_lists(pattern)))

    def head_entropy(self, pattern: object) -> float:
        return nn.head_entropy(_lists(pattern))

    def attention_head(
        self, x: object, wq: object, wk: object, wv: object, causal: bool
    ) -> dict[str, np.ndarray]:
        head = nn.attention_head(_lists(x), _lists(wq), _lists(wk), _lists(wv), causal)
        return {name: np.array(value) for name, value in head.items()}

    def multi_head(
        self, x: object, wq: object, wk: object, wv: object, wo: object, causal: bool
    ) -> tuple[list[dict[str, np.ndarray]], np.ndarray, np.ndarray]:
        heads, concat, attn_out = nn.multi_head_attention(
            _lists(x), _lists(wq), _lists(wk), _lists(wv), _lists(wo), causal
        )
        heads_np = [{name: np.array(value) for name, value in h.items()} for h in heads]
        return heads_np, np.array(concat), np.array(attn_out)


class Engine:
    """llm.engine: float64 arrays in and out."""

    name = "engine"

    def softmax(self, row: list[float]) -> np.ndarray:
        return engine.softmax(np.asarray(row, dtype=np.float64))

    def add(self, a: object, b: object) -> np.ndarray:
        return engine.add(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))

    def layer_norm(self, x: object, eps: float = 1e-5) -> np.ndarray:
        return engine.layer_norm(np.asarray(x, dtype=np.float64), eps)

    def residual_layer_norm(
        self, x: object, out: object, eps: float = 1e-5
    ) -> tuple[np.ndarray, np.ndarray]:
        return engine.residual_layer_norm(
            np.asarray(x, dtype=np.float64), np.asarray(out, dtype=np.float64), eps
        )

    def row_stats(self, m: object) -> tuple[np.ndarray, np.ndarray]:
        return engine.row_stats(np.asarray(m, dtype=np.float64))

    def row_entropy(self, pattern: object) -> np.ndarray:
        return engine.row_entropy(np.asarray(pattern, dtype=np.float64))

    def head_entropy(self, pattern: object) -> float:
        return engine.head_entropy(np.asarray(pattern, dtype=np.float64))

    @staticmethod
    def _head(h: engine.HeadTrace) -> dict[str, np.ndarray]:
        return {name: getattr(h, name) for name in ("q", "k", "v", "scores", "pattern", "z")}

    def attention_head(
        self, x: object, wq: object, wk: object, wv: object, causal: bool
    ) -> dict[str, np.ndarray]:
        x = np.asarray(x, dtype=np.float64)
        mask = engine.causal_mask(x.shape[0], causal)
        w = [np.asarray(m, dtype=np.float64) for m in (wq, wk, wv)]
        return self._head(engine.attention_head(x, *w, mask))

    def multi_head(
        self, x: object, wq: object, wk: object, wv: object, wo: object, causal: bool
    ) -> tuple[list[dict[str, np.ndarray]], np.ndarray, np.ndarray]:
        params = llm.Params(
            W_Q=np.asarray(wq, dtype=np.float64),
            W_K=np.asarray(wk, dtype=np.float64),
            W_V=np.asarray(wv, dtype=np.float64),
            W_O=np.asarray(wo, dtype=np.float64),
        )
        trace = engine.multi_head_attention(np.asarray(x, dtype=np.float64), params, causal)
        return [self._head(h) for h in trace.heads], trace.concat, trace.attn_out


@pytest.fixture(params=[Readable(), Engine()], ids=lambda impl: impl.name)
def impl(request: pytest.FixtureRequest) -> Readable | Engine:
    return request.param


# ---------------------------------------------------------------- part 1: one body, two impls


def test_softmax_hand_values(impl: Readable | Engine) -> None:
    np.testing.assert_allclose(impl.softmax([0.0, 0.0]), [0.5, 0.5], **TOL)
    np.testing.assert_allclose(impl.softmax([1.0, 0.0]), [E / (1 + E), 1 / (1 + E)], **TOL)
    z = 1 + E + E**2
    np.testing.assert_allclose(impl.softmax([0.0, 1.0, 2.0]), [1 / z, E / z, E**2 / z], **TOL)
    # adding a constant to every score changes nothing
    np.testing.assert_allclose(impl.softmax([100.0, 101.0, 102.0]), [1 / z, E / z, E**2 / z], **TOL)


def test_softmax_masked_entries_are_exactly_zero(impl: Readable | Engine) -> None:
    p = impl.softmax([0.3, -math.inf, 1.2, -math.inf])
    assert p[1] == 0.0 and p[3] == 0.0
    np.testing.assert_allclose(p[[0, 2]], [1 / (1 + math.exp(0.9)), 1 / (1 + math.exp(-0.9))])
    only = impl.softmax([-math.inf, 5.0, -math.inf])
    assert only.tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([1e300, -1e300], [1.0, 0.0]),
        ([-1e300, 1e300, -math.inf], [0.0, 1.0, 0.0]),
        ([1e300, 1e300, -math.inf], [0.5, 0.5, 0.0]),
        ([-1e300, -1e300, -math.inf], [0.5, 0.5, 0.0]),
        ([-math.inf, -1e300, 0.0, 1e300], [0.0, 0.0, 0.0, 1.0]),
    ],
)
def test_softmax_huge_scores_stay_finite(
    impl: Readable | Engine, scores: list[float], expected: list[float]
) -> None:
    p = impl.softmax(scores)
    assert np.all(np.isfinite(p))
    assert p.tolist() == expected


def test_add(impl: Readable | Engine) -> None:
    out = impl.add([[1.0, 2.0], [3.0, -4.0]], [[0.5, -2.0], [0.0, 4.0]])
    assert out.tolist() == [[1.5, 0.0], [3.0, 0.0]]


def test_layer_norm_two_features_and_four(impl: Readable | Engine) -> None:
    eps = 1e-5
    # [3, 1]: mean 2, population var 1 -> ±1 / sqrt(1 + eps)
    # [0, 4]: mean 2, var 4 -> ±2 / sqrt(4 + eps) = ±1 / sqrt(1 + eps / 4)
    # [1, 2, 3, 4]: mean 2.5, var 1.25
    out = impl.layer_norm([[3.0, 1.0], [0.0, 4.0]], eps)
    a, b = 1 / math.sqrt(1 + eps), 1 / math.sqrt(1 + eps / 4)
    np.testing.assert_allclose(out, [[a, -a], [-b, b]], **TOL)
    out4 = impl.layer_norm([[1.0, 2.0, 3.0, 4.0]], eps)
    s = math.sqrt(1.25 + eps)
    np.testing.assert_allclose(out4, [[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]], **TOL)
    # a bigger eps shrinks the row more: the default really is 1e-5
    np.testing.assert_allclose(impl.layer_norm([[3.0, 1.0]]), [[a, -a]], **TOL)
    big = impl.layer_norm([[3.0, 1.0]], 1.0)
    np.testing.assert_allclose(big, [[1 / math.sqrt(2), -1 / math.sqrt(2)]], **TOL)


def test_layer_norm_constant_row_gives_zeros(impl: Readable | Engine) -> None:
    out = impl.layer_norm([[7.0, 7.0, 7.0, 7.0], [-1e6, -1e6, -1e6, -1e6], [1.0, -1.0, 1.0, -1.0]])
    assert np.all(np.isfinite(out))
    assert out[0].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert out[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    c = 1 / math.sqrt(1 + 1e-5)
    np.testing.assert_allclose(out[2], [c, -c, c, -c], **TOL)


def test_residual_layer_norm(impl: Readable | Engine) -> None:
    x = [[1.0, 0.0], [2.0, 2.0]]
    out = [[2.0, 1.0], [-1.0, 3.0]]
    resid, ln_out = impl.residual_layer_norm(x, out)
    assert resid.tolist() == [[3.0, 1.0], [1.0, 5.0]]
    a, b = 1 / math.sqrt(1 + 1e-5), 1 / math.sqrt(1 + 1e-5 / 4)
    np.testing.assert_allclose(ln_out, [[a, -a], [-b, b]], **TOL)
    # a residual that cancels x exactly: zeros, not NaN
    resid0, ln0 = impl.residual_layer_norm([[1.0, 2.0]], [[-1.0, -2.0]])
    assert resid0.tolist() == [[0.0, 0.0]] and ln0.tolist() == [[0.0, 0.0]]


def test_row_stats_population_std(impl: Readable | Engine) -> None:
    mean, std = impl.row_stats([[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0], [0.0, 2.0, 0.0, 2.0]])
    np.testing.assert_allclose(mean, [2.5, 5.0, 1.0], **TOL)
    # divide by n (population), not n - 1: sqrt(1.25), not sqrt(5/3)
    np.testing.assert_allclose(std, [math.sqrt(1.25), 0.0, 1.0], **TOL)


def test_row_entropy_and_head_entropy(impl: Readable | Engine) -> None:
    p = E / (1 + E)
    pattern = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]]
    h = impl.row_entropy(pattern)
    assert h[0] == 0.0  # 0 ln 0 = 0 and 1 ln 1 = 0: exactly zero
    np.testing.assert_allclose(h, [0.0, math.log(2), math.log(3)], **TOL)
    np.testing.assert_allclose(impl.head_entropy(pattern), (math.log(2) + math.log(3)) / 3, **TOL)
    # two keys with probabilities e/(1+e), 1/(1+e): H = ln(1+e) - e/(1+e)
    h2 = impl.row_entropy([[p, 1 - p]])
    np.testing.assert_allclose(h2, [math.log(1 + E) - p], **TOL)


def test_row_entropy_one_hot_rows_exactly_zero(impl: Readable | Engine) -> None:
    h = impl.row_entropy([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    assert h.tolist() == [0.0, 0.0]
    assert impl.head_entropy([[0.0, 1.0], [1.0, 0.0]]) == 0.0


# one head, three tokens, d_head 1 so the scale sqrt(d_head) is 1 (worked out in the comments)
X3 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
WQ0, WK0, WV0 = [[1.0], [0.0]], [[0.0], [1.0]], [[1.0], [0.0]]
# q = [1, 0, 1], k = [0, 1, 1], v = [1, 0, 1]; scores[i][j] = q_i k_j (not symmetric)
SCORES0 = [[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
S = 1 + 2 * E  # the softmax denominator of the row [0, 1, 1]


def test_attention_head_hand_computed_causal(impl: Readable | Engine) -> None:
    head = impl.attention_head(X3, WQ0, WK0, WV0, causal=True)
    assert head["q"].tolist() == [[1.0], [0.0], [1.0]]
    assert head["k"].tolist() == [[0.0], [1.0], [1.0]]
    assert head["v"].tolist() == [[1.0], [0.0], [1.0]]
    assert head["scores"].tolist() == SCORES0
    pattern = head["pattern"]
    # row 0 sees only itself, row 1 two equal scores, row 2 the row [0, 1, 1]
    np.testing.assert_allclose(
        pattern, [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / S, E / S, E / S]], **TOL
    )
    assert pattern[0, 1] == 0.0 and pattern[0, 2] == 0.0 and pattern[1, 2] == 0.0
    # z = pattern @ v: 1, 1/2, (1 + e) / (1 + 2e)
    np.testing.assert_allclose(head["z"], [[1.0], [0.5], [(1 + E) / S]], **TOL)


def test_attention_head_hand_computed_no_mask(impl: Readable | Engine) -> None:
    head = impl.attention_head(X3, WQ0, WK0, WV0, causal=False)
    assert head["scores"].tolist() == SCORES0
    row = [1 / S, E / S, E / S]
    np.testing.assert_allclose(head["pattern"], [row, [1 / 3, 1 / 3, 1 / 3], row], **TOL)
    np.testing.assert_allclose(head["z"], [[(1 + E) / S], [2 / 3], [(1 + E) / S]], **TOL)


# a second head: q = [0, 2, 2], k = [1, 1, 2], v = [0, 3, 3]; rows 1 and 2 score [2, 2, 4]
WQ1, WK1, WV1 = [[0.0], [2.0]], [[1.0], [1.0]], [[0.0], [3.0]]
W_O2 = [[1.0, 1.0], [0.0, -1.0]]  # [z0, z1] @ W_O = [z0, z0 - z1]


def test_multi_head_hand_computed(impl: Readable | Engine) -> None:
    heads, concat, attn_out = impl.multi_head(
        X3, [WQ0, WQ1], [WK0, WK1], [WV0, WV1], W_O2, causal=True
    )
    assert len(heads) == 2
    assert heads[1]["scores"].tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 4.0], [2.0, 2.0, 4.0]]
    z2 = 2 + E**2
    np.testing.assert_allclose(
        heads[1]["pattern"], [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / z2, 1 / z2, E**2 / z2]], **TOL
    )
    z0 = [1.0, 0.5, (1 + E) / S]
    z1 = [0.0, 1.5, (3 + 3 * E**2) / z2]
    np.testing.assert_allclose(concat, np.column_stack([z0, z1]), **TOL)  # head 0 first
    np.testing.assert_allclose(attn_out, np.column_stack([z0, np.subtract(z0, z1)]), **TOL)


# ---------------------------------------------------------------- part 2: direct cross-check

VOCAB = ["the", "cat", "sat", "on", "mat", ".", "a", "dog", "ran"]


@st.composite
def sublayers(draw: st.DrawFn) -> tuple[llm.AttentionConfig, list[str], bool]:
    d_model = draw(st.integers(1, 32))
    n_heads = draw(st.sampled_from(llm.divisors(d_model)))
    seed = draw(st.integers(0, llm.MAX_SEED))
    tokens = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=12))
    causal = draw(st.booleans())
    return llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed), tokens, causal


def _readable_trace(
    x: np.ndarray, params: llm.Params, causal: bool
) -> tuple[list[dict[str, list]], list, list]:
    return nn.multi_head_attention(
        x.tolist(),
        params.W_Q.tolist(),
        params.W_K.tolist(),
        params.W_V.tolist(),
        params.W_O.tolist(),
        causal,
    )


@settings(max_examples=80, deadline=None)
@given(sublayers())
def test_every_intermediate_agrees(case: tuple[llm.AttentionConfig, list[str], bool]) -> None:
    cfg, tokens, causal = case
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, causal=causal)
    heads, concat, attn_out = _readable_trace(x, params, causal)

    assert len(heads) == len(trace.heads) == cfg.n_heads
    for mine, ref in zip(trace.heads, heads, strict=True):
        for name in ("q", "k", "v", "scores", "pattern", "z"):
            np.testing.assert_allclose(getattr(mine, name), ref[name], err_msg=name, **TOL)
        if causal:  # masked probabilities are exactly 0.0 in both
            assert np.all(np.triu(mine.pattern, 1) == 0.0)
            assert np.all(np.triu(np.array(ref["pattern"]), 1) == 0.0)
        np.testing.assert_allclose(
            llm.row_entropy(mine.pattern), nn.row_entropy(ref["pattern"]), **TOL
        )
        np.testing.assert_allclose(
            llm.head_entropy(mine.pattern), nn.head_entropy(ref["pattern"]), **TOL
        )
    np.testing.assert_allclose(trace.concat, concat, **TOL)
    np.testing.assert_allclose(trace.attn_out, attn_out, **TOL)

    resid, ln_out = llm.residual_layer_norm(x, trace.attn_out)
    r_resid, r_ln = nn.residual_layer_norm(x.tolist(), attn_out)
    np.testing.assert_allclose(resid, r_resid, **TOL)
    np.testing.assert_allclose(ln_out, r_ln, **TOL)
    for mine, ref in zip(llm.row_stats(ln_out), nn.row_stats(r_ln), strict=True):
        np.testing.assert_allclose(mine, ref, **TOL)


@settings(max_examples=80, deadline=None)
@given(sublayers())
def test_causal_attention_equals_engine_head_z(
    case: tuple[llm.AttentionConfig, list[str], bool],
) -> None:
    cfg, tokens, _ = case
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    mask = llm.causal_mask(len(tokens), True)
    for h in range(cfg.n_heads):
        w = (params.W_Q[h], params.W_K[h], params.W_V[h])
        z = llm.attention_head(x, *w, mask).z
        one_loop = attention.causal_attention(x.tolist(), *(m.tolist() for m in w))
        np.testing.assert_allclose(z, one_loop, **TOL)


finite = st.floats(-50.0, 50.0, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 8).flatmap(
        lambda d: st.lists(st.lists(finite, min_size=d, max_size=d), min_size=1, max_size=6)
    ),
    st.sampled_from([1e-5, 1e-3, 1.0]),
)
def test_row_functions_agree_on_any_rows(rows: list[list[float]], eps: float) -> None:
    m = np.array(rows)
    for row in rows:
        np.testing.assert_allclose(llm.softmax(np.array(row)), attention.softmax(row), **TOL)
    np.testing.assert_allclose(llm.softmax(m), [attention.softmax(r) for r in rows], **TOL)
    np.testing.assert_allclose(llm.layer_norm(m, eps), nn.layer_norm(rows, eps), **TOL)
    np.testing.assert_allclose(llm.add(m, m), nn.add(rows, rows), **TOL)
    for mine, ref in zip(llm.row_stats(m), nn.row_stats(rows), strict=True):
        np.testing.assert_allclose(mine, ref, **TOL)
    probs = llm.softmax(m)
    np.testing.assert_allclose(llm.row_entropy(probs), nn.row_entropy(probs.tolist()), **TOL)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=70),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=70),
)
def test_dot_is_the_chapters_dot_to_the_last_bit(a: list[float], b: list[float]) -> None:
    """dot is chapter 8's sum(x * y for x, y in zip(a, b)), summing a list instead of a generator:
    the same products added in the same order, so the same float exactly (not only to 1e-12), and
    like zip it stops at the shorter vector."""
    chapter = sum(x * y for x, y in zip(a, b))
    assert attention.dot(a, b) == chapter
    assert math.copysign(1.0, attention.dot(a, b)) == math.copysign(1.0, chapter)


def test_readable_helpers_match_numpy() -> None:
    """dot, matmul, transpose, attention_scores, mix_values: the chapter 8 building blocks."""
    assert attention.dot([1.0, 2.0], [3.0, 4.0]) == 11.0
    a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    b = [[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]]
    assert attention.matmul(a, b) == [[7.0, -1.0], [16.0, -1.0]]
    assert attention.matmul(a, b) == (np.array(a) @ np.array(b)).tolist()
    assert attention.transpose(a) == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    q, k = [[1.0, 0.0], [1.0, 1.0]], [[0.0, 2.0], [3.0, 1.0]]
    assert attention.attention_scores(q, k) == [[0.0, 3.0], [2.0, 4.0]]
    pattern, v = [[1.0, 0.0], [0.25, 0.75]], [[4.0, 8.0], [0.0, -4.0]]
    assert attention.mix_values(pattern, v) == [[4.0, 8.0], [1.0, -1.0]]
    assert attention.scale_mask_softmax([[0.0, 9.0], [0.0, 0.0]], 4) == [[1.0, 0.0], [0.5, 0.5]]
    assert nn.concat_heads([[[1.0], [2.0]], [[3.0], [4.0]]]) == [[1.0, 3.0], [2.0, 4.0]]
    w_o = [[0.0, 1.0], [1.0, 0.0]]
    assert nn.combine_heads([[[1.0], [2.0]], [[3.0], [4.0]]], w_o) == [[3.0, 1.0], [4.0, 2.0]]
