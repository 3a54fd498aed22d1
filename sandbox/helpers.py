"""The chapter-8 helpers an exercise may hand to the learner: ``dot matmul softmax transpose``.

Checked and metered like the builtins (``HELPER_FUNCTIONS``, named in ``HELPERS``), with clear
shape errors; the same numbers as ``llm.attention``. Each takes ``(meter, line, *args)``.
"""

from __future__ import annotations

import math
from typing import Any

from sandbox.errors import SandboxError, type_error, value_error
from sandbox.host import Builtin
from sandbox.kinds import NUMBERS, Meter, a_type, all_numbers, check_int


def _shape_error(line: int, function: str, detail: str) -> SandboxError:
    return SandboxError("shape", {"line": line, "function": function, "detail": detail})


def _vector(meter: Meter, value: Any, line: int, function: str) -> list | tuple:
    """Check a list of numbers (the check is work too: it is charged first)."""
    if type(value) not in (list, tuple):
        detail = f"{function}() needs a list of numbers, got {a_type(value)}"
        raise type_error(line, detail)
    meter.charge(len(value))
    if not all_numbers(value):
        bad = next(v for v in value if type(v) not in NUMBERS)
        raise type_error(line, f"{function}() needs a list of numbers, it holds {a_type(bad)}")
    return value


def _matrix(meter: Meter, value: Any, line: int, function: str) -> tuple[int, int]:
    """Check a list of rows of numbers; return its shape (rows, columns)."""
    if type(value) not in (list, tuple):
        raise type_error(line, f"{function}() needs a list of rows, got {a_type(value)}")
    widths = set()
    meter.charge(len(value))
    for row in value:
        if type(row) not in (list, tuple):
            detail = f"{function}() needs a list of rows, it holds {a_type(row)}"
            raise type_error(line, detail)
        _vector(meter, row, line, function)
        widths.add(len(row))
    if len(widths) > 1:
        lengths = ", ".join(str(n) for n in sorted(widths))
        raise _shape_error(line, function, f"the rows have different lengths ({lengths})")
    return len(value), (widths.pop() if widths else 0)


def shape_text(rows: int, columns: int) -> str:
    return f"[{rows} × {columns}]"


def h_dot(meter: Meter, line: int, a: Any, b: Any) -> Any:
    _vector(meter, a, line, "dot")
    _vector(meter, b, line, "dot")
    if len(a) != len(b):
        raise _shape_error(line, "dot", f"vectors of lengths {len(a)} and {len(b)}")
    meter.charge(len(a))
    try:
        return check_int(sum(x * y for x, y in zip(a, b)), line)
    except OverflowError:
        raise SandboxError("overflow", {"line": line}) from None


def h_matmul(meter: Meter, line: int, x: Any, w: Any) -> list:
    n, k = _matrix(meter, x, line, "matmul")
    k2, m = _matrix(meter, w, line, "matmul")
    if k != k2 and n > 0:
        detail = (
            f"{shape_text(n, k)} · {shape_text(k2, m)}: the {k} columns of the first "
            f"must match the {k2} rows of the second"
        )
        raise _shape_error(line, "matmul", detail)
    meter.charge(n * k * m + n * m)
    columns = list(zip(*w))
    try:
        out = [[sum(a * b for a, b in zip(row, col)) for col in columns] for row in x]
    except OverflowError:
        raise SandboxError("overflow", {"line": line}) from None
    for row in out:
        for value in row:
            check_int(value, line)
    return out


def h_softmax(meter: Meter, line: int, row: Any) -> list:
    _vector(meter, row, line, "softmax")
    if not row:
        raise value_error(line, "softmax() of an empty list")
    meter.charge(3 * len(row))
    top = max(row)
    try:
        exps = [math.exp(v - top) for v in row]
        total = sum(exps)
        return [e / total for e in exps]
    except OverflowError:
        raise SandboxError("overflow", {"line": line}) from None
    except ZeroDivisionError:
        raise SandboxError("zero_division", {"line": line}) from None


def h_transpose(meter: Meter, line: int, m: Any) -> list:
    n, k = _matrix(meter, m, line, "transpose")
    meter.charge(n * k + k)
    return [list(col) for col in zip(*m)]


HELPER_FUNCTIONS: dict[str, Builtin] = {
    helper.name: helper
    for helper in (
        Builtin("dot", h_dot, 2, 2),
        Builtin("matmul", h_matmul, 2, 2),
        Builtin("softmax", h_softmax, 1, 1),
        Builtin("transpose", h_transpose, 1, 1),
    )
}
HELPERS: tuple[str, ...] = tuple(HELPER_FUNCTIONS)
