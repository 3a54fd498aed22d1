"""The class's progress on the "Your turn" cells: what students' pages report, what the front sees.

A report is only the cell, passed or not, and the id of the mistake the checker recognised:
nothing a student types. A student counts once per cell: ``tried`` = reported at least once,
``passed`` = passed at least once; a mistake counts the students who made it (twice by one
student is one), and each cell shows its three most frequent mistakes.
"""

from __future__ import annotations

import sqlalchemy as sa

import exercises
from classroom.config import Limits
from classroom.errors import ClassError
from classroom.schema import reports, students
from classroom.states import CellProgress, Progress

TOP_MISTAKES = 3


def checked(cell: object, passed: object, mistake_id: object) -> tuple[str, bool, str]:
    """The report's (cell, passed, mistake id or ""), or "no_such_cell" / "no_such_mistake"."""
    if not isinstance(cell, str) or cell not in exercises.BY_ID:
        raise ClassError("no_such_cell", cell=str(cell)[:40])
    if not isinstance(passed, bool):
        raise ClassError("bad_value", what="passed")
    mistake = "" if mistake_id is None else mistake_id
    known = {m.code for m in exercises.BY_ID[cell].mistakes}
    if mistake and (passed or not isinstance(mistake, str) or mistake not in known):
        raise ClassError("no_such_mistake", mistake=str(mistake)[:64], cell=cell)
    return cell, passed, mistake


def record(conn: sa.Connection, code: str, student_id: str, report: tuple, now: float) -> None:
    """Keep one (checked) report: one row per student, cell and outcome."""
    cell, passed, mistake = report
    key = {"code": code, "student_id": student_id, "cell": cell}
    key |= {"passed": passed, "mistake_id": mistake}
    where = sa.and_(*(reports.c[name] == value for name, value in key.items()))
    if conn.execute(reports.update().where(where).values(at=now)).rowcount:
        return
    try:
        with conn.begin_nested():
            conn.execute(reports.insert().values(**key, at=now))
    except sa.exc.IntegrityError:  # the same report, twice at once
        pass


def progress(conn: sa.Connection, code: str, now: float, limits: Limits) -> Progress:
    """The class's progress (see ``Progress``)."""
    in_class = students.c.code == code
    count = sa.select(sa.func.count()).select_from(students)
    connected = conn.execute(
        count.where(in_class, students.c.seen_at >= now - limits.connected_seconds)
    ).scalar_one()
    joined = conn.execute(count.where(in_class)).scalar_one()
    tried = _per_cell(conn, code, sa.true())
    passed = _per_cell(conn, code, reports.c.passed.is_(True))
    mistakes = _mistakes(conn, code)
    cells = {
        c.id: CellProgress(tried.get(c.id, 0), passed.get(c.id, 0), mistakes.get(c.id, ()))
        for c in exercises.CELLS
    }
    return Progress(connected, joined, cells)


def _per_cell(conn: sa.Connection, code: str, condition: sa.ColumnElement) -> dict[str, int]:
    students_in = sa.func.count(sa.distinct(reports.c.student_id))
    query = (
        sa.select(reports.c.cell, students_in)
        .where(reports.c.code == code, condition)
        .group_by(reports.c.cell)
    )
    return {cell: n for cell, n in conn.execute(query)}


def _mistakes(conn: sa.Connection, code: str) -> dict[str, tuple[tuple[str, int], ...]]:
    students_in = sa.func.count(sa.distinct(reports.c.student_id))
    query = (
        sa.select(reports.c.cell, reports.c.mistake_id, students_in)
        .where(reports.c.code == code, reports.c.mistake_id != "")
        .group_by(reports.c.cell, reports.c.mistake_id)
    )
    by_cell: dict[str, list[tuple[str, int]]] = {}
    for cell, mistake, n in conn.execute(query):
        by_cell.setdefault(cell, []).append((mistake, n))
    return {
        cell: tuple(sorted(found, key=lambda m: (-m[1], m[0]))[:TOP_MISTAKES])
        for cell, found in by_cell.items()
    }
