"""Dict keys: numbers hashed through their text (``NumberKey``), and keys in and out of dicts.

Python's own hash of a number is not keyed, so ``i * (2**61 - 1)`` would give every key one hash
and each lookup a walk through all of them; text hashes are keyed per process. Keys are wrapped
on the way in (``dict_key``) and unwrapped on the way out (``plain_key``, ``dict_keys``).
"""

from __future__ import annotations

from typing import Any

from sandbox.errors import type_error
from sandbox.kinds import NUMBERS, TEXT_STEP, Meter, a_type


class NumberKey:
    """A number as a dict key, hashed through its text. Equal numbers (``1``, ``1.0``,
    ``True``) are one key, as in Python."""

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
