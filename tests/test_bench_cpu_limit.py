"""bench.cpu_limit on a real process: a busy loop limited to a fifth of a CPU gets no more than
that, is held back by the quota, and is let go (its cgroup removed) after the block."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bench import cpu_limit
from bench.common import cpu_seconds

pytestmark = pytest.mark.skipif(
    cpu_limit.hierarchy() is None, reason="no cgroup CPU quota on this machine (needs root)"
)

BUSY = "while True: pass"


def test_a_busy_process_gets_no_more_than_its_limit_and_is_let_go_after() -> None:
    busy = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        with cpu_limit.limited("test", [busy.pid], cores=0.2) as group:
            assert str(busy.pid) in (group / "cgroup.procs").read_text().split()
            start, used = time.monotonic(), cpu_seconds(busy.pid)
            time.sleep(1.0)
            wall, used = time.monotonic() - start, cpu_seconds(busy.pid) - used
            throttled = cpu_limit.throttled_s(group)
        # a quota is a ceiling whatever else runs: 0.2 s of CPU a second, one period's rounding
        assert used <= 0.2 * wall + 0.1
        assert throttled > 0
        assert not group.exists()
        assert busy.poll() is None  # it runs on, back in the top cgroup
    finally:
        busy.kill()
        busy.wait()


def test_a_process_that_ended_in_the_block_leaves_nothing_behind() -> None:
    short = subprocess.Popen([sys.executable, "-c", "pass"])
    with cpu_limit.limited("test", [], cores=0.5) as group:
        short.wait()
        assert (group / "cgroup.procs").read_text().split() == []
    assert not group.exists()
