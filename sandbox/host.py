"""A host function as the learner's code sees it (``Builtin``): a name, its arity, a checked call.

Every host function (sandbox/builtin_functions.py, sandbox/helpers.py) takes
``(meter, line, *args)``: ``meter.charge(n)`` counts the work, ``line`` is the learner's line for
errors. ``Builtin.call`` checks the number of arguments and the keywords before it runs one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.errors import SandboxError
from sandbox.kinds import Meter


class Builtin:
    """A host function as the learner's code sees it: a name and a checked call."""

    __slots__ = ("name", "impl", "low", "high", "keywords")
    kind = "function"

    def __init__(
        self,
        name: str,
        impl: Callable[..., Any],
        low: int,
        high: int | None,
        keywords: dict[str, int | None] | None = None,
    ) -> None:
        self.name = name
        self.impl = impl
        self.low = low  # fewest positional arguments
        self.high = high  # most positional arguments (None: any number)
        self.keywords = keywords or {}  # keyword -> its positional index (None: keyword-only)

    def expected(self) -> str:
        """How many arguments it takes, for the message: "1", "1 to 3", "at least 1"."""
        if self.high is None:
            return f"at least {self.low}"
        return str(self.low) if self.low == self.high else f"{self.low} to {self.high}"

    def call(self, meter: Meter, args: list | tuple, kwargs: dict | None, line: int) -> Any:
        """Check the arguments' number and keywords, then run the function."""
        given = len(args)
        if kwargs:
            for key in kwargs:
                where = self.keywords.get(key, -1)
                if where == -1:
                    detail = f"{self.name}() takes no keyword argument '{key}'"
                    raise SandboxError("type", {"line": line, "detail": detail})
                if where is not None and given > where:
                    detail = f"{self.name}() got two values for '{key}'"
                    raise SandboxError("type", {"line": line, "detail": detail})
            total = given + sum(1 for key in kwargs if self.keywords[key] is not None)
        else:
            total = given
        if total < self.low or (self.high is not None and total > self.high):
            params = {"name": self.name, "expected": self.expected(), "given": total, "line": line}
            raise SandboxError("arguments", params)
        if kwargs:
            return self.impl(meter, line, *args, **kwargs)
        return self.impl(meter, line, *args)
