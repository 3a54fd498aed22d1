"""Run a validated tree without ``exec``: each node is compiled once into a small Python closure.

``compile`` turns every statement into ``run(call) -> signal`` and every expression into
``run(call) -> value``; ``call`` is the dict of the running call's local names and their values
(the module has one too). Values are plain Python (int float bool None str list tuple dict
range) plus ``Function`` and the host ``Builtin``s; no host object with attributes ever reaches
the learner's code, and the only attributes are ``math.exp/log/sqrt`` and ``xs.append``.

Budgets: every loop iteration, comprehension element and call costs one step; every element a
host operation builds, copies or visits costs one more (``Meter.charge``), and so does every part
of a node with more than ``NARROW`` parts (operands, elements, arguments, statements); text costs
a step per few characters it reads. The clock (wall time, or the child's CPU time) is read every
``CHUNK`` steps. Sizes (lists, ranges, ints, exponents) are checked before anything is built.
"""

from __future__ import annotations

import ast
import math
import operator
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from sandbox.errors import (
    MAX_CALL_DEPTH,
    MAX_EXPONENT,
    MAX_INT,
    MAX_OUTPUT,
    MAX_OUTPUT_NESTING,
    MAX_STEPS,
    SandboxError,
)
from sandbox.helpers import (
    BUILTINS,
    HELPER_FUNCTIONS,
    KEYS,
    NUMBERS,
    TEXT_STEP,
    TYPE_ALIAS,
    Builtin,
    a_type,
    check_int,
    check_size,
    dict_key,
    dict_keys,
    plain_key,
    too_big,
    type_error,
    value_error,
)
from sandbox.language import (
    ARITHMETIC,
    is_list_method,
    is_math_attribute,
    nesting_depth,
    parse,
    refuse,
)

Call = dict[str, Any]
Run = Callable[[Call], Any]

UP = "\x00up"  # a nested function's call -> the call it was defined in
RET = "\x00ret"  # where `return` leaves its value
CHUNK = 1_000  # steps between two looks at the clock
STACK_BUDGET = 3_000  # Python frames the learner's calls may stack up (each call costs its depth)
TYPE_NAMES = frozenset({"list", "tuple", "dict", "float", "int", "str", "bool"})
INTS = (int, bool)
CONTAINERS = frozenset({list, tuple, dict})
SEARCH_STEP = 4  # characters of text searched (`in` on text) for one step
NARROW = 2  # a node with more parts than this (elements, operands) charges one step a part
_MISSING = object()


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


BREAK, CONTINUE, RETURN = _Signal("break"), _Signal("continue"), _Signal("return")


class Outcome(NamedTuple):
    """The result of one case: a plain value, or the error that stopped it."""

    value: object = None
    error: SandboxError | None = None
    seconds: float = 0.0
    steps: int = 0  # of the step budget, what the case used


