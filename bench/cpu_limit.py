"""A CPU limit on running processes, as Kubernetes sets a pod's ``limits.cpu``: a cgroup with a
CFS quota (``cores`` × the period per period), made for the run and removed after it.

cgroup v2 (``cpu.max``) where the machine's unified hierarchy offers the cpu controller, else
cgroup v1's cpu controller (``cpu.cfs_quota_us``). Needs root. A process moved in brings its
threads; the children it starts later are limited with it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")
PERIOD_US = 100_000


def hierarchy() -> tuple[Path, str] | None:
    """(the folder new cgroups go in, "v1" or "v2") where a CPU quota can be set, else None."""
    if "cpu" in _read(CGROUP / "cgroup.subtree_control").split():
        return CGROUP, "v2"
    v1 = CGROUP / "cpu"
    if (v1 / "cpu.cfs_quota_us").exists() and os.access(v1, os.W_OK):
        return v1, "v1"
    return None


@contextlib.contextmanager
def limited(name: str, pids: Iterable[int], cores: float) -> Iterator[Path]:
    """``pids`` limited together to ``cores`` CPUs while the block runs; the cgroup's folder."""
    found = hierarchy()
    if found is None:
        raise RuntimeError("no cgroup with a CPU quota here (needs root and a cpu controller)")
    base, version = found
    group = base / f"attention-lab-{name}-{os.getpid()}"
    group.mkdir()
    try:
        quota = max(1000, round(cores * PERIOD_US))
        if version == "v2":
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}\n")
        else:
            (group / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
            (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        for pid in pids:
            (group / "cgroup.procs").write_text(f"{pid}\n")
        yield group
    finally:
        _remove(group, base)


def throttled_s(group: Path) -> float:
    """How long the quota held the group's processes back so far, in seconds."""
    stat = dict(
        line.split(maxsplit=1) for line in _read(group / "cpu.stat").splitlines() if " " in line
    )
    if "throttled_usec" in stat:  # v2
        return int(stat["throttled_usec"]) / 1e6
    return int(stat.get("throttled_time", 0)) / 1e9  # v1, in ns


def _remove(group: Path, base: Path) -> None:
    """Move what still runs in ``group`` back to the top, then remove it."""
    for pid in _read(group / "cgroup.procs").split():
        with contextlib.suppress(OSError):  # it ended meanwhile
            (base / "cgroup.procs").write_text(f"{pid}\n")
    with contextlib.suppress(OSError):
        group.rmdir()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
