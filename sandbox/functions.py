"""The learner's functions as they run (``Function``) and the signals a block stops with.

``Function`` binds the arguments and keeps the call-depth budget; ``BREAK``, ``CONTINUE`` and
``RETURN`` are what a statement returns to stop a block; ``ensure_stack_room`` gives Python the
stack the budgets allow.

``call`` is the dict of the running call's local names and their values (the module has one
too); a nested function's call points to the call it was defined in (``UP``). Each call costs
its depth in Python frames, within ``STACK_BUDGET``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from sandbox.errors import MAX_CALL_DEPTH, SandboxError, type_error
from sandbox.meter import NARROW, Meter

Call = dict[str, Any]
Run = Callable[[Call], Any]

UP = "\x00up"  # a nested function's call -> the call it was defined in
RET = "\x00ret"  # where `return` leaves its value
STACK_BUDGET = 3_000  # Python frames the learner's calls may stack up (each call costs its depth)
MISSING = object()


class Signal:
    """What a statement returns to stop a block: ``break``, ``continue`` or ``return``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


BREAK, CONTINUE, RETURN = Signal("break"), Signal("continue"), Signal("return")


class Function:
    """A function the learner defined: parameters, defaults and the compiled body."""

    __slots__ = ("name", "params", "defaults", "body", "closure", "line", "cost", "meter", "steps")
    kind = "function"

    def __init__(
        self,
        name: str,
        params: tuple[str, ...],
        defaults: dict[str, Any],
        body: Run,
        closure: Call | None,
        line: int,
        cost: int,
        meter: Meter,
    ) -> None:
        self.name = name
        self.params = params
        self.defaults = defaults
        self.body = body
        self.closure = closure
        self.line = line
        self.cost = cost
        self.meter = meter
        self.steps = 1 if len(params) <= NARROW else 1 + len(params)  # binding is work too

    def expected(self) -> str:
        n = len(self.params)
        low = n - len(self.defaults)
        return str(n) if low == n else f"{low} to {n}"

    def arguments_error(self, given: int, line: int) -> SandboxError:
        params = {"name": self.name, "expected": self.expected(), "given": given, "line": line}
        return SandboxError("arguments", params)

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any] | None, line: int) -> Call:
        params = self.params
        given = len(args) + len(kwargs or ())
        if len(args) > len(params):
            raise self.arguments_error(given, line)
        local = dict(zip(params, args))
        for key, value in (kwargs or {}).items():
            if key not in params:
                raise type_error(line, f"{self.name}() has no parameter named '{key}'")
            if key in local:
                raise type_error(line, f"{self.name}() got two values for '{key}'")
            local[key] = value
        for name in params:
            if name not in local:
                default = self.defaults.get(name, MISSING)
                if default is MISSING:
                    raise self.arguments_error(given, line)
                local[name] = default
        return local

    def call(self, args: Sequence[Any], kwargs: dict[str, Any] | None, line: int) -> Any:
        meter = self.meter
        meter.left -= self.steps
        if meter.left <= 0:
            meter.refill()
        if meter.depth >= MAX_CALL_DEPTH or meter.stack + self.cost > STACK_BUDGET:
            raise SandboxError("recursion", {"line": line, "limit": MAX_CALL_DEPTH})
        if kwargs is None and len(args) == len(self.params):
            local = dict(zip(self.params, args))
        else:
            local = self.bind(args, kwargs, line)
        if self.closure is not None:
            local[UP] = self.closure
        meter.depth += 1
        meter.stack += self.cost
        signal = self.body(local)
        meter.depth -= 1
        meter.stack -= self.cost
        return local[RET] if signal is RETURN else None


def ensure_stack_room() -> None:
    """Let Python stack the frames our budgets allow (the learner's depth is counted by us)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + STACK_BUDGET + 800
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)
