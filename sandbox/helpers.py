"""Host-implemented functions the learner's code may call, each checked and metered.

``BUILTINS``: the safe versions of ``len range sum min max abs zip enumerate list float exp log
sqrt``. ``HELPERS``: ``dot matmul softmax transpose``, the chapter-8 functions an exercise may
hand to the learner, with clear shape errors; same numbers as ``llm.attention``.

Every function takes ``(meter, line, *args)``: ``meter.charge(n)`` counts the work (one step per
element handled), ``line`` is the learner's line for errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from sandbox.errors import MAX_INT, MAX_LIST, MAX_RANGE, SandboxError

NUMBERS = frozenset({int, float, bool})
SEQUENCES = frozenset({list, tuple, range})
KEYS = frozenset({int, float, bool, str, type(None)})  # what may index a dict
TEXT_STEP = 16  # characters of text read (hashed, searched, compared, parsed) for one step


class NumberKey:
    """A number as a dict key, hashed through its text: Python's own hash of a number is not
    keyed, so ``i * (2**61 - 1)`` would give every key one hash and each lookup a walk through
    all of them; text hashes are keyed per process. Equal numbers (``1``, ``1.0``, ``True``) are
    one key, as in Python. Keys are wrapped on the way in and unwrapped on the way out."""

    __slots__ = ("value", "hash")

    def __init__(self, value: int | float | bool) -> None:
        self.value = value
        whole = type(value) is not float or value.is_integer()
        self.hash = hash(str(int(value)) if whole else repr(value))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return type(other) is NumberKey and self.value == other.value

    def __repr__(self) -> str:
        return repr(self.value)


def dict_key(meter: Meter, value: Any, line: int) -> Any:
    """A value as the interpreter's dicts hold it as a key (text and None as themselves)."""
    kind = type(value)
    if kind is str:
        meter.charge(len(value) // TEXT_STEP)  # its hash reads every character once
        return value
    if value is None:
        return value
    if kind in NUMBERS:
        if value != value:
            raise type_error(line, "nan cannot be a dict key")
        return NumberKey(value)
    raise type_error(line, f"a dict key must be a number or text, not {a_type(value)}")


def plain_key(key: Any) -> Any:
    """A dict key as the learner's code sees it."""
    return key.value if type(key) is NumberKey else key


def dict_keys(meter: Meter, value: dict) -> list:
    """The keys of a dict as a list (a copy, charged one step a key)."""
    meter.charge(len(value))
    return [key.value if type(key) is NumberKey else key for key in value]


class Meter(Protocol):
    def charge(self, n: int) -> None: ...


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
        if self.high is None:
            return f"at least {self.low}"
        return str(self.low) if self.low == self.high else f"{self.low} to {self.high}"

    def call(self, meter: Meter, args: list | tuple, kwargs: dict | None, line: int) -> Any:
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


class TypeAlias:
    """What ``list[float]`` evaluates to: a name for a type, usable only as an annotation."""

    __slots__ = ()
    kind = "type"


TYPE_ALIAS = TypeAlias()

_TYPE_NAMES = {
    int: "int",
    float: "float",
    bool: "bool",
    str: "text",
    list: "list",
    tuple: "tuple",
    dict: "dict",
    range: "range",
    type(None): "None",
}


def type_name(value: Any) -> str:
    """A short readable name for a value's type."""
    kind = type(value)
    return _TYPE_NAMES.get(kind) or getattr(kind, "kind", "value")


def a_type(value: Any) -> str:
    """The type with its article: "an int", "a list", "text", "None"."""
    name = type_name(value)
    if name in ("text", "None"):
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def type_error(line: int, detail: str) -> SandboxError:
    return SandboxError("type", {"line": line, "detail": detail})


def value_error(line: int, detail: str) -> SandboxError:
    return SandboxError("value", {"line": line, "detail": detail})


def too_big(line: int, what: str, limit: int | float) -> SandboxError:
    return SandboxError("too_big", {"line": line, "what": what, "limit": limit})


def check_int(value: Any, line: int) -> Any:
    """Refuse ints beyond MAX_INT (after every int operation)."""
    if type(value) is int and not -MAX_INT < value < MAX_INT:
        raise too_big(line, "number", float(MAX_INT))
    return value


def check_size(n: int, line: int) -> None:
    if n > MAX_LIST:
        raise too_big(line, "list", MAX_LIST)


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


def _all_numbers(values: list | tuple | range) -> bool:
    return type(values) is range or all(map(NUMBERS.__contains__, map(type, values)))


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
    if not _all_numbers(values):
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
        if not _all_numbers(values):
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


# ---- the helpers (chapter 8's functions, checked) --------------------------------------------
def _shape_error(line: int, function: str, detail: str) -> SandboxError:
    return SandboxError("shape", {"line": line, "function": function, "detail": detail})


def _vector(meter: Meter, value: Any, line: int, function: str) -> list | tuple:
    """Check a list of numbers (the check is work too: it is charged first)."""
    if type(value) not in (list, tuple):
        detail = f"{function}() needs a list of numbers, got {a_type(value)}"
        raise type_error(line, detail)
    meter.charge(len(value))
    if not _all_numbers(value):
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
