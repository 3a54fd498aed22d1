"""The tiny trained model: its run against the engine, its gradient against finite differences,
its file, and its bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import llm
from llm.batch import forward, loss_and_grad
from llm.checkpoints import MODEL_FILE, load_model
from llm.corpus import VOCAB, repeat_batch
from llm.model import ModelParams, ModelSpec, TinyModel, init_model, run_model
from llm.model_backward import sequence_grad, sequence_loss
from tests.finite_differences import numeric_gradient


def _small_model(seed: int = 3, qk: float = 2.5) -> TinyModel:
    """A model small enough for finite differences, W_Q and W_K scaled up so heads are sharp."""
    spec = ModelSpec(n_vocab=len(VOCAB), d_model=6, n_heads=2, max_len=7, seed=seed)
    named = init_model(spec).arrays()
    for name in named:
        if name.endswith(("W_Q", "W_K")):
            named[name] = named[name] * qk
    return TinyModel(vocab=VOCAB, spec=spec, params=ModelParams.from_arrays(named), step=0)


def _numeric_grad(model: TinyModel, ids: list[int], name: str) -> np.ndarray:
    named = model.params.arrays()

    def loss() -> float:
        return sequence_loss(run_model(_with(model, ModelParams.from_arrays(named)), ids))

    return numeric_gradient(loss, named[name])


def _with(model: TinyModel, params: ModelParams) -> TinyModel:
    return TinyModel(vocab=model.vocab, spec=model.spec, params=params, step=model.step)


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    """Within 1e-6 relative, or 1e-11 absolute where the gradient is zero (a one-key row)."""
    scale = max(np.linalg.norm(got), np.linalg.norm(want))
    return float(np.linalg.norm(got - want)) <= 1e-6 * scale + 1e-11


@pytest.mark.parametrize("ids", [[0, 1, 2, 3, 0, 1, 2], [5, 5, 9], [4, 7]])
def test_full_gradient_matches_central_finite_differences(ids: list[int]) -> None:
    model = _small_model()
    loss, grads = sequence_grad(model, ids)
    assert loss == pytest.approx(sequence_loss(run_model(model, ids)))
    assert set(grads) == set(model.params.arrays())
    for name in grads:
        numeric = _numeric_grad(model, ids, name)
        assert _close(grads[name], numeric), name


def test_gradient_reaches_every_matrix_on_a_long_sequence() -> None:
    model = _small_model()
    _, grads = sequence_grad(model, [0, 1, 2, 3, 0, 1, 2])
    for name, g in grads.items():
        assert np.linalg.norm(g) > 1e-6, name
    # rows of W_E of words absent from the sequence, and positions past it, get no gradient
    assert np.all(grads["W_E"][4:] == 0.0) and np.linalg.norm(grads["W_E"][:4]) > 0


def test_batched_forward_equals_the_engine_run_head_by_head() -> None:
    model = load_model()
    ids = repeat_batch(np.random.default_rng(5), 3, model.max_len, len(model.vocab))
    cache = forward(model.params.arrays(), ids)
    for b in range(3):
        run = run_model(model, ids[b])
        assert np.abs(cache["logits"][b] - run.logits).max() < 1e-12
        for layer, trace in enumerate(run.layers):
            for h, head in enumerate(trace.heads):
                assert np.abs(cache[f"pattern{layer}"][b, h] - head.pattern).max() < 1e-12


def test_batched_gradient_is_the_mean_of_the_sequence_gradients() -> None:
    model = _small_model(seed=8)
    ids = repeat_batch(np.random.default_rng(1), 4, 7, len(VOCAB))
    loss, grads = loss_and_grad(model.params.arrays(), ids)
    singles = [sequence_grad(model, list(row)) for row in ids]
    assert loss == pytest.approx(np.mean([s[0] for s in singles]), abs=1e-13)
    for name, g in grads.items():
        mean = np.mean([s[1][name] for s in singles], axis=0)
        assert np.abs(g - mean).max() < 1e-13, name


def test_run_model_layers_are_the_engine_sublayer_on_the_layer_norm_of_the_residual() -> None:
    model = load_model()
    ids = model.encode("the cat sat on the mat")
    run = run_model(model, ids)
    assert len(run.layers) == model.n_layers and run.resid.shape == (3, 6, model.d_model)
    for layer, trace in enumerate(run.layers):
        again = llm.multi_head_attention(
            llm.layer_norm(run.resid[layer]), model.params.layers[layer], causal=True
        )
        assert np.array_equal(again.attn_out, trace.attn_out)
        assert np.allclose(run.resid[layer + 1], run.resid[layer] + trace.attn_out, atol=0)
        for head in trace.heads:
            assert np.allclose(head.pattern.sum(axis=1), 1.0) and np.all(
                np.triu(head.pattern, 1) == 0
            )
    assert run.logits.shape == (6, len(model.vocab))


def test_one_token_runs() -> None:
    model = load_model()
    run = run_model(model, model.encode("cat"))
    assert run.logits.shape == (1, len(model.vocab))
    assert run.layers[0].heads[0].pattern.tolist() == [[1.0]]


def test_the_shipped_model_and_its_checkpoints() -> None:
    model = load_model()
    assert {"the", "cat", "sat", "on", "mat", "."} <= set(model.vocab)
    assert 20 <= len(model.steps) <= 40 and model.steps[0] == 0 and model.step == model.steps[-1]
    assert list(model.steps) == sorted(set(model.steps))
    assert (model.n_layers, model.n_heads, model.d_model, model.max_len) == (2, 4, 32, 32)
    assert MODEL_FILE.stat().st_size <= 2_000_000
    assert model.params.W_E.dtype == np.float64 and model.params.layers[1].W_Q.dtype == np.float64
    first = load_model(step=0)
    assert first.step == 0 and not np.array_equal(first.params.W_U, model.params.W_U)
    assert model.history is not None and len(model.history.loss) == model.steps[-1]


def test_encode_ids_index_the_vocabulary() -> None:
    model = load_model()
    ids = model.encode("The cat sat on the mat.")
    assert [model.vocab[i] for i in ids] == ["the", "cat", "sat", "on", "the", "mat", "."]
    assert model.encode(["cat", "the"]) == [model.vocab.index("cat"), model.vocab.index("the")]


def test_an_unknown_word_is_named() -> None:
    with pytest.raises(llm.LabError) as error:
        load_model().encode("the zebra sat on the unicorn")
    assert error.value.code == "unknown_words"
    assert error.value.params["words"] == ["unicorn", "zebra"]
    assert "'zebra'" in str(error.value) and "mat" in str(error.value)


@pytest.mark.parametrize(("text", "code"), [("", "text_empty"), ("  ", "text_empty")])
def test_an_empty_sentence_is_refused(text: str, code: str) -> None:
    with pytest.raises(llm.LabError) as error:
        load_model().encode(text)
    assert error.value.code == code


def test_a_sentence_longer_than_the_context_is_refused() -> None:
    model = load_model()
    with pytest.raises(llm.LabError) as error:
        model.encode(["cat"] * (model.max_len + 1))
    assert error.value.code == "too_long_for_model"
    with pytest.raises(llm.LabError):
        run_model(model, [0] * (model.max_len + 1))
    with pytest.raises(llm.LabError):
        run_model(model, [len(model.vocab)])


@pytest.mark.parametrize("step", [-1, 1, 49, 10**6, "abc", True, 2.5])
def test_a_step_that_is_not_a_checkpoint_lists_them(step: object) -> None:
    with pytest.raises(llm.LabError) as error:
        load_model(step=step)  # type: ignore[arg-type]
    assert error.value.code == "unknown_step"
    steps = load_model().steps
    assert error.value.params["steps"] == steps
    assert ", ".join(map(str, steps)) in str(error.value)


def test_a_missing_model_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(llm.LabError) as error:
        load_model(path=tmp_path / "nothing.npz")
    assert error.value.code == "model_missing" and "python -m llm.train" in str(error.value)


def test_a_corrupt_model_file_says_so(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip archive at all")
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(MODEL_FILE.read_bytes()[:5000])
    missing_key = tmp_path / "missing_key.npz"
    with np.load(MODEL_FILE) as archive:
        arrays = {name: archive[name] for name in archive.files if name != "W_U"}
    np.savez(missing_key, **arrays)
    bad_shape = tmp_path / "bad_shape.npz"
    np.savez(bad_shape, **{**arrays, "W_U": np.zeros((31, 3, 3), dtype=np.float32)})
    for path in (garbage, truncated, missing_key, bad_shape):
        with pytest.raises(llm.LabError) as error:
            load_model(path=path)
        assert error.value.code == "model_corrupt", path.name
        assert path.name in str(error.value)


def test_top_predictions_are_the_largest_probabilities_in_order() -> None:
    model = load_model()
    run = run_model(model, model.encode("the cat sat on the mat . the cat"))
    top = llm.top_predictions(model, run, position=8)
    assert len(top) == 5
    probs = [p for _, p in top]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-12
    logits = run.logits[8]
    assert top[0][0] == model.vocab[int(np.argmax(logits))]
    full = np.exp(logits - logits.max())
    assert top[0][1] == pytest.approx(full.max() / full.sum(), rel=1e-12)
