"""The child process: limit itself, read one request (JSON on stdin), run it, answer on stdout.

Started by ``sandbox.runner`` as ``python -I -S sandbox/worker.py``. After the imports it sets its
own resource limits (CPU seconds, address space, no new files, no child processes), so even a
flaw in the interpreter meets a process that can do little and dies soon. The request and the
answer use ``encode``/``decode``: JSON where NaN and infinities round-trip and dicts keep keys.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

# the project's folder (os.path, not pathlib: each module the child imports is start-up time)
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
MEMORY_LIMIT = 512 * 1024 * 1024  # bytes of address space
MAX_REPLY = 16 * 1024 * 1024  # bytes of JSON sent back


def encode(value: Any) -> Any:
    """Plain values -> JSON-ready values (a dict becomes {"dict": [[key, value], ...]})."""
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):  # a number key as the interpreter holds it goes as the number
        return {"dict": [[getattr(k, "value", k), encode(v)] for k, v in value.items()]}
    return value


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.get("dict", [])}
    return value


def apply_limits(time_limit: float) -> None:
    """Limit this process: CPU seconds, memory, file size, open files, child processes."""
    import resource

    cpu = math.ceil(time_limit) + 1
    limits = [
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_AS, MEMORY_LIMIT, MEMORY_LIMIT),
        (resource.RLIMIT_FSIZE, 0, 0),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NOFILE, 0, 0),  # the open stdin/stdout/stderr keep working
    ]
    if hasattr(resource, "RLIMIT_NPROC"):
        limits.append((resource.RLIMIT_NPROC, 0, 0))
    for which, soft, hard in limits:
        try:
            _, current_hard = resource.getrlimit(which)
            if current_hard != resource.RLIM_INFINITY:
                hard = min(hard, current_hard)
                soft = min(soft, hard)
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            pass  # a limit the platform refuses: the others and the parent's timeout remain


def load_before_limits() -> None:
    """Load what Python itself reads from disk later: once the limits are set, no file opens.

    The parser needs the Unicode tables (``unicodedata``) to normalize a name such as ``écart``
    (NFKC) and to read ``\\N{...}`` in text; a first parse of both loads every such piece.
    """
    import ast
    import unicodedata

    unicodedata.normalize("NFKC", "é")
    ast.parse("écart = 'é\\N{BULLET}'\nﬁ = 1")


def main() -> int:
    sys.path.insert(0, ROOT)  # -I leaves the project out of sys.path
    from sandbox.errors import MAX_OUTPUT, SandboxError
    from sandbox.interpreter import evaluate

    load_before_limits()

    request = json.loads(sys.stdin.buffer.read())
    time_limit = float(request["time_limit"])
    apply_limits(time_limit)
    try:
        outcomes = evaluate(
            request["source"],
            request["function"],
            decode(request["cases"]),
            tuple(request["helpers"]),
            time_limit,
            time.process_time(),  # start-up is part of the limit
            time.process_time,  # CPU time: the runner may pause this process while others run
        )
        reply: dict[str, Any] = {
            "outcomes": [
                {
                    "value": encode(o.value),
                    "error": None if o.error is None else o.error.to_dict(),
                    "seconds": o.seconds,
                    "steps": o.steps,
                }
                for o in outcomes
            ]
        }
        text = json.dumps(reply)
        if len(text) > MAX_REPLY:
            too_big = SandboxError("output_too_big", {"limit": MAX_OUTPUT})
            text = json.dumps({"error": too_big.to_dict()})
    except SandboxError as err:
        text = json.dumps({"error": err.to_dict()})
    except MemoryError:
        text = '{"error": {"code": "crashed", "params": {}}}'
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
