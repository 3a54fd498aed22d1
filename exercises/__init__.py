"""exercises: what is right in the chapters' "Your turn" cells, and the verdict on a learner's code.

- ``exercises.cells``    — the cells: the function each asks for, solution, first and hidden cases.
- ``exercises.cases``    — one call of the learner's function with its expected answer; the hidden
  random cases.
- ``exercises.mistakes`` — the usual wrong answers of each cell, beside the engine's right ones.
- ``exercises.judge``    — results against expectations, case by case, into one ``Verdict``.
- ``exercises.current``  — the page's setting a cell is checked on first (``Run``, ``Current``),
  and ``setting()``, one computed without the app.
- ``exercises.seal``     — a pass sealed for the browser to keep, and how to trust it back.
- ``exercises.check``    — ``check(cell_id, code, current)``: the learner's code run in the
  ``sandbox`` and judged.

The math comes from ``llm``; running learner code is ``sandbox``'s job; drawing is ``ui``'s.
"""

from exercises.cases import Case, describe
from exercises.cells import BY_ID, BY_PAGE, CELLS, Cell
from exercises.check import check
from exercises.current import Current, PlainRun, Run, setting
from exercises.judge import Verdict, error_verdict, first_difference, judge, to_array
from exercises.mistakes import Mistake

__all__ = [
    "BY_ID",
    "BY_PAGE",
    "CELLS",
    "Case",
    "Cell",
    "Current",
    "Mistake",
    "PlainRun",
    "Run",
    "Verdict",
    "check",
    "describe",
    "error_verdict",
    "first_difference",
    "judge",
    "setting",
    "to_array",
]
