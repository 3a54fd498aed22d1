"""Small cases worked out by hand, the numbers written in the test, on both implementations.

Chapter 8's toy sentence with its hand-made 4-D embeddings, and a two-token, two-head sublayer
whose every step (scores, softmax, z, entropy, residual, LayerNorm) has a closed form.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

import llm
from llm import attention, engine, nn, readable

TOL = {"rtol": 1e-12, "atol": 1e-12}
E = math.e
P = E / (1 + E)  # softmax([1, 0])[0]
EPS = 1e-5
IMPLS = pytest.mark.parametrize("impl", [engine, readable], ids=["engine", "readable"])


def _run(impl: ModuleType, causal: bool) -> tuple:
    """The two-token sublayer below through ``impl``, its residual and LayerNorm included."""
    trace = impl.multi_head_attention(X2, PARAMS2, causal=causal)
    resid, ln_out = impl.residual_layer_norm(X2, trace.attn_out)
    return trace.heads, *(np.asarray(m) for m in (trace.concat, trace.attn_out, resid, ln_out))


# two tokens, d_model 2, two heads of d_head 1 (so sqrt(d_head) = 1), W_O = identity
X2 = np.array([[1.0, 0.0], [0.0, 1.0]])
W_Q = [[[1.0], [0.0]], [[0.0], [1.0]]]  # head 0: q = [1, 0]    head 1: q = [0, 1]
W_K = [[[1.0], [0.0]], [[1.0], [1.0]]]  # head 0: k = [1, 0]    head 1: k = [1, 1]
W_V = [[[2.0], [4.0]], [[1.0], [-1.0]]]  # head 0: v = [2, 4]    head 1: v = [1, -1]
W_O = [[1.0, 0.0], [0.0, 1.0]]
PARAMS2 = llm.Params(*(np.array(m, dtype=np.float64) for m in (W_Q, W_K, W_V, W_O)))


@IMPLS
def test_two_tokens_without_mask(impl: ModuleType) -> None:
    heads, concat, attn_out, resid, ln_out = _run(impl, False)
    pattern0, pattern1 = np.asarray(heads[0].pattern), np.asarray(heads[1].pattern)
    # head 0: scores [[1, 0], [0, 0]]; row 0 -> [e/(1+e), 1/(1+e)], row 1 -> [1/2, 1/2]
    assert np.asarray(heads[0].scores).tolist() == [[1.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(pattern0, [[P, 1 - P], [0.5, 0.5]], **TOL)
    # z0 = pattern @ [2, 4] = [2p + 4(1 - p), 3] = [4 - 2p, 3]
    np.testing.assert_allclose(heads[0].z, [[4 - 2 * P], [3.0]], **TOL)
    # head 1: scores [[0, 0], [1, 1]]: both rows uniform, z1 = (1 - 1) / 2 = 0
    assert np.asarray(heads[1].scores).tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert pattern1.tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert np.asarray(heads[1].z).tolist() == [[0.0], [0.0]]
    np.testing.assert_allclose(concat, [[4 - 2 * P, 0.0], [3.0, 0.0]], **TOL)
    np.testing.assert_allclose(attn_out, concat, **TOL)  # W_O = identity
    # resid = x + attn_out = [[5 - 2p, 0], [3, 1]]
    np.testing.assert_allclose(resid, [[5 - 2 * P, 0.0], [3.0, 1.0]], **TOL)
    # a 2-feature row [a, b] normalizes to ±1 / sqrt(1 + eps / var), var = ((a - b) / 2)²
    var0 = ((5 - 2 * P) / 2) ** 2
    c0, c1 = 1 / math.sqrt(1 + EPS / var0), 1 / math.sqrt(1 + EPS)
    np.testing.assert_allclose(ln_out, [[c0, -c0], [c1, -c1]], **TOL)

    # entropy: H([p, 1 - p]) = ln(1 + e) - e/(1 + e) ≈ 0.5822, H([1/2, 1/2]) = ln 2
    h0 = np.asarray(impl.row_entropy(pattern0))
    np.testing.assert_allclose(h0, [math.log(1 + E) - P, math.log(2)], **TOL)
    assert h0[0] == pytest.approx(0.58220, abs=1e-5)
    mean0 = (math.log(1 + E) - P + math.log(2)) / 2
    assert impl.head_entropy(pattern0) == pytest.approx(mean0, rel=1e-12)
    assert llm.head_sharpness(pattern0, causal=False) == pytest.approx(
        mean0 / math.log(2), rel=1e-12
    )
    assert llm.head_sharpness(pattern1, causal=False) == 1.0
    assert llm.classify_head(pattern1, causal=False) == "diffuse"


@IMPLS
def test_two_tokens_causal(impl: ModuleType) -> None:
    heads, concat, attn_out, resid, ln_out = _run(impl, True)
    pattern0, pattern1 = np.asarray(heads[0].pattern), np.asarray(heads[1].pattern)
    # row 0 may only look at itself: [1, 0] in both heads, whatever its scores
    assert pattern0.tolist() == [[1.0, 0.0], [0.5, 0.5]]
    assert pattern1.tolist() == [[1.0, 0.0], [0.5, 0.5]]
    assert pattern0[0, 1] == 0.0  # masked: exactly 0.0
    # z0 = [2, (2 + 4) / 2] = [2, 3]; z1 = [1, (1 - 1) / 2] = [1, 0]
    assert concat.tolist() == [[2.0, 1.0], [3.0, 0.0]]
    assert attn_out.tolist() == [[2.0, 1.0], [3.0, 0.0]]
    assert resid.tolist() == [[3.0, 1.0], [3.0, 1.0]]
    c = 1 / math.sqrt(1 + EPS)  # [3, 1]: mean 2, var 1
    np.testing.assert_allclose(ln_out, [[c, -c], [c, -c]], **TOL)
    h = impl.row_entropy(pattern0)
    assert h[0] == 0.0
    assert h[1] == pytest.approx(math.log(2), rel=1e-15)


# chapter 8: "the cat sat on mat", five tokens, four hand-made features
TOY = "the cat sat on mat"
X_TOY = [
    [0.0, 0.0, 1.0, 0.0],  # the: little word
    [1.0, 0.0, 0.0, 1.0],  # cat: noun, alive
    [0.0, 1.0, 0.0, 0.5],  # sat: verb, half alive
    [0.0, 0.5, 1.0, 0.0],  # on:  half verb, little word
    [1.0, 0.0, 0.0, 0.0],  # mat: noun
]


def test_chapter_8_toy_tokens_embeddings_shapes() -> None:
    tokens = llm.tokenize(TOY)
    assert tokens == ["the", "cat", "sat", "on", "mat"]
    assert llm.token_labels(tokens) == tokens
    assert llm.unknown_handmade(tokens) == []
    cfg = llm.AttentionConfig(d_model=4, n_heads=1, seed=0, embeddings="handmade")
    x = llm.embed(tokens, cfg)
    assert x.shape == (5, 4) and x.dtype == np.float64
    assert x.tolist() == X_TOY
    assert x.tolist() == [list(llm.HANDMADE_TABLE[t]) for t in tokens]
    assert llm.HANDMADE_FEATURES == ("noun", "verb", "little word", "alive")
    assert llm.HANDMADE_D_MODEL == 4
    # the hand-made rows do not depend on the seed; the seeded ones do
    assert np.array_equal(llm.embed(tokens, llm.AttentionConfig(4, 1, 9, "handmade")), x)
    assert not np.array_equal(llm.embed(tokens, llm.AttentionConfig(4, 1, 0)), x)
    for n_heads, d_head in [(1, 4), (2, 2), (4, 1)]:
        cfg = llm.AttentionConfig(d_model=4, n_heads=n_heads, embeddings="handmade")
        params = llm.init_params(cfg)
        assert params.W_Q.shape == params.W_K.shape == params.W_V.shape == (n_heads, 4, d_head)
        assert params.W_O.shape == (4, 4)
        trace = llm.multi_head_attention(x, params, causal=True)
        assert len(trace.heads) == n_heads
        for head in trace.heads:
            assert head.q.shape == head.k.shape == head.v.shape == head.z.shape == (5, d_head)
            assert head.scores.shape == head.pattern.shape == (5, 5)
        assert trace.concat.shape == trace.attn_out.shape == (5, 4)


def test_chapter_8_toy_unknown_token_gets_its_seeded_row() -> None:
    tokens = llm.tokenize("The cat sat on the mat.")
    assert tokens == ["the", "cat", "sat", "on", "the", "mat", "."]
    assert llm.unknown_handmade(tokens) == ["."]
    assert llm.unknown_handmade(["dog", "the", "a", "dog"]) == ["a", "dog"]
    cfg = llm.AttentionConfig(d_model=4, n_heads=2, seed=3, embeddings="handmade")
    x = llm.embed(tokens, cfg)
    assert x[:6].tolist() == [X_TOY[i] for i in (0, 1, 2, 3, 0, 4)]
    assert np.array_equal(x[6], llm.token_vector(".", 4, 3))


# with W_Q = W_K = W_V = I (d_head 4, scale sqrt 4 = 2) the scores are X·Xᵀ, read off the table
SCORES_TOY = [
    [1.0, 0.0, 0.0, 1.0, 0.0],
    [0.0, 2.0, 0.5, 0.0, 1.0],
    [0.0, 0.5, 1.25, 0.5, 0.0],
    [1.0, 0.0, 0.5, 1.25, 0.0],
    [0.0, 1.0, 0.0, 0.0, 1.0],
]


def test_chapter_8_toy_with_identity_projections() -> None:
    eye = np.eye(4)
    x = np.array(X_TOY)
    params = llm.Params(W_Q=eye[None], W_K=eye[None], W_V=eye[None], W_O=eye)
    trace = llm.multi_head_attention(x, params, causal=True)
    head = trace.heads[0]
    assert head.scores.tolist() == SCORES_TOY
    assert llm.asymmetry(head.scores) == 0.0  # W_Q = W_K: symmetric
    # row 1 (cat) sees [the, cat] with scaled scores [0, 1]
    np.testing.assert_allclose(head.pattern[1], [1 - P, P, 0.0, 0.0, 0.0], **TOL)
    # row 4 (mat) sees all five, scaled [0, 0.5, 0, 0, 0.5]
    r = math.sqrt(E)
    np.testing.assert_allclose(head.pattern[4], np.array([1, r, 1, 1, r]) / (3 + 2 * r), **TOL)
    assert head.pattern[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    # W_V = I: z = pattern @ X; cat's output is (1 - p)·the + p·cat
    np.testing.assert_allclose(head.z[1], [P, 0.0, 1 - P, P], **TOL)
    # chapter 8's one-loop causal_attention gives the same z
    one_loop = attention.causal_attention(X_TOY, eye.tolist(), eye.tolist(), eye.tolist())
    np.testing.assert_allclose(head.z, one_loop, **TOL)
    chapter = nn.attention_head(X_TOY, eye.tolist(), eye.tolist(), eye.tolist(), causal=True)
    assert chapter["scores"] == SCORES_TOY
    np.testing.assert_allclose(chapter["pattern"], head.pattern, **TOL)


def test_chapter_9_default_shapes_and_entropy_bound() -> None:
    """d_model 8, H 4, d_head 2 on the toy sentence; no row beats ln 5 ≈ 1.61 without the mask."""
    cfg = llm.AttentionConfig()
    assert (cfg.d_model, cfg.n_heads, cfg.d_head, cfg.seed) == (8, 4, 2, 0)
    assert cfg.embeddings == "seeded"
    tokens = llm.tokenize(TOY)
    trace = llm.multi_head_attention(llm.embed(tokens, cfg), llm.init_params(cfg), causal=False)
    assert [h.z.shape for h in trace.heads] == [(5, 2)] * 4
    for head in trace.heads:
        assert llm.head_entropy(head.pattern) <= math.log(5) + 1e-12
