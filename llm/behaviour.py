"""What the tiny model has learned, measured: every head's scores and the accuracy on a repeat.

The measurement set is ``llm.corpus.half_repeat``: ``period`` distinct random words, then the same
words again. On it

- every head's previous-token, induction and first-token scores (``llm.head_scores``), averaged over
  the sequences;
- top-1 next-token accuracy on the first half (positions 0 .. period-2 guessing words 1 .. period-1:
  nothing to copy yet, so chance is 1 / V) and on the repeated half (positions period .. 2 period-2:
  the answer stands one place after the current word's first occurrence).

Shapes: ids [B, 2 * period]; scores [n_layers, n_heads].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llm.batch import forward
from llm.config import LabError
from llm.corpus import half_repeat
from llm.head_scores import head_role
from llm.model import ModelParams, TrainingHistory

MEASURE_SEED = 20221208  # the measurement set's seed: the same sequences at every checkpoint
MEASURE_SEQUENCES = 64
MEASURE_PERIOD = 12


@dataclass(frozen=True)
class Behaviour:
    """The measurements at one checkpoint. Shapes: the three scores [n_layers, n_heads]."""

    previous: np.ndarray
    induction: np.ndarray
    first: np.ndarray
    accuracy_first_half: float
    accuracy_repeat: float
    chance: float  # 1 / V, what guessing gives on the first half


def measurement_set(
    n_vocab: int,
    seed: int = MEASURE_SEED,
    sequences: int = MEASURE_SEQUENCES,
    period: int = MEASURE_PERIOD,
) -> np.ndarray:
    """The half-repeat sequences every checkpoint is measured on. Shapes: -> [B, 2 * period]."""
    return half_repeat(np.random.default_rng(seed), sequences, period, n_vocab)


def measure(params: ModelParams, ids: np.ndarray) -> Behaviour:
    """Every head's three scores and the two accuracies on half-repeat sequences ``ids``.

    Shapes: ids [B, 2 * period] -> Behaviour.
    """
    period = ids.shape[1] // 2
    cache = forward(params.arrays(), ids)
    patterns = np.stack([cache[f"pattern{layer}"] for layer in range(cache["n_layers"])])
    # [L, B, H, T, T] -> per-head means over the sequences, each the score's own average
    previous = np.diagonal(patterns, offset=-1, axis1=-2, axis2=-1).mean(axis=(1, 3))
    induction = np.diagonal(patterns, offset=1 - period, axis1=-2, axis2=-1)[..., 1:]
    first = patterns[..., 1:, 0].mean(axis=(1, 3))
    guess = cache["logits"].argmax(axis=-1)  # [B, T]
    right = guess[:, :-1] == ids[:, 1:]  # [B, T-1]: position i guessed id i + 1
    return Behaviour(
        previous=previous,
        induction=induction.mean(axis=(1, 3)),
        first=first,
        accuracy_first_half=float(right[:, : period - 1].mean()),
        accuracy_repeat=float(right[:, period:].mean()),
        chance=1.0 / params.W_E.shape[0],
    )


# what the shipped model must show (the induction head in layer 1 or later)
THRESHOLDS = {
    "induction": 0.4,  # some head in layer >= 1: at least this induction score
    "previous": 0.5,  # some head: at least this previous-token score
    "accuracy_repeat": 0.8,  # top-1 accuracy on the repeated half: at least this
    "step0": 0.2,  # at step 0, no head above this on either score
}


def summary(start: Behaviour, final: Behaviour) -> dict[str, float]:
    """The learned-behaviour numbers: the best heads, the accuracies, step 0's largest scores.

    Layer and head indices are stored as floats with the scores (one flat table of numbers).
    """
    later = final.induction[1:]  # layers >= 1
    ind_layer, ind_head = np.unravel_index(np.argmax(later), later.shape)
    prev_layer, prev_head = np.unravel_index(np.argmax(final.previous), final.previous.shape)
    return {
        "induction": float(later[ind_layer, ind_head]),
        "induction_layer": float(ind_layer + 1),
        "induction_head": float(ind_head),
        "previous": float(final.previous[prev_layer, prev_head]),
        "previous_layer": float(prev_layer),
        "previous_head": float(prev_head),
        "accuracy_repeat": final.accuracy_repeat,
        "accuracy_first_half": final.accuracy_first_half,
        "chance": final.chance,
        "step0_previous": float(start.previous.max()),
        "step0_induction": float(start.induction.max()),
    }


def failures(numbers: dict[str, float]) -> list[str]:
    """The thresholds ``summary``'s numbers miss, in words; empty when every one is met."""
    missed = []
    if numbers["induction"] < THRESHOLDS["induction"]:
        missed.append(f"best induction score in layer >= 1 {numbers['induction']:.2f} < 0.4")
    if numbers["previous"] < THRESHOLDS["previous"]:
        missed.append(f"best previous-token score {numbers['previous']:.2f} < 0.5")
    if numbers["accuracy_repeat"] < THRESHOLDS["accuracy_repeat"]:
        missed.append(f"accuracy on the repeated half {numbers['accuracy_repeat']:.2f} < 0.8")
    if max(numbers["step0_previous"], numbers["step0_induction"]) > THRESHOLDS["step0"]:
        missed.append("a head scores above 0.2 at step 0")
    return missed


