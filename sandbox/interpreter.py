"""Run a validated tree without ``exec``: each node is compiled once into a small Python closure.

``Compiler`` turns every statement into ``run(call) -> signal`` and every expression into
``run(call) -> value`` (sandbox/expressions.py); ``call`` is the dict of the running call's local
names and their values (the module has one too). ``evaluate`` runs one function on every case
within the budgets of sandbox/meter.py; the values' rules are in sandbox/values.py, calls and
scopes in sandbox/calls.py, the host functions in sandbox/helpers.py.
"""

from __future__ import annotations

import ast
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from sandbox.calls import (
    BREAK,
    CONTINUE,
    RET,
    RETURN,
    Call,
    Function,
    Run,
    Scope,
    Signal,
    assigned_names,
    ensure_stack_room,
)
from sandbox.errors import MAX_CALL_DEPTH, MAX_OUTPUT, MAX_STEPS, SandboxError
from sandbox.expressions import Expressions
from sandbox.helpers import BUILTINS, HELPER_FUNCTIONS, Builtin
from sandbox.language import ARITHMETIC, nesting_depth, parse
from sandbox.meter import Meter
from sandbox.values import NATIVE, from_plain, settle, to_plain


class Outcome(NamedTuple):
    """The result of one case: a plain value, or the error that stopped it."""

    value: object = None
    error: SandboxError | None = None
    seconds: float = 0.0
    steps: int = 0  # of the step budget, what the case used


# ---- the compiler ----------------------------------------------------------------------------
class Compiler(Expressions):
    """Turns a validated module into closures; one compiler per run (it holds the meter)."""

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


# ---- running ---------------------------------------------------------------------------------
RUN_ERRORS = frozenset({"timeout", "output_too_big"})  # these stop the whole run


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
