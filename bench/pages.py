"""Page reruns: how long the server spends on one rerun of each page, and what it sends.

Two views of the same reruns:

- **AppTest** (in this process): the script's own run time, from Streamlit's ``SCRIPT_STARTED``
  event to ``SCRIPT_STOPPED_*`` (what one rerun costs the server), and the bytes of every
  ``ForwardMsg`` the run enqueued (what a browser with an empty cache would receive);
- **websocket** (a real server, ``bench.wsclient``): the round trip from ``rerun_script`` to
  ``script_finished`` and the bytes that came off the socket, with the browser's message cache
  emulated (an unchanged element of 10 kB or more comes back as a short reference).

Each page runs at chapter 9's preset and at the largest sublayer the sidebar offers, in two modes:
*hit* reruns with the same settings (``compute_lab`` answers from its cache), *miss* reruns with a
new seed each time (the sublayer is recomputed; on /learned, which shows no seed, a new training
step). Two warm-up runs come first and are not counted. In AppTest the pages take turns: four
rounds, each page warmed again and rerun in a block of each mode, so that a burst of the host's
load falls on several pages' blocks rather than on all the reruns of one page.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import llm
from bench.common import (
    PRESETS,
    check,
    has_control,
    loadavg,
    page_files,
    page_slug,
    streamlit_server,
    summary,
)
from bench.wsclient import Session
from ui.draw.tables import TABLE_START

TARGET_MS = {"chapter9": 15.0, "largest": 60.0}
# a page's own URL values at a preset: the depth page's largest setting stacks all 24 layers
# and the learned-heads page's, the longest sentence the trained model reads (32 of its words)
PAGE_VALUES = {
    # page 3 with its what-ifs moved: a second sublayer at that temperature, beside the frame's
    ("softmax", "largest"): {"temperature": 0.5, "scale": "false"},
    ("depth", "largest"): {"layers": 24},
    ("learned", "largest"): {"sentence": " ".join(llm.load_model().vocab[:16] * 2)},
}
WARMUP = 2
ROUNDS = 4  # the turns every page takes in a run of all pages (bench.pages.run)


@contextmanager
def timed_apptest() -> Iterator[type]:
    """AppTest with a script runner that stamps each lifecycle event with the time, and one
    script cache for all runs, as a server has (AppTest alone recompiles the page every run)."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunnerEvent
    from streamlit.testing.v1 import app_test, local_script_runner
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    class TimedRunner(LocalScriptRunner):
        last: TimedRunner | None = None

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.marks: list[tuple[str, float, float]] = []
            TimedRunner.last = self
            self.on_event.connect(self._mark, weak=False)

        def _mark(self, sender, event, **kwargs) -> None:
            # the script thread sends these events, so thread_time() is the script's CPU time;
            # a sent message is no mark: stamping each of a run's ~90 cost the run 0.2 ms
            if event is not ScriptRunnerEvent.ENQUEUE_FORWARD_MSG:
                self.marks.append((event.name, time.perf_counter(), time.thread_time()))

        def script_seconds(self) -> tuple[float, float]:
            """(wall, CPU) seconds from the first SCRIPT_STARTED to the last SCRIPT_STOPPED_*."""
            starts = [m for m in self.marks if m[0] == "SCRIPT_STARTED"]
            stops = [m for m in self.marks if m[0].startswith("SCRIPT_STOPPED")]
            if not (starts and stops):
                return float("nan"), float("nan")
            return stops[-1][1] - starts[0][1], stops[-1][2] - starts[0][2]

        def sent_bytes(self) -> tuple[int, int]:
            msgs = self.forward_msgs()
            return sum(m.ByteSize() for m in msgs), len(msgs)

    saved = app_test.LocalScriptRunner, app_test.ScriptCache, local_script_runner.ScriptCache
    app_test.LocalScriptRunner = TimedRunner
    shared = app_test.ScriptCache()
    # AppTest compiles the page anew on every run; a server compiles it once and keeps it
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    try:
        yield TimedRunner
    finally:
        app_test.LocalScriptRunner, app_test.ScriptCache, local_script_runner.ScriptCache = saved


