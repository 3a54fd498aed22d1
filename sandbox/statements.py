"""Compile statements into closures ``run(call) -> signal`` (``None``, or break/continue/return).

The statement half of the compiler, over the expression half (sandbox/expressions.py): a block
stops at the first signal, loops charge one step an iteration, ``def`` makes a ``Function``.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from sandbox.expressions import Expressions
from sandbox.functions import BREAK, CONTINUE, RET, RETURN, Call, Function, Run, Signal
from sandbox.language import nesting_depth
from sandbox.scopes import Scope, assigned_names
from sandbox.values import NATIVE, settle
from sandbox.vocabulary import ARITHMETIC


class Statements(Expressions):
    """Turns a validated module into closures; one compiler per run (it holds the meter)."""

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

            def run_return_none(call: Call) -> Signal:
                call[RET] = None
                return RETURN

            return run_return_none
        value = self.expr(node.value, scope)

        def run_return(call: Call) -> Signal:
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
            checked, native = self.fast[op], NATIVE.get(op) if op != "/" else None

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
        checked, native = self.fast[op], NATIVE.get(op) if op != "/" else None

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
