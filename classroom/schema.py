"""The class store's one schema (SQLAlchemy Core tables), its version and the migrate hook.

Every row but ``schema_version`` and ``buckets`` belongs to a class (its ``code``) and is
deleted when the class ends; the ``classes`` row itself stays as a tombstone (no teacher key
hash) for a day, so that the code answers "ended", then goes too. Answers are kept by student id
only while a round is open: the reveal turns them into counts per choice and deletes them.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

SCHEMA_VERSION = 1
# MIGRATIONS[n] moves a store from version n to n + 1 (none yet).
MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {}

metadata = sa.MetaData()
CODE = sa.String(16)
STUDENT = sa.String(64)

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),  # always 1: one row
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("migrated_at", sa.Float, nullable=False),
)
classes = sa.Table(
    "classes",
    metadata,
    sa.Column("code", CODE, primary_key=True),
    sa.Column("key_hash", sa.String(64), nullable=False),  # sha256 of the teacher key; "" ended
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("teacher_seen", sa.Float, nullable=False),  # the teacher's last activity
    sa.Column("ended_at", sa.Float),
    sa.Column("end_reason", sa.String(16)),  # "teacher" or "expired"
)
teacher_states = sa.Table(
    "teacher_states",
    metadata,
    sa.Column("code", CODE, primary_key=True),
    sa.Column("page", sa.String(64), nullable=False),
    sa.Column("url_values", sa.JSON, nullable=False),  # {name: value}, as a link carries them
    sa.Column("version", sa.Integer, nullable=False),  # +1 on every change
    sa.Column("updated_at", sa.Float, nullable=False),
)
students = sa.Table(
    "students",
    metadata,
    sa.Column("code", CODE, primary_key=True),
    sa.Column("student_id", STUDENT, primary_key=True),
    sa.Column("joined_at", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
)
reports = sa.Table(  # one row per student, cell and outcome, however often it is sent
    "reports",
    metadata,
    sa.Column("code", CODE, primary_key=True),
    sa.Column("student_id", STUDENT, primary_key=True),
    sa.Column("cell", sa.String(32), primary_key=True),
    sa.Column("passed", sa.Boolean, primary_key=True),
    sa.Column("mistake_id", sa.String(64), primary_key=True),  # "" when none was recognised
    sa.Column("at", sa.Float, nullable=False),
)
questions = sa.Table(
    "questions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", CODE, nullable=False, index=True),
    sa.Column("question_id", sa.String(64), nullable=False),
    sa.Column("setting", sa.JSON, nullable=False),  # the URL values it was asked at
    sa.Column("choices", sa.JSON, nullable=False),  # [str, ...]
    sa.Column("round", sa.Integer, nullable=False),  # 1, then 2 after "ask again", ...
    sa.Column("revealed", sa.Boolean, nullable=False),  # the current round's
    sa.Column("opened_at", sa.Float, nullable=False),
)
rounds = sa.Table(
    "rounds",
    metadata,
    sa.Column("question", sa.Integer, primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("code", CODE, nullable=False, index=True),
    sa.Column("counts", sa.JSON, nullable=False),  # [count per choice]
    sa.Column("revealed_at", sa.Float, nullable=False),
)
answers = sa.Table(  # the open round's answers only
    "answers",
    metadata,
    sa.Column("question", sa.Integer, primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("student_id", STUDENT, primary_key=True),
    sa.Column("code", CODE, nullable=False, index=True),
    sa.Column("choice", sa.Integer, nullable=False),
)
buckets = sa.Table(  # rate limits: "join:<student id>" -> tokens left at ``updated``
    "buckets",
    metadata,
    sa.Column("key", sa.String(80), primary_key=True),
    sa.Column("tokens", sa.Float, nullable=False),
    sa.Column("updated", sa.Float, nullable=False),
)

CLASS_TABLES = (answers, rounds, questions, reports, students, teacher_states)


class SchemaTooNew(RuntimeError):
    """The store was written by a later version of the lab."""


def is_current(conn: sa.Connection) -> bool:
    """Whether every table is there at this version (read only: ``prepare`` is not needed)."""
    if not set(metadata.tables) <= set(sa.inspect(conn).get_table_names()):
        return False
    return conn.execute(sa.select(schema_version.c.version)).scalar() == SCHEMA_VERSION


def prepare(conn: sa.Connection, now: float) -> int:
    """Create the tables that are missing, record or migrate the version; the version after."""
    metadata.create_all(conn, checkfirst=True)
    row = conn.execute(sa.select(schema_version.c.version)).first()
    if row is None:
        conn.execute(schema_version.insert().values(id=1, version=SCHEMA_VERSION, migrated_at=now))
        return SCHEMA_VERSION
    version = row.version
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(f"store schema {version}, this lab knows up to {SCHEMA_VERSION}")
    while version < SCHEMA_VERSION:
        MIGRATIONS[version](conn)
        version += 1
        conn.execute(schema_version.update().values(version=version, migrated_at=now))
    return version
