"""The kinds of values: type groups, readable type names, and the limits every value built meets.

``a_type`` names a value's type for messages ("an int", "a list", "text"); ``check_int`` and
``check_size`` refuse ints beyond ``MAX_INT`` and lists beyond ``MAX_LIST``. ``Meter`` is what a
host function needs of the run's meter: ``charge(n)``, one step per element handled.
"""

from __future__ import annotations

from typing import Any, Protocol

from sandbox.errors import MAX_INT, MAX_LIST, too_big

NUMBERS = frozenset({int, float, bool})
SEQUENCES = frozenset({list, tuple, range})
KEYS = frozenset({int, float, bool, str, type(None)})  # what may index a dict
TEXT_STEP = 16  # characters of text read (hashed, searched, compared, parsed) for one step


class Meter(Protocol):
    """What a host function needs of the run's meter (sandbox/meter.py)."""

    def charge(self, n: int) -> None: ...


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


def all_numbers(values: list | tuple | range) -> bool:
    """Whether every item is a number (a range holds only ints)."""
    return type(values) is range or all(map(NUMBERS.__contains__, map(type, values)))


def check_int(value: Any, line: int) -> Any:
    """Refuse ints beyond MAX_INT (after every int operation)."""
    if type(value) is int and not -MAX_INT < value < MAX_INT:
        raise too_big(line, "number", float(MAX_INT))
    return value


def check_size(n: int, line: int) -> None:
    """Refuse a list, tuple or dict of more than MAX_LIST elements (before it is built)."""
    if n > MAX_LIST:
        raise too_big(line, "list", MAX_LIST)
