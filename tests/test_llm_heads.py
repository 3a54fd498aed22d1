"""The head detectors on hand-made patterns, and what the shipped model has learned, measured on
sequences this test draws itself."""

from __future__ import annotations

import numpy as np
import pytest

import llm
from llm.behaviour import best_heads, formation, loss_at, measure, roles_at
from llm.corpus import half_repeat
from llm.head_scores import first_token_score, head_role, induction_target


def _uniform_causal(t: int) -> np.ndarray:
    return np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]


def _previous_token(t: int) -> np.ndarray:
    pattern = np.eye(t, k=-1)
    pattern[0, 0] = 1.0
    return pattern


def _induction(t: int, period: int) -> np.ndarray:
    """Rows i >= period on key i - period + 1; the earlier rows on key 0."""
    pattern = np.zeros((t, t))
    pattern[:period, 0] = 1.0
    for i in range(period, t):
        pattern[i, i - period + 1] = 1.0
    return pattern


def test_previous_token_score_by_hand() -> None:
    assert llm.previous_token_score(_previous_token(5)) == 1.0
    # uniform causal rows: row i gives 1 / (i + 1) to key i - 1; T = 4: (1/2 + 1/3 + 1/4) / 3
    assert llm.previous_token_score(_uniform_causal(4)) == pytest.approx(13 / 36, abs=1e-15)
    assert llm.previous_token_score(np.eye(4)) == 0.0
    assert llm.previous_token_score(np.array([[1.0]])) == 0.0
    half = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.0, 0.2, 0.8]])
    assert llm.previous_token_score(half) == pytest.approx((0.5 + 0.2) / 2, abs=1e-15)


def test_induction_score_by_hand() -> None:
    assert llm.induction_score(_induction(6, 3), 3) == 1.0
    # a previous-token head does not look one place after the earlier copy (period 3: i - 2)
    assert llm.induction_score(_previous_token(6), 3) == 0.0
    # period 1: t[i] = t[i - 1], the token after the copy is i itself: the diagonal
    assert llm.induction_score(np.eye(4), 1) == 1.0
    # uniform rows, T = 6, period 3: rows 3, 4, 5 give 1/4, 1/5, 1/6 to keys 1, 2, 3
    assert llm.induction_score(_uniform_causal(6), 3) == pytest.approx(
        (1 / 4 + 1 / 5 + 1 / 6) / 3, abs=1e-15
    )
    pattern = _induction(6, 3)
    pattern[4] = [0, 0, 0.25, 0, 0.75, 0]
    assert llm.induction_score(pattern, 3) == pytest.approx((1 + 0.25 + 1) / 3, abs=1e-15)


@pytest.mark.parametrize(("t", "period"), [(1, 1), (3, 3), (3, 5), (4, 0)])
def test_induction_score_is_zero_when_nothing_repeats(t: int, period: int) -> None:
    assert llm.induction_score(_uniform_causal(t), period) == 0.0


def test_first_token_score_and_roles() -> None:
    parked = np.zeros((4, 4))
    parked[:, 0] = 1.0
    assert first_token_score(parked) == 1.0
    assert first_token_score(_previous_token(4)) == pytest.approx(1 / 3)
    assert first_token_score(np.array([[1.0]])) == 0.0
    assert head_role(0.9, 0.1, 0.0) == "previous token"
    assert head_role(0.1, 0.5, 0.2) == "induction"
    assert head_role(0.1, 0.2, 0.6) == "first token"
    assert head_role(0.29, 0.1, 0.2) == "diffuse"
    assert head_role(0.3, 0.3, 0.0) == "previous token"  # a tie goes to the first role


