"""Whose check runs: a fair queue of checks for one server process, with a few slots to run in.

A class presses Check within the same minute, some with a loop that never ends. Checks run at
most ``slots`` at a time; the others wait in order of:

1. a check that has not run yet before one that already had its slice (a loop shows itself by
   running past its slice: a correct check is done well within it);
2. among those, the owner (a browser session) that used the checker least lately;
3. then the order they came in, or for paused checks the order they were paused in.

A running check that passes its slice while another check waits gives its slot up: the runner
pauses its child process (SIGSTOP) and resumes it (SIGCONT) when its turn comes again, so it
loses nothing and finishes later, never wrongly. Fresh checks go first; the slow ones then take
the slots in turn, a slice each. A check waits at most ``wait_limit`` seconds
for its first turn, and when ``max_waiting`` checks already wait a new one is told at once that
the checker is busy: both are bounds for a server far beyond a class, not for a class.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

from sandbox.errors import SandboxError

SLOTS = 2  # checks running at once per server process (one per core)
# CPU seconds a check runs before a waiting one may take its slot: a correct check of a cell
# at the chapters' sizes uses about 0.05, start-up included (a slower one is paused and soon
# resumed, it loses nothing); each loop costs the class one slice before the fresh checks end
SLICE = 0.08
MAX_WAITING = 200  # checks waiting at once; one more is told the checker is busy
# paused child processes kept at once, each holding its memory (about 13 MB for a loop at the
# chapters' sizes): room for a class of 30 that all loop, so that none of them runs its whole
# time limit while a fresh check waits behind it
MAX_PAUSED = 40
WAIT_LIMIT = 60.0  # seconds a check waits for its first turn before it is told busy
MEMORY = 60.0  # seconds over which an owner's use of the checker is remembered


@dataclass(eq=False)
class Turn:
    """One check's place in the queue."""

    owner: Hashable
    seq: int
    usage: float  # the owner's recent seconds of checking when this turn came in
    ran: bool = False  # it had a slice already (it was paused)
    granted: bool = False
    seconds: float = 0.0  # of running, pauses not counted (the runner adds them up)

    def key(self) -> tuple[bool, float, int]:
        return (self.ran, self.usage, self.seq)


class Scheduler:
    """The queue of one server process; ``enter``, then ``pause`` at will, then ``leave``."""

    def __init__(
        self,
        slots: int = SLOTS,
        slice_seconds: float = SLICE,
        max_waiting: int = MAX_WAITING,
        max_paused: int = MAX_PAUSED,
        wait_limit: float = WAIT_LIMIT,
    ) -> None:
        self.slots = slots
        self.slice = slice_seconds
        self.max_waiting = max_waiting
        self.max_paused = max_paused
        self.wait_limit = wait_limit
        self._changed = threading.Condition()
        self._running: set[Turn] = set()
        self._waiting: list[Turn] = []
        self._paused = 0
        self._seq = itertools.count()
        self._usage: dict[Hashable, tuple[float, float]] = {}  # owner -> (seconds, when)
        self.served: deque[tuple[str, Hashable]] = deque(maxlen=1000)  # (event, owner)

    # ---- what the runner calls ---------------------------------------------------------------
    def enter(self, owner: Hashable | None = None) -> Turn:
        """Wait for a slot; raise SandboxError("busy") if the queue is full or the wait too long."""
        with self._changed:
            if owner is None:
                owner = ("anonymous", next(self._seq))
            turn = Turn(owner, next(self._seq), self._recent(owner))
            if len(self._waiting) >= self.max_waiting:
                self.served.append(("busy", owner))
                raise SandboxError("busy", {})
            self._waiting.append(turn)
            self._grant()
            if not self._changed.wait_for(lambda: turn.granted, timeout=self.wait_limit):
                self._waiting.remove(turn)
                self.served.append(("busy", owner))
                raise SandboxError("busy", {})
            self.served.append(("start", owner))
            return turn

    def should_pause(self, turn: Turn) -> bool:
        """Whether ``turn``, past its slice, should give its slot up: to a check that has not
        run yet, or to one paused before it (slow checks take the slots in turn, a slice each,
        so a correct one that needed a little more is not stuck behind a loop)."""
        with self._changed:
            if any(not other.ran for other in self._waiting):
                return self._paused < self.max_paused
            return any(other.ran for other in self._waiting)  # a swap: no more paused than now

    def pause(self, turn: Turn) -> None:
        """Give the slot up (the caller has paused its process) and wait for the next turn."""
        with self._changed:
            self._running.discard(turn)
            turn.granted, turn.ran = False, True
            turn.seq = next(self._seq)  # to the back of the paused ones
            self._waiting.append(turn)
            self._paused += 1
            self.served.append(("pause", turn.owner))
            self._grant()
            self._changed.wait_for(lambda: turn.granted)
            self._paused -= 1
            self.served.append(("resume", turn.owner))

    def leave(self, turn: Turn) -> None:
        """The check is over (answered, failed or stopped): free its slot, count its time."""
        with self._changed:
            self._running.discard(turn)
            if turn in self._waiting:
                self._waiting.remove(turn)
            self._usage[turn.owner] = (self._recent(turn.owner) + turn.seconds, time.monotonic())
            self._forget()
            self.served.append(("done", turn.owner))
            self._grant()

    # ---- what tests and the benchmark read ---------------------------------------------------
    def counts(self) -> dict[str, int]:
        with self._changed:
            return {
                "running": len(self._running),
                "waiting": len(self._waiting),
                "paused": self._paused,
            }

    # ---- inside ------------------------------------------------------------------------------
    def _grant(self) -> None:
        """Hand free slots to the first waiting turns (the lock is held)."""
        changed = False
        while len(self._running) < self.slots and self._waiting:
            turn = min(self._waiting, key=Turn.key)
            self._waiting.remove(turn)
            turn.granted = True
            self._running.add(turn)
            changed = True
        if changed:
            self._changed.notify_all()

    def _recent(self, owner: Hashable) -> float:
        """The owner's seconds of checking, fading to nothing over MEMORY seconds."""
        seconds, when = self._usage.get(owner, (0.0, 0.0))
        if not seconds:
            return 0.0
        return seconds * max(0.0, 1.0 - (time.monotonic() - when) / MEMORY)

    def _forget(self) -> None:
        if len(self._usage) > 4 * self.max_waiting:
            now = time.monotonic()
            self._usage = {o: u for o, u in self._usage.items() if now - u[1] < MEMORY}
