"""Run learners' exercise code safely: a small checked language, evaluated without ``exec``.

``check_source`` validates code statically; ``run_function`` runs one function on a list of cases
(in a child process with resource limits where the platform allows it) and returns one
``Outcome`` per case. Every failure is a ``SandboxError(code, params)``.
"""

from sandbox.errors import MAX_SOURCE, SandboxError
from sandbox.helpers import ALLOWED_CALLS, HELPERS
from sandbox.interpreter import Outcome
from sandbox.language import check_source, source_lines
from sandbox.runner import run_function

__all__ = [
    "ALLOWED_CALLS",
    "HELPERS",
    "MAX_SOURCE",
    "Outcome",
    "SandboxError",
    "check_source",
    "run_function",
    "source_lines",
]
