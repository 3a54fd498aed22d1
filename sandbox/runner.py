"""Run a check: static checks here, then the code in a child process (or in-process as a fallback).

Checks take turns through ``sandbox.scheduler`` (a few at a time per server process, fresh
checks first, fair between sessions); a check past its slice while a fresh one waits is paused
(SIGSTOP) and resumed later. The child is a fresh interpreter (``python -I -S sandbox/worker.py``,
no fork: the server is multi-threaded) with a minimal environment and resource limits it sets on
itself; it counts its time limit in its own CPU time, so a pause costs it nothing. From here the
child may run ``time_limit + GRACE`` seconds of wall time (pauses not counted) before it is
killed: whatever the code does, a check that runs alone is answered within 2 s of its start.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Hashable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from sandbox import interpreter
from sandbox.errors import MAX_OUTPUT, SandboxError
from sandbox.helpers import HELPERS
from sandbox.interpreter import Outcome
from sandbox.scheduler import Scheduler, Turn
from sandbox.values import from_plain
from sandbox.worker import MAX_REPLY, decode, encode

TIME_LIMIT = 1.5  # seconds of the child's CPU time for a whole check, start-up included
GRACE = 0.25  # seconds of wall time beyond the limit before the child is killed
LOOK = 0.02  # seconds between two looks at a running child (its CPU time, its slot)
WORKER = Path(__file__).resolve().with_name("worker.py")
SCHEDULER = Scheduler()  # this server process's queue
_log = logging.getLogger(__name__)
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_LIVE: set[subprocess.Popen] = set()  # the children running or paused now


class _SpawnFailed(Exception):
    """The platform could not start the child process."""


@lru_cache(maxsize=1)
def can_isolate() -> bool:
    """Whether this platform can run the child: POSIX, the resource module, the worker file."""
    return (
        os.name == "posix"
        and bool(sys.executable)
        and importlib.util.find_spec("resource") is not None
        and WORKER.is_file()
    )


def run_cases(
    source: str,
    function: str,
    cases: Sequence[Sequence[Any]],
    helpers: Sequence[str] = (),
    *,
    time_limit: float = TIME_LIMIT,
    isolate: bool = True,
    owner: Hashable | None = None,
) -> list[Outcome]:
    """Run ``function(*case)`` for every case; one Outcome per case.

    ``owner`` names who asks (a browser session): the queue serves the owners that used the
    checker least lately first. A static error, a missing function, a timeout of the whole run,
    a result too big to send back, a full queue or a crashed child raise SandboxError; an error
    in one case is that case's Outcome.error and the next case still runs.
    """
    helpers = tuple(helpers)
    unknown = [name for name in helpers if name not in HELPERS]
    if unknown:
        raise ValueError(f"unknown helpers {unknown}; known: {HELPERS}")
    interpreter.check_names(source, helpers)  # static: fails fast without starting a process
    plain = [[from_plain(arg) for arg in case] for case in cases]
    scheduler = SCHEDULER
    turn = scheduler.enter(owner)
    try:
        if isolate and can_isolate():
            try:
                return _run_child(scheduler, turn, source, function, plain, helpers, time_limit)
            except _SpawnFailed as err:
                _log.warning(
                    "sandbox: cannot start the child process (%s); running in-process", err
                )
        started = time.monotonic()
        try:
            return interpreter.evaluate(source, function, plain, helpers, time_limit)
        except SandboxError:
            raise
        except Exception:  # a flaw of the checker must not reach the page as a traceback
            _log.exception("sandbox: the in-process run failed")
            raise SandboxError("crashed", {}) from None
        finally:
            turn.seconds += time.monotonic() - started
    finally:
        scheduler.leave(turn)


@atexit.register
def _kill_live() -> None:
    """At the server's exit: kill the children still there (a paused one would wait forever)."""
    for process in list(_LIVE):
        with contextlib.suppress(OSError):
            process.kill()


