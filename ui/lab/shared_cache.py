"""The store behind ``ui.lab.compute.shared``: what every session reads and none changes (labs, kept
figures), bounded by entries per function and by bytes in all.

A cache bounded by entries alone holds what its largest entries weigh: 64 kept grids of 16 heads
of 32 tokens are about 50 MB, 64 of chapter 9's 4 heads of 5 tokens under 3 MB. Here each entry
is weighed once, when it is stored (``weight``: its arrays, its text, its figures' wire form),
and when the store passes its budget the entries read longest ago go first, whichever function
stored them. A key is the function and its arguments by name, a dataclass of ``KEYS`` by its
``repr``, a dict by its items; every argument must be hashable (scalars, tuples of scalars:
never an array).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

# a process's labs and figures, as ``weight`` weighs them: at chapter 9's size about fifty
# settings of one page's, or fifteen of every page's; at the largest a few of one page's
BUDGET_BYTES = 8 * 2**20
_SCALARS = (int, float, bool, type(None), str, bytes)
_SCALAR_TYPES = frozenset(_SCALARS)
_FLOAT_BYTES = sys.getsizeof(0.0)


def weight(value: Any) -> int:
    """About how many bytes ``value`` holds: its arrays' bytes (a view's base once), its text,
    its numbers, its containers, and a kept figure's traces and layout three times their wire
    form's text (their ``wired_bytes``); an object reached twice counts once."""
    seen: set[int] = set()
    stack = [value]
    total = 0
    while stack:
        v = stack.pop()
        if isinstance(v, _SCALARS):
            total += sys.getsizeof(v)
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, np.ndarray):
            root = v
            while isinstance(root.base, np.ndarray):
                root = root.base
            if root is not v:
                stack.append(root)
            elif v.dtype == object:
                stack.extend(v.ravel().tolist())
            else:
                total += v.nbytes + 112
        elif wired_bytes := getattr(v, "wired_bytes", 0):
            # a kept figure's traces or layout: their wire form's text, and about twice as much
            # for the arrays and dicts it was written from (not walked: 16 000 cells at 32
            # tokens; measured with tracemalloc on pages 3, 5, 7 and 8)
            total += 3 * wired_bytes
        elif isinstance(v, dict | list | tuple | set | frozenset):
            total += sys.getsizeof(v)
            items = v.values() if isinstance(v, dict) else v
            kinds = set(map(type, items))
            if kinds == {float}:  # a row of the readable code's numbers: one size each
                total += len(items) * _FLOAT_BYTES
            elif kinds <= _SCALAR_TYPES:
                total += sum(map(sys.getsizeof, items))
            else:
                stack.extend(items)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            total += sys.getsizeof(v)
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        else:
            total += sys.getsizeof(v)
    return total


class Store:
    """An LRU of (function, key) -> value, at most ``limit`` entries a function and
    ``budget`` bytes in all (the newest entry stays even when it alone is heavier)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.total = 0
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()
        self._counts: dict[str, int] = {}

    def get(self, key: tuple) -> tuple[bool, Any]:
        with self._lock:
            item = self._entries.get(key)
            if item is None:
                return False, None
            self._entries.move_to_end(key)
            return True, item[0]

    def put(self, key: tuple, value: Any, limit: int) -> None:
        size = weight(value)
        name = key[0]
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = (value, size)
            self.total += size
            self._counts[name] = self._counts.get(name, 0) + 1
            if self._counts[name] > limit:
                self._drop(next(k for k in self._entries if k[0] == name))
            while self.total > self.budget and len(self._entries) > 1:
                self._drop(next(iter(self._entries)))

    def _drop(self, key: tuple) -> None:
        _, size = self._entries.pop(key)
        self.total -= size
        self._counts[key[0]] -= 1

    def entries(self, name: str | None = None) -> int:
        """How many entries the store holds (of one function's, by its qualified name)."""
        with self._lock:
            return len(self._entries) if name is None else self._counts.get(name, 0)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._counts.clear()
            self.total = 0


STORE = Store(BUDGET_BYTES)


def cached(
    max_entries: int, keys: dict[type, Callable[[Any], Hashable]], store: Store = STORE
) -> Callable[[F], F]:
    """Keep what ``fn`` returns in ``store``, at most ``max_entries`` of it, keyed by the
    function and its arguments by name (defaults filled in, a ``keys`` dataclass by its key
    function). Two sessions asking for the same new key at once may both compute it."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        name = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = (name, *(_key(v, keys) for v in bound.arguments.values()))
            found, value = store.get(key)
            if not found:
                value = fn(*args, **kwargs)
                store.put(key, value, max_entries)
            return value

        return wrapper  # type: ignore[return-value]

    return decorate


def _key(value: Any, keys: dict[type, Callable[[Any], Hashable]]) -> Hashable:
    """An argument as part of a key: a ``keys`` dataclass by its key function, a dict (the
    ``**style`` of a call) as its sorted items, a list as a tuple, anything else as it is."""
    if (by := keys.get(type(value))) is not None:
        return by(value)
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v, keys)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_key(v, keys) for v in value)
    return value
