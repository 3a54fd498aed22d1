"""classroom: the class session (a teacher, students following on their devices), and its store.

Below ``ui/``, beside ``exercises/``: no Streamlit here. One ``Classes`` per process, over the
configured store (``classroom.classes()``), or over any store or URL (the tests' way)::

    room = classroom.classes()                # Classes(store=None, clock=time.time, limits=None)
    code, key = room.start_class(page="softmax", values={"seed": "7"})
    #   code: the join code, 6 characters of codes.ALPHABET (no 0 O 1 I L): for the QR code's
    #   link (class=<code>) and the screen; key: the teacher key (192 random bits), for the
    #   teacher's browser only, never a URL. The store keeps only its sha256.

Every call returns its value or raises ``ClassError``: ``err.code`` (stable, below),
``err.message`` (English), ``err.text(lang)`` ("en"/"fr"). Codes are normalised first
(``codes.normalise``: upper case, spaces and dashes dropped; "no_code", "bad_length",
"look_alike" for 0 O 1 I L, "bad_characters"); every call may raise "unavailable" (the store is
down or locked: within about 2 s; the next call after it is back works), and every call on a
class may raise "unknown_class" or "ended" (by the teacher, or 4 hours without the teacher).

The teacher (``key`` checked in constant time; a wrong or missing one is "bad_key", logged
without the key; every accepted call counts as the teacher's activity):

    room.check_teacher(code, key) -> None            # e.g. after a reload, the role kept
    room.set_teacher_state(code, key, page, values) -> int
    #   page: the page's slug ("" home, "softmax", ...); values: {name: text} as a link carries
    #   them; returns the state's version, which grows only when page or values changed
    room.progress(code, key) -> Progress
    #   .connected (seen in the last minute), .students (ever joined), .cells {cell id:
    #   CellProgress(tried, passed, mistakes ((mistake id, students), ...) top three)} for every
    #   exercises.CELLS; a student counts once per cell and once per mistake
    room.open_question(code, key, question_id, setting, choices) -> Asked   # "bad_value"
    room.reveal(code, key) -> Asked                  # "not_open" (none, or already revealed)
    room.ask_again(code, key) -> Asked               # round + 1, counts kept; "not_revealed"
    room.results(code, key) -> Asked | None          # for the projector
    room.end_class(code, key) -> None                # its rows deleted; the code then says "ended"

The students (``student_id``: a random id their browser keeps, ``codes.new_student_id()``;
8-64 of A-Z a-z 0-9 _ -, else "bad_value"). Joins, reports and answers are rate-limited per
id ("rate_limited"; token buckets in the store, shared by every process); a student's first
call counts them in the class ("full" past 300):

    room.join(code, student_id) -> None
    room.heartbeat(code, student_id) -> None         # every ~20 s; written at most every 15 s
    room.report(code, student_id, cell, passed, mistake_id=None) -> None
    #   cell: an exercises.CELLS id ("no_such_cell"); mistake_id: one the checker names for
    #   that cell, only when not passed ("no_such_mistake"). Nothing the student typed.
    room.teacher_state(code) -> TeacherState(code, page, values, version, updated_at)
    room.current_question(code, student_id=None) -> Asked | None
    #   Asked(number, question_id, setting, choices, round, revealed, answered, rounds, mine):
    #   rounds = counts per choice of the revealed rounds (round 1 first), answered = answers
    #   in the current round (its distribution stays hidden until the reveal), mine = this
    #   student's answer in the open round
    room.answer(code, student_id, choice) -> None    # choice: an index; "not_open",
    #                                                  "no_such_choice"; a second answer replaces

Followers poll through one per-process cache (``follow.ClassCache``): ``cache.state(code)``
reads the store at most once per code per second, whatever the number of sessions, and a page
reruns only when ``version`` changed.

Configuration (``classroom.config``): the store is ``ATTENTION_LAB_CLASS_STORE`` (a URL,
``postgresql+psycopg://user:password@host:5432/db``), else ``[connections.classes] url`` in
``.streamlit/secrets.toml``, else ``classes.sqlite`` in ``ATTENTION_LAB_DATA`` (default
``<repo>/data/``). Limits: ``ATTENTION_LAB_CLASS_SIZE`` (300), ``ATTENTION_LAB_OPEN_CLASSES``
(50), ``ATTENTION_LAB_CLASS_HOURS`` (4), ``ATTENTION_LAB_JOIN_BURST`` /
``ATTENTION_LAB_JOINS_PER_MINUTE`` (20 / 20), ``ATTENTION_LAB_REPORT_BURST`` /
``ATTENTION_LAB_REPORTS_PER_MINUTE`` (60 / 60, answers too); a follower's own poll behind its
server's wake, ``ATTENTION_LAB_FOLLOW_POLL_SECONDS`` (10).

Modules: ``codes`` (join codes, keys, ids), ``texts`` (the messages, EN/FR), ``errors``,
``checks`` (a page's slug and values), ``config`` (store URL, data folder, limits), ``schema``
(tables, version, migrations), ``store`` (engine, transactions that fail fast), ``ratelimit``,
``access`` (open class, teacher, student, the end of a class), ``progress``, ``polls``,
``states`` (what the store answers), ``session`` (``Classes``, imported when first used),
``follow`` (``ClassCache``).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from classroom import codes
from classroom.config import Limits, Rate
from classroom.errors import ClassError
from classroom.follow import ClassCache
from classroom.states import Asked, CellProgress, Progress, TeacherState

if TYPE_CHECKING:
    from classroom.session import Classes

_DEFAULT: Classes | None = None
_LOCK = threading.Lock()


def classes() -> Classes:
    """This process's ``Classes`` over the configured store (made on first call: SQLAlchemy and
    the driver are imported then, not by a page that never meets a class)."""
    global _DEFAULT
    with _LOCK:
        if _DEFAULT is None:
            from classroom.session import Classes

            _DEFAULT = Classes()
        return _DEFAULT


def __getattr__(name: str) -> object:
    """``classroom.Classes``, imported when first asked for (it needs SQLAlchemy)."""
    if name == "Classes":
        from classroom.session import Classes

        return Classes
    raise AttributeError(f"module 'classroom' has no attribute {name!r}")


__all__ = [
    "Asked",
    "CellProgress",
    "ClassCache",
    "ClassError",
    "Classes",
    "Limits",
    "Progress",
    "Rate",
    "TeacherState",
    "classes",
    "codes",
]
