"""The budgets of a run (steps, the clock, call depth) and what each operation is charged.

Every loop iteration, comprehension element and call costs one step; every element a host
operation builds, copies or visits costs one more (``Meter.charge``), and so does every part of a
node with more than ``NARROW`` parts (operands, elements, arguments, statements); text costs a
step per few characters it reads. The clock (wall time, or the child's CPU time) is read every
``CHUNK`` steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sandbox.errors import MAX_STEPS, SandboxError

CHUNK = 1_000  # steps between two looks at the clock
NARROW = 2  # a node with more parts than this (elements, operands) charges one step a part


class Meter:
    """Steps left before the next look at the clock, steps spent, call depth."""

    __slots__ = ("left", "spent", "limit", "deadline", "time_limit", "depth", "stack", "clock")

    def __init__(
        self,
        time_limit: float,
        deadline: float,
        limit: int = MAX_STEPS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.time_limit = time_limit
        self.deadline = deadline  # on ``clock``
        self.limit = limit
        self.clock = clock
        self.reset()

    def reset(self) -> None:
        self.left = CHUNK
        self.spent = 0
        self.depth = 0
        self.stack = 0

    def refill(self) -> None:
        self.spent += CHUNK - self.left
        self.left = CHUNK
        if self.spent > self.limit:
            raise SandboxError("steps", {"limit": self.limit})
        if self.clock() > self.deadline:
            raise SandboxError("timeout", {"seconds": self.time_limit})

    def charge(self, n: int) -> None:
        self.left -= n
        if self.left <= 0:
            self.refill()

    def used(self) -> int:
        """Steps spent since the last reset."""
        return self.spent + CHUNK - self.left


class _Free:
    """A meter that counts nothing: for the host's own work on case values."""

    def charge(self, n: int) -> None:
        pass


FREE = _Free()
