"""Following the teacher cheaply: a per-process cache of the teacher's state, shared by sessions.

``ClassCache.state(code)`` serves every session's poll of one process with at most one store read
per code per ``interval``: the first poll after the interval reads (the others of that moment
wait for it and share its answer), the rest are served from memory. A refusal ("ended",
"unavailable", ...) is cached the same way, so a class that is down costs one read per interval
too. A page compares the ``version`` with the one it shows and reruns only when it changed.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from classroom import codes
from classroom.errors import ClassError
from classroom.states import TeacherState

INTERVAL_SECONDS = 1.0
MAX_CODES = 256  # codes kept per process; the least recently polled goes first


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    read_at: float = float("-inf")
    state: TeacherState | None = None
    error: ClassError | None = None


class ClassCache:
    """The teacher's state per code, read through ``read`` (e.g. ``Classes.teacher_state``).

    ``count_reads``: how many times the store was read (for the bench and the tests).
    """

    def __init__(
        self,
        read: Callable[[str], TeacherState],
        interval: float = INTERVAL_SECONDS,
        max_codes: int = MAX_CODES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.interval = interval
        self.max_codes = max_codes
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.count_reads = 0

    def state(self, code: str) -> TeacherState:
        """The teacher's state of ``code``, at most ``interval`` old; or its ClassError."""
        code = codes.normalise(code)
        entry = self._entry(code)
        with entry.lock:
            if self._clock() - entry.read_at >= self.interval:
                self._refresh(code, entry)
            state, error = entry.state, entry.error
        if error is not None:
            raise error
        assert state is not None
        return state

    def __len__(self) -> int:
        """How many codes are kept."""
        return len(self._entries)

    def forget(self, code: str) -> None:
        """Drop ``code`` (e.g. after the teacher changed it here): the next poll reads."""
        with self._lock:
            self._entries.pop(code, None)

    def _entry(self, code: str) -> _Entry:
        with self._lock:
            entry = self._entries.get(code)
            if entry is None:
                entry = self._entries[code] = _Entry()
                while len(self._entries) > self.max_codes:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(code)
            return entry

    def _refresh(self, code: str, entry: _Entry) -> None:
        with self._lock:
            self.count_reads += 1
        try:
            entry.state, entry.error = self._read(code), None
        except ClassError as err:
            entry.state, entry.error = None, err
        entry.read_at = self._clock()
