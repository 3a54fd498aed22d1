"""Hosts: the class load on one and on two app hosts behind HAProxy, each host on its own core
with a CPU limit, as a cluster's pods have one.

Each host is a network namespace running the app as one Streamlit process (tests/hosts/harness.py),
pinned with ``taskset``: one host on core 0, then two hosts on cores 0 and 1. Each host is also
limited to HOST_CORES of a CPU (a cgroup's CFS quota, bench/cpu_limit.py: what a pod's
``limits.cpu`` sets), so that a host is the same budget in both runs. HAProxy
(deploy/haproxy.cfg.template, cookie stickiness) and this load client run on core 1 in both runs,
both in the lab's namespace ``lab-lb`` (the client in a thread of this process that entered it):
without the limit, host B would share its core with them, and the ratio would count the client's
own CPU (at most 2s / (s + 2c) for a rerun that costs the server s and the client c); with it,
the rest of core 1 is theirs. The load is bench.load's: N sessions at a student's pace (a control
changed about every 2 s), then saturation (C sessions with no pause; the best reruns/s of any C).
The client opens websockets without the cookie, so HAProxy's round robin spreads them evenly over
the hosts. Needs root, ``ip netns`` and haproxy; every request stays in the lab's namespaces,
whose making changes no link or address of the root namespace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from bench import cpu_limit
from bench.common import check, context, cpu_seconds, loadavg, rss_mb
from bench.load import PACE_S, _class, _lesson_slugs
from tests.hosts.harness import Lab, hosts_lab

TARGET_RATIO = 1.8  # two hosts on two cores against one host on one core
CLIENT_CPUS = {1}  # the load client and HAProxy: core 1 (see the module's docstring)
RUNS = (("A", {"A": "0"}), ("AB", {"A": "0", "B": "1"}))
HOST_CORES = 0.6  # each host's CPU limit; the rest of core 1 for HAProxy and the client


@dataclass
class Front:
    """The lab as bench.load's runs read a server: HAProxy's addresses, the hosts' memory and
    CPU (HAProxy's CPU added)."""

    lab: Lab

    @property
    def url(self) -> str:
        return self.lab.url

    @property
    def ws_url(self) -> str:
        return self.lab.url.replace("http://", "ws://") + "/_stcore/stream"

    def _hosts(self) -> list[int]:
        return [h.process.pid for h in self.lab.hosts.values() if h.process is not None]

    def _pids(self) -> list[int]:
        balancer = self.lab.balancer
        return self._hosts() + ([balancer.pid] if balancer is not None else [])

    def rss(self) -> dict[str, float]:
        """The hosts' resident memory added up (HAProxy's few MB left out)."""
        total: dict[str, float] = {}
        for pid in self._hosts():
            for key, value in rss_mb(pid).items():
                total[key] = total.get(key, 0.0) + value
        return total

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self._pids())


def _one(names: str, cpus: dict[str, str], quick: bool, seed: int) -> dict:
    """The class run and the saturation runs on ``names`` hosts pinned to ``cpus``."""
    pages = _lesson_slugs()
    class_n, duration = (20, 10.0) if quick else (30, 20.0)
    sat_duration = 5.0 if quick else 8.0
    with hosts_lab(names=names, cpus=cpus, balancer_cpus="1") as lab, contextlib.ExitStack() as on:
        front = Front(lab)
        groups = _limit(lab, on)
        out: dict = {
            "hosts": len(names),
            "cores": {lab.hosts[n].server: c for n, c in cpus.items()},
            "host_cores": HOST_CORES if groups else None,
        }
        # the client's sockets are lab-lb's, where HAProxy listens on 127.0.0.1
        out["class"] = lab.in_lb(asyncio.run, _class(front, class_n, duration, PACE_S, seed, pages))
        out["saturation"] = [
            lab.in_lb(asyncio.run, _class(front, c, sat_duration, None, seed + 1 + i, pages))
            for i, c in enumerate((4, 8) if quick else (4, 8, 16))
        ]
        out["rss_mb"] = front.rss().get("VmHWM")
        out["throttled_s"] = sum(cpu_limit.throttled_s(g) for g in groups)
    best = max(out["saturation"], key=lambda r: r["reruns_per_s"])
    out["best_reruns_per_s"] = best["reruns_per_s"]
    out["best_sessions"] = best["sessions"]
    changes = best["changes"] + best["sessions"]  # the first loads too
    out["client_cpu_ms_per_rerun"] = best["client_cpu_s"] * 1e3 / max(1, changes)
    out["server_cpu_ms_per_rerun"] = best["server_cpu_ms_per_rerun"]
    # the cores the hosts (and HAProxy) kept busy: below the hosts' count when others ran too
    out["cores_busy"] = best["server_cpu_s"] / best["elapsed_s"] if best["elapsed_s"] else None
    return out


def _limit(lab: Lab, on: contextlib.ExitStack) -> list[Path]:
    """Each running host limited to HOST_CORES, in a cgroup of its own that ``on`` removes; none
    where this machine offers no CPU quota (the hosts then run as pinned only)."""
    if cpu_limit.hierarchy() is None:
        return []
    return [
        on.enter_context(cpu_limit.limited(host.server, [host.process.pid], HOST_CORES))
        for host in lab.hosts.values()
        if host.process is not None
    ]