def _feed(pipe: Any, data: bytes) -> None:
    """Write the request to the child's stdin and close it (a child that died reads nothing)."""
    try:
        pipe.write(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _over(ran: float, used: float | None, allowed: float) -> bool:
    """Whether a child has had its time: ``allowed`` seconds of running or of CPU. A busy machine
    does not earn it more: a check must be answered within 2 s of its start, whatever runs."""
    return ran >= allowed or (used is not None and used >= allowed)


def _cpu_seconds(pid: int) -> float | None:
    """The CPU seconds a child has used (Linux's /proc), or None where that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
    except (OSError, IndexError, ValueError):
        return None


def _signal_group(process: subprocess.Popen, which: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # it has ended meanwhile
        os.killpg(process.pid, which)


def _run_child(
    scheduler: Scheduler,
    turn: Turn,
    source: str,
    function: str,
    cases: list[list[Any]],
    helpers: tuple[str, ...],
    time_limit: float,
) -> list[Outcome]:
    """Run the check in a fresh child process, sharing the machine through ``scheduler``."""
    request = {
        "source": source,
        "function": function,
        "cases": encode(cases),
        "helpers": list(helpers),
        "time_limit": time_limit,
    }
    spawned = time.monotonic()  # start-up is part of the running time
    process = _spawn()
    _LIVE.add(process)
    # A thread of its own writes the request: the child reads it all before it answers, and
    # communicate() cannot go on writing after a timeout.
    feeder = threading.Thread(target=_feed, args=(process.stdin, json.dumps(request).encode()))
    process.stdin = None
    feeder.start()
    try:
        stdout, stderr = _watch(scheduler, turn, process, time.monotonic() - spawned, time_limit)
    finally:
        if process.poll() is None:  # an exception on the way (the server stopping the script)
            process.kill()
            process.communicate()
        feeder.join()
        _LIVE.discard(process)
    return _reply(process.returncode, stdout, stderr, time_limit)


def _spawn() -> subprocess.Popen:
    """Start the worker: no environment, no inherited files, a process group of its own."""
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-S", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
    except OSError as err:
        raise _SpawnFailed(str(err)) from err


def _watch(
    scheduler: Scheduler, turn: Turn, process: subprocess.Popen, ran: float, time_limit: float
) -> tuple[bytes, bytes]:
    """Wait for the child's answer, looking every LOOK seconds: kill it once it has had its
    time (a timeout), pause it (SIGSTOP) when its slice is over and a fresh check waits."""
    allowed = time_limit + GRACE  # wall seconds of running, pauses not counted
    slice_ends = scheduler.slice
    while True:
        wait = min(LOOK, allowed - ran)
        start = time.monotonic()
        try:
            return process.communicate(timeout=max(wait, 0.001))
        except subprocess.TimeoutExpired:
            pass  # still running: count the time, maybe give the slot up
        finally:
            ran += time.monotonic() - start
            turn.seconds = ran
        used = _cpu_seconds(process.pid)
        if _over(ran, used, allowed):
            process.kill()
            process.communicate()
            raise SandboxError("timeout", {"seconds": time_limit})
        if (ran if used is None else used) >= slice_ends and scheduler.should_pause(turn):
            _signal_group(process, signal.SIGSTOP)
            try:
                scheduler.pause(turn)
            finally:
                _signal_group(process, signal.SIGCONT)
            slice_ends = (ran if used is None else used) + scheduler.slice


def _reply(returncode: int, stdout: bytes, stderr: bytes, time_limit: float) -> list[Outcome]:
    """The child's answer as Outcomes; a kill is a timeout, anything unreadable a crash."""
    if returncode != 0:
        killed = {-signal.SIGKILL, -getattr(signal, "SIGXCPU", signal.SIGKILL)}
        if returncode in killed:
            raise SandboxError("timeout", {"seconds": time_limit})
        _log.info("sandbox: child exited with %s: %s", returncode, stderr[-2000:])
        raise SandboxError("crashed", {})
    if len(stdout) > MAX_REPLY + 1024:
        raise SandboxError("output_too_big", {"limit": MAX_OUTPUT})
    try:
        reply = json.loads(stdout)
    except ValueError:
        raise SandboxError("crashed", {}) from None
    if "error" in reply:
        raise SandboxError.from_dict(reply["error"])
    return [
        Outcome(
            value=decode(item["value"]),
            error=None if item["error"] is None else SandboxError.from_dict(item["error"]),
            seconds=float(item["seconds"]),
            steps=int(item["steps"]),
        )
        for item in reply["outcomes"]
    ]
