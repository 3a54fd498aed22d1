"""Questions asked to the class: open, answer, reveal, ask again, and the counts per round.

The class's current question is the last one opened. While a round is open, one answer row per
student (a student who answers twice counts once, and may change their answer); the reveal turns
the round's answers into counts per choice and deletes them, so the store keeps who answered
what only until the reveal. What is kept per question: its id, the setting it was asked at, the
choices, the counts per choice per round; all deleted with the class.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from classroom import checks
from classroom.errors import ClassError
from classroom.schema import answers, questions, rounds
from classroom.states import Asked

MAX_CHOICES = 6
MAX_TEXT = 300  # characters of a choice


def checked(
    question_id: object, setting: object, choices: object
) -> tuple[str, dict[str, str], list[str]]:
    """The question's (id, setting, choices) as stored, or ClassError("bad_value")."""
    if not isinstance(question_id, str) or not 0 < len(question_id) <= 64:
        raise ClassError("bad_value", what="question id")
    values = checks.url_values(setting, "setting")
    if isinstance(choices, str) or not isinstance(choices, Sequence):
        raise ClassError("bad_value", what="choices")
    listed = list(choices)
    texts_ok = all(isinstance(c, str) and 0 < len(c) <= MAX_TEXT for c in listed)
    if not (2 <= len(listed) <= MAX_CHOICES and texts_ok and len(set(listed)) == len(listed)):
        raise ClassError("bad_value", what="choices")
    return question_id, values, listed


def current(conn: sa.Connection, code: str, lock: bool = False):
    """The class's last opened question's row, or None."""
    query = sa.select(questions).where(questions.c.code == code).order_by(questions.c.id.desc())
    query = query.limit(1)
    return conn.execute(query.with_for_update() if lock else query).first()


def open_question(conn: sa.Connection, code: str, question: tuple, now: float) -> None:
    """Open a (checked) question: round 1, answers of an earlier one dropped unrevealed."""
    question_id, setting, choices = question
    conn.execute(answers.delete().where(answers.c.code == code))
    row = {"code": code, "question_id": question_id, "setting": setting, "choices": choices}
    conn.execute(questions.insert().values(**row, round=1, revealed=False, opened_at=now))


def answer(conn: sa.Connection, code: str, student_id: str, choice: object) -> None:
    """Record or change ``student_id``'s answer; "not_open", "no_such_choice"."""
    row = current(conn, code)
    if row is None or row.revealed:
        raise ClassError("not_open")
    if isinstance(choice, bool) or not isinstance(choice, int):
        raise ClassError("no_such_choice", choice=str(choice)[:20])
    if not 0 <= choice < len(row.choices):
        raise ClassError("no_such_choice", choice=choice)
    key = {"question": row.id, "round": row.round, "student_id": student_id}
    where = sa.and_(*(answers.c[name] == value for name, value in key.items()))
    if conn.execute(answers.update().where(where).values(choice=choice)).rowcount:
        return
    try:
        with conn.begin_nested():
            conn.execute(answers.insert().values(**key, code=code, choice=choice))
    except sa.exc.IntegrityError:  # two answers of one student at once: the other one stands
        pass


def reveal(conn: sa.Connection, code: str, now: float) -> None:
    """Close the round: its counts per choice kept, its answers deleted; "not_open"."""
    row = current(conn, code, lock=True)
    if row is None or row.revealed:
        raise ClassError("not_open")
    counts = [0] * len(row.choices)
    for choice, n in conn.execute(_tally(row.id, row.round)):
        counts[choice] = n
    this_round = (answers.c.question == row.id) & (answers.c.round == row.round)
    conn.execute(answers.delete().where(this_round))
    conn.execute(
        rounds.insert().values(
            question=row.id, round=row.round, code=code, counts=counts, revealed_at=now
        )
    )
    conn.execute(questions.update().where(questions.c.id == row.id).values(revealed=True))


def ask_again(conn: sa.Connection, code: str) -> None:
    """Open the next round of the revealed question; "not_open", "not_revealed"."""
    row = current(conn, code, lock=True)
    if row is None:
        raise ClassError("not_open")
    if not row.revealed:
        raise ClassError("not_revealed")
    again = {"round": row.round + 1, "revealed": False}
    conn.execute(questions.update().where(questions.c.id == row.id).values(**again))


def view(conn: sa.Connection, code: str, student_id: str | None = None) -> Asked | None:
    """The current question with its revealed rounds' counts, or None when none was opened."""
    row = current(conn, code)
    if row is None:
        return None
    done = conn.execute(
        sa.select(rounds.c.counts).where(rounds.c.question == row.id).order_by(rounds.c.round)
    ).scalars()
    revealed = tuple(tuple(counts) for counts in done)
    tally = {choice: n for choice, n in conn.execute(_tally(row.id, row.round))}
    answered = sum(revealed[-1]) if row.revealed else sum(tally.values())
    mine = None
    if student_id is not None and not row.revealed:
        mine = conn.execute(
            sa.select(answers.c.choice).where(
                answers.c.question == row.id,
                answers.c.round == row.round,
                answers.c.student_id == student_id,
            )
        ).scalar()
    return Asked(
        row.id,
        row.question_id,
        dict(row.setting),
        tuple(row.choices),
        row.round,
        bool(row.revealed),
        answered,
        revealed,
        mine,
    )


def _tally(question: int, round_: int) -> sa.Select:
    return (
        sa.select(answers.c.choice, sa.func.count())
        .where(answers.c.question == question, answers.c.round == round_)
        .group_by(answers.c.choice)
    )
