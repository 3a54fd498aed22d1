"""Training the tiny model: the corpus, a short run that lowers the loss, and the shipped
checkpoints reproduced by re-running the first steps of the command."""

from __future__ import annotations

import numpy as np
import pytest

import llm
from llm.behaviour import failures
from llm.checkpoints import train_config
from llm.corpus import MIN_STRETCH, VOCAB, half_repeat, repeat_batch
from llm.model import ModelSpec
from llm.train import TrainConfig, checkpoint_steps, progress_bar, report, train


def test_repeat_batch_repeats_a_stretch_to_the_end() -> None:
    ids = repeat_batch(np.random.default_rng(0), 200, 32, len(VOCAB))
    assert ids.shape == (200, 32) and ids.min() >= 0 and ids.max() < len(VOCAB)
    periods = []
    for row in ids:
        # the smallest period p with row[i] == row[i - p] over (at least) the last p words
        found = [
            p
            for p in range(MIN_STRETCH, 17)
            if all(row[i] == row[i - p] for i in range(32 - p, 32))
        ]
        assert found, row
        periods.append(found[0])
    assert min(periods) == MIN_STRETCH and max(periods) == 16


def test_half_repeat_has_distinct_words_then_the_same_again() -> None:
    ids = half_repeat(np.random.default_rng(1), 50, 12, len(VOCAB))
    assert ids.shape == (50, 24)
    assert np.array_equal(ids[:, :12], ids[:, 12:])
    assert all(len(set(row[:12])) == 12 for row in ids)


def test_checkpoint_steps() -> None:
    assert checkpoint_steps(100, 5) == (0, 25, 50, 75, 100)
    assert checkpoint_steps(1500, 31) == tuple(range(0, 1501, 50))


def test_a_short_training_run_lowers_the_loss() -> None:
    spec = ModelSpec(n_vocab=len(VOCAB), d_model=16, n_heads=2, max_len=24)
    result = train(spec, TrainConfig(steps=80, length=24, checkpoints=3, measure_every=40))
    loss = result.history.loss
    assert len(loss) == 80 and result.steps == (0, 40, 80)
    # from about ln V + 0.5 at the start down to about ln V (uniform over the words) in 80 steps
    assert loss[:5].mean() > np.log(len(VOCAB)) + 0.2
    assert loss[-10:].mean() < loss[:5].mean() - 0.3
    assert result.history.previous.shape == (3, 2, 2)
    assert not np.array_equal(result.snapshots[0]["W_E"], result.snapshots[-1]["W_E"])


@pytest.fixture(scope="module")
def first_steps() -> tuple[llm.TinyModel, object]:
    shipped = llm.load_model()
    recorded = train_config()
    config = TrainConfig(**{k: type(getattr(TrainConfig, k))(v) for k, v in recorded.items()})
    assert config == TrainConfig()  # the file was written by the command as it stands
    return shipped, train(shipped.spec, config, stop=shipped.steps[2])


@pytest.mark.slow
def test_the_shipped_checkpoints_reproduce_from_the_command(first_steps) -> None:
    shipped, rerun = first_steps
    assert rerun.steps == shipped.steps[:3]
    for step, snapshot in zip(rerun.steps, rerun.snapshots):
        stored = llm.load_model(step=step).params.arrays()
        for name, array in snapshot.items():
            # float32 storage: about 6e-8 relative
            assert np.allclose(stored[name], array, rtol=1e-6, atol=1e-6), (step, name)
    assert np.allclose(
        rerun.history.loss, shipped.history.loss[: len(rerun.history.loss)], rtol=1e-6
    )
    stop = len(rerun.history.score_steps)
    assert np.allclose(rerun.history.previous, shipped.history.previous[:stop], atol=1e-6)


def test_the_report_prints_the_measurements() -> None:
    numbers = llm.load_model().history.behaviour
    text = report(numbers)
    assert f"{numbers['induction']:.3f}" in text and f"{numbers['accuracy_repeat']:.3f}" in text
    assert failures(numbers) == []
    worse = {**numbers, "induction": 0.1, "step0_previous": 0.5}
    assert len(failures(worse)) == 2


def test_the_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    show = progress_bar(20, width=10)
    for step in range(1, 21):
        show(step, 3.5)
    out, err = capsys.readouterr()
    assert out == "" and "[##########] 20/20  loss 3.500" in err and err.endswith("\n")
