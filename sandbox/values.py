"""The values' rules: arithmetic, comparisons, ``in``, indexing, each one checked and metered.

``from_plain`` and ``to_plain`` carry case values into the interpreter and results out. Values
are plain Python (int float bool None str list tuple dict range) plus the learner's
``Function``s and the host ``Builtin``s; no host object with attributes ever reaches the
learner's code. Sizes (lists, ranges, ints, exponents) are checked before anything is built, and
every element an operation builds, copies or visits is charged to the meter.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from sandbox.errors import (
    MAX_EXPONENT,
    MAX_INT,
    MAX_OUTPUT,
    MAX_OUTPUT_NESTING,
    SandboxError,
    refuse,
    too_big,
    type_error,
    value_error,
)
from sandbox.keys import dict_key, dict_keys, plain_key
from sandbox.kinds import KEYS, NUMBERS, TEXT_STEP, a_type, check_int, check_size
from sandbox.meter import FREE, Meter

INTS = (int, bool)
CONTAINERS = frozenset({list, tuple, dict})
SEARCH_STEP = 4  # characters of text searched (`in` on text) for one step


# ---- arithmetic fast paths ------------------------------------------------------------------
NATIVE = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
INFINITIES = (math.inf, -math.inf)


def settle(r: Any, a: Any, b: Any, line: int) -> Any:
    """Check a numeric result: an int beyond MAX_INT is too big, an inf from finite numbers
    is an overflow (NaN and inf from inf pass, as in Python)."""
    if type(r) is float:
        if r != r or -math.inf < r < math.inf:  # NaN, or a finite float
            return r
        if a in INFINITIES or b in INFINITIES:  # inf in, inf out: ordinary arithmetic
            return r
        raise SandboxError("overflow", {"line": line})
    return check_int(r, line)


def fast_operations(arith: Callable[[str, Any, Any, int], Any]) -> dict[str, Callable]:
    """``op(a, b, line)`` for every operator: ints and floats directly, the rest through arith."""

    def fast(op: str) -> Callable[[Any, Any, int], Any]:
        native = NATIVE[op]

        def run(a: Any, b: Any, line: int) -> Any:
            ta, tb = type(a), type(b)
            if (ta is float or ta is int) and (tb is float or tb is int):
                if op == "/" and not b:
                    return arith(op, a, b, line)
                r = native(a, b)
                if type(r) is float:
                    if -math.inf < r < math.inf:
                        return r
                elif -MAX_INT < r < MAX_INT:
                    return r
                return settle(r, a, b, line)
            return arith(op, a, b, line)

        return run

    def other(op: str) -> Callable[[Any, Any, int], Any]:
        return lambda a, b, line: arith(op, a, b, line)

    operations = {op: fast(op) for op in NATIVE}
    operations.update({op: other(op) for op in ("//", "%", "**")})
    return operations


# ---- operations on values (the slow, checked paths) -----------------------------------------
class Operations:
    """What the learner's values do, each operation checked and charged to ``meter``."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.fast = fast_operations(self.arith)

    def iterable(self, value: Any, line: int) -> Any:
        kind = type(value)
        if kind is list or kind is range or kind is tuple or kind is str:
            return value
        if kind is dict:
            return dict_keys(self.meter, value)
        raise type_error(line, f"cannot loop over {a_type(value)}")

    def numeric(self, op: str, a: Any, b: Any, line: int) -> Any:
        try:
            if op == "+":
                r = a + b
            elif op == "-":
                r = a - b
            elif op == "*":
                r = a * b
            elif op == "/":
                r = a / b
            elif op == "//":
                r = a // b
            elif op == "%":
                r = a % b
            else:
                if type(b) in INTS:
                    if abs(b) > MAX_EXPONENT:
                        raise too_big(line, "exponent", MAX_EXPONENT)
                    big = type(a) in INTS and b > 1 and abs(a) > 1
                    if big and (abs(a).bit_length() - 1) * b > 333:  # 2**333 > 10**100
                        raise too_big(line, "number", float(MAX_INT))
                r = a**b
                if type(r) is complex:
                    raise SandboxError("math_domain", {"line": line, "function": "**"})
        except ZeroDivisionError:
            raise SandboxError("zero_division", {"line": line}) from None
        except OverflowError:
            raise SandboxError("overflow", {"line": line}) from None
        return settle(r, a, b, line)

    def arith(self, op: str, a: Any, b: Any, line: int) -> Any:
        ta, tb = type(a), type(b)
        if ta in NUMBERS and tb in NUMBERS:
            return self.numeric(op, a, b, line)
        if ta is str or tb is str:
            raise refuse(f"text operation `{op}`", line=line)
        if op == "+" and ta is tb and ta in (list, tuple):
            n = len(a) + len(b)
            check_size(n, line)
            self.meter.charge(n)
            return a + b
        if op == "*":
            if ta in (list, tuple) and tb in INTS:
                seq, times = a, b
            elif tb in (list, tuple) and ta in INTS:
                seq, times = b, a
            else:
                seq, times = None, 0
            if seq is not None:
                n = len(seq) * times if times > 0 else 0
                check_size(n, line)
                self.meter.charge(n)
                return seq * times
        detail = f"cannot use `{op}` between {a_type(a)} and {a_type(b)}"
        raise type_error(line, detail)

    def inplace(self, op: str, a: Any, b: Any, line: int) -> Any:
        """``a op= b``: a list grows in place (as in Python), anything else as ``a op b``."""
        if type(a) is list:
            if op == "+" and type(b) in (list, tuple, range):
                check_size(len(a) + len(b), line)
                self.meter.charge(len(b))
                a.extend(b)
                return a
            if op == "*" and type(b) in INTS:
                check_size(len(a) * b if b > 0 else 0, line)
                self.meter.charge(len(a) * b if b > 0 else 0)
                a *= b
                return a
        return self.arith(op, a, b, line)

    def equal(self, a: Any, b: Any, line: int, depth: int = 0) -> bool:
        """``a == b`` that counts every element it visits (lists may share rows many times)."""
        ta, tb = type(a), type(b)
        if ta not in CONTAINERS or tb not in CONTAINERS:
            if ta is str and tb is str:
                self.meter.charge(min(len(a), len(b)) // TEXT_STEP)
            return a == b
        if a is b:
            return True
        if ta is not tb or len(a) != len(b):
            return False
        if depth > MAX_OUTPUT_NESTING:
            raise value_error(line, "the lists are nested too deeply to compare")
        self.meter.charge(len(a))
        if ta is dict:
            if a.keys() != b.keys():
                return False
            return all(self.equal(a[k], b[k], line, depth + 1) for k in a)
        return all(self.equal(x, y, line, depth + 1) for x, y in zip(a, b))

    def contains(self, container: Any, item: Any, line: int) -> bool:
        kind = type(container)
        if kind in (list, tuple):
            self.meter.charge(len(container))
            if type(item) not in CONTAINERS:
                return item in container  # one scalar against each element: no deep work
            return any(self.equal(item, x, line) for x in container)
        if kind is dict:
            return dict_key(self.meter, item, line) in container
        if kind is range:
            self.meter.charge(len(container))
            return item in container
        if kind is str:
            if type(item) is not str:
                raise type_error(line, f"`in` on text needs text, not {a_type(item)}")
            # a search may compare the needle at every place in the text: the worst cases cost
            # about a step every few characters
            self.meter.charge((len(container) + len(item)) // SEARCH_STEP)
            return item in container
        raise type_error(line, f"cannot use `in` on {a_type(container)}")

    def compare(self, op: str, a: Any, b: Any, line: int) -> bool:
        if op == "Eq":
            return self.equal(a, b, line)
        if op == "NotEq":
            return not self.equal(a, b, line)
        if op == "In":
            return self.contains(b, a, line)
        if op == "NotIn":
            return not self.contains(b, a, line)
        if op == "Is":
            return a is b
        if op == "IsNot":
            return a is not b
        ta, tb = type(a), type(b)
        if not ((ta in NUMBERS and tb in NUMBERS) or (ta is str and tb is str)):
            symbol = {"Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}[op]
            detail = f"cannot compare {a_type(a)} and {a_type(b)} with `{symbol}`"
            raise type_error(line, detail)
        if ta is str:
            self.meter.charge(min(len(a), len(b)) // TEXT_STEP)
        if op == "Lt":
            return a < b
        if op == "LtE":
            return a <= b
        if op == "Gt":
            return a > b
        return a >= b

    def index(self, c: Any, i: Any, line: int) -> Any:
        kind = type(c)
        if kind is list or kind is tuple or kind is str or kind is range:
            if type(i) not in INTS:
                detail = f"indices must be whole numbers (int), not {a_type(i)}"
                raise type_error(line, detail)
            try:
                return c[i]
            except IndexError:
                params = {"line": line, "index": int(i), "length": len(c)}
                raise SandboxError("index", params) from None
        if kind is dict:
            try:
                return c[dict_key(self.meter, i, line)]
            except KeyError:
                text = repr(i) if len(repr(i)) <= 30 else repr(i)[:29] + "…"
                raise value_error(line, f"the dict has no key {text}") from None
        raise type_error(line, f"{a_type(c)} cannot be indexed")

    def slice(self, c: Any, lo: Any, hi: Any, step: Any, line: int) -> Any:
        if type(c) not in (list, tuple, str, range):
            raise type_error(line, f"{a_type(c)} cannot be sliced")
        for bound in (lo, hi, step):
            if bound is not None and type(bound) not in INTS:
                detail = f"slice bounds must be whole numbers (int), not {a_type(bound)}"
                raise type_error(line, detail)
        if step == 0:
            raise value_error(line, "slice step cannot be zero")
        cut = slice(lo, hi, step)
        self.meter.charge(len(range(*cut.indices(len(c)))))
        return c[cut]

    def store_index(self, c: Any, i: Any, v: Any, line: int) -> None:
        kind = type(c)
        if kind is list:
            if type(i) not in INTS:
                detail = f"indices must be whole numbers (int), not {a_type(i)}"
                raise type_error(line, detail)
            try:
                c[i] = v
            except IndexError:
                params = {"line": line, "index": int(i), "length": len(c)}
                raise SandboxError("index", params) from None
        elif kind is dict:
            key = dict_key(self.meter, i, line)
            if key not in c:
                check_size(len(c) + 1, line)
            c[key] = v
        else:
            detail = f"{a_type(c)} cannot be changed (only lists and dicts can)"
            raise type_error(line, detail)


# ---- values in and out -----------------------------------------------------------------------
def from_plain(value: Any, depth: int = 0) -> Any:
    """A case argument as the interpreter holds it (a fresh copy: the code may change it)."""
    if depth > MAX_OUTPUT_NESTING:
        raise ValueError("case values are nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in (list, tuple):
        return [from_plain(v, depth + 1) for v in value]
    if kind is dict:
        keys = [plain_key(k) for k in value]  # plain, or already as the interpreter holds them
        if not all(type(k) in KEYS and k == k for k in keys):
            raise TypeError("dict keys of case values must be numbers or text")
        return {
            dict_key(FREE, k, 0): from_plain(v, depth + 1)
            for k, v in zip(keys, value.values(), strict=True)
        }
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return from_plain(value.tolist(), depth)
    raise TypeError(f"case values must be plain lists and numbers, not {kind.__name__}")


def to_plain(value: Any, budget: list[int], line: int, depth: int = 0) -> Any:
    """A result as plain Python (tuples become lists); ``budget[0]`` counts values left to send."""
    kind = type(value)
    if kind is list or kind is tuple or kind is range or kind is dict:
        if depth >= MAX_OUTPUT_NESTING:
            raise value_error(line, "the result is nested too deeply")
        budget[0] -= len(value) + 1
        if budget[0] < 0:
            raise SandboxError("output_too_big", {"limit": MAX_OUTPUT})
        if kind is dict:
            return {plain_key(k): to_plain(v, budget, line, depth + 1) for k, v in value.items()}
        return [to_plain(v, budget, line, depth + 1) for v in value]
    if kind is str:  # text counts by its length too (one value per 16 characters)
        budget[0] -= len(value) // 16
        if budget[0] < 0:
            raise SandboxError("output_too_big", {"limit": MAX_OUTPUT})
    if value is None or kind in (bool, int, float, str):
        return value
    raise type_error(line, f"the result holds {a_type(value)}, which cannot be sent back")
