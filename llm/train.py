"""Train the tiny model and ship its checkpoints: ``python -m llm.train`` (seeded, deterministic).

Next-token cross-entropy on ``llm.corpus.repeat_batch`` sequences, gradients from ``llm.batch``,
Adam (Kingma and Ba 2015) with the usual bias correction:

    m = b1 m + (1 - b1) g;    v = b2 v + (1 - b2) g²
    w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)          b1 0.9, b2 0.999, eps 1e-8

Every few steps the heads are measured on ``llm.behaviour``'s fixed half-repeat set; at the
checkpoint steps the weights are kept. Everything goes to one file, ``llm/learned_heads.npz``, read
back by ``llm.checkpoints.load_model``. At the end the command prints the learned-behaviour
measurements.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from llm.batch import loss_and_grad
from llm.behaviour import failures, measure, measurement_set, summary
from llm.checkpoints import MODEL_FILE, save_checkpoints
from llm.corpus import VOCAB, repeat_batch
from llm.model import ModelParams, ModelSpec, TrainingHistory, init_model

FINAL_SEQUENCES = 256  # half-repeat sequences the final measurements average over


@dataclass(frozen=True)
class TrainConfig:
    """How the shipped model is trained (one comment per default, chosen by measurement)."""

    steps: int = 1500  # Adam updates; the induction head forms near step 450
    batch: int = 32  # sequences per update
    length: int = 32  # words per training sequence (the model's max_len)
    lr: float = 1e-2  # Adam's step size after the warm-up
    warmup: int = 50  # steps of linear warm-up from 0 to lr
    seed: int = 0  # draws the corpus; the weights are drawn from ModelSpec.seed
    checkpoints: int = 31  # checkpoints kept, step 0 and the last step included: every 50 steps
    measure_every: int = 10  # steps between two measurements of every head


def checkpoint_steps(steps: int, count: int) -> tuple[int, ...]:
    """``count`` steps from 0 to ``steps``, evenly spaced, rounded, without repeats.

    Example: checkpoint_steps(100, 5) == (0, 25, 50, 75, 100)
    """
    return tuple(sorted({round(steps * i / (count - 1)) for i in range(count)}))


@dataclass(frozen=True)
class TrainResult:
    """The checkpoints and the history. Shapes: snapshots[s] holds the arrays at steps[s]."""

    spec: ModelSpec
    steps: tuple[int, ...]
    snapshots: tuple[dict[str, np.ndarray], ...]
    history: TrainingHistory


def train(
    spec: ModelSpec,
    config: TrainConfig,
    stop: int | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> TrainResult:
    """Train from ``init_model(spec)``; ``stop`` ends early (the tests re-run the first steps).

    Returns every checkpoint reached and the loss and head scores recorded on the way.
    """
    arrays = init_model(spec).arrays()
    m = {name: np.zeros_like(a) for name, a in arrays.items()}
    v = {name: np.zeros_like(a) for name, a in arrays.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(config.seed)
    probe = measurement_set(spec.n_vocab)
    keep = checkpoint_steps(config.steps, config.checkpoints)
    last = config.steps if stop is None else min(stop, config.steps)
    snapshots, loss_curve, scored, scores = [], [], [], []
    for step in range(last + 1):
        if step in keep:
            snapshots.append({name: a.copy() for name, a in arrays.items()})
        if step % config.measure_every == 0 or step == last:
            behaviour = measure(ModelParams.from_arrays(arrays), probe)
            scored.append(step)
            scores.append((behaviour.previous, behaviour.induction, behaviour.first))
        if step == last:
            break
        ids = repeat_batch(rng, config.batch, config.length, spec.n_vocab)
        loss, grads = loss_and_grad(arrays, ids)
        loss_curve.append(loss)
        lr = config.lr * min(1.0, (step + 1) / config.warmup)
        t = step + 1
        for name, g in grads.items():
            m[name] = b1 * m[name] + (1 - b1) * g
            v[name] = b2 * v[name] + (1 - b2) * g * g
            arrays[name] -= lr * (m[name] / (1 - b1**t)) / (np.sqrt(v[name] / (1 - b2**t)) + eps)
        if progress is not None:
            progress(t, loss)
    history = TrainingHistory(
        loss_steps=np.arange(len(loss_curve)),
        loss=np.array(loss_curve),
        score_steps=np.array(scored),
        previous=np.stack([s[0] for s in scores]),
        induction=np.stack([s[1] for s in scores]),
        first=np.stack([s[2] for s in scores]),
    )
    reached = tuple(s for s in keep if s <= last)
    return TrainResult(spec=spec, steps=reached, snapshots=tuple(snapshots), history=history)


def progress_bar(total: int, width: int = 30) -> Callable[[int, float], None]:
    """A plain-text progress bar on stderr: steps done, loss, elapsed seconds."""
    start = time.perf_counter()

    def show(step: int, loss: float) -> None:
        if step % 10 and step != total:
            return
        done = round(width * step / total)
        elapsed = time.perf_counter() - start
        bar = "#" * done + "." * (width - done)
        sys.stderr.write(f"\r[{bar}] {step}/{total}  loss {loss:.3f}  {elapsed:5.1f} s")
        if step == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def report(numbers: dict[str, float]) -> str:
    """The learned-behaviour measurements as the command prints them."""
    return "\n".join(
        [
            "Learned behaviour, on half-repeat sequences of random words:",
            f"  induction head   layer {numbers['induction_layer']:.0f} head "
            f"{numbers['induction_head']:.0f}: induction score {numbers['induction']:.3f}"
            "  (target >= 0.4, layer >= 1)",
            f"  previous-token   layer {numbers['previous_layer']:.0f} head "
            f"{numbers['previous_head']:.0f}: previous-token score {numbers['previous']:.3f}"
            "  (target >= 0.5)",
            f"  top-1 accuracy   repeated half {numbers['accuracy_repeat']:.3f} (target >= 0.8), "
            f"first half {numbers['accuracy_first_half']:.3f} (chance {numbers['chance']:.3f})",
            f"  step 0           largest previous-token score {numbers['step0_previous']:.3f}, "
            f"largest induction score {numbers['step0_induction']:.3f}  (target <= 0.2)",
        ]
    )


def _one_blas_thread(argv: list[str]) -> None:
    """Run again with one BLAS thread: on these small matrices it is faster, and it sums in one
    order wherever the command runs."""
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        os.execve(sys.executable, [sys.executable, "-m", "llm.train", *argv], env)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm.train", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_FILE, help="the file written")
    args = parser.parse_args(argv)
    config = TrainConfig()
    spec = ModelSpec(n_vocab=len(VOCAB))
    start = time.perf_counter()
    result = train(spec, config, progress=progress_bar(config.steps))
    elapsed = time.perf_counter() - start
    probe = measurement_set(spec.n_vocab, sequences=FINAL_SEQUENCES)
    numbers = summary(
        measure(ModelParams.from_arrays(result.snapshots[0]), probe),
        measure(ModelParams.from_arrays(result.snapshots[-1]), probe),
    )
    history = replace(result.history, behaviour=numbers)
    save_checkpoints(args.out, VOCAB, spec, result.steps, result.snapshots, history, asdict(config))
    size = args.out.stat().st_size
    print(f"{len(result.steps)} checkpoints in {args.out} ({size / 1e6:.2f} MB), {elapsed:.0f} s")
    print(report(numbers))
    missed = failures(numbers)
    for line in missed:
        print(f"  NOT MET: {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    _one_blas_thread(sys.argv[1:])
    raise SystemExit(main(sys.argv[1:]))
