"""The checks every class call makes inside its transaction: the class is open, the teacher's key,
the student is in; and the end of a class, which deletes its rows.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa

from classroom import codes
from classroom.config import Limits
from classroom.errors import ClassError
from classroom.schema import CLASS_TABLES, classes, students

log = logging.getLogger(__name__)


def open_class(conn: sa.Connection, code: str, now: float, limits: Limits, lock: bool = False):
    """The ``classes`` row of ``code``; "unknown_class", or "ended" (by the teacher or expired)."""
    query = sa.select(classes).where(classes.c.code == code)
    row = conn.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise ClassError("unknown_class", class_code=code)
    if row.ended_at is not None or row.teacher_seen < now - limits.expiry_seconds:
        raise ClassError("ended", class_code=code)
    return row


def teacher(conn: sa.Connection, code: str, key: object, now: float, limits: Limits):
    """The open class's row if ``key`` is its teacher key ("bad_key" if not), the teacher seen."""
    row = open_class(conn, code, now, limits, lock=True)
    if not codes.key_matches(key, row.key_hash):
        log.warning("refused a teacher request for class %s: wrong or missing key", code)
        raise ClassError("bad_key")
    conn.execute(classes.update().where(classes.c.code == code).values(teacher_seen=now))
    return row


def student(conn: sa.Connection, code: str, student_id: str, now: float, limits: Limits) -> None:
    """Count ``student_id`` in the open class ``code`` (seen now); "full" past the class size."""
    where = (students.c.code == code) & (students.c.student_id == student_id)
    seen = conn.execute(students.update().where(where).values(seen_at=now))
    if seen.rowcount:
        return
    count = conn.execute(
        sa.select(sa.func.count()).select_from(students).where(students.c.code == code)
    ).scalar_one()
    if count >= limits.class_size:
        raise ClassError("full", class_code=code, limit=limits.class_size)
    conn.execute(
        students.insert().values(code=code, student_id=student_id, joined_at=now, seen_at=now)
    )


def end(conn: sa.Connection, code: str, now: float, reason: str) -> None:
    """End the class ``code``: delete all its rows, keep a tombstone without the key's hash."""
    for table in CLASS_TABLES:
        conn.execute(table.delete().where(table.c.code == code))
    conn.execute(
        classes.update()
        .where(classes.c.code == code)
        .values(key_hash="", ended_at=now, end_reason=reason)
    )


def expire(conn: sa.Connection, now: float, limits: Limits) -> list[str]:
    """End the classes whose teacher has been away too long; delete old tombstones."""
    stale = conn.execute(
        sa.select(classes.c.code).where(
            classes.c.ended_at.is_(None), classes.c.teacher_seen < now - limits.expiry_seconds
        )
    ).scalars()
    ended = list(stale)
    for code in ended:
        end(conn, code, now, "expired")
    conn.execute(classes.delete().where(classes.c.ended_at < now - limits.tombstone_seconds))
    return ended


def open_count(conn: sa.Connection, now: float, limits: Limits) -> int:
    """How many classes are open."""
    query = (
        sa.select(sa.func.count())
        .select_from(classes)
        .where(classes.c.ended_at.is_(None), classes.c.teacher_seen >= now - limits.expiry_seconds)
    )
    return conn.execute(query).scalar_one()