def loss_at(history: TrainingHistory, steps: np.ndarray, window: int = 10) -> np.ndarray:
    """The training loss at each step, as the mean of the ``window`` batches before it (the
    batch drawn at step 0 for step 0). Shapes: steps [S] -> [S]."""
    loss = history.loss
    return np.array([loss[max(0, s - window) : max(s, 1)].mean() for s in steps])


def formation(history: TrainingHistory, threshold: float = 0.4) -> tuple[int, int, int] | None:
    """The first measured step at which a head of layer >= 1 reaches the induction ``threshold``,
    with that head's (layer, head); None if none ever does."""
    for k, step in enumerate(history.score_steps):
        later = history.induction[k, 1:]  # [n_layers - 1, n_heads]
        if later.max() >= threshold:
            layer, head = np.unravel_index(np.argmax(later), later.shape)
            return int(step), int(layer) + 1, int(head)
    return None


def roles_at(history: TrainingHistory, step: int) -> list[list[tuple[str, float]]]:
    """Every head's role at a measured step, and the score that gave it (for 'diffuse', the
    largest of the three). Shapes: -> n_layers lists of n_heads (role, score)."""
    k = int(np.searchsorted(history.score_steps, step))
    if k >= len(history.score_steps) or history.score_steps[k] != step:
        raise LabError("unknown_step", f"Step {step} was not measured.", step=step)
    layers = zip(history.previous[k], history.induction[k], history.first[k])
    return [[_role(p, i, f) for p, i, f in zip(*scores)] for scores in layers]


def _role(previous: float, induction: float, first: float) -> tuple[str, float]:
    role = head_role(previous, induction, first)
    named = {"previous token": previous, "induction": induction, "first token": first}
    return role, float(named.get(role, max(named.values())))


def best_heads(history: TrainingHistory, step: int) -> dict[str, float]:
    """At a measured step: the best previous-token head of any layer and the best induction head
    of layer >= 1, with their (layer, head), as ``summary`` names them."""
    k = int(np.searchsorted(history.score_steps, step))
    if k >= len(history.score_steps) or history.score_steps[k] != step:
        raise LabError("unknown_step", f"Step {step} was not measured.", step=step)
    prev, later = history.previous[k], history.induction[k, 1:]
    pl, ph = np.unravel_index(np.argmax(prev), prev.shape)
    il, ih = np.unravel_index(np.argmax(later), later.shape)
    return {
        "previous": float(prev[pl, ph]),
        "previous_layer": float(pl),
        "previous_head": float(ph),
        "induction": float(later[il, ih]),
        "induction_layer": float(il + 1),
        "induction_head": float(ih),
    }
