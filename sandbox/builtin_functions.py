"""The builtins the learner's code may call, each checked and metered (``BUILTINS``).

The safe ``len range sum min max abs zip enumerate list float exp log sqrt``, named in
``ALLOWED_CALLS``. Each takes ``(meter, line, *args)`` (sandbox/host.py): it charges the elements it
handles and refuses wrong types, empty lists and sizes beyond the limits with a clear error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from sandbox.errors import MAX_RANGE, SandboxError, too_big, type_error, value_error
from sandbox.host import Builtin
from sandbox.keys import dict_keys
from sandbox.kinds import (
    NUMBERS,
    SEQUENCES,
    TEXT_STEP,
    Meter,
    a_type,
    all_numbers,
    check_int,
    check_size,
    type_name,
)


def sequence(meter: Meter, value: Any, line: int, function: str) -> list | tuple | range | str:
    """A value that can be looped over: list, tuple, range, text or dict (a copy of its keys)."""
    kind = type(value)
    if kind in SEQUENCES or kind is str:
        return value
    if kind is dict:
        return dict_keys(meter, value)
    raise type_error(line, f"{function}() needs a list, got {a_type(value)}")


def _number(value: Any, line: int, function: str) -> Any:
    if type(value) not in NUMBERS:
        raise type_error(line, f"{function}() needs a number, got {a_type(value)}")
    return value


# ---- the builtins ----------------------------------------------------------------------------
def b_len(meter: Meter, line: int, value: Any) -> int:
    if type(value) in SEQUENCES or type(value) in (str, dict):
        return len(value)
    raise type_error(line, f"len() of {a_type(value)}")


def b_range(meter: Meter, line: int, *args: Any) -> range:
    for arg in args:
        if type(arg) not in (int, bool):
            detail = f"range() needs whole numbers (int), got {a_type(arg)}"
            raise type_error(line, detail)
    if len(args) == 3 and args[2] == 0:
        raise value_error(line, "range() step cannot be zero")
    result = range(*args)
    try:
        size = len(result)
    except OverflowError:
        size = MAX_RANGE + 1
    if size > MAX_RANGE:
        raise too_big(line, "range", MAX_RANGE)
    return result


def b_sum(meter: Meter, line: int, values: Any, start: Any = 0) -> Any:
    values = sequence(meter, values, line, "sum")
    meter.charge(len(values))
    if type(start) in (list, tuple):
        meter.charge(len(start))
        out = list(start)
        for item in values:
            if type(item) is not type(start):
                detail = f"sum() with {a_type(start)} start adds {type_name(start)}s, "
                raise type_error(line, detail + f"not {a_type(item)}")
            check_size(len(out) + len(item), line)
            meter.charge(len(item))
            out.extend(item)
        return out if type(start) is list else tuple(out)
    if type(start) not in NUMBERS:
        raise type_error(line, f"sum() cannot start from {a_type(start)}")
    if not all_numbers(values):
        bad = next(v for v in values if type(v) not in NUMBERS)
        raise type_error(line, f"sum() adds numbers, not {a_type(bad)}")
    try:
        total = check_int(sum(values, start), line)
    except OverflowError:
        raise SandboxError("overflow", {"line": line}) from None
    if total in (math.inf, -math.inf) and not any(v in (math.inf, -math.inf) for v in values):
        raise SandboxError("overflow", {"line": line})  # finite numbers added up to inf
    return total


def _extreme(pick: Callable[..., Any], name: str) -> Callable[..., Any]:
    def extreme(meter: Meter, line: int, *args: Any) -> Any:
        values = sequence(meter, args[0], line, name) if len(args) == 1 else args
        if type(values) is str:
            raise type_error(line, f"{name}() needs numbers, got text")
        if len(values) == 0:
            raise value_error(line, f"{name}() of an empty list")
        meter.charge(len(values))
        if not all_numbers(values):
            bad = next(v for v in values if type(v) not in NUMBERS)
            raise type_error(line, f"{name}() compares numbers, not {a_type(bad)}")
        return pick(values)

    return extreme


def b_abs(meter: Meter, line: int, value: Any) -> Any:
    return abs(_number(value, line, "abs"))


def b_zip(meter: Meter, line: int, *args: Any, strict: Any = False) -> list:
    if type(strict) is not bool:
        raise type_error(line, f"zip() strict must be True or False, not {a_type(strict)}")
    seqs = [sequence(meter, arg, line, "zip") for arg in args]
    if not seqs:
        return []
    lengths = [len(seq) for seq in seqs]
    if strict and len(set(lengths)) > 1:
        detail = "lengths " + ", ".join(str(n) for n in lengths) + " differ (strict=True)"
        raise SandboxError("shape", {"line": line, "function": "zip", "detail": detail})
    meter.charge(min(lengths) * len(seqs))
    return list(zip(*seqs))


def b_enumerate(meter: Meter, line: int, values: Any, start: Any = 0) -> list:
    if type(start) not in (int, bool):
        raise type_error(line, f"enumerate() start must be an int, not {a_type(start)}")
    values = sequence(meter, values, line, "enumerate")
    meter.charge(len(values))
    if values:
        check_int(start + len(values) - 1, line)  # the last number it counts to
    return list(enumerate(values, start))


def b_list(meter: Meter, line: int, *args: Any) -> list:
    if not args:
        return []
    values = sequence(meter, args[0], line, "list")
    meter.charge(len(values))
    return list(values)


def b_float(meter: Meter, line: int, *args: Any) -> float:
    if not args:
        return 0.0
    value = args[0]
    try:
        if type(value) in NUMBERS:
            return float(value)
        if type(value) is str:
            meter.charge(len(value) // TEXT_STEP)
            return float(value)
    except OverflowError:
        raise SandboxError("overflow", {"line": line}) from None
    except ValueError:
        text = value if len(value) <= 30 else value[:29] + "…"
        raise value_error(line, f"float() cannot read {text!r}") from None
    raise type_error(line, f"float() of {a_type(value)}")


def _math(name: str, function: Callable[..., float]) -> Callable[..., float]:
    def run(meter: Meter, line: int, *args: Any) -> float:
        for arg in args:
            _number(arg, line, name)
        try:
            return function(*args)
        except ValueError:
            raise SandboxError("math_domain", {"line": line, "function": name}) from None
        except OverflowError:
            raise SandboxError("overflow", {"line": line}) from None
        except ZeroDivisionError:
            raise SandboxError("zero_division", {"line": line}) from None

    return run


BUILTINS: dict[str, Builtin] = {
    builtin.name: builtin
    for builtin in (
        Builtin("len", b_len, 1, 1),
        Builtin("range", b_range, 1, 3),
        Builtin("sum", b_sum, 1, 2, {"start": 1}),
        Builtin("min", _extreme(min, "min"), 1, None),
        Builtin("max", _extreme(max, "max"), 1, None),
        Builtin("abs", b_abs, 1, 1),
        Builtin("zip", b_zip, 0, None, {"strict": None}),
        Builtin("enumerate", b_enumerate, 1, 2, {"start": 1}),
        Builtin("list", b_list, 0, 1),
        Builtin("float", b_float, 0, 1),
        Builtin("exp", _math("exp", math.exp), 1, 1),
        Builtin("log", _math("log", math.log), 1, 2),
        Builtin("sqrt", _math("sqrt", math.sqrt), 1, 1),
    )
}
ALLOWED_CALLS: tuple[str, ...] = tuple(BUILTINS)