class MissCounter:
    """Counts the sublayers actually computed (``compute_lab`` misses) by wrapping init_params."""

    def __init__(self) -> None:
        self.count = 0
        self._saved = llm.init_params

    def __enter__(self) -> MissCounter:
        def counted(cfg):
            self.count += 1
            return self._saved(cfg)

        llm.init_params = counted
        return self

    def __exit__(self, *exc) -> None:
        llm.init_params = self._saved


def miss_values(slug: str, i: int, seed: int) -> dict[str, int]:
    """What the ``i``-th miss rerun moves: the seed, or on the learned-heads page, whose model
    does not depend on it (it shows no seed), the training step (a checkpoint not yet drawn, one
    per rerun)."""
    if slug != "learned":
        return {"seed": seed}
    steps = llm.load_model().steps
    return {"step": steps[i % len(steps)]}


def move_miss(at, slug: str, i: int, seed: int) -> None:
    """Set the ``i``-th miss's values (``miss_values``) on AppTest's controls, for its next run:
    the seed where the page shows it (``has_control``), the step on the learned-heads page."""
    for key, value in miss_values(slug, i, seed).items():
        if key == "step":
            at.select_slider(key="step").set_value(value)
        elif has_control(at, key):  # the home page keeps the seed; a page may hide it
            at.number_input(key=key).set_value(value)


class _PageRuns:
    """One page at one preset in AppTest, opened for a block of reruns at a time (``open``,
    ``rerun``, ``close``), so that a run of many pages can take them in turns: its samples, by
    mode, and ``result``'s row."""

    def __init__(self, path: Path, preset: str, seed_base: int, runner_cls) -> None:
        self.path, self.slug, self.preset = path, page_slug(path), preset
        self.seed_base, self.runner_cls = seed_base, runner_cls
        self.at = None
        self.loadavg: list[float] = []  # the machine's load when the page is first opened
        self.errors: list[str] = []
        self.samples = {mode: {k: [] for k in SAMPLES} for mode in ("hit", "miss")}
        self.computed = {"hit": 0, "miss": 0}
        self.drawn = {"charts": 0, "tables": 0}

    def open(self) -> None:
        """Open the page anew and warm it: runs not counted, the first ones, which fill the
        caches with what it reads again (another page's turn may have pushed it out)."""
        from streamlit.testing.v1 import AppTest

        settings = PRESETS[self.preset]
        self.loadavg = self.loadavg or loadavg()
        self.at = AppTest.from_file(str(self.path), default_timeout=60)
        for key in ("text", "d_model", "n_heads"):
            self.at.query_params[key] = str(settings[key])
        self.at.query_params["seed"] = str(self.seed_base)
        for key, value in PAGE_VALUES.get((self.slug, self.preset), {}).items():
            self.at.query_params[key] = str(value)
        for _ in range(WARMUP):
            self.at.run()

    def rerun(self, mode: str, i: int, misses: MissCounter) -> None:
        """The ``i``-th rerun of ``mode``: the same settings (hit), or new ones (miss)."""
        if mode == "miss":
            move_miss(self.at, self.slug, i, self.seed_base + 1 + i)
        before = misses.count
        t0 = time.perf_counter()
        self.at.run()
        wall = (time.perf_counter() - t0) * 1e3
        self.computed[mode] += misses.count - before
        runner = self.runner_cls.last
        script_s, cpu_s = runner.script_seconds()
        size, count = runner.sent_bytes()
        for key, value in zip(SAMPLES, (script_s * 1e3, cpu_s * 1e3, wall, size, count)):
            self.samples[mode][key].append(value)
        self.errors.extend(f"{e.message}"[:200] for e in self.at.exception)

    def close(self) -> None:
        """Count what the page drew, and let its session go: one page is open at a time."""
        tables = [h for h in self.at.get("html") if h.proto.body.startswith(TABLE_START)]
        self.drawn = {"charts": len(self.at.get("plotly_chart")), "tables": len(tables)}
        self.at = None

    def result(self) -> dict:
        out: dict = {"page": self.slug or "home", "preset": self.preset, "loadavg": self.loadavg}
        for mode, samples in self.samples.items():
            out[mode] = {key: summary(values) for key, values in samples.items()}
            out[mode]["sublayers_computed"] = self.computed[mode]
        return out | self.drawn | {"errors": sorted(set(self.errors))}


