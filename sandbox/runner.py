"""Run a check: static checks here, then the code in a child process (or in-process as a fallback).

At most ``SLOTS`` checks run at once per server process; a check that waits longer than
``BUSY_WAIT`` seconds for a slot gets ``SandboxError("busy")``. The child is a fresh interpreter
(``python -I -S sandbox/worker.py``, no fork: the server is multi-threaded) with a minimal
environment, resource limits it sets on itself, and a wall-clock timeout enforced from here.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from sandbox import interpreter
from sandbox.errors import MAX_OUTPUT, SandboxError
from sandbox.helpers import HELPERS
from sandbox.interpreter import Outcome, from_plain
from sandbox.worker import MAX_REPLY, decode, encode

SLOTS = 2  # checks at once per server process
BUSY_WAIT = 5.0  # seconds a check waits for a free slot
STARTUP = 1.0  # seconds the child may take beyond the time limit (start, imports, answer)
WORKER = Path(__file__).resolve().with_name("worker.py")
_slots = threading.BoundedSemaphore(SLOTS)
_log = logging.getLogger(__name__)


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


def run_function(
    source: str,
    function: str,
    cases: Sequence[Sequence[Any]],
    helpers: Sequence[str] = (),
    *,
    time_limit: float = 1.5,
    isolate: bool = True,
) -> list[Outcome]:
    """Run ``function(*case)`` for every case; one Outcome per case.

    A static error, a missing function, a timeout of the whole run, a result too big to send
    back, a busy checker or a crashed child raise SandboxError; an error in one case is that
    case's Outcome.error and the next case still runs.
    """
    helpers = tuple(helpers)
    unknown = [name for name in helpers if name not in HELPERS]
    if unknown:
        raise ValueError(f"unknown helpers {unknown}; known: {HELPERS}")
    interpreter.check_names(source, helpers)  # static: fails fast without starting a process
    plain = [[from_plain(arg) for arg in case] for case in cases]
    if not _slots.acquire(timeout=BUSY_WAIT):
        raise SandboxError("busy", {})
    try:
        if isolate and can_isolate():
            try:
                return _run_child(source, function, plain, helpers, time_limit)
            except _SpawnFailed as err:
                _log.warning(
                    "sandbox: cannot start the child process (%s); running in-process", err
                )
        try:
            return interpreter.run_function(source, function, plain, helpers, time_limit)
        except SandboxError:
            raise
        except Exception:  # a flaw of the checker must not reach the page as a traceback
            _log.exception("sandbox: the in-process run failed")
            raise SandboxError("crashed", {}) from None
    finally:
        _slots.release()


def _run_child(
    source: str, function: str, cases: list[list[Any]], helpers: tuple[str, ...], time_limit: float
) -> list[Outcome]:
    request = {
        "source": source,
        "function": function,
        "cases": encode(cases),
        "helpers": list(helpers),
        "time_limit": time_limit,
        "sent_at": time.time(),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(WORKER)],
            input=json.dumps(request).encode(),
            capture_output=True,
            timeout=time_limit + STARTUP,
            env={},
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise SandboxError("timeout", {"seconds": time_limit}) from None
    except OSError as err:
        raise _SpawnFailed(str(err)) from err
    if done.returncode != 0:
        killed = {-signal.SIGKILL, -getattr(signal, "SIGXCPU", signal.SIGKILL)}
        if done.returncode in killed:
            raise SandboxError("timeout", {"seconds": time_limit})
        _log.info("sandbox: child exited with %s: %s", done.returncode, done.stderr[-2000:])
        raise SandboxError("crashed", {})
    if len(done.stdout) > MAX_REPLY + 1024:
        raise SandboxError("output_too_big", {"limit": MAX_OUTPUT})
    try:
        reply = json.loads(done.stdout)
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