class Meter:
    """Steps left before the next look at the clock, steps spent, call depth."""

    __slots__ = ("left", "spent", "limit", "deadline", "time_limit", "depth", "stack", "clock")

    def __init__(
        self,
        time_limit: float,
        deadline: float,
        limit: int = MAX_STEPS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.time_limit = time_limit
        self.deadline = deadline  # on ``clock``
        self.limit = limit
        self.clock = clock
        self.reset()

    def reset(self) -> None:
        self.left = CHUNK
        self.spent = 0
        self.depth = 0
        self.stack = 0

    def refill(self) -> None:
        self.spent += CHUNK - self.left
        self.left = CHUNK
        if self.spent > self.limit:
            raise SandboxError("steps", {"limit": self.limit})
        if self.clock() > self.deadline:
            raise SandboxError("timeout", {"seconds": self.time_limit})

    def charge(self, n: int) -> None:
        self.left -= n
        if self.left <= 0:
            self.refill()

    def used(self) -> int:
        """Steps spent since the last reset."""
        return self.spent + CHUNK - self.left


class _Free:
    """A meter that counts nothing: for the host's own work on case values."""

    def charge(self, n: int) -> None:
        pass


FREE = _Free()


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
                default = self.defaults.get(name, _MISSING)
                if default is _MISSING:
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


# ---- scopes ----------------------------------------------------------------------------------
class Scope:
    """The names a function (or the module) assigns, and the comprehensions open inside it."""

    def __init__(self, parent: Scope | None, names: set[str]) -> None:
        self.parent = parent
        self.names = names
        self.renames: list[dict[str, str]] = []

    @property
    def is_module(self) -> bool:
        return self.parent is None


def target_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [name for element in node.elts for name in target_names(element)]
    return []


def assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names a block binds (not looking inside nested functions): they are its locals."""
    names: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(target_names(target))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            names.update(target_names(node.target))
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        if isinstance(node, (ast.For, ast.While, ast.If)):
            stack.extend(node.body)
            stack.extend(node.orelse)
    return names


# ---- arithmetic fast paths ------------------------------------------------------------------
_NATIVE = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_INFINITIES = (math.inf, -math.inf)


def settle(r: Any, a: Any, b: Any, line: int) -> Any:
    """Check a numeric result: an int beyond MAX_INT is too big, an inf from finite numbers
    is an overflow (NaN and inf from inf pass, as in Python)."""
    if type(r) is float:
        if r != r or -math.inf < r < math.inf:  # NaN, or a finite float
            return r
        if a in _INFINITIES or b in _INFINITIES:  # inf in, inf out: ordinary arithmetic
            return r
        raise SandboxError("overflow", {"line": line})
    return check_int(r, line)


def _fast_operations(arith: Callable[[str, Any, Any, int], Any]) -> dict[str, Callable]:
    """``op(a, b, line)`` for every operator: ints and floats directly, the rest through arith."""

    def fast(op: str) -> Callable[[Any, Any, int], Any]:
        native = _NATIVE[op]

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

    operations = {op: fast(op) for op in _NATIVE}
    operations.update({op: other(op) for op in ("//", "%", "**")})
    return operations


# ---- the compiler ----------------------------------------------------------------------------
class Compiler:
    """Turns a validated module into closures; one compiler per run (it holds the meter)."""

    def __init__(self, meter: Meter, available: dict[str, Builtin], module: Call) -> None:
        self.meter = meter
        self.available = available
        self.module_values = module
        self.counter = 0
        self.fast = _fast_operations(self.arith)

    # ---- names -------------------------------------------------------------------------------
    def unknown(self, name: str, line: int) -> SandboxError:
        available = ", ".join(self.available)
        return SandboxError("unknown_name", {"name": name, "line": line, "available": available})

    def resolve(self, name: str, scope: Scope) -> tuple[str, Any]:
        """Where a name lives: local, global, free (hops up, key), const (a host function)."""
        for renames in reversed(scope.renames):
            if name in renames:
                return "local", renames[name]
        if name in scope.names:
            return ("global" if scope.is_module else "local"), name
        hops, outer = 1, scope.parent
        while outer is not None:
            if name in outer.names:
                return ("global", name) if outer.is_module else ("free", (hops, name))
            hops, outer = hops + 1, outer.parent
        if name in self.available:
            return "const", self.available[name]
        return "missing", name

    def load(self, name: str, scope: Scope, line: int) -> Run:
        kind, where = self.resolve(name, scope)
        if kind == "const":
            return lambda call, value=where: value
        if kind == "missing":
            raise self.unknown(name, line)

        def unbound() -> SandboxError:
            return SandboxError("unbound", {"name": name, "line": line})

        if kind == "local":
            key = where

            def load_local(call: Call) -> Any:
                try:
                    return call[key]
                except KeyError:
                    raise unbound() from None

            return load_local
        if kind == "global":
            module, key = self.module_values, where

            def load_global(call: Call) -> Any:
                try:
                    return module[key]
                except KeyError:
                    raise unbound() from None

            return load_global
        hops, key = where

        def load_free(call: Call) -> Any:
            for _ in range(hops):
                call = call[UP]
            try:
                return call[key]
            except KeyError:
                raise unbound() from None

        return load_free

    def store_key(self, name: str, scope: Scope) -> str:
        for renames in reversed(scope.renames):
            if name in renames:
                return renames[name]
        return name  # assignment makes a name local (the module's call holds its names)

    # ---- statements --------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> Run:
        return self.block(tree.body, Scope(None, assigned_names(tree.body)))

    def block(self, body: list[ast.stmt], scope: Scope) -> Run:
        steps = [run for run in (self.statement(node, scope) for node in body) if run is not None]
        if not steps:
            return lambda call: None
        if len(steps) == 1:
            return steps[0]
        if len(steps) == 2:
            first, second = steps

            def run_two(call: Call) -> Any:
                signal = first(call)
                if signal is not None:
                    return signal
                return second(call)

            return run_two

        width, meter = len(steps), self.meter

        def run_block(call: Call) -> Any:
            meter.charge(width)
            for step in steps:
                signal = step(call)
                if signal is not None:
                    return signal
            return None

        return run_block

    def statement(self, node: ast.stmt, scope: Scope) -> Run | None:
        return getattr(self, "s_" + type(node).__name__)(node, scope)

    def s_Pass(self, node: ast.stmt, scope: Scope) -> None:
        return None

    s_Import = s_ImportFrom = s_Pass

    def s_Expr(self, node: ast.Expr, scope: Scope) -> Run | None:
        if isinstance(node.value, ast.Constant):
            return None  # a docstring or `...`
        value = self.expr(node.value, scope)

        def run_expr(call: Call) -> None:
            value(call)

        return run_expr

    def s_Break(self, node: ast.stmt, scope: Scope) -> Run:
        return lambda call: BREAK

    def s_Continue(self, node: ast.stmt, scope: Scope) -> Run:
        return lambda call: CONTINUE

    def s_Return(self, node: ast.Return, scope: Scope) -> Run:
        if node.value is None:

            def run_return_none(call: Call) -> _Signal:
                call[RET] = None
                return RETURN

            return run_return_none
        value = self.expr(node.value, scope)

        def run_return(call: Call) -> _Signal:
            call[RET] = value(call)
            return RETURN

        return run_return

    def s_FunctionDef(self, node: ast.FunctionDef, scope: Scope) -> Run:
        params = tuple(arg.arg for arg in node.args.args)
        inner = Scope(scope, set(params) | assigned_names(node.body))
        body = self.block(node.body, inner)
        defaults = [self.expr(d, scope) for d in node.args.defaults]
        with_default = params[len(params) - len(defaults) :]
        cost = 2 * nesting_depth(node) + 6
        key, name, line, meter = (
            self.store_key(node.name, scope),
            node.name,
            node.lineno,
            self.meter,
        )
        nested = not scope.is_module

        def run_def(call: Call) -> None:
            meter.charge(len(defaults))
            values = {p: d(call) for p, d in zip(with_default, defaults)}
            closure = call if nested else None
            call[key] = Function(name, params, values, body, closure, line, cost, meter)

        return run_def

    def s_Assign(self, node: ast.Assign, scope: Scope) -> Run:
        value = self.expr(node.value, scope)
        targets = node.targets
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            key = self.store_key(targets[0].id, scope)

            def run_assign_name(call: Call) -> None:
                call[key] = value(call)

            return run_assign_name
        assigns = [self.target(t, scope) for t in targets]

        def run_assign(call: Call) -> None:
            v = value(call)
            for assign in assigns:
                assign(call, v)

        return run_assign

    def s_AnnAssign(self, node: ast.AnnAssign, scope: Scope) -> Run | None:
        if node.value is None:
            return None
        assign = ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return self.s_Assign(assign, scope)

    def s_AugAssign(self, node: ast.AugAssign, scope: Scope) -> Run:
        op = ARITHMETIC[type(node.op)]
        value = self.expr(node.value, scope)
        line = node.lineno
        inplace = self.inplace
        target = node.target
        if isinstance(target, ast.Name):
            key = self.store_key(target.id, scope)
            load = self.load(target.id, scope, line)
            checked, native = self.fast[op], _NATIVE.get(op) if op != "/" else None

            def run_augment(call: Call) -> None:
                v = value(call)
                a = load(call)
                ta = type(a)
                if native is not None and ta is float and type(v) is float:
                    r = native(a, v)
                    call[key] = r if -math.inf < r < math.inf else settle(r, a, v, line)
                elif ta is list:
                    call[key] = inplace(op, a, v, line)
                else:
                    call[key] = checked(a, v, line)

            return run_augment
        assert isinstance(target, ast.Subscript)
        container = self.expr(target.value, scope)
        index = self.expr(target.slice, scope)
        get, put = self.index, self.store_index
        checked, native = self.fast[op], _NATIVE.get(op) if op != "/" else None

        def run_augment_item(call: Call) -> None:
            c = container(call)
            i = index(call)
            old = get(c, i, line)
            v = value(call)
            if native is not None and type(old) is float and type(v) is float:
                r = native(old, v)
                new = r if -math.inf < r < math.inf else settle(r, old, v, line)
            elif type(old) is list:
                new = inplace(op, old, v, line)
            else:
                new = checked(old, v, line)
            if type(c) is list and type(i) is int:
                try:
                    c[i] = new
                    return
                except IndexError:
                    pass  # the list shrank meanwhile (x *= 0): put() reports it
            put(c, i, new, line)

        return run_augment_item

    def s_If(self, node: ast.If, scope: Scope) -> Run:
        test = self.expr(node.test, scope)
        body = self.block(node.body, scope)
        if not node.orelse:

            def run_if(call: Call) -> Any:
                if test(call):
                    return body(call)
                return None

            return run_if
        orelse = self.block(node.orelse, scope)

        def run_if_else(call: Call) -> Any:
            if test(call):
                return body(call)
            return orelse(call)

        return run_if_else

    def s_While(self, node: ast.While, scope: Scope) -> Run:
        test = self.expr(node.test, scope)
        body = self.block(node.body, scope)
        meter = self.meter

        def run_while(call: Call) -> Any:
            while test(call):
                meter.left -= 1
                if meter.left <= 0:
                    meter.refill()
                signal = body(call)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None

        return run_while

    def s_For(self, node: ast.For, scope: Scope) -> Run:
        items = self.expr(node.iter, scope)
        body = self.block(node.body, scope)
        meter, line, iterable = self.meter, node.lineno, self.iterable
        if isinstance(node.target, ast.Name):
            key = self.store_key(node.target.id, scope)

            def run_for_name(call: Call) -> Any:
                for v in iterable(items(call), line):
                    meter.left -= 1
                    if meter.left <= 0:
                        meter.refill()
                    call[key] = v
                    signal = body(call)
                    if signal is not None:
                        if signal is BREAK:
                            break
                        if signal is CONTINUE:
                            continue
                        return signal
                return None

            return run_for_name
        assign = self.target(node.target, scope)

        def run_for(call: Call) -> Any:
            for v in iterable(items(call), line):
                meter.left -= 1
                if meter.left <= 0:
                    meter.refill()
                assign(call, v)
                signal = body(call)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            return None

        return run_for

    # ---- assignment targets ------------------------------------------------------------------
    def target(self, node: ast.expr, scope: Scope) -> Callable[[Call, Any], None]:
        line = node.lineno
        if isinstance(node, ast.Name):
            key = self.store_key(node.id, scope)

            def assign_name(call: Call, v: Any) -> None:
                call[key] = v

            return assign_name
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [self.target(element, scope) for element in node.elts]
            count, meter = len(parts), self.meter
            width = count if count > NARROW else 0

            def assign_many(call: Call, v: Any) -> None:
                if width:
                    meter.charge(width)
                if type(v) not in (list, tuple, range, str):
                    raise type_error(line, f"cannot unpack {a_type(v)} into {count} names")
                if len(v) != count:
                    detail = f"expected {count} values to unpack, got {len(v)}"
                    raise value_error(line, detail)
                for part, item in zip(parts, tuple(v)):  # unpack first, as Python does
                    part(call, item)

            return assign_many
        assert isinstance(node, ast.Subscript)
        container = self.expr(node.value, scope)
        index = self.expr(node.slice, scope)
        put = self.store_index

        def assign_item(call: Call, v: Any) -> None:
            put(container(call), index(call), v, line)

        return assign_item

    # ---- expressions -------------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope) -> Run:
        return getattr(self, "e_" + type(node).__name__)(node, scope)

    def e_Constant(self, node: ast.Constant, scope: Scope) -> Run:
        value = node.value
        return lambda call: value

    def e_Name(self, node: ast.Name, scope: Scope) -> Run:
        return self.load(node.id, scope, node.lineno)

    def e_Attribute(self, node: ast.Attribute, scope: Scope) -> Run:
        assert is_math_attribute(node)
        function = BUILTINS[node.attr]
        return lambda call: function

    def e_List(self, node: ast.List, scope: Scope) -> Run:
        parts = [self.expr(element, scope) for element in node.elts]
        if len(parts) <= NARROW:
            return lambda call: [part(call) for part in parts]
        width, meter = len(parts), self.meter

        def run_wide_list(call: Call) -> list:
            meter.charge(width)
            return [part(call) for part in parts]

        return run_wide_list

    def e_Tuple(self, node: ast.Tuple, scope: Scope) -> Run:
        parts = [self.expr(element, scope) for element in node.elts]
        if len(parts) == 2:
            first, second = parts
            return lambda call: (first(call), second(call))
        listed = self.e_List(node, scope)  # type: ignore[arg-type]
        return lambda call: tuple(listed(call))

    def e_Dict(self, node: ast.Dict, scope: Scope) -> Run:
        pairs = [(self.expr(k, scope), self.expr(v, scope)) for k, v in zip(node.keys, node.values)]
        line, meter = node.lineno, self.meter

        def run_dict(call: Call) -> dict:
            out = {}
            meter.charge(len(pairs))
            for key, value in pairs:
                out[dict_key(meter, key(call), line)] = value(call)
            return out

        return run_dict

    def e_IfExp(self, node: ast.IfExp, scope: Scope) -> Run:
        test, body, orelse = (self.expr(n, scope) for n in (node.test, node.body, node.orelse))
        return lambda call: body(call) if test(call) else orelse(call)

    def e_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Run:
        values = [self.expr(v, scope) for v in node.values]
        meter = self.meter
        if isinstance(node.op, ast.And):
            if len(values) == 2:
                first, second = values
                return lambda call: first(call) and second(call)

            def run_and(call: Call) -> Any:
                result = None
                for value in values:
                    meter.charge(1)
                    result = value(call)
                    if not result:
                        return result
                return result

            return run_and
        if len(values) == 2:
            first, second = values
            return lambda call: first(call) or second(call)

        def run_or(call: Call) -> Any:
            result = None
            for value in values:
                meter.charge(1)
                result = value(call)
                if result:
                    return result
            return result

        return run_or

    def e_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Run:
        operand = self.expr(node.operand, scope)
        line = node.lineno
        if isinstance(node.op, ast.Not):
            return lambda call: not operand(call)
        negate = isinstance(node.op, ast.USub)
        symbol = "-" if negate else "+"

        def run_sign(call: Call) -> Any:
            v = operand(call)
            if type(v) is float:
                return -v if negate else v
            if type(v) in INTS:
                return check_int(-v if negate else +v, line)
            if type(v) is str:
                raise refuse(f"text operation `{symbol}`", line=line)
            raise type_error(line, f"cannot use `{symbol}` on {a_type(v)}")

        return run_sign

    def e_BinOp(self, node: ast.BinOp, scope: Scope) -> Run:
        op = ARITHMETIC[type(node.op)]
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        line, checked = node.lineno, self.fast[op]
        native = _NATIVE.get(op) if op != "/" else None
        if native is None:
            return lambda call: checked(left(call), right(call), line)

        def run_binary(call: Call) -> Any:
            a, b = left(call), right(call)
            ta, tb = type(a), type(b)
            if ta is float and tb is float:
                r = native(a, b)
                if -math.inf < r < math.inf:
                    return r
                return settle(r, a, b, line)
            if ta is int and tb is int:
                r = native(a, b)
                if -MAX_INT < r < MAX_INT:
                    return r
                return settle(r, a, b, line)
            return checked(a, b, line)

        return run_binary

    def e_Compare(self, node: ast.Compare, scope: Scope) -> Run:
        left = self.expr(node.left, scope)
        ops = [type(op).__name__ for op in node.ops]
        rights = [self.expr(v, scope) for v in node.comparators]
        line, compare = node.lineno, self.compare
        if len(ops) == 1:
            op, right = ops[0], rights[0]
            if op in ("Lt", "LtE", "Gt", "GtE"):
                fast = {
                    "Lt": operator.lt,
                    "LtE": operator.le,
                    "Gt": operator.gt,
                    "GtE": operator.ge,
                }[op]

                def run_order(call: Call) -> bool:
                    a, b = left(call), right(call)
                    if (type(a) is int or type(a) is float) and (
                        type(b) is int or type(b) is float
                    ):
                        return fast(a, b)
                    return compare(op, a, b, line)

                return run_order
            return lambda call: compare(op, left(call), right(call), line)

        meter = self.meter

        def run_chain(call: Call) -> bool:
            a = left(call)
            for op, right in zip(ops, rights):
                meter.charge(1)
                b = right(call)
                if not compare(op, a, b, line):
                    return False
                a = b
            return True

        return run_chain

    def e_Subscript(self, node: ast.Subscript, scope: Scope) -> Run:
        value, line = node.value, node.lineno
        if isinstance(value, ast.Name) and value.id in TYPE_NAMES:
            kind, _ = self.resolve(value.id, scope)
            if kind in ("const", "missing"):  # list[float]: a type alias, never indexed
                return lambda call: TYPE_ALIAS
        container = self.expr(value, scope)
        part = node.slice
        if isinstance(part, ast.Slice):
            bounds = [
                None if p is None else self.expr(p, scope)
                for p in (part.lower, part.upper, part.step)
            ]
            cut = self.slice

            def run_slice(call: Call) -> Any:
                c = container(call)
                lo, hi, step = (None if b is None else b(call) for b in bounds)
                return cut(c, lo, hi, step, line)

            return run_slice
        index, get = self.expr(part, scope), self.index

        def run_index(call: Call) -> Any:
            c, i = container(call), index(call)
            if type(i) is int and type(c) is list:
                try:
                    return c[i]
                except IndexError:
                    pass
            return get(c, i, line)

        return run_index

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, scope: Scope) -> Run:
        line, meter, iterable = node.lineno, self.meter, self.iterable
        generators = node.generators
        first = self.expr(generators[0].iter, scope)
        renames: dict[str, str] = {}
        scope.renames.append(renames)
        try:
            loops = []
            for position, generator in enumerate(generators):
                items = first if position == 0 else self.expr(generator.iter, scope)
                for name in target_names(generator.target):
                    self.counter += 1
                    renames[name] = f"{name}\x00{self.counter}"
                assign = self.target(generator.target, scope)
                conditions = [self.expr(c, scope) for c in generator.ifs]
                simple = isinstance(generator.target, ast.Name)
                key = renames[generator.target.id] if simple else ""
                loops.append((items, assign, conditions, key))
            element = self.expr(node.elt, scope)
        finally:
            scope.renames.pop()

        if len(loops) == 1 and loops[0][3] and not loops[0][2]:
            items, _, _, key = loops[0]

            def run_simple(call: Call) -> list:
                out: list = []
                append = out.append
                for v in iterable(items(call), line):
                    meter.left -= 1
                    if meter.left <= 0:
                        meter.refill()
                    call[key] = v
                    append(element(call))
                return out

            return run_simple

        def nest(position: int) -> Callable[[Call, list], None]:
            items, assign, conditions, _ = loops[position]
            inner = nest(position + 1) if position + 1 < len(loops) else None
            steps = 1 if len(conditions) <= NARROW else 1 + len(conditions)

            def run_loop(call: Call, out: list) -> None:
                for v in iterable(items(call), line):
                    meter.left -= steps
                    if meter.left <= 0:
                        meter.refill()
                    assign(call, v)
                    if all(condition(call) for condition in conditions):
                        if inner is None:
                            out.append(element(call))
                        else:
                            inner(call, out)

            return run_loop

        outer = nest(0)

        def run_comprehension(call: Call) -> list:
            out: list = []
            outer(call, out)
            check_size(len(out), line)
            return out

        return run_comprehension

    e_ListComp = e_GeneratorExp = comprehension

    def list_method(self, node: ast.Call, scope: Scope) -> Run:
        """``xs.append(v)``: as ``xs += [v]`` (the same size check, one step)."""
        method = node.func
        assert isinstance(method, ast.Attribute) and method.attr == "append"
        owner, value = self.expr(method.value, scope), self.expr(node.args[0], scope)
        line, meter = node.lineno, self.meter

        def run_append(call: Call) -> None:
            xs = owner(call)
            if type(xs) is not list:
                raise type_error(line, f"`.append` works on a list, not on {a_type(xs)}")
            v = value(call)
            check_size(len(xs) + 1, line)
            meter.charge(1)
            xs.append(v)

        return run_append

    def e_Call(self, node: ast.Call, scope: Scope) -> Run:
        line = node.lineno
        if is_list_method(node.func):
            return self.list_method(node, scope)
        if is_math_attribute(node.func):
            kind, function = "const", BUILTINS[node.func.attr]  # type: ignore[attr-defined]
        else:
            assert isinstance(node.func, ast.Name)
            kind, function = self.resolve(node.func.id, scope)
            if kind == "missing":
                raise self.unknown(node.func.id, line)
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        args = [
            (
                isinstance(a, ast.Starred),
                self.expr(a.value if isinstance(a, ast.Starred) else a, scope),
            )
            for a in node.args
        ]
        keywords = [(k.arg, self.expr(k.value, scope)) for k in node.keywords]
        meter, call_value = self.meter, self.call_value

        if starred:
            collect = self.collect

            def arguments(call: Call) -> list:
                return collect(args, call, line)
        else:
            plain = [a for _, a in args]

            def arguments(call: Call) -> list:
                meter.charge(len(plain))
                return [a(call) for a in plain]

        def keyword_values(call: Call) -> dict[str, Any] | None:
            if not keywords:
                return None
            meter.charge(len(keywords))
            return {name: value(call) for name, value in keywords}

        if kind == "const":
            builtin = function
            if not isinstance(builtin, Builtin):
                raise type_error(line, f"{a_type(builtin)} is not a function")
            impl = builtin.impl
            fits = builtin.high is None or builtin.high >= len(args)
            if not starred and not keywords and len(args) == 1 and builtin.low <= 1 and fits:
                only = args[0][1]
                return lambda call: impl(meter, line, only(call))
            if not starred and not keywords and len(args) == 2 and builtin.low <= 2 and fits:
                one, two = args[0][1], args[1][1]
                return lambda call: impl(meter, line, one(call), two(call))
            return lambda call: builtin.call(meter, arguments(call), keyword_values(call), line)

        callee = self.load(node.func.id, scope, line)  # type: ignore[attr-defined]
        if not starred and not keywords and len(args) == 1:
            only = args[0][1]

            def run_call_one(call: Call) -> Any:
                fn = callee(call)
                a = only(call)
                if type(fn) is Function:
                    return fn.call((a,), None, line)
                return call_value(fn, (a,), None, line)

            return run_call_one
        if not starred and not keywords and len(args) == 2:
            one, two = args[0][1], args[1][1]

            def run_call_two(call: Call) -> Any:
                fn = callee(call)
                a, b = one(call), two(call)
                if type(fn) is Function:
                    return fn.call((a, b), None, line)
                return call_value(fn, (a, b), None, line)

            return run_call_two

        def run_call(call: Call) -> Any:
            fn = callee(call)
            return call_value(fn, arguments(call), keyword_values(call), line)

        return run_call

    # ---- runtime operations (the slow, checked paths) ----------------------------------------
    def call_value(self, fn: Any, args: Sequence[Any], kwargs: dict | None, line: int) -> Any:
        if type(fn) is Function:
            return fn.call(args, kwargs, line)
        if type(fn) is Builtin:
            return fn.call(self.meter, args, kwargs, line)
        raise type_error(line, f"{a_type(fn)} is not a function")

    def collect(self, args: list[tuple[bool, Run]], call: Call, line: int) -> list:
        out: list = []
        for star, value in args:
            v = value(call)
            if not star:
                out.append(v)
                continue
            if type(v) not in (list, tuple, range):
                raise type_error(line, f"cannot unpack {a_type(v)} with `*`")
            check_size(len(out) + len(v), line)
            self.meter.charge(len(v))
            out.extend(v)
        return out

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


# ---- running ---------------------------------------------------------------------------------
RUN_ERRORS = frozenset({"timeout", "output_too_big"})  # these stop the whole run


def ensure_stack_room() -> None:
    """Let Python stack the frames our budgets allow (the learner's depth is counted by us)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + STACK_BUDGET + 800
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def available_names(helpers: Sequence[str]) -> dict[str, Builtin]:
    unknown = [name for name in helpers if name not in HELPER_FUNCTIONS]
    if unknown:
        raise ValueError(f"unknown helpers: {unknown}")
    return {**BUILTINS, **{name: HELPER_FUNCTIONS[name] for name in helpers}}


def check_names(source: str, helpers: Sequence[str] = ()) -> None:
    """The static checks plus name resolution (an unknown name is an error); runs nothing."""
    available = available_names(helpers)
    tree = parse(source)
    Compiler(Meter(0.0, 0.0), available, {}).module(tree)


def evaluate(
    source: str,
    function: str,
    cases: Sequence[Sequence[Any]],
    helpers: Sequence[str] = (),
    time_limit: float = 1.5,
    elapsed: float = 0.0,
    clock: Callable[[], float] = time.thread_time,
    max_steps: int = MAX_STEPS,
) -> list[Outcome]:
    """Validate, compile and run ``function(*case)`` for every case, in this process.

    ``elapsed``: seconds of the time limit already used (a child process's start-up);
    ``clock``: what the time limit counts, CPU time: this thread's (other threads and a busy
    machine do not shorten it) or, in the child, which the runner may pause, the process's;
    ``max_steps``: the step budget of one case.

    A case that runs out of steps (most often a loop that never ends) ends the run: the cases
    after it get the same error without running (0 steps). A verdict reads the first failure,
    and the next cases would spend the checker's time on the same loop.
    """
    ensure_stack_room()
    deadline = clock() + max(time_limit - elapsed, 0.05)
    available = available_names(helpers)
    tree = parse(source)
    meter = Meter(time_limit, deadline, max_steps, clock)
    module: Call = {}
    try:
        body = Compiler(meter, available, module).module(tree)
        body(module)
    except RecursionError:
        raise SandboxError("recursion", {"line": 1, "limit": MAX_CALL_DEPTH}) from None
    except MemoryError:
        raise SandboxError("crashed", {}) from None
    target = module.get(function)
    if type(target) is not Function:
        raise SandboxError("no_function", {"name": function})
    budget = [MAX_OUTPUT]
    outcomes: list[Outcome] = []
    for case in cases:
        if outcomes and outcomes[-1].error is not None and outcomes[-1].error.code == "steps":
            outcomes.append(Outcome(None, outcomes[-1].error))  # not run: see the docstring
            continue
        args = [from_plain(arg) for arg in case]
        meter.reset()
        start = time.perf_counter()
        try:
            value = to_plain(target.call(args, None, target.line), budget, target.line)
            outcome = Outcome(value, None, time.perf_counter() - start, meter.used())
        except SandboxError as err:
            if err.code in RUN_ERRORS:
                raise
            outcome = Outcome(None, err, time.perf_counter() - start, meter.used())
        except RecursionError:
            error = SandboxError("recursion", {"line": target.line, "limit": MAX_CALL_DEPTH})
            outcome = Outcome(None, error, time.perf_counter() - start, meter.used())
        except MemoryError:
            raise SandboxError("crashed", {}) from None
        outcomes.append(outcome)
    return outcomes