def _scores_by_engine(model: llm.TinyModel, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every head's scores averaged over ids, from run_model's traces and llm's detectors."""
    period = ids.shape[1] // 2
    shape = (len(ids), model.n_layers, model.n_heads)
    prev, ind = np.zeros(shape), np.zeros(shape)
    for b, row in enumerate(ids):
        for layer, trace in enumerate(llm.run_model(model, row).layers):
            for h, head in enumerate(trace.heads):
                prev[b, layer, h] = llm.previous_token_score(head.pattern)
                ind[b, layer, h] = llm.induction_score(head.pattern, period)
    return prev.mean(axis=0), ind.mean(axis=0)


@pytest.fixture(scope="module")
def own_sequences() -> np.ndarray:
    """Half-repeat sequences of this test's own seed: 12 distinct random words, then again."""
    return half_repeat(np.random.default_rng(777), 100, 12, len(llm.load_model().vocab))


def test_the_trained_model_has_an_induction_head_and_a_previous_token_head(
    own_sequences: np.ndarray,
) -> None:
    model = llm.load_model()
    prev, ind = _scores_by_engine(model, own_sequences)
    assert ind[1:].max() >= 0.4  # some head in layer >= 1
    assert prev.max() >= 0.5
    measured = measure(model.params, own_sequences)
    assert np.allclose(measured.previous, prev, atol=1e-12)
    assert np.allclose(measured.induction, ind, atol=1e-12)


def test_the_trained_model_copies_from_context_and_not_from_memory(
    own_sequences: np.ndarray,
) -> None:
    model = llm.load_model()
    period = own_sequences.shape[1] // 2
    right_repeat, right_first = [], []
    for row in own_sequences:
        guess = llm.run_model(model, row).logits.argmax(axis=1)  # [T]
        right_first += list(guess[: period - 1] == row[1:period])
        right_repeat += list(guess[period:-1] == row[period + 1 :])
    chance = 1 / len(model.vocab)
    assert np.mean(right_repeat) >= 0.8
    assert np.mean(right_first) <= 3 * chance


def test_at_step_zero_no_head_scores_above_a_fifth(own_sequences: np.ndarray) -> None:
    prev, ind = _scores_by_engine(llm.load_model(step=0), own_sequences)
    assert prev.max() <= 0.2 and ind.max() <= 0.2


def test_the_file_states_the_numbers_it_was_measured_at() -> None:
    model = llm.load_model()
    numbers = model.history.behaviour
    assert numbers["induction"] >= 0.4 and numbers["induction_layer"] >= 1
    assert numbers["previous"] >= 0.5 and numbers["accuracy_repeat"] >= 0.8
    assert max(numbers["step0_previous"], numbers["step0_induction"]) <= 0.2
    layer, head = int(numbers["induction_layer"]), int(numbers["induction_head"])
    assert model.history.induction[-1, layer, head] == pytest.approx(numbers["induction"], abs=0.1)


def test_induction_target_is_one_place_after_the_latest_earlier_occurrence() -> None:
    assert induction_target([5, 7, 9, 5], 3) == 1
    assert induction_target([5, 7, 5, 8, 5], 4) == 3  # the latest earlier 5 wins
    assert induction_target([5, 7, 9], 2) is None
    assert induction_target([5], 0) is None


def test_the_history_helpers_read_the_shipped_history() -> None:
    history = llm.load_model().history
    at, layer, head = formation(history)
    k = list(history.score_steps).index(at)
    assert layer >= 1 and history.induction[k, layer, head] >= 0.4
    assert history.induction[:k, 1:].max() < 0.4  # nothing before it
    assert formation(history, threshold=2.0) is None
    # the loss at a step: the mean of the 10 batches before it
    assert loss_at(history, np.array([0, 20]))[1] == pytest.approx(history.loss[10:20].mean())
    assert loss_at(history, np.array([0]))[0] == history.loss[0]
    roles = roles_at(history, history.score_steps[-1])
    assert len(roles) == 2 and len(roles[0]) == 4
    assert any(role == "induction" for role, _ in roles[1])
    assert any(role == "previous token" for role, _ in roles[0])
    assert all(role == "diffuse" for layer in roles_at(history, 0) for role, _ in layer)
    best = best_heads(history, history.score_steps[-1])
    assert best["previous"] == pytest.approx(history.previous[-1].max())
    assert best["induction"] == pytest.approx(history.induction[-1, 1:].max())
    with pytest.raises(llm.LabError):
        roles_at(history, 5)
