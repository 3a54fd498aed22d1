"""Run a validated tree without ``exec``: each node is compiled once into a small Python closure.

``Compiler`` turns every statement into ``run(call) -> signal`` (sandbox/statements.py) and every
expression into ``run(call) -> value`` (sandbox/expressions.py); ``call`` is the dict of the
running call's local names and their values (the module has one too). ``evaluate`` runs one
function on every case within the budgets of sandbox/meter.py; the values' rules are in
sandbox/values.py, calls in sandbox/calls.py, the learner's functions in sandbox/functions.py,
the host functions in sandbox/builtin_functions.py and sandbox/helpers.py.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from sandbox.builtin_functions import BUILTINS
from sandbox.errors import MAX_CALL_DEPTH, MAX_OUTPUT, MAX_STEPS, SandboxError
from sandbox.functions import Call, Function, ensure_stack_room
from sandbox.helpers import HELPER_FUNCTIONS
from sandbox.host import Builtin
from sandbox.language import parse
from sandbox.meter import Meter
from sandbox.statements import Statements
from sandbox.values import from_plain, to_plain

Compiler = Statements  # the whole compiler: statements over expressions over calls and values
RUN_ERRORS = frozenset({"timeout", "output_too_big"})  # these stop the whole run


class Outcome(NamedTuple):
    """The result of one case: a plain value, or the error that stopped it."""

    value: object = None
    error: SandboxError | None = None
    seconds: float = 0.0
    steps: int = 0  # of the step budget, what the case used


def available_names(helpers: Sequence[str]) -> dict[str, Builtin]:
    """The host functions the code may call: the builtins and the helpers the exercise gives."""
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
    target = _define(Compiler(meter, available, {}), tree, function)
    budget = [MAX_OUTPUT]
    outcomes: list[Outcome] = []
    for case in cases:
        if outcomes and outcomes[-1].error is not None and outcomes[-1].error.code == "steps":
            outcomes.append(Outcome(None, outcomes[-1].error))  # not run: see the docstring
            continue
        outcomes.append(_run_case(target, case, meter, budget))
    return outcomes


def _define(compiler: Statements, tree: ast.Module, function: str) -> Function:
    """Compile and run the module's body (its ``def``s); return the function the cases call."""
    module: Call = compiler.module_values
    try:
        body = compiler.module(tree)
        body(module)
    except RecursionError:
        raise SandboxError("recursion", {"line": 1, "limit": MAX_CALL_DEPTH}) from None
    except MemoryError:
        raise SandboxError("crashed", {}) from None
    target = module.get(function)
    if type(target) is not Function:
        raise SandboxError("no_function", {"name": function})
    return target


def _run_case(target: Function, case: Sequence[Any], meter: Meter, budget: list[int]) -> Outcome:
    """Run ``target(*case)`` on a fresh step budget; an error of the case is its Outcome's, an
    error of the whole run (RUN_ERRORS, no memory left) is raised."""
    args = [from_plain(arg) for arg in case]
    meter.reset()
    start = time.perf_counter()
    try:
        value = to_plain(target.call(args, None, target.line), budget, target.line)
        return Outcome(value, None, time.perf_counter() - start, meter.used())
    except SandboxError as err:
        if err.code in RUN_ERRORS:
            raise
        return Outcome(None, err, time.perf_counter() - start, meter.used())
    except RecursionError:
        error = SandboxError("recursion", {"line": target.line, "limit": MAX_CALL_DEPTH})
        return Outcome(None, error, time.perf_counter() - start, meter.used())
    except MemoryError:
        raise SandboxError("crashed", {}) from None
