"""Where the class store lives and the class session's limits, read from the environment.

The store: ``ATTENTION_LAB_CLASS_STORE`` (a SQLAlchemy URL), else ``url`` under
``[connections.classes]`` in ``.streamlit/secrets.toml`` (the project's, then ``~/.streamlit``'s),
else a SQLite file ``classes.sqlite`` in the data folder: ``ATTENTION_LAB_DATA``, by default
``<repo>/data/`` (created when first used).

The limits are module constants, each settable by an environment variable (a bad value keeps
the default and is logged).
"""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STORE_ENV = "ATTENTION_LAB_CLASS_STORE"
DATA_ENV = "ATTENTION_LAB_DATA"

log = logging.getLogger(__name__)


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value > 0:
        return value
    log.warning("%s=%r is not a positive number: %s is used", name, raw, default)
    return default


@dataclass(frozen=True)
class Rate:
    """A token bucket: ``burst`` requests at once, then ``per_minute`` a minute."""

    burst: int
    per_minute: float


CLASS_SIZE = int(_env_number("ATTENTION_LAB_CLASS_SIZE", 300))  # students a class
OPEN_CLASSES = int(_env_number("ATTENTION_LAB_OPEN_CLASSES", 50))  # open classes a store
EXPIRY_HOURS = _env_number("ATTENTION_LAB_CLASS_HOURS", 4.0)  # without the teacher
CONNECTED_SECONDS = 60.0  # a student seen this recently is connected
# a follower's browser asks for the teacher's screen this often, in case its server's wake
# (ui.classroom.push) was lost
FOLLOW_POLL_SECONDS = _env_number("ATTENTION_LAB_FOLLOW_POLL_SECONDS", 10.0)
JOINS = Rate(
    int(_env_number("ATTENTION_LAB_JOIN_BURST", 20)),
    _env_number("ATTENTION_LAB_JOINS_PER_MINUTE", 20),
)
REPORTS = Rate(
    int(_env_number("ATTENTION_LAB_REPORT_BURST", 60)),
    _env_number("ATTENTION_LAB_REPORTS_PER_MINUTE", 60),
)
TOMBSTONE_HOURS = 24.0  # an ended class's code answers "ended" this long, then "unknown"
SWEEP_SECONDS = 60.0  # reads sweep the store at most this often, per process


@dataclass(frozen=True)
class Limits:
    """The limits one ``Classes`` enforces (the module constants by default)."""

    class_size: int = CLASS_SIZE
    open_classes: int = OPEN_CLASSES
    expiry_seconds: float = EXPIRY_HOURS * 3600.0
    connected_seconds: float = CONNECTED_SECONDS
    rates: dict[str, Rate] = field(
        default_factory=lambda: {"join": JOINS, "report": REPORTS, "answer": REPORTS}
    )
    tombstone_seconds: float = TOMBSTONE_HOURS * 3600.0
    sweep_seconds: float = SWEEP_SECONDS


def data_folder() -> Path:
    """The data folder (not created here)."""
    raw = os.environ.get(DATA_ENV, "").strip()
    return Path(raw).expanduser() if raw else REPO / "data"


def secrets_url(paths: list[Path] | None = None) -> str | None:
    """``[connections.classes] url`` from the first secrets.toml that has one."""
    if paths is None:
        paths = [REPO / ".streamlit" / "secrets.toml", Path.home() / ".streamlit" / "secrets.toml"]
    for path in paths:
        try:
            with path.open("rb") as f:
                url = tomllib.load(f).get("connections", {}).get("classes", {}).get("url")
        except FileNotFoundError:
            continue
        except (OSError, tomllib.TOMLDecodeError, AttributeError) as err:
            log.warning("%s is not readable as TOML (%s): skipped", path, type(err).__name__)
            continue
        if isinstance(url, str) and url.strip():
            return url.strip()
    return None


def store_url() -> str:
    """The store's SQLAlchemy URL: the environment, else secrets.toml, else the SQLite file."""
    url = os.environ.get(STORE_ENV, "").strip() or secrets_url()
    return url or f"sqlite:///{data_folder() / 'classes.sqlite'}"
