"""What the class store answers, as plain values: the teacher's screen, the class's current
question, the class's progress. No database here: a page that only reads them imports no driver.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TeacherState:
    """What followers follow: the teacher's page and URL values; ``version`` grows on a change."""

    code: str
    page: str
    values: dict[str, str]
    version: int
    updated_at: float


@dataclass(frozen=True)
class Asked:
    """The class's current question, as the teacher and the students see it.

    ``rounds``: the counts per choice of every revealed round, round 1 first; ``answered``: how
    many answered the current round (nothing of its distribution before the reveal); ``mine``:
    the asking student's choice in the open round (None otherwise).
    """

    number: int
    question_id: str
    setting: dict[str, str]
    choices: tuple[str, ...]
    round: int
    revealed: bool
    answered: int
    rounds: tuple[tuple[int, ...], ...]
    mine: int | None = None


@dataclass(frozen=True)
class CellProgress:
    """One cell in one class: students who tried, who passed, the top mistakes (id, students)."""

    tried: int = 0
    passed: int = 0
    mistakes: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Progress:
    """The class at the front: connected students (seen in the last minute), ever joined, cells.

    ``cells`` has every cell of ``exercises.CELLS``, by cell id, in the chapters' order.
    """

    connected: int
    students: int
    cells: dict[str, CellProgress]
