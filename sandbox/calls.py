"""Calls and scopes: the learner's ``Function``, where each name lives, and compiling a call.

A name is local, global, free (in an enclosing function) or a host function (``Builtin``).
``call`` is the dict of the running call's local names and their values (the module has one
too); a nested function's call points to the call it was defined in (``UP``). Each call costs
its depth in Python frames, within ``STACK_BUDGET``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from typing import Any

from sandbox.errors import MAX_CALL_DEPTH, SandboxError
from sandbox.helpers import BUILTINS, Builtin, a_type, check_size, type_error
from sandbox.language import is_list_method, is_math_attribute
from sandbox.meter import NARROW, Meter
from sandbox.values import Operations

Call = dict[str, Any]
Run = Callable[[Call], Any]

UP = "\x00up"  # a nested function's call -> the call it was defined in
RET = "\x00ret"  # where `return` leaves its value
STACK_BUDGET = 3_000  # Python frames the learner's calls may stack up (each call costs its depth)
MISSING = object()


class Signal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


BREAK, CONTINUE, RETURN = Signal("break"), Signal("continue"), Signal("return")


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
                default = self.defaults.get(name, MISSING)
                if default is MISSING:
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


def ensure_stack_room() -> None:
    """Let Python stack the frames our budgets allow (the learner's depth is counted by us)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + STACK_BUDGET + 800
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


# ---- names and calls in the compiler --------------------------------------------------------
class Calls(Operations):
    """The compiler's names (where each lives) and calls; one per run (it holds the meter)."""

    def __init__(self, meter: Meter, available: dict[str, Builtin], module: Call) -> None:
        super().__init__(meter)
        self.available = available
        self.module_values = module
        self.counter = 0

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

    def expr(self, node: ast.expr, scope: Scope) -> Run:
        """Compile an expression (the expression compiler defines it)."""
        raise NotImplementedError

    # ---- calls -------------------------------------------------------------------------------
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