# what each rerun records: the script's time and CPU, AppTest's whole run, what it sent
SAMPLES = ("script_ms", "script_cpu_ms", "apptest_run_ms", "bytes", "messages")


def _apptest_page(path: Path, preset: str, reruns: int, seed_base: int, runner_cls) -> dict:
    """One page at one preset: ``reruns`` hits, then ``reruns`` misses, in one block
    (``bench.versus`` runs this in each checkout)."""
    return _apptest_turns([(path, preset, seed_base)], reruns, runner_cls, rounds=1)[0]


def _apptest_turns(
    pages: list[tuple[Path, str, int]], reruns: int, runner_cls, rounds: int = ROUNDS
) -> list[dict]:
    """Every (page file, preset, seed base) in turns: ``rounds`` times, each page opened anew,
    warmed, then a block of its hits and one of its misses (``reruns`` of each in all). The
    machine's speed moves from one minute to the next: a burst of its load falls on a block of
    several pages, instead of on all the reruns of the one page measured then, whose median the
    slowest page's check reported. One page is open at a time, as before: with all 22 open at
    once (their sessions, elements and caches alive), every page's reruns took longer
    (/depth's misses 22-23 ms, against 16-19 ms)."""
    runs = [_PageRuns(path, preset, seed_base, runner_cls) for path, preset, seed_base in pages]
    block = -(-reruns // rounds)
    with MissCounter() as misses:
        for first in range(0, reruns, block):
            for page in runs:
                page.open()
                for mode in ("hit", "miss"):
                    for i in range(first, min(first + block, reruns)):
                        page.rerun(mode, i, misses)
                page.close()
    return [page.result() for page in runs]


async def _ws_page(
    ws_url: str, slug: str, preset: str, reruns: int, seed_base: int, server_cpu
) -> dict:
    settings = PRESETS[preset]
    query = {k: settings[k] for k in ("text", "d_model", "n_heads")} | {"seed": seed_base}
    query |= PAGE_VALUES.get((slug, preset), {})
    session = Session(ws_url, slug, query, measure_deflate=True)
    await session.connect()
    out: dict = {"page": slug or "home", "preset": preset, "loadavg": loadavg()}
    errors: list[str] = []
    try:
        first = await session.load()
        out["first_load_ms"] = first.latency_s * 1e3
        errors += first.errors
        for _ in range(WARMUP):
            errors += (await session.rerun()).errors
        for mode in ("hit", "miss"):
            runs = []
            cpu0 = server_cpu()
            for i in range(reruns):
                if mode == "miss":
                    moved = miss_values(slug, i, seed_base + 1 + i)
                    runs.append(await session.change(**moved))
                else:
                    runs.append(await session.rerun())
            errors += [e for r in runs for e in r.errors]
            out[mode] = {
                "rtt_ms": summary([r.latency_s * 1e3 for r in runs]),
                "server_cpu_ms_per_rerun": (server_cpu() - cpu0) * 1e3 / reruns,
                "bytes": summary([r.bytes for r in runs]),
                "deflated_bytes": summary([r.deflated for r in runs]),
                "refs": summary([r.refs for r in runs]),
                "charts": runs[-1].charts,
            }
    finally:
        await session.close()
    out["errors"] = sorted(set(errors))
    return out


def run(quick: bool = False, with_ws: bool = True) -> dict:
    """AppTest reruns of every page at both presets, then the same over a real server."""
    reruns = 8 if quick else 20
    pages = page_files()
    result: dict = {"reruns": reruns, "warmup": WARMUP, "apptest": [], "ws": []}
    with timed_apptest() as runner_cls:
        runs = [
            # a fresh seed range per page and preset
            (path, preset, 100_000 + 1_000 * (2 * p_i + s_i))
            for p_i, path in enumerate(pages)
            for s_i, preset in enumerate(PRESETS)
        ]
        result["apptest"] = _apptest_turns(runs, reruns, runner_cls)
    if with_ws:
        with streamlit_server() as server:
            result["server_start_s"] = server.started_s

            async def all_pages() -> None:
                for p_i, path in enumerate(pages):
                    for s_i, preset in enumerate(PRESETS):
                        seed_base = 200_000 + 1_000 * (2 * p_i + s_i)
                        slug = page_slug(path)
                        row = await _ws_page(
                            server.ws_url, slug, preset, reruns, seed_base, server.cpu
                        )
                        result["ws"].append(row)

            asyncio.run(all_pages())
            result["server_rss_mb"] = server.rss()
    result["loadavg_end"] = loadavg()
    result["checks"] = _checks(result)
    return result


def _checks(result: dict) -> list[dict]:
    checks = []
    for preset, target in TARGET_MS.items():
        for mode in ("hit", "miss"):
            rows = [r for r in result["apptest"] if r["preset"] == preset]
            if not rows:
                continue
            worst = max(rows, key=lambda r: r[mode]["script_ms"]["median"])
            checks.append(
                check(
                    f"slowest page rerun, {preset}, cache {mode}: /{worst['page']} "
                    "(AppTest script time, median)",
                    worst[mode]["script_ms"]["median"],
                    target,
                    "ms",
                )
            )
    errors = sum(len(r["errors"]) for r in result["apptest"] + result["ws"])
    checks.append(check("errors in page reruns", errors, 0, ""))
    return checks


def compare(slugs: list[str], reruns: int, rounds: int) -> list[str]:
    """AppTest reruns of a few pages at both presets, in alternating rounds, against the first
    page of ``slugs`` timed in the same rounds: lines of medians, minima and their ratios.

    On a shared machine a page's own time moves with the load; its ratio to a page measured in
    the same minutes moves much less, and the minimum of the CPU time least of all.
    """
    files = {page_slug(path) or "home": path for path in page_files()}
    rows: dict[tuple[str, str, str], list[dict]] = {}
    with timed_apptest() as runner_cls:
        for r in range(rounds):
            for p_i, slug in enumerate(slugs):
                for s_i, preset in enumerate(PRESETS):
                    seed_base = 500_000 + 10_000 * r + 1_000 * (2 * p_i + s_i)
                    row = _apptest_page(files[slug], preset, reruns, seed_base, runner_cls)
                    for mode in ("hit", "miss"):
                        rows.setdefault((slug, preset, mode), []).append(row[mode] | row)
    lines = []
    for (slug, preset, mode), runs in rows.items():
        base = rows[(slugs[0], preset, mode)]

        def stat(rs: list[dict], what: str, how: str) -> float:
            values = [r[what][how] for r in rs]
            return min(values) if how == "min" else float(np.median(values))

        med, base_med = stat(runs, "script_ms", "median"), stat(base, "script_ms", "median")
        low, base_low = stat(runs, "script_cpu_ms", "min"), stat(base, "script_cpu_ms", "min")
        errors = sorted({e for r in runs for e in r["errors"]})
        lines.append(
            f"/{slug:10} {preset:9} {mode:4} script median {med:6.1f} ms (×{med / base_med:.2f})"
            f"  CPU min {low:5.1f} ms (×{low / base_low:.2f})"
            f"  {stat(runs, 'bytes', 'median') / 1e3:6.1f} kB  load {runs[0]['loadavg'][0]}"
            + (f"  ERRORS {errors}" if errors else "")
        )
    return lines


if __name__ == "__main__":
    import argparse
    import logging

    parser = argparse.ArgumentParser(description="A few pages' reruns against the first one.")
    parser.add_argument(
        "pages",
        help="comma list of slugs (home: the home page), the reference first: layernorm,depth",
    )
    parser.add_argument("--reruns", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    logging.disable(logging.ERROR)
    print("\n".join(compare(args.pages.split(","), args.reruns, args.rounds)))