def run(quick: bool = False) -> dict:
    """One host, then two; the load client pinned to core 1 meanwhile (the lab's thread in
    lab-lb, made after, is pinned with it)."""
    before = os.sched_getaffinity(0)
    started = time.perf_counter()
    result: dict = {"loadavg_start": loadavg(), "client_cpus": sorted(CLIENT_CPUS), "runs": []}
    try:
        os.sched_setaffinity(0, CLIENT_CPUS)
        for i, (names, cpus) in enumerate(RUNS):
            result["runs"].append(_one(names, cpus, quick, 300 + 10 * i))
    finally:
        os.sched_setaffinity(0, before)
    result["loadavg_end"] = loadavg()
    result["wall_s"] = time.perf_counter() - started
    result["checks"] = _checks(result)
    return result


def _checks(result: dict) -> list[dict]:
    one, two = result["runs"]
    checks = []
    for r in (one, two):
        label = f"{r['hosts']} host(s) behind HAProxy"
        n = r["class"]["sessions"]
        checks.append(
            context(
                f"{label}, {n} sessions at a student's pace: reruns/s",
                r["class"]["reruns_per_s"],
                "/s",
            )
        )
        checks.append(
            context(
                f"{label}, {n} sessions: p95 latency of a change",
                r["class"]["latency_ms"].get("p95"),
                "ms",
            )
        )
        checks.append(
            context(
                f"{label}, saturation: reruns/s (best at {r['best_sessions']} sessions)",
                r["best_reruns_per_s"],
                "/s",
            )
        )
    ratio = (
        two["best_reruns_per_s"] / one["best_reruns_per_s"] if one["best_reruns_per_s"] else None
    )
    result["ratio"] = ratio
    cost = one["server_cpu_ms_per_rerun"], two["server_cpu_ms_per_rerun"]
    # what one rerun costs on one host against two: 1.0 when two hosts lose nothing to each
    # other, whatever share of its core each host got on a busy machine
    result["cost_ratio"] = cost[0] / cost[1] if cost[1] else None
    checks.append(
        context(
            "CPU per rerun, 1 host / 2 hosts (1.0: the hosts cost each other nothing)",
            result["cost_ratio"],
            "×",
        )
    )
    limit = (
        f"its own core limited to {one['host_cores']:g} CPU"
        if one.get("host_cores")
        else "its own core"
    )
    checks.append(
        check(
            f"saturation, 2 hosts / 1 host, each on {limit}",
            ratio,
            TARGET_RATIO,
            "×",
            lower_is_better=False,
        )
    )
    errors = sum(
        r["class"]["errors"] + sum(s["errors"] for s in r["saturation"]) for r in (one, two)
    )
    checks.append(check("errors over every hosts run", errors, 0, ""))
    return checks


def render(r: dict) -> list[str]:
    """The section's rows for bench/results/latest.md."""
    out = [
        "One Streamlit process per host, each host a network namespace pinned to its core "
        "(`taskset`) and limited to a share of it (a cgroup's CPU quota, as a pod's "
        "`limits.cpu`), behind HAProxy with cookie stickiness; HAProxy and the load client on "
        f"core {', '.join(map(str, r['client_cpus']))}.",
        "",
        "| hosts | cores | CPU limit | class: sessions | reruns/s | p50 ms | p95 ms "
        "| saturation: best reruns/s | at sessions | server CPU ms/rerun "
        "| client CPU ms/rerun | cores busy | throttled s | errors | RSS peak MB |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in r["runs"]:
        k = run["class"]
        errors = k["errors"] + sum(s["errors"] for s in run["saturation"])
        cores = ", ".join(f"{h}: {c}" for h, c in run["cores"].items())
        rss = "–" if run.get("rss_mb") is None else f"{run['rss_mb']:.0f}"
        limit = "none" if run.get("host_cores") is None else f"{run['host_cores']:g}"
        throttled = run.get("throttled_s")
        out.append(
            f"| {run['hosts']} | {cores} | {limit} | {k['sessions']} | {k['reruns_per_s']:.1f} | "
            f"{k['latency_ms'].get('median', float('nan')):.0f} | "
            f"{k['latency_ms'].get('p95', float('nan')):.0f} | {run['best_reruns_per_s']:.1f} | "
            f"{run['best_sessions']} | {run['server_cpu_ms_per_rerun']:.1f} | "
            f"{run['client_cpu_ms_per_rerun']:.1f} | {run.get('cores_busy') or 0:.2f} | "
            f"{'–' if throttled is None else f'{throttled:.1f}'} | {errors} | {rss} |"
        )
    ratio = r.get("ratio")
    out.append(
        f"\nRatio 2 hosts / 1 host at saturation: {'–' if ratio is None else f'{ratio:.2f}'}."
    )
    out.append(
        "*cores busy*: the CPU the hosts and HAProxy used over the best saturation run, per "
        "second; *throttled s*: how long the limit held the hosts back over the whole run. On "
        "a machine that other programs also load, a pinned host gets only a share of its core, "
        "and the ratio follows the shares as much as the hosts; the CPU per rerun on each side "
        "says whether two hosts cost each other anything."
    )
    out.append(f"Load average at the start {r['loadavg_start']}, at the end {r['loadavg_end']}.")
    return out
