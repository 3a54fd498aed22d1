"""The class session's API: ``Classes``, one object per process over one store.

Every call opens one short transaction; every refusal is a ``ClassError``. Teacher calls take
the class's teacher key; student calls take the student's random id and are rate-limited per id
(joins, reports, answers). The store is swept (classes expired after 4 hours without the
teacher end, and their rows go) at every start and at most once a minute on reads.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import sqlalchemy as sa

from classroom import access, checks, codes, polls, progress, ratelimit
from classroom.config import Limits
from classroom.errors import ClassError
from classroom.schema import classes, schema_version, teacher_states
from classroom.states import Asked, Progress, TeacherState
from classroom.store import Store, store_for

HEARTBEAT_SECONDS = 15.0  # a process writes one student's heartbeat at most this often
MAX_BEATS = 20_000  # heartbeats remembered per process before the memory is cleared
Action = Callable[[sa.Connection, str, float], object]

log = logging.getLogger(__name__)


class Classes:
    """The class session over ``store`` (a Store, a URL, or the configured store by default).

    ``clock`` gives the time in seconds (``time.time``; tests pass their own), ``limits`` the
    limits (``config.Limits()``: the module constants and their environment variables).
    """

    def __init__(
        self,
        store: Store | str | None = None,
        clock: Callable[[], float] = time.time,
        limits: Limits | None = None,
    ) -> None:
        self.store = store if isinstance(store, Store) else store_for(store)
        self.limits = limits or Limits()
        self._clock = clock
        self._lock = threading.Lock()
        self._swept = float("-inf")
        self._beats: dict[tuple[str, str], float] = {}

    # the teacher

    def start_class(
        self, page: str = "", values: Mapping[str, str] | None = None
    ) -> tuple[str, str]:
        """A new class: (join code, teacher key). "too_many_classes", "unavailable"."""
        page, values = checks.page(page), checks.url_values(values)
        now = self._clock()
        self.sweep(force=True)
        key = codes.new_key()
        with self.store.write() as conn:
            conn.execute(sa.select(schema_version).with_for_update())  # starts one at a time
            if access.open_count(conn, now, self.limits) >= self.limits.open_classes:
                raise ClassError("too_many_classes", limit=self.limits.open_classes)
            code = _free_code(conn)
            row = {"code": code, "created_at": now, "teacher_seen": now}
            conn.execute(classes.insert().values(**row, key_hash=codes.hash_key(key)))
            state = {"page": page, "url_values": values, "version": 1, "updated_at": now}
            conn.execute(teacher_states.insert().values(code=code, **state))
        return code, key

    def end_class(self, code: str, key: str) -> None:
        """End the class and delete its rows. "bad_key", "unknown_class", "ended"."""
        self._as_teacher(code, key, lambda conn, c, now: access.end(conn, c, now, "teacher"))

    def check_teacher(self, code: str, key: str) -> None:
        """Nothing if ``key`` is the teacher key of ``code`` (the teacher seen), else ClassError."""
        self._as_teacher(code, key, lambda conn, c, now: None)

    def set_teacher_state(self, code: str, key: str, page: str, values: Mapping[str, str]) -> int:
        """Show ``page`` at ``values`` to the followers; the state's version (same if unchanged)."""
        page, values = checks.page(page), checks.url_values(values)
        return self._as_teacher(
            code, key, lambda conn, c, now: _set_state(conn, c, page, values, now)
        )

    def progress(self, code: str, key: str) -> Progress:
        """The class's progress on the cells (``classroom.states.Progress``)."""
        return self._as_teacher(
            code, key, lambda conn, c, now: progress.progress(conn, c, now, self.limits)
        )

    def open_question(
        self,
        code: str,
        key: str,
        question_id: str,
        setting: Mapping[str, str],
        choices: Sequence[str],
    ) -> Asked:
        """Ask a question (2..6 distinct choices) at ``setting``; it becomes the current one."""
        question = polls.checked(question_id, setting, choices)
        return self._as_teacher(
            code,
            key,
            lambda conn, c, now: _then_view(conn, c, polls.open_question(conn, c, question, now)),
        )

    def reveal(self, code: str, key: str) -> Asked:
        """Close the current round and show its counts. "not_open" when nothing is open."""
        return self._as_teacher(
            code, key, lambda conn, c, now: _then_view(conn, c, polls.reveal(conn, c, now))
        )

    def ask_again(self, code: str, key: str) -> Asked:
        """The next round of the revealed question, earlier rounds' counts kept. "not_revealed"."""
        return self._as_teacher(
            code, key, lambda conn, c, now: _then_view(conn, c, polls.ask_again(conn, c))
        )

    def results(self, code: str, key: str) -> Asked | None:
        """The current question for the projector: answered so far, the revealed rounds' counts."""
        return self._as_teacher(code, key, lambda conn, c, now: polls.view(conn, c))

    # the students

    def teacher_state(self, code: str) -> TeacherState:
        """The teacher's page and values (followers poll it through ``follow.ClassCache``)."""
        code = codes.normalise(code)
        now = self._clock()
        self._maybe_sweep()
        with self.store.read() as conn:
            access.open_class(conn, code, now, self.limits)
            row = conn.execute(sa.select(teacher_states).where(teacher_states.c.code == code)).one()
        return TeacherState(code, row.page, dict(row.url_values), row.version, row.updated_at)

    def join(self, code: str, student_id: str) -> None:
        """Count the student in the class. "full", "rate_limited", "unknown_class", "ended"."""
        self._as_student("join", code, student_id, None)

    def heartbeat(self, code: str, student_id: str) -> None:
        """The student is still here (written at most every ``HEARTBEAT_SECONDS`` per process)."""
        code, student_id = codes.normalise(code), codes.check_student_id(student_id)
        now = self._clock()
        with self._lock:
            if now - self._beats.get((code, student_id), float("-inf")) < HEARTBEAT_SECONDS:
                return
            if len(self._beats) >= MAX_BEATS:
                self._beats.clear()
            self._beats[(code, student_id)] = now
        self._as_student(None, code, student_id, None)

    def report(
        self, code: str, student_id: str, cell: str, passed: bool, mistake_id: str | None = None
    ) -> None:
        """A check's outcome: the cell, passed or not, the recognised mistake's id (or None)."""
        checked = progress.checked(cell, passed, mistake_id)
        self._as_student(
            "report",
            code,
            student_id,
            lambda conn, c, sid, now: progress.record(conn, c, sid, checked, now),
        )

    def answer(self, code: str, student_id: str, choice: int) -> None:
        """Answer (or change the answer to) the open round. "not_open", "no_such_choice"."""
        self._as_student(
            "answer", code, student_id, lambda conn, c, sid, now: polls.answer(conn, c, sid, choice)
        )

    def current_question(self, code: str, student_id: str | None = None) -> Asked | None:
        """The current question (None if none), with ``mine`` = this student's open answer."""
        code = codes.normalise(code)
        sid = None if student_id is None else codes.check_student_id(student_id)
        now = self._clock()
        self._maybe_sweep()
        with self.store.read() as conn:
            access.open_class(conn, code, now, self.limits)
            return polls.view(conn, code, sid)

    # upkeep

    def sweep(self, force: bool = False) -> list[str]:
        """End the classes expired without their teacher and delete their rows; their codes."""
        now = self._clock()
        with self._lock:
            if not force and now - self._swept < self.limits.sweep_seconds:
                return []
            self._swept = now
        with self.store.write() as conn:
            ended = access.expire(conn, now, self.limits)
            ratelimit.purge(conn, now)
        if ended:
            log.info(
                "ended %d classes after %.0f s without their teacher",
                len(ended),
                self.limits.expiry_seconds,
            )
        return ended

    def _maybe_sweep(self) -> None:
        with contextlib.suppress(ClassError):  # the read that follows tells if the store is there
            self.sweep()

    def _as_teacher(self, code: str, key: str, action: Action):
        code = codes.normalise(code)
        now = self._clock()
        with self.store.write() as conn:
            access.teacher(conn, code, key, now, self.limits)
            return action(conn, code, now)

    def _as_student(self, kind: str | None, code: str, student_id: str, action) -> None:
        """Rate-limit (a refused call still spends its token), check the class, then act."""
        code, sid = codes.normalise(code), codes.check_student_id(student_id)
        now = self._clock()
        refusal = None
        with self.store.write() as conn:
            if kind and not ratelimit.take(conn, kind, sid, self.limits.rates[kind], now):
                raise ClassError("rate_limited")
            try:
                access.open_class(conn, code, now, self.limits, lock=True)
                access.student(conn, code, sid, now, self.limits)
                if action is not None:
                    action(conn, code, sid, now)
            except ClassError as err:
                refusal = err
        if refusal is not None:
            raise refusal


def _free_code(conn: sa.Connection) -> str:
    for _ in range(20):
        code = codes.new_code()
        taken = conn.execute(sa.select(classes.c.code).where(classes.c.code == code)).first()
        if taken is None:
            return code
    raise ClassError("too_many_classes", limit="?")


def _set_state(
    conn: sa.Connection, code: str, page: str, values: dict[str, str], now: float
) -> int:
    row = conn.execute(sa.select(teacher_states).where(teacher_states.c.code == code)).one()
    if row.page == page and dict(row.url_values) == values:
        return row.version
    change = {"page": page, "url_values": values, "version": row.version + 1, "updated_at": now}
    conn.execute(teacher_states.update().where(teacher_states.c.code == code).values(**change))
    return row.version + 1


def _then_view(conn: sa.Connection, code: str, _done: object) -> Asked:
    asked = polls.view(conn, code)
    assert asked is not None  # the action just opened or changed it
    return asked
