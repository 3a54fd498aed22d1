"""The checker's one error type, its limits, and the builders of the errors raised most often.

Every failure is a ``SandboxError(code, params)``: the app translates ``code`` and fills the message
with ``params`` (plain str / int / float values only). ``str(error)`` is an English fallback.
"""

from __future__ import annotations

MAX_SOURCE = 5_000  # characters of learner code
MAX_NESTING = 100  # depth of the syntax tree (blocks inside blocks, brackets inside brackets)
MAX_LIST = 1_000_000  # elements of any list, tuple or dict
MAX_RANGE = 1_000_000  # elements of a range
MAX_INT = 10**100  # |n| of any int
MAX_EXPONENT = 1_000  # int exponent of **
MAX_CALL_DEPTH = 100  # nested calls of the learner's functions
MAX_STEPS = 5_000_000  # loop iterations + comprehension elements + calls (+ elements built)
MAX_OUTPUT = 100_000  # values sent back for a whole run
MAX_OUTPUT_NESTING = 50  # lists inside lists in a result

MESSAGES = {
    "too_long": "The code is {length} characters long; the limit is {limit}.",
    "syntax": "Syntax error on line {line}: {message}.",
    "not_allowed": "Line {line}: {construct} is not allowed in the checker.",
    "too_deep": "Line {line}: the code is nested too deeply (more than {limit} levels).",
    "unknown_name": "Line {line}: unknown name `{name}`. Available: {available}.",
    "unbound": "Line {line}: `{name}` is used before it is given a value.",
    "no_function": "The code does not define a function named `{name}`.",
    "arguments": "`{name}` takes {expected} arguments but was given {given}.",
    "zero_division": "Line {line}: division by zero.",
    "index": "Line {line}: index out of range.",
    "type": "Line {line}: {detail}.",
    "math_domain": "Line {line}: `{function}` got a value outside its domain (log(0)? sqrt(-1)?).",
    "overflow": "Line {line}: a number became too large (overflow).",
    "shape": "Line {line}: shapes do not match in `{function}`: {detail}.",
    "value": "Line {line}: {detail}.",
    "too_big": "Line {line}: this {what} would be too big (limit {limit}).",
    "recursion": "Line {line}: functions call each other more than {limit} levels deep.",
    "steps": "The code took more than {limit} steps: is there a loop that never ends?",
    "timeout": "The code ran for more than {seconds} s and was stopped.",
    "output_too_big": "The result is too big to send back (more than {limit} values).",
    "busy": "The checker is busy; try again in a moment.",
    "crashed": "The check stopped unexpectedly (too much memory?).",
}


class SandboxError(Exception):
    """A failure of the learner's code or of the checker: a code and plain-valued params."""

    def __init__(self, code: str, params: dict[str, str | int | float] | None = None) -> None:
        self.code = code
        self.params: dict[str, str | int | float] = dict(params or {})
        super().__init__(code, self.params)

    def __str__(self) -> str:
        template = MESSAGES.get(self.code, self.code + ": {params}")
        try:
            return template.format(params=self.params, **self.params)
        except (KeyError, IndexError, ValueError):
            return f"{self.code}: {self.params}"

    def __repr__(self) -> str:
        return f"SandboxError({self.code!r}, {self.params!r})"

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "params": self.params}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> SandboxError:
        params = data.get("params")
        return cls(str(data.get("code")), params if isinstance(params, dict) else {})


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters (an ellipsis marks the cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def refuse(construct: str, node: object | None = None, line: int | None = None) -> SandboxError:
    """The error for a construct that the language does not accept (at ``node``'s line)."""
    if line is None:
        line = getattr(node, "lineno", 1) or 1
    return SandboxError("not_allowed", {"construct": short(construct), "line": line})


def type_error(line: int, detail: str) -> SandboxError:
    """A value of the wrong type on ``line``."""
    return SandboxError("type", {"line": line, "detail": detail})


def value_error(line: int, detail: str) -> SandboxError:
    """A value of the right type but unusable here (an empty list, a zero step)."""
    return SandboxError("value", {"line": line, "detail": detail})


def too_big(line: int, what: str, limit: int | float) -> SandboxError:
    """A list, range or number that would pass its limit."""
    return SandboxError("too_big", {"line": line, "what": what, "limit": limit})
