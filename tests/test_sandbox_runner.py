"""The runner: child process and in-process give the same outcomes, limits, slots, fallbacks."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from sandbox import SandboxError, interpreter, run_cases, runner
from sandbox.scheduler import Scheduler
from sandbox.worker import MEMORY_LIMIT, ROOT

SOURCE = """
def f(x, k):
    if k == 0:
        return [v / x[0] for v in x]
    if k == 1:
        return {"q": (x[0], float("nan")), 2: [float("inf"), float("-inf")]}
    return x[k]
"""
CASES = [([2.0, 1.0, -0.0], 0), ([2.0], 1), ([1.0], 5), ([0.0, 1.0], 0)]


def _same(a: object, b: object) -> bool:
    """Equality where NaN equals NaN and -0.0 differs from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and str(a) == str(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_the_child_and_the_in_process_run_agree() -> None:
    child = run_cases(SOURCE, "f", CASES, isolate=True)
    local = run_cases(SOURCE, "f", CASES, isolate=False)
    assert len(child) == len(local) == 4
    for a, b in zip(child, local):
        assert _same(a.value, b.value)
        assert (a.error is None) == (b.error is None)
        if a.error is not None:
            assert (a.error.code, a.error.params) == (b.error.code, b.error.params)
    assert _same(child[0].value, [1.0, 0.5, -0.0])
    assert child[1].value["q"][0] == 2.0 and math.isnan(child[1].value["q"][1])
    assert child[1].value[2] == [math.inf, -math.inf]  # an int key stays an int
    assert (child[2].error.code, child[2].error.params) == (
        "index",
        {"line": 7, "index": 5, "length": 1},
    )
    assert child[3].error.code == "zero_division"


def test_dict_case_arguments_keep_their_keys() -> None:
    source = 'def f(d):\n    return d[2] + d["a"] + d[1.0], d'
    for isolate in (True, False):
        [outcome] = run_cases(source, "f", [({2: 1.5, "a": 2, True: 0.5},)], isolate=isolate)
        assert outcome.value == [4.0, {2: 1.5, "a": 2, True: 0.5}]


def test_numpy_case_arguments_are_taken_as_plain_lists() -> None:
    source = "def f(m):\n    return [sum(row) for row in m]"
    cases = [(np.array([[1.0, 2.0], [3.0, 4.5]]),)]
    for isolate in (True, False):
        [outcome] = run_cases(source, "f", cases, isolate=isolate)
        assert outcome.value == [3.0, 7.5]


def test_a_static_error_does_not_start_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_spawn(*args: object, **kwargs: object) -> None:
        raise AssertionError("a process was started")

    monkeypatch.setattr(subprocess, "Popen", no_spawn)
    for source, code in (
        ("def f(:\n", "syntax"),
        ("def f():\n    return print(1)", "unknown_name"),
    ):
        with pytest.raises(SandboxError) as caught:
            run_cases(source, "f", [()], isolate=True)
        assert caught.value.code == code


def test_a_timeout_of_the_whole_run_raises() -> None:
    source = "def f():\n    x = 0.0\n    while True:\n        x = x * 0.5 + 1.0\n"
    for isolate in (False, True):
        start = time.perf_counter()
        with pytest.raises(SandboxError) as caught:
            run_cases(source, "f", [(), ()], time_limit=0.3, isolate=isolate)
        assert (caught.value.code, caught.value.params) == ("timeout", {"seconds": 0.3})
        if isolate:  # the child is killed on wall time too; in-process counts CPU time only
            assert time.perf_counter() - start < 0.3 + runner.GRACE + 0.5


def test_unknown_helpers_are_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown helpers"):
        run_cases("def f():\n    return 1", "f", [()], ("open",), isolate=False)


# ---- turns ---------------------------------------------------------------------------------
def test_a_full_queue_is_busy_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    queue = Scheduler(slots=1, max_waiting=0)
    monkeypatch.setattr(runner, "SCHEDULER", queue)
    with pytest.raises(SandboxError) as caught:
        run_cases("def f():\n    return 1", "f", [()], isolate=False)
    assert (caught.value.code, caught.value.params) == ("busy", {})
    assert list(queue.served) == [("busy", queue.served[0][1])]


def test_a_check_that_cannot_get_a_turn_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    queue = Scheduler(slots=1, wait_limit=0.05)
    monkeypatch.setattr(runner, "SCHEDULER", queue)
    held = queue.enter("someone")
    try:
        with pytest.raises(SandboxError) as caught:
            run_cases("def f():\n    return 1", "f", [()], isolate=False, owner="me")
        assert caught.value.code == "busy"
    finally:
        queue.leave(held)
    assert run_cases("def f():\n    return 1", "f", [()], isolate=False)[0].value == 1
    assert queue.counts() == {"running": 0, "waiting": 0, "paused": 0}


def test_at_most_two_checks_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    active, peak, lock = [0], [0], threading.Lock()
    real = runner._run_child

    def counted(*args: object) -> list:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        try:
            time.sleep(0.15)
            return real(*args)
        finally:
            with lock:
                active[0] -= 1

    monkeypatch.setattr(runner, "_run_child", counted)
    results: list[object] = []

    def check(n: int) -> None:
        results.append(run_cases("def f(n):\n    return n * 2", "f", [(n,)])[0].value)

    threads = [threading.Thread(target=check, args=(n,)) for n in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 2, 4, 6, 8]
    assert peak[0] == runner.SCHEDULER.slots == 2


def test_a_paused_check_resumes_and_answers_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long check paused for fresh ones loses nothing: same value, same steps as alone."""
    queue = Scheduler(slots=1, slice_seconds=0.02)
    monkeypatch.setattr(runner, "SCHEDULER", queue)
    long = "def f():\n    n = 0\n    for i in range(300000):\n        n = n + i\n    return n"
    alone = run_cases(long, "f", [()])[0]
    results: dict[str, object] = {}

    def long_check() -> None:
        results["long"] = run_cases(long, "f", [()], owner="long")[0]

    thread = threading.Thread(target=long_check)
    thread.start()
    while queue.counts()["running"] == 0:
        time.sleep(0.005)
    short = [run_cases("def f(n):\n    return n + 1", "f", [(n,)], owner=n) for n in range(3)]
    thread.join()
    assert [s[0].value for s in short] == [1, 2, 3]
    assert results["long"].value == alone.value == sum(range(300000))
    assert results["long"].steps == alone.steps
    events = [event for event, owner in queue.served if owner == "long"]
    assert events.count("pause") == events.count("resume") >= 1
    assert events[-1] == "done"


# ---- fallbacks and failures of the child -----------------------------------------------------
def _count_in_process(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = interpreter.evaluate

    def counted(*args: object, **kwargs: object) -> list:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(interpreter, "evaluate", counted)
    return calls


def test_without_a_child_process_the_check_runs_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_in_process(monkeypatch)
    monkeypatch.setattr(runner, "can_isolate", lambda: False)
    assert run_cases("def f(x):\n    return x + 1", "f", [(1,)])[0].value == 2
    assert calls[0] == 1


def test_a_failed_spawn_falls_back_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_in_process(monkeypatch)

    def cannot_spawn(*args: object, **kwargs: object) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(subprocess, "Popen", cannot_spawn)
    outcomes = run_cases("def f(x):\n    return 1 / x", "f", [(4,), (0,)])
    assert outcomes[0].value == 0.25 and outcomes[1].error.code == "zero_division"
    assert calls[0] == 1


@pytest.mark.parametrize(
    ("script", "code"),
    [
        ("import os\nos._exit(3)\n", "crashed"),
        ("import sys\nsys.stdout.write('not json')\n", "crashed"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)\n", "timeout"),
        ("import time\ntime.sleep(30)\n", "timeout"),
    ],
    ids=["exits", "garbage", "cpu_limit", "hangs"],
)
def test_a_child_that_fails_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, code: str
) -> None:
    worker = tmp_path / "worker.py"
    worker.write_text(script)
    monkeypatch.setattr(runner, "WORKER", worker)
    start = time.perf_counter()
    with pytest.raises(SandboxError) as caught:
        run_cases("def f():\n    return 1", "f", [()], time_limit=0.2, isolate=True)
    assert caught.value.code == code
    assert time.perf_counter() - start < 0.2 + runner.GRACE + 0.5


# ---- the child's own limits ------------------------------------------------------------------
LIMITS_PROBE = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])
from sandbox.worker import apply_limits
apply_limits(1.5)
report = {name: resource.getrlimit(getattr(resource, name))
          for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE")}
try:
    open("/etc/hostname")
    report["open"] = "opened"
except OSError as err:
    report["open"] = err.__class__.__name__
try:
    bytearray(1024 * 1024 * 1024)
    report["memory"] = "allocated"
except MemoryError:
    report["memory"] = "MemoryError"
print(json.dumps(report))
"""


def test_the_worker_limits_itself() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", LIMITS_PROBE, ROOT],
        capture_output=True,
        timeout=30,
        env={},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["RLIMIT_CPU"] == [3, 4]  # ceil(1.5) + 1 CPU seconds, then SIGKILL
    assert report["RLIMIT_AS"] == [MEMORY_LIMIT, MEMORY_LIMIT]
    assert report["RLIMIT_FSIZE"] == [0, 0]
    assert report["RLIMIT_NOFILE"] == [0, 0]
    assert report["open"] == "OSError"  # no new file descriptor at all
    assert report["memory"] == "MemoryError"
