"""The judge: the learner's results against the expected ones, case by case, into one verdict.

It only judges values: running the learner's code is the ``sandbox`` package's job, and ``judge``
takes its outcomes (anything with ``.value`` and ``.error``, the error having ``.code`` and
``.params``). A wrong result is compared with the cell's usual mistakes so that the verdict can
name the mistake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from exercises.cases import Case

if TYPE_CHECKING:
    from exercises.cells import Cell

RTOL = 1e-7  # a learner may sum in another order: agree to 7 significant digits
ATOL = 1e-9


@dataclass(frozen=True)
class Verdict:
    """The result of one check. ``code`` is ``pass``, a failure kind or a named mistake.

    ``case`` is the 1-based case that failed (1 = the current setting), ``params`` the values the
    message needs (shapes, row, column, numbers, or the sandbox error's own params).
    """

    passed: bool
    code: str
    params: dict[str, Any]
    case: int = 0
    hidden: bool = False
    shapes: str = ""
    cases: int = 0


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + " × ".join(str(n) for n in shape) + "]" if shape else "a number"


def to_array(value: Any, ndim: int) -> tuple[np.ndarray | None, str, dict[str, Any]]:
    """The learner's result as a float array, or why it is not a list of the right depth.

    Returns (array, "", {}) or (None, code, params) with code ``not_list``, ``ragged``,
    ``not_number``. ``ndim`` is 1 for a list of numbers, 2 for a list of rows.
    """
    if not isinstance(value, (list, tuple)):
        return None, "not_list", {"received": type(value).__name__}
    rows = value if ndim == 2 else [value]
    for i, row in enumerate(rows):
        if ndim == 2 and not isinstance(row, (list, tuple)):
            return None, "not_rows", {"row": i, "received": type(row).__name__}
        for j, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, (int, float)):
                where = {"row": i, "col": j} if ndim == 2 else {"row": j, "col": -1}
                return None, "not_number", {**where, "received": type(cell).__name__}
    if ndim == 2 and len({len(row) for row in rows}) > 1:
        return None, "ragged", {"lengths": ", ".join(str(len(row)) for row in rows)}
    return np.array(value, dtype=float).reshape(-1) if ndim == 1 else _matrix(value), "", {}


def _matrix(rows: Sequence[Sequence[float]]) -> np.ndarray:
    return np.array(rows, dtype=float).reshape(len(rows), len(rows[0]) if rows else 0)


def close(received: np.ndarray, expected: np.ndarray) -> bool:
    """Same shape and every cell within the tolerances."""
    return received.shape == expected.shape and bool(
        np.allclose(received, expected, rtol=RTOL, atol=ATOL)
    )


def first_difference(received: np.ndarray, expected: np.ndarray) -> dict[str, Any]:
    """Row, column and both values of the first cell (row by row) that differs."""
    bad = ~np.isclose(received, expected, rtol=RTOL, atol=ATOL)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    row, col = (index[0], -1) if len(index) == 1 else index
    return {
        "row": row,
        "col": col,
        "expected": float(expected[index]),
        "received": float(received[index]),
    }


def judge(cell: Cell, cases: Sequence[Case], outcomes: Sequence[Any]) -> Verdict:
    """Compare the learner's outcomes with the expected values, case by case; first failure wins."""
    for number, (case, outcome) in enumerate(zip(cases, outcomes, strict=True), start=1):
        where = {"case": number, "hidden": case.hidden, "shapes": case.shapes, "cases": len(cases)}
        if outcome.error is not None:
            params = {"error": outcome.error.code, **outcome.error.params}
            return Verdict(False, "error", params, **where)
        received, code, params = to_array(outcome.value, case.expected.ndim)
        if received is None:
            return Verdict(False, code, params, **where)
        if close(received, case.expected):
            continue
        for mistake in cell.mistakes:
            wrong = np.asarray(mistake.wrong(*case.args), dtype=float)
            if close(received, wrong) and not close(wrong, case.expected):
                return Verdict(False, mistake.code, {}, **where)
        if received.shape != case.expected.shape:
            shapes = {
                "expected": _shape_text(case.expected.shape),
                "received": _shape_text(received.shape),
            }
            return Verdict(False, "shape", shapes, **where)
        if np.isnan(received).any():
            first = tuple(int(i) for i in np.argwhere(np.isnan(received))[0])
            row, col = (first[0], -1) if len(first) == 1 else first
            return Verdict(False, "nan", {"row": row, "col": col}, **where)
        return Verdict(False, "value", first_difference(received, case.expected), **where)
    hidden = sum(case.hidden for case in cases)
    return Verdict(True, "pass", {"hidden": hidden}, cases=len(cases))


def error_verdict(code: str, params: dict[str, Any], cases: int = 0) -> Verdict:
    """A failure of the whole run (syntax, a construct not allowed, timeout, ...)."""
    return Verdict(False, "error", {"error": code, **params}, cases=cases)
