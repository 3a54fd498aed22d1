"""The cases a cell is checked on: one call of the learner's function each, with its answer.

The current setting of the page comes first (built by each cell from ``Current``), then hidden
random cases of other shapes, the same on every check. The learner's function sees the arguments
as plain lists of lists of floats, as in the chapters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from exercises.mistakes import pattern_of
from llm.config import LN_EPS

HIDDEN_SEED = 20_261_129  # hidden cases are random but the same on every check


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: its arguments and the expected result."""

    hidden: bool
    args: tuple[Any, ...]  # numpy arrays, lists of arrays, numbers, booleans
    expected: np.ndarray
    shapes: str  # "x [5 × 8], w [8 × 2]"

    def plain_args(self) -> tuple[Any, ...]:
        """The arguments as the learner sees them: lists of lists of floats, as in the chapters."""
        return tuple(plain(a) for a in self.args)


def describe(value: Any) -> str:
    """A shape as the verdicts write it: "[5 × 8]", "4 × [5 × 2]", a number as itself."""
    if isinstance(value, (list, tuple)):
        inner = {describe(v) for v in value}
        return f"{len(value)} × {inner.pop()}" if len(inner) == 1 else f"{len(value)} items"
    if isinstance(value, np.ndarray):
        return "[" + " × ".join(str(n) for n in value.shape) + "]"
    return repr(value)


def plain(value: Any) -> Any:
    """Arrays, numpy numbers and tuples as plain Python lists and numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def rng_for(cell_id: str) -> np.random.Generator:
    """The generator of one cell's hidden cases: the same numbers on every check."""
    return np.random.default_rng([HIDDEN_SEED, sum(map(ord, cell_id))])


def normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """N(0, 1) rounded to 3 decimals: numbers a learner can read when a case fails."""
    return np.round(rng.normal(0.0, 1.0, size=shape), 3)


def _pattern(rng: np.random.Generator, t: int, causal: bool) -> np.ndarray:
    return pattern_of(rng.normal(0.0, 2.0, size=(t, t)), 1.0, causal)


def matmul(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [(normal(rng, n, k), normal(rng, k, m)) for n, k, m in ((3, 5, 2), (1, 4, 3), (6, 2, 1))]


def scores(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [(normal(rng, t, d), normal(rng, t, d)) for t, d in ((3, 2), (1, 4), (6, 1))]


def softmax(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        (normal(rng, 4, 4) * 3.0, 2, True),
        (normal(rng, 3, 3) * 3.0, 4, False),
        (normal(rng, 1, 1), 1, True),
        (normal(rng, 6, 6) * 3.0, 3, True),
    ]


def mix(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        (_pattern(rng, t, causal), normal(rng, t, d))
        for t, d, causal in ((4, 3, True), (3, 1, False), (1, 2, True))
    ]


def entropy(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        ([_pattern(rng, 4, True) for _ in range(3)],),
        ([_pattern(rng, 3, False) for _ in range(2)],),
        ([_pattern(rng, 1, True)],),
    ]


def combine(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    cases = []
    for t, heads, d_head in ((3, 2, 2), (4, 3, 1), (1, 2, 3)):
        d_model = heads * d_head
        outputs = [normal(rng, t, d_head) for _ in range(heads)]
        cases.append((outputs, normal(rng, d_model, d_model)))
    return cases


def add_norm(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    x = normal(rng, 3, 4)
    sub = normal(rng, 3, 4)
    x[1] = [0.5, 0.5, 0.5, 0.5]  # a constant row: LayerNorm must give zeros, not NaN
    sub[1] = 0.0
    x[2] = [1.0, 1.001, 0.999, 1.0]  # a tiny variance: eps inside the sqrt matters
    sub[2] = 0.0
    return [(x, sub, LN_EPS), (normal(rng, 2, 6), normal(rng, 2, 6), 1e-3)]


def attention(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    cases = []
    for t, d_model, d_head in ((4, 3, 2), (1, 2, 2), (5, 4, 1)):
        x = normal(rng, t, d_model)
        cases.append((x, *(normal(rng, d_model, d_head) * 1.5 for _ in range(3))))
    return cases


def depth(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    """Stacks of 3, 2, 4 and 1 layers; sublayer weights of scale 0.5 keep every wiring apart."""
    cases = []
    for t, d_model, layers, eps in (
        (4, 3, 3, LN_EPS),
        (2, 5, 2, 1e-3),
        (1, 4, 4, LN_EPS),
        (3, 2, 1, LN_EPS),
    ):
        ws = [normal(rng, d_model, d_model) * 0.5 for _ in range(layers)]
        cases.append((normal(rng, t, d_model), ws, eps))
    return cases
