"""The readable list-of-lists code (llm.readable, built from llm.attention and llm.nn) and the
numpy engine (llm.engine), through their one interface.

Part 1 runs the SAME test body on both modules: same calls, same arguments (numpy arrays in, as
the app has them); the engine answers with arrays, the readable code with lists, and the body
compares either with the numbers worked out by hand. Part 2 cross-checks the two directly with
hypothesis over many random shapes: same inputs, same outputs to 1e-12 for every intermediate.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llm
from llm import attention, engine, nn, readable
from llm.compare import HEAD_QUANTITIES

TOL = {"rtol": 1e-12, "atol": 1e-12}
E = math.e
IMPLS = [engine, readable]


def a(m: object) -> np.ndarray:
    """A float64 array: the inputs both modules take, and a view of either one's output."""
    return np.asarray(m, dtype=np.float64)


@pytest.fixture(params=IMPLS, ids=["engine", "readable"])
def impl(request: pytest.FixtureRequest) -> ModuleType:
    return request.param


# ---------------------------------------------------------------- part 1: one body, two impls


def test_softmax_hand_values(impl: ModuleType) -> None:
    np.testing.assert_allclose(impl.softmax(a([0.0, 0.0])), [0.5, 0.5], **TOL)
    np.testing.assert_allclose(impl.softmax(a([1.0, 0.0])), [E / (1 + E), 1 / (1 + E)], **TOL)
    z = 1 + E + E**2
    np.testing.assert_allclose(impl.softmax(a([0.0, 1.0, 2.0])), [1 / z, E / z, E**2 / z], **TOL)
    # adding a constant to every score changes nothing
    shifted = impl.softmax(a([100.0, 101.0, 102.0]))
    np.testing.assert_allclose(shifted, [1 / z, E / z, E**2 / z], **TOL)
    # a matrix: every row on its own
    rows = impl.softmax(a([[0.0, 0.0], [1.0, 0.0]]))
    np.testing.assert_allclose(rows, [[0.5, 0.5], [E / (1 + E), 1 / (1 + E)]], **TOL)


def test_softmax_masked_entries_are_exactly_zero(impl: ModuleType) -> None:
    p = a(impl.softmax(a([0.3, -math.inf, 1.2, -math.inf])))
    assert p[1] == 0.0 and p[3] == 0.0
    np.testing.assert_allclose(p[[0, 2]], [1 / (1 + math.exp(0.9)), 1 / (1 + math.exp(-0.9))])
    only = impl.softmax(a([-math.inf, 5.0, -math.inf]))
    assert a(only).tolist() == [0.0, 1.0, 0.0]


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
    impl: ModuleType, scores: list[float], expected: list[float]
) -> None:
    p = a(impl.softmax(a(scores)))
    assert np.all(np.isfinite(p))
    assert p.tolist() == expected


def test_add(impl: ModuleType) -> None:
    out = impl.add(a([[1.0, 2.0], [3.0, -4.0]]), a([[0.5, -2.0], [0.0, 4.0]]))
    assert a(out).tolist() == [[1.5, 0.0], [3.0, 0.0]]


def test_layer_norm_two_features_and_four(impl: ModuleType) -> None:
    eps = 1e-5
    # [3, 1]: mean 2, population var 1 -> ±1 / sqrt(1 + eps)
    # [0, 4]: mean 2, var 4 -> ±2 / sqrt(4 + eps) = ±1 / sqrt(1 + eps / 4)
    # [1, 2, 3, 4]: mean 2.5, var 1.25
    out = impl.layer_norm(a([[3.0, 1.0], [0.0, 4.0]]), eps)
    c, b = 1 / math.sqrt(1 + eps), 1 / math.sqrt(1 + eps / 4)
    np.testing.assert_allclose(out, [[c, -c], [-b, b]], **TOL)
    out4 = impl.layer_norm(a([[1.0, 2.0, 3.0, 4.0]]), eps)
    s = math.sqrt(1.25 + eps)
    np.testing.assert_allclose(out4, [[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]], **TOL)
    # a bigger eps shrinks the row more: the default really is 1e-5
    np.testing.assert_allclose(impl.layer_norm(a([[3.0, 1.0]])), [[c, -c]], **TOL)
    big = impl.layer_norm(a([[3.0, 1.0]]), 1.0)
    np.testing.assert_allclose(big, [[1 / math.sqrt(2), -1 / math.sqrt(2)]], **TOL)


