"""The tiny model's shipped file: its checkpoints, loss curve and head scores, written and read.

One compressed numpy archive, ``llm/learned_heads.npz``, read without pickle:

    vocab [V] str;  spec [6] int (n_vocab, d_model, n_heads, n_layers, max_len, seed);  steps [C]
    one array per matrix, all checkpoints stacked: W_E [C, V, d], ..., L1.W_O [C, d, d]   float32
    loss [N];  score_steps [S];  previous, induction, first [S, n_layers, n_heads]        float32
    behaviour_names [k] str, behaviour_values [k]      the final measurements
    train_names [k] str, train_values [k]              the TrainConfig that produced the file

float32 keeps 30 checkpoints far under 2 MB; the loaded model computes in float64.
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path

import numpy as np

from llm.config import LabError
from llm.model import ModelParams, ModelSpec, TinyModel, TrainingHistory

MODEL_FILE = Path(__file__).with_name("learned_heads.npz")
_SPEC = ("n_vocab", "d_model", "n_heads", "n_layers", "max_len", "seed")


def save_checkpoints(
    path: Path,
    vocab: tuple[str, ...],
    spec: ModelSpec,
    steps: tuple[int, ...],
    snapshots: tuple[dict[str, np.ndarray], ...],
    history: TrainingHistory,
    train_config: dict[str, float],
) -> None:
    """Write everything ``load_model`` reads to one compressed archive at ``path``."""
    arrays: dict[str, np.ndarray] = {
        "vocab": np.array(vocab),
        "spec": np.array([getattr(spec, name) for name in _SPEC], dtype=np.int64),
        "steps": np.array(steps, dtype=np.int64),
        "loss": history.loss.astype(np.float32),
        "score_steps": history.score_steps.astype(np.int64),
        "previous": history.previous.astype(np.float32),
        "induction": history.induction.astype(np.float32),
        "first": history.first.astype(np.float32),
        "behaviour_names": np.array(list(history.behaviour), dtype=str),
        "behaviour_values": np.array(list(history.behaviour.values()), dtype=np.float64),
        "train_names": np.array(list(train_config), dtype=str),
        "train_values": np.array(list(train_config.values()), dtype=np.float64),
    }
    for name in snapshots[0]:
        arrays[name] = np.stack([snap[name] for snap in snapshots]).astype(np.float32)
    with open(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


@functools.lru_cache(maxsize=4)
def _read(path: str, mtime_ns: int, size: int) -> dict[str, np.ndarray]:
    """The archive's arrays, read once per version of the file (read-only, shared)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    for array in arrays.values():
        array.flags.writeable = False
    return arrays


def _open(path: Path) -> dict[str, np.ndarray]:
    try:
        stat = path.stat()
    except OSError as error:
        raise LabError(
            "model_missing",
            f"The trained model file {path.name} is missing; `python -m llm.train` writes it.",
            path=str(path),
        ) from error
    try:
        return _read(str(path), stat.st_mtime_ns, stat.st_size)
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as error:
        raise _corrupt(path, str(error)) from error


def _corrupt(path: Path, detail: str) -> LabError:
    return LabError(
        "model_corrupt",
        f"The trained model file {path.name} cannot be read ({detail}); "
        "`python -m llm.train` writes it again.",
        path=str(path),
        detail=detail,
    )


def train_config(path: Path | None = None) -> dict[str, float]:
    """The training settings the file records (names of ``llm.train.TrainConfig``)."""
    arrays = _open(MODEL_FILE if path is None else path)
    return dict(zip(arrays["train_names"].tolist(), arrays["train_values"].tolist()))


def load_model(step: int | None = None, path: Path | None = None) -> TinyModel:
    """The shipped model at checkpoint ``step`` (the last one by default), weights in float64.

    ``path`` defaults to ``MODEL_FILE``. A missing or unreadable file, or a step that is not a
    checkpoint -> LabError (the latter lists the steps there are).
    """
    path = MODEL_FILE if path is None else path
    arrays = _open(path)
    try:
        return _build(arrays, step)
    except LabError:
        raise
    except (KeyError, ValueError, IndexError, TypeError) as error:
        raise _corrupt(path, f"{type(error).__name__}: {error}") from error


def _build(arrays: dict[str, np.ndarray], step: int | None) -> TinyModel:
    spec = ModelSpec(**dict(zip(_SPEC, (int(v) for v in arrays["spec"]))))
    steps = tuple(int(s) for s in arrays["steps"])
    vocab = tuple(str(w) for w in arrays["vocab"])
    if step is None:
        step = steps[-1]
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step not in steps:
        raise LabError(
            "unknown_step",
            f"Step {step!r} is not a checkpoint; the checkpoints are at steps "
            f"{', '.join(map(str, steps))}.",
            step=step,
            steps=steps,
        )
    index = steps.index(int(step))
    names = ["W_E", "W_P", "W_U"] + [
        f"L{layer}.{w}" for layer in range(spec.n_layers) for w in ("W_Q", "W_K", "W_V", "W_O")
    ]
    params = ModelParams.from_arrays({name: arrays[name][index] for name in names})
    _check_shapes(params, spec, len(vocab))
    return TinyModel(
        vocab=vocab, spec=spec, params=params, step=int(step), steps=steps, history=_history(arrays)
    )


def _check_shapes(params: ModelParams, spec: ModelSpec, n_vocab: int) -> None:
    d, h = spec.d_model, spec.n_heads
    expected = {
        "W_E": (n_vocab, d),
        "W_P": (spec.max_len, d),
        "W_U": (d, n_vocab),
        **{f"L{i}.W_O": (d, d) for i in range(spec.n_layers)},
        **{f"L{i}.W_Q": (h, d, spec.d_head) for i in range(spec.n_layers)},
    }
    named = params.arrays()
    for name, shape in expected.items():
        if named[name].shape != shape or not np.all(np.isfinite(named[name])):
            raise ValueError(f"{name} has shape {named[name].shape}, expected {shape}")
    if n_vocab != spec.n_vocab:
        raise ValueError(f"the vocabulary has {n_vocab} words, the spec says {spec.n_vocab}")


def _history(arrays: dict[str, np.ndarray]) -> TrainingHistory:
    loss = arrays["loss"].astype(np.float64)
    behaviour = dict(zip(arrays["behaviour_names"].tolist(), arrays["behaviour_values"].tolist()))
    return TrainingHistory(
        loss_steps=np.arange(len(loss)),
        loss=loss,
        score_steps=arrays["score_steps"].astype(np.int64),
        previous=arrays["previous"].astype(np.float64),
        induction=arrays["induction"].astype(np.float64),
        first=arrays["first"].astype(np.float64),
        behaviour=behaviour,
    )
