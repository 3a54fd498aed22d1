"""Drive a server that is already running with websocket sessions, e.g. while a profiler watches it.

    .venv/bin/streamlit run app.py --server.headless true --server.address 127.0.0.1 \\
        --server.port 8701 &
    .venv/bin/python -m bench.drive --port 8701 --pid <server pid> --sessions 4 --seconds 20 &
    .venv/bin/py-spy record --pid <server pid> --gil -r 200 -d 20 -f raw -o rerun.txt

Each session opens one of the pages (in turn) at chapter 9's preset and changes a control with no
pause (``--pace 2`` for a student's pace), as the load section does; the run ends after
``--seconds``. Prints reruns per second, latency and the server's CPU per rerun. Every request
goes to 127.0.0.1 and every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass

from bench.common import Addresses, cpu_seconds, rss_mb
from bench.load import _class, _lesson_slugs


@dataclass
class RunningServer(Addresses):
    """The parts of ``common.Server`` a load run reads, for a server started by hand."""

    port: int
    pid: int

    def rss(self) -> dict[str, float]:
        return rss_mb(self.pid)

    def cpu(self) -> float:
        return cpu_seconds(self.pid)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pace", type=float, default=None, help="seconds between changes")
    parser.add_argument("--pages", default="", help="comma list of slugs; default every lesson")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p] or _lesson_slugs()
    server = RunningServer(args.port, args.pid)
    out = asyncio.run(_class(server, args.sessions, args.seconds, args.pace, 1, pages))
    p50, p95 = (out["latency_ms"].get(k, float("nan")) for k in ("median", "p95"))
    sys.stdout.write(
        f"{out['changes']} changes, {out['reruns_per_s']:.1f} reruns/s, "
        f"latency p50 {p50:.1f} ms p95 {p95:.1f} ms, "
        f"server CPU {out['server_cpu_ms_per_rerun']:.1f} ms/rerun, errors {out['errors']}, "
        f"load average {out['loadavg']}\n"
    )
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