def test_layer_norm_constant_row_gives_zeros(impl: ModuleType) -> None:
    rows = [[7.0, 7.0, 7.0, 7.0], [-1e6, -1e6, -1e6, -1e6], [1.0, -1.0, 1.0, -1.0]]
    out = a(impl.layer_norm(a(rows)))
    assert np.all(np.isfinite(out))
    assert out[0].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert out[1].tolist() == [0.0, 0.0, 0.0, 0.0]
    c = 1 / math.sqrt(1 + 1e-5)
    np.testing.assert_allclose(out[2], [c, -c, c, -c], **TOL)


@pytest.mark.parametrize("eps", [0.0, -1e-5, float("nan"), float("inf"), -float("inf")])
def test_layer_norm_rejects_bad_eps(impl: ModuleType, eps: float) -> None:
    x = a([[1.0, 2.0, 3.0]])
    with pytest.raises(llm.LabError) as err:
        impl.layer_norm(x, eps)
    assert err.value.code == "eps_range"
    assert "eps must be a positive number" in str(err.value)
    with pytest.raises(llm.LabError):
        impl.residual_layer_norm(x, x, eps)


def test_residual_layer_norm(impl: ModuleType) -> None:
    x = a([[1.0, 0.0], [2.0, 2.0]])
    out = a([[2.0, 1.0], [-1.0, 3.0]])
    resid, ln_out = impl.residual_layer_norm(x, out)
    assert a(resid).tolist() == [[3.0, 1.0], [1.0, 5.0]]
    c, b = 1 / math.sqrt(1 + 1e-5), 1 / math.sqrt(1 + 1e-5 / 4)
    np.testing.assert_allclose(ln_out, [[c, -c], [-b, b]], **TOL)
    # a residual that cancels x exactly: zeros, not NaN
    resid0, ln0 = impl.residual_layer_norm(a([[1.0, 2.0]]), a([[-1.0, -2.0]]))
    assert a(resid0).tolist() == [[0.0, 0.0]] and a(ln0).tolist() == [[0.0, 0.0]]


def test_row_stats_population_std(impl: ModuleType) -> None:
    rows = [[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0], [0.0, 2.0, 0.0, 2.0]]
    mean, std = impl.row_stats(a(rows))
    np.testing.assert_allclose(mean, [2.5, 5.0, 1.0], **TOL)
    # divide by n (population), not n - 1: sqrt(1.25), not sqrt(5/3)
    np.testing.assert_allclose(std, [math.sqrt(1.25), 0.0, 1.0], **TOL)


