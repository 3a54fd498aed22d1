"""Run learners' exercise code safely: a small checked language, evaluated without ``exec``.

``check_source`` validates code statically; ``run_cases`` runs one function on a list of cases
(in a child process with resource limits where the platform allows it, taking turns with the
other checks of the server) and returns one ``Outcome`` per case. Every failure is a
``SandboxError(code, params)``.

The names load on first use, so that the child process imports only the interpreter it needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.builtin_functions import ALLOWED_CALLS
    from sandbox.errors import MAX_SOURCE, SandboxError
    from sandbox.helpers import HELPERS
    from sandbox.interpreter import Outcome
    from sandbox.language import check_source, source_lines
    from sandbox.runner import run_cases

_HOME = {
    "ALLOWED_CALLS": "sandbox.builtin_functions",
    "HELPERS": "sandbox.helpers",
    "MAX_SOURCE": "sandbox.errors",
    "Outcome": "sandbox.interpreter",
    "SandboxError": "sandbox.errors",
    "check_source": "sandbox.language",
    "run_cases": "sandbox.runner",
    "source_lines": "sandbox.language",
}

__all__ = [
    "ALLOWED_CALLS",
    "HELPERS",
    "MAX_SOURCE",
    "Outcome",
    "SandboxError",
    "check_source",
    "run_cases",
    "source_lines",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(import_module(_HOME[name]), name)
    globals()[name] = value
    return value
