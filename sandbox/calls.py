"""Calls and names in the compiler: where each name lives, and compiling a call to a closure.

A name is local, global, free (in an enclosing function) or a host function (``Builtin``); the
learner's ``Function`` is in sandbox/functions.py, scopes in sandbox/scopes.py.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from sandbox.builtin_functions import BUILTINS
from sandbox.errors import SandboxError, type_error
from sandbox.functions import UP, Call, Function, Run
from sandbox.host import Builtin
from sandbox.kinds import a_type, check_size
from sandbox.meter import Meter
from sandbox.scopes import Scope
from sandbox.values import Operations
from sandbox.vocabulary import is_list_method, is_math_attribute


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
        """A call: ``xs.append(v)``, a host function known when compiling, or a name's value."""
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
        args = [
            (
                isinstance(a, ast.Starred),
                self.expr(a.value if isinstance(a, ast.Starred) else a, scope),
            )
            for a in node.args
        ]
        keywords = [(k.arg, self.expr(k.value, scope)) for k in node.keywords]
        if kind == "const":
            return self.call_host(function, args, keywords, line)
        callee = self.load(node.func.id, scope, line)  # type: ignore[attr-defined]
        return self.call_named(callee, args, keywords, line)

    def argument_values(self, args: list[tuple[bool, Run]], line: int) -> Run:
        """``run(call) -> list`` of the positional arguments (``*`` ones unpacked), charged."""
        if any(star for star, _ in args):
            collect = self.collect

            def starred_arguments(call: Call) -> list:
                return collect(args, call, line)

            return starred_arguments
        plain, meter = [a for _, a in args], self.meter

        def plain_arguments(call: Call) -> list:
            meter.charge(len(plain))
            return [a(call) for a in plain]

        return plain_arguments

    def keyword_values(self, keywords: list[tuple[str | None, Run]]) -> Run:
        """``run(call) -> dict`` of the keyword arguments (None when there are none), charged."""
        meter = self.meter

        def run_keywords(call: Call) -> dict[str, Any] | None:
            if not keywords:
                return None
            meter.charge(len(keywords))
            return {name: value(call) for name, value in keywords}

        return run_keywords

    def call_host(
        self,
        builtin: Any,
        args: list[tuple[bool, Run]],
        keywords: list[tuple[str | None, Run]],
        line: int,
    ) -> Run:
        """A call to a host function: one or two plain arguments go straight to its code (their
        number is checked here, once), any other call through ``Builtin.call``."""
        if not isinstance(builtin, Builtin):
            raise type_error(line, f"{a_type(builtin)} is not a function")
        meter, impl = self.meter, builtin.impl
        plain = not keywords and not any(star for star, _ in args)
        fits = builtin.high is None or builtin.high >= len(args)
        if plain and len(args) == 1 and builtin.low <= 1 and fits:
            only = args[0][1]
            return lambda call: impl(meter, line, only(call))
        if plain and len(args) == 2 and builtin.low <= 2 and fits:
            one, two = args[0][1], args[1][1]
            return lambda call: impl(meter, line, one(call), two(call))
        arguments, keyword_values = self.argument_values(args, line), self.keyword_values(keywords)
        return lambda call: builtin.call(meter, arguments(call), keyword_values(call), line)

    def call_named(
        self,
        callee: Run,
        args: list[tuple[bool, Run]],
        keywords: list[tuple[str | None, Run]],
        line: int,
    ) -> Run:
        """A call to what a name holds when it runs: one or two plain arguments call the
        learner's ``Function`` directly, any other call goes through ``call_value``."""
        call_value = self.call_value
        plain = not keywords and not any(star for star, _ in args)
        if plain and len(args) == 1:
            only = args[0][1]

            def run_call_one(call: Call) -> Any:
                fn = callee(call)
                a = only(call)
                if type(fn) is Function:
                    return fn.call((a,), None, line)
                return call_value(fn, (a,), None, line)

            return run_call_one
        if plain and len(args) == 2:
            one, two = args[0][1], args[1][1]

            def run_call_two(call: Call) -> Any:
                fn = callee(call)
                a, b = one(call), two(call)
                if type(fn) is Function:
                    return fn.call((a, b), None, line)
                return call_value(fn, (a, b), None, line)

            return run_call_two
        arguments, keyword_values = self.argument_values(args, line), self.keyword_values(keywords)

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