def test_row_entropy_and_head_entropy(impl: ModuleType) -> None:
    p = E / (1 + E)
    pattern = a([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    h = impl.row_entropy(pattern)
    assert h[0] == 0.0  # 0 ln 0 = 0 and 1 ln 1 = 0: exactly zero
    np.testing.assert_allclose(h, [0.0, math.log(2), math.log(3)], **TOL)
    np.testing.assert_allclose(impl.head_entropy(pattern), (math.log(2) + math.log(3)) / 3, **TOL)
    # two keys with probabilities e/(1+e), 1/(1+e): H = ln(1+e) - e/(1+e)
    h2 = impl.row_entropy(a([[p, 1 - p]]))
    np.testing.assert_allclose(h2, [math.log(1 + E) - p], **TOL)


def test_row_entropy_one_hot_rows_exactly_zero(impl: ModuleType) -> None:
    h = impl.row_entropy(a([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))
    assert a(h).tolist() == [0.0, 0.0]
    assert impl.head_entropy(a([[0.0, 1.0], [1.0, 0.0]])) == 0.0


def test_causal_mask(impl: ModuleType) -> None:
    assert np.asarray(impl.causal_mask(3, True)).tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]
    assert np.asarray(impl.causal_mask(2, False)).tolist() == [[True, True], [True, True]]


# one head, three tokens, d_head 1 so the scale sqrt(d_head) is 1 (worked out in the comments)
X3 = a([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
WQ0, WK0, WV0 = a([[1.0], [0.0]]), a([[0.0], [1.0]]), a([[1.0], [0.0]])
# q = [1, 0, 1], k = [0, 1, 1], v = [1, 0, 1]; scores[i][j] = q_i k_j (not symmetric)
SCORES0 = [[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
S = 1 + 2 * E  # the softmax denominator of the row [0, 1, 1]


def test_attention_head_hand_computed_causal(impl: ModuleType) -> None:
    head = impl.attention_head(X3, WQ0, WK0, WV0, impl.causal_mask(3, True))
    assert a(head.q).tolist() == [[1.0], [0.0], [1.0]]
    assert a(head.k).tolist() == [[0.0], [1.0], [1.0]]
    assert a(head.v).tolist() == [[1.0], [0.0], [1.0]]
    assert a(head.scores).tolist() == SCORES0
    pattern = a(head.pattern)
    # row 0 sees only itself, row 1 two equal scores, row 2 the row [0, 1, 1]
    np.testing.assert_allclose(
        pattern, [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / S, E / S, E / S]], **TOL
    )
    assert pattern[0, 1] == 0.0 and pattern[0, 2] == 0.0 and pattern[1, 2] == 0.0
    # z = pattern @ v: 1, 1/2, (1 + e) / (1 + 2e)
    np.testing.assert_allclose(head.z, [[1.0], [0.5], [(1 + E) / S]], **TOL)


def test_attention_head_hand_computed_no_mask(impl: ModuleType) -> None:
    head = impl.attention_head(X3, WQ0, WK0, WV0, impl.causal_mask(3, False))
    assert a(head.scores).tolist() == SCORES0
    row = [1 / S, E / S, E / S]
    np.testing.assert_allclose(head.pattern, [row, [1 / 3, 1 / 3, 1 / 3], row], **TOL)
    np.testing.assert_allclose(head.z, [[(1 + E) / S], [2 / 3], [(1 + E) / S]], **TOL)


def test_attention_head_temperature_and_scale_by_hand(impl: ModuleType) -> None:
    # d_head 4, q = k = [1, 1, 0, 0] for both tokens: every score is 2, sqrt(d_head) = 2
    x = a([[1.0, 0.0], [0.0, 1.0]])
    w = a([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]])  # token 0 -> [1, 1, 0, 0]
    w_k = a([[1.0, 1.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0]])  # k0 = [1, 1, 0, 0], k1 = [3, 0, 0, 0]
    full = impl.causal_mask(2, False)
    # q0 = [1, 1, 0, 0]: scores [2, 3]; scaled by 2 -> [1, 1.5]; at temperature 0.5 -> [2, 3]
    for temperature, scale, gap in [(1.0, True, 0.5), (0.5, True, 1.0), (2.0, False, 0.5)]:
        head = impl.attention_head(x, w, w_k, w, full, temperature, scale)
        assert a(head.scores)[0].tolist() == [2.0, 3.0]
        p1 = 1 / (1 + math.exp(-gap))  # softmax([0, gap])[1]
        np.testing.assert_allclose(a(head.pattern)[0], [1 - p1, p1], **TOL)


def test_multi_head_records_temperature_scale_and_mask(impl: ModuleType) -> None:
    params = llm.Params(W_Q=a([WQ0]), W_K=a([WK0]), W_V=a([WV0]), W_O=a([[1.0]]))
    trace = impl.multi_head_attention(X3, params, False, 0.5, False)
    assert (trace.causal, trace.temperature, trace.scale) == (False, 0.5, False)
    assert np.asarray(trace.mask).tolist() == np.asarray(impl.causal_mask(3, False)).tolist()


@pytest.mark.parametrize("temperature", [0.0, -1.0, 1e9, float("nan"), float("inf")])
def test_temperature_outside_the_range_is_a_lab_error(impl: ModuleType, temperature) -> None:
    params = llm.Params(W_Q=a([WQ0]), W_K=a([WK0]), W_V=a([WV0]), W_O=a([[1.0]]))
    with pytest.raises(llm.LabError) as err:
        impl.multi_head_attention(X3, params, True, temperature)
    assert err.value.code == "temperature_range"


# a second head: q = [0, 2, 2], k = [1, 1, 2], v = [0, 3, 3]; rows 1 and 2 score [2, 2, 4]
WQ1, WK1, WV1 = a([[0.0], [2.0]]), a([[1.0], [1.0]]), a([[0.0], [3.0]])
W_O2 = a([[1.0, 1.0], [0.0, -1.0]])  # [z0, z1] @ W_O = [z0, z0 - z1]


def test_multi_head_hand_computed(impl: ModuleType) -> None:
    params = llm.Params(W_Q=a([WQ0, WQ1]), W_K=a([WK0, WK1]), W_V=a([WV0, WV1]), W_O=W_O2)
    trace = impl.multi_head_attention(X3, params, causal=True)
    heads = trace.heads
    assert len(heads) == 2
    assert a(heads[1].scores).tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 4.0], [2.0, 2.0, 4.0]]
    z2 = 2 + E**2
    np.testing.assert_allclose(
        heads[1].pattern, [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / z2, 1 / z2, E**2 / z2]], **TOL
    )
    z0 = [1.0, 0.5, (1 + E) / S]
    z1 = [0.0, 1.5, (3 + 3 * E**2) / z2]
    np.testing.assert_allclose(trace.concat, np.column_stack([z0, z1]), **TOL)  # head 0 first
    np.testing.assert_allclose(trace.attn_out, np.column_stack([z0, np.subtract(z0, z1)]), **TOL)


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


@settings(max_examples=80, deadline=None)
@given(sublayers())
def test_every_intermediate_agrees(case: tuple[llm.AttentionConfig, list[str], bool]) -> None:
    cfg, tokens, causal = case
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    trace = engine.multi_head_attention(x, params, causal=causal)
    ref = readable.multi_head_attention(x, params, causal=causal)

    assert len(ref.heads) == len(trace.heads) == cfg.n_heads
    assert np.array_equal(trace.mask, ref.mask) and trace.causal is ref.causal is causal
    for mine, theirs in zip(trace.heads, ref.heads, strict=True):
        for name in HEAD_QUANTITIES:
            np.testing.assert_allclose(
                getattr(mine, name), getattr(theirs, name), err_msg=name, **TOL
            )
        if causal:  # masked probabilities are exactly 0.0 in both
            assert np.all(np.triu(mine.pattern, 1) == 0.0)
            assert np.all(np.triu(a(theirs.pattern), 1) == 0.0)
        np.testing.assert_allclose(
            engine.row_entropy(mine.pattern), readable.row_entropy(theirs.pattern), **TOL
        )
        np.testing.assert_allclose(
            engine.head_entropy(mine.pattern), readable.head_entropy(theirs.pattern), **TOL
        )
    np.testing.assert_allclose(trace.concat, ref.concat, **TOL)
    np.testing.assert_allclose(trace.attn_out, ref.attn_out, **TOL)

    resid, ln_out = engine.residual_layer_norm(x, trace.attn_out)
    r_resid, r_ln = readable.residual_layer_norm(x, ref.attn_out)
    np.testing.assert_allclose(resid, r_resid, **TOL)
    np.testing.assert_allclose(ln_out, r_ln, **TOL)
    for mine, theirs in zip(engine.row_stats(ln_out), readable.row_stats(r_ln), strict=True):
        np.testing.assert_allclose(mine, theirs, **TOL)


@settings(max_examples=40, deadline=None)
@given(sublayers(), st.floats(0.05, 20.0), st.booleans())
def test_what_ifs_agree(
    case: tuple[llm.AttentionConfig, list[str], bool], temperature: float, scale: bool
) -> None:
    cfg, tokens, causal = case
    x, params = llm.embed(tokens, cfg), llm.init_params(cfg)
    trace = engine.multi_head_attention(x, params, causal, temperature, scale)
    ref = readable.multi_head_attention(x, params, causal, temperature, scale)
    assert (ref.temperature, ref.scale) == (trace.temperature, trace.scale) == (temperature, scale)
    for mine, theirs in zip(trace.heads, ref.heads, strict=True):
        np.testing.assert_allclose(mine.pattern, theirs.pattern, **TOL)
    np.testing.assert_allclose(trace.attn_out, ref.attn_out, **TOL)


@settings(max_examples=40, deadline=None)
@given(sublayers())
def test_readable_trace_is_the_chapters_code_bit_for_bit(
    case: tuple[llm.AttentionConfig, list[str], bool],
) -> None:
    """llm.readable at its defaults is chapter 9's nn.multi_head_attention, float for float."""
    cfg, tokens, causal = case
    x, params = llm.embed(tokens, cfg), llm.init_params(cfg)
    weights = (params.W_Q.tolist(), params.W_K.tolist(), params.W_V.tolist())
    heads, concat, attn_out = nn.multi_head_attention(
        x.tolist(), *weights, params.W_O.tolist(), causal
    )
    ref = readable.multi_head_attention(x, params, causal)
    for chapter, mine in zip(heads, ref.heads, strict=True):
        for name in HEAD_QUANTITIES:
            assert getattr(mine, name) == chapter[name], name
    assert ref.concat == concat and ref.attn_out == attn_out


def test_readable_knows_only_the_chapters_two_masks() -> None:
    odd = [[True, True], [False, True]]  # the future may look at the past: no chapter mask
    with pytest.raises(llm.LabError) as err:
        readable.attention_head(X3[:2], WQ0, WK0, WV0, odd)
    assert err.value.code == "mask"


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
