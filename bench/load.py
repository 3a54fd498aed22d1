"""Load: how many students one small server holds.

Every session speaks Streamlit's websocket protocol (``bench.wsclient``) to a server of this
project on 127.0.0.1, each on one of the lesson pages in turn, at chapter 9's preset.

- **A class at a student's pace**: N sessions (1, 10, 30, 100) open their page within the first
  two seconds, then each changes one control about every 2 s (uniform 1-3 s): half the time a
  new seed (the sublayer is recomputed), otherwise the causal toggle or the head shown (cached).
  Each run lasts a bounded time; a fresh server serves each N so that its memory can be read
  alone: resident memory at its peak (VmHWM) and a few seconds after every session closed.
  In the 30 and 100 runs, two real chromium tabs open the page with the most heatmaps before
  the class starts, then type a seed every 2 s and time what a student sees.
- **Saturation**: C sessions change a control with no pause at all, for C = 2, 4, 8, 16; the most
  reruns per second any C sustains is the server's capacity.

Every loop is bounded in count and in time; every request goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass, field

from bench.common import (
    CHAPTER9,
    CHAPTER9_LINK,
    check,
    context,
    loadavg,
    nginx_path,
    page_files,
    page_slug,
    streamlit_cluster,
    streamlit_server,
    summary,
)
from bench.wsclient import Session

PACE_S = 2.0
RAMP_S = 2.0
TARGET_P95_MS = 1000.0
TARGET_RSS_MB = 400.0
TARGET_SATURATION = 100.0
CLUSTER_PROCESSES = 2  # one per core of the 2-core target machine
MAX_CHANGES = 1000  # per session: a bound on every loop, whatever the duration


@dataclass
class Tally:
    """What every session of one run saw."""

    latencies: list[float] = field(default_factory=list)  # seconds, changes only
    loads: list[float] = field(default_factory=list)  # seconds, first loads
    bytes: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    misses: int = 0  # changes that asked for a new seed
    done_at: list[float] = field(default_factory=list)  # perf_counter of each finished change


def _lesson_slugs() -> list[str]:
    return [page_slug(p) for p in page_files() if page_slug(p)]


def _action(rng: random.Random, session: Session) -> dict[str, object]:
    roll = rng.random()
    if roll < 0.5:
        return {"seed": rng.randrange(1, 2**31)}
    if roll < 0.75:
        causal = session.values.get("causal", True) in (True, "true")
        return {"causal": not causal}
    return {"head": rng.randrange(CHAPTER9["n_heads"])}


async def _student(
    ws_url: str,
    slug: str,
    start_delay: float,
    deadline: float,
    pace_s: float | None,
    rng: random.Random,
    tally: Tally,
) -> None:
    await asyncio.sleep(start_delay)
    query = dict(CHAPTER9_LINK)
    session = Session(ws_url, slug, query)
    try:
        await session.connect()
        first = await session.load()
        tally.loads.append(first.latency_s)
        tally.errors.extend(first.errors)
        for _ in range(MAX_CHANGES):
            if pace_s is not None:
                await asyncio.sleep(pace_s * rng.uniform(0.5, 1.5))
            if time.perf_counter() >= deadline:
                break
            values = _action(rng, session)
            tally.misses += "seed" in values
            run = await session.change(**values)
            tally.latencies.append(run.latency_s)
            tally.bytes.append(run.bytes)
            tally.errors.extend(run.errors)
            tally.done_at.append(time.perf_counter())
    except Exception as err:  # a timeout, a closed connection: an error to count, not a crash
        tally.errors.append(f"{type(err).__name__}: {err}"[:200])
    finally:
        with contextlib.suppress(Exception):  # already closed by the server
            await session.close()


async def _sample_rss(server, stop: asyncio.Event, samples: list[float]) -> None:
    while not stop.is_set():
        rss = server.rss().get("VmRSS")
        if rss is not None:
            samples.append(rss)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


async def _class(
    server,
    n: int,
    duration_s: float,
    pace_s: float | None,
    seed: int,
    pages: list[str],
    probe: dict | None = None,
) -> dict:
    rng = random.Random(seed)
    tally = Tally()
    stop = asyncio.Event()
    rss: list[float] = []
    sampler = asyncio.create_task(_sample_rss(server, stop, rss))
    probe_task = None
    if probe is not None:
        from bench import browser

        # the tabs open their page first, so that every change they time happens under load
        ready = asyncio.Event()
        probe_task = asyncio.create_task(
            browser.probe_under_load(server.url, probe, ready, duration_s + RAMP_S)
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ready.wait(), 120)
    cpu0, client_cpu0, t0 = server.cpu(), time.process_time(), time.perf_counter()
    ramp = RAMP_S if pace_s is not None else 0.0
    deadline = t0 + ramp + duration_s
    tasks = [
        asyncio.create_task(
            _student(
                server.ws_url,
                pages[i % len(pages)],
                rng.uniform(0.0, ramp),
                deadline,
                pace_s,
                random.Random(rng.random()),
                tally,
            )
        )
        for i in range(n)
    ]
    await asyncio.wait_for(asyncio.gather(*tasks), duration_s + ramp + 120)
    probe_result = await probe_task if probe_task is not None else None
    elapsed = time.perf_counter() - t0
    cpu = server.cpu() - cpu0
    stop.set()
    await sampler
    # reruns per second over the steady part: after the ramp, until the deadline
    steady = [t for t in tally.done_at if t0 + ramp <= t <= deadline]
    out = {
        "sessions": n,
        "pace_s": pace_s,
        "duration_s": duration_s,
        "elapsed_s": elapsed,
        "changes": len(tally.latencies),
        "new_seed_changes": tally.misses,
        "reruns_per_s": len(steady) / duration_s if duration_s else 0.0,
        "latency_ms": summary([s * 1e3 for s in tally.latencies]),
        "first_load_ms": summary([s * 1e3 for s in tally.loads]),
        "bytes_per_rerun": summary(tally.bytes),
        "errors": len(tally.errors),
        "error_samples": sorted(set(tally.errors))[:5],
        "rss_peak_mb": max(rss, default=None),
        "server_cpu_s": cpu,
        "server_cpu_ms_per_rerun": cpu * 1e3 / max(1, len(tally.latencies) + len(tally.loads)),
        "client_cpu_s": time.process_time() - client_cpu0,
        "loadavg": loadavg(),
    }
    if probe_result is not None:
        out["browser_probe"] = probe_result
    return out


def _fresh_server_run(
    n: int,
    duration_s: float,
    pace_s: float | None,
    seed: int,
    probe,
    processes: int = 1,
    pages: list[str] | None = None,
) -> dict:
    pages = pages or _lesson_slugs()
    serving = streamlit_server() if processes == 1 else streamlit_cluster(processes)
    with serving as server:
        rss_idle = server.rss().get("VmRSS")
        out = asyncio.run(_class(server, n, duration_s, pace_s, seed, pages, probe))
        time.sleep(5.0)  # sessions closed: let the server drop them
        mem = server.rss()
        out["rss_start_mb"] = rss_idle
        out["rss_after_close_mb"] = mem.get("VmRSS")
        out["rss_hwm_mb"] = mem.get("VmHWM")
        out["processes"] = processes
    return out


def run(quick: bool = False, browser_probe: bool = True, pages: list[str] | None = None) -> dict:
    """The class runs, then the saturation runs; each on a fresh server. ``pages``: the lesson
    pages the students open, in turn (every one when None)."""
    unknown = sorted(set(pages or ()) - set(_lesson_slugs()))
    if unknown:
        raise ValueError(f"no such lesson page: {', '.join(unknown)}")
    pages = pages or _lesson_slugs()
    duration = 8.0 if quick else 25.0
    sat_duration = 4.0 if quick else 8.0
    sizes = (1, 10, 30) if quick else (1, 10, 30, 100)
    probe = None
    if browser_probe:
        from bench import browser

        probe = browser.prepare_probe(changes=5 if quick else 14)
    result: dict = {
        "classes": [],
        "saturation": [],
        "loadavg_start": loadavg(),
        "pages": pages,
    }
    for i, n in enumerate(sizes):
        use_probe = probe if n >= 30 else None
        result["classes"].append(
            _fresh_server_run(n, duration, PACE_S, 10 + i, use_probe, pages=pages)
        )
    for i, c in enumerate((2, 4, 8, 16)):
        result["saturation"].append(
            _fresh_server_run(c, sat_duration, None, 100 + i, None, pages=pages)
        )
    if nginx_path() is not None:
        # one process per core behind nginx (scripts/serve.sh): the biggest class, saturation
        result["cluster"] = {
            "processes": CLUSTER_PROCESSES,
            "classes": [
                _fresh_server_run(sizes[-1], duration, PACE_S, 50, probe, CLUSTER_PROCESSES, pages)
            ],
            "saturation": [
                _fresh_server_run(c, sat_duration, None, 150 + i, None, CLUSTER_PROCESSES, pages)
                for i, c in enumerate((4, 8, 16))
            ],
        }
    result["loadavg_end"] = loadavg()
    result["checks"] = _checks(result)
    return result


def _checks(result: dict) -> list[dict]:
    """The targets are read on the cluster: two cores run two processes behind nginx, as
    scripts/serve.sh and the container run them. One process alone uses one core, whatever the
    machine has; its rows say what a host with one CPU gets, without a target of their own."""
    checks = []
    biggest = max(result["classes"], key=lambda r: r["sessions"])
    n = biggest["sessions"]
    one = "1 process (one core, as a 1-CPU host runs it)"
    checks.append(check(f"{one}, {n} sessions: errors", biggest["errors"], 0, ""))
    checks.append(
        context(
            f"{one}, {n} sessions at a student's pace: p95 latency of a change",
            biggest["latency_ms"].get("p95"),
            "ms",
        )
    )
    checks.append(context(f"{one}, {n} sessions: server RSS at peak", biggest["rss_hwm_mb"], "MB"))
    best = max(result["saturation"], key=lambda r: r["reruns_per_s"])
    checks.append(
        context(
            f"{one}, saturation, chapter 9, page mix: reruns/s (best at {best['sessions']} "
            "sessions)",
            best["reruns_per_s"],
            "/s",
        )
    )
    cluster = result.get("cluster")
    runs = result["classes"] + result["saturation"]
    if cluster:
        k = cluster["processes"]
        big = cluster["classes"][-1]
        checks.append(
            check(
                f"{big['sessions']} sessions, {k} processes behind nginx: p95 latency of a change",
                big["latency_ms"].get("p95"),
                TARGET_P95_MS,
                "ms",
            )
        )
        checks.append(
            check(
                f"{big['sessions']} sessions, {k} processes behind nginx: RSS at peak, in all",
                big["rss_hwm_mb"],
                TARGET_RSS_MB,
                "MB",
            )
        )
        top = max(cluster["saturation"], key=lambda r: r["reruns_per_s"])
        checks.append(
            check(
                f"saturation, {k} processes behind nginx: reruns/s (best at {top['sessions']} "
                "sessions)",
                top["reruns_per_s"],
                TARGET_SATURATION,
                "/s",
                lower_is_better=False,
            )
        )
        runs += cluster["classes"] + cluster["saturation"]
    errors = sum(r["errors"] for r in runs)
    checks.append(check("errors over every load run", errors, 0, ""))
    return checks
