"""A pass sealed for the browser to keep: an HMAC of the cell, the code and the checker's version.

A learner's browser keeps its work (``localStorage``); when it gives a pass back, the app must be
able to trust it without running the code again. ``seal`` signs (cell, code, version) with a key
only the server knows; ``opens`` tells a genuine seal from a forged or outdated one. The version
is a digest of the checker's own source (``exercises`` and ``sandbox``), so a pass sealed by
another version of the cells or their cases is checked again, never trusted.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from pathlib import Path

_SOURCES = ("exercises", "sandbox")


@functools.cache
def version() -> str:
    """A digest of the checker's source files: what a seal vouches for."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder in _SOURCES:
        for path in sorted((root / folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def code_digest(code: str) -> str:
    """A short digest of one answer's code."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def seal(key: bytes, cell_id: str, code: str) -> str:
    """The seal of a pass: ``cell_id`` passed with exactly ``code`` on this checker."""
    message = f"{cell_id}\0{code_digest(code)}\0{version()}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def opens(key: bytes, cell_id: str, code: str, sealed: object) -> bool:
    """Whether ``sealed`` is the seal of (cell_id, code) on this checker with this key."""
    return isinstance(sealed, str) and hmac.compare_digest(sealed, seal(key, cell_id, code))
