"""The exercise checker: how long one Check takes, and a class pressing Check at once.

Each Check spawns one child process (the sandbox worker) that runs the learner's function on the
current setting and the hidden cases; checks take turns through the sandbox's queue (two at a
time per server, fresh checks before those past their slice). Measured through
``exercises.check``, the function the Check button calls, with our readable solutions and
a learner-style triple-loop matmul at chapter 9's preset and at the largest setting; then a
class: 30 students press Check at once, 10 of them with a loop that never ends.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import exercises as ex
import llm
from bench.common import check, context, loadavg, summary
from bench.common import shown as _p
from tests.learner_code import LEARNER_MATMUL

LOOPING_SOFTMAX = """
def scale_mask_softmax(scores, d_k, causal):
    out = []
    i = 0
    while i < len(scores):
        out = out + []
    return out
"""
CLASS, LOOPING = 30, 10  # students pressing Check within the same moment, and how many loop
SETTINGS = {
    "chapter9": {"d_model": 8, "n_heads": 4, "text": "the cat sat on mat"},
    "largest, 1 head": {"d_model": 64, "n_heads": 1, "text": " ".join(f"w{i}" for i in range(32))},
}


def _current(d_model: int, n_heads: int, text: str) -> ex.Current:
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=0)
    x = llm.embed(llm.tokenize(text), cfg)
    params = llm.init_params(cfg)
    run = SimpleNamespace(cfg=cfg, x=x, params=params, trace=llm.multi_head_attention(x, params))
    return ex.Current(run=run)


def _timed(
    cell_id: str, code: str, current: ex.Current, owner: object = None
) -> tuple[float, ex.Verdict]:
    t0 = time.perf_counter()
    verdict = ex.check(cell_id, code, current, owner=owner)
    return (time.perf_counter() - t0) * 1e3, verdict


def _class(size: int, current: ex.Current) -> dict:
    """``size`` students press Check on the softmax cell at the same moment."""
    code = ex.BY_ID["softmax"].solution_source()
    done: list[tuple[float, str]] = []
    lock = threading.Lock()

    def student() -> None:
        ms, verdict = _timed("softmax", code, current)
        with lock:
            done.append((ms, verdict.code if verdict.passed else verdict.params.get("error", "")))

    t0 = time.perf_counter()
    threads = [threading.Thread(target=student) for _ in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    wall = time.perf_counter() - t0
    return {
        "students": size,
        "wall_s": wall,
        "checks_per_s": size / wall,
        "latency_ms": summary([ms for ms, _ in done]),
        "verdicts": sorted({code for _, code in done}),
        "answered": len(done),
    }


def _class_with_loops(current: ex.Current, rounds: int) -> dict:
    """CLASS students press Check on the softmax cell at once; every third one's code loops
    forever (LOOPING of them). Each round starts when the last one ended."""
    right = ex.BY_ID["softmax"].solution_source()
    correct: list[float] = []
    looping: list[float] = []
    verdicts: dict[str, set[str]] = {"correct": set(), "looping": set()}
    busy = [0]
    lock = threading.Lock()

    def student(loops: bool) -> None:
        ms, verdict = _timed("softmax", LOOPING_SOFTMAX if loops else right, current)
        code = verdict.code if verdict.code != "error" else str(verdict.params.get("error"))
        with lock:
            (looping if loops else correct).append(ms)
            verdicts["looping" if loops else "correct"].add(code)
            busy[0] += code == "busy" and not loops

    walls = []
    for _ in range(rounds):
        threads = [
            threading.Thread(target=student, args=(i % (CLASS // LOOPING) == 0,))
            for i in range(CLASS)
        ]
        t0 = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=180)
        walls.append(time.perf_counter() - t0)
    return {
        "students": CLASS,
        "looping": LOOPING,
        "rounds": rounds,
        "wall_s": max(walls),
        "correct_ms": summary(correct),
        "looping_ms": summary(looping),
        "verdicts": {k: sorted(v) for k, v in verdicts.items()},
        "busy_correct": busy[0],
    }


def _fresh_behind_loops(current: ex.Current, loops: int = CLASS, rounds: int = 3) -> dict:
    """``loops`` sessions press Check with a loop that never ends; once they hold the queue,
    another session presses Check with correct code: its time to the verdict, each round."""
    right = ex.BY_ID["softmax"].solution_source()
    fresh: list[float] = []
    codes: set[str] = set()
    for r in range(rounds):
        threads = [
            threading.Thread(
                target=_timed, args=("softmax", LOOPING_SOFTMAX, current), kwargs={"owner": k}
            )
            for k in range(loops)
        ]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # every loop has started or waits in the queue
        ms, verdict = _timed("softmax", right, current, owner=f"fresh-{r}")
        fresh.append(ms)
        codes.add(verdict.code)
        for thread in threads:
            thread.join(timeout=300)
    summary_ms = summary(fresh)
    return {"looping": loops, "rounds": rounds, "fresh_ms": summary_ms, "verdicts": sorted(codes)}


def _targets(scenario: dict) -> list[dict]:
    name = f"class of {scenario['students']}, {scenario['looping']} looping: correct verdict"
    latency = scenario["correct_ms"]
    return [
        check(name + ", slowest", latency.get("max"), 3000.0, "ms"),
        context(name + ", median", latency.get("median"), "ms"),
        context(name + ", p95", latency.get("p95"), "ms"),
        check(name + "s told busy", float(scenario["busy_correct"]), 0.0, ""),
        context(
            f"class of {scenario['students']}: looping checks stopped, slowest",
            scenario["looping_ms"].get("max"),
            "ms",
        ),
    ]


def run(quick: bool = False) -> dict:
    repeats = 5 if quick else 15
    cells = []
    for name, setting in SETTINGS.items():
        current = _current(**setting)
        for cell in ex.CELLS:
            times, codes = [], set()
            for _ in range(repeats):
                ms, verdict = _timed(cell.id, cell.solution_source(), current)
                times.append(ms)
                codes.add(verdict.code)
            cells.append(
                {"setting": name, "cell": cell.id, "ms": summary(times), "verdicts": sorted(codes)}
            )
        times = [_timed("qkv", LEARNER_MATMUL, current)[0] for _ in range(repeats)]
        cells.append({"setting": name, "cell": "qkv, learner's triple loop", "ms": summary(times)})
    chapter9 = _current(**SETTINGS["chapter9"])
    classes = [_class(size, chapter9) for size in ((10,) if quick else (10, 30))]
    scenario = _class_with_loops(chapter9, rounds=1 if quick else 3)
    behind = _fresh_behind_loops(chapter9, rounds=1 if quick else 3)
    fresh = f"a fresh correct check behind {behind['looping']} endless loops"
    return {
        "cells": cells,
        "classes": classes,
        "looping_class": scenario,
        "fresh_behind_loops": behind,
        "checks": _targets(scenario)
        + [
            check(fresh + ", slowest", behind["fresh_ms"].get("max"), 2000.0, "ms"),
            context(fresh + ", median", behind["fresh_ms"].get("median"), "ms"),
        ],
        "loadavg": loadavg(),
    }


def render(r: dict) -> list[str]:
    """The section's part of latest.md: each cell's Check, then the classes."""
    out = [
        'One Check (the button of a "Your turn" cell) spawns a sandboxed child process that '
        "runs the learner's function on the page's setting and the hidden cases; checks take "
        "turns, two at a time. Our readable solutions, and a learner's triple-loop matmul; ms "
        "per Check.",
        "",
        "| setting | cell | median | p95 | verdicts |",
        "|---|---|---:|---:|---|",
    ]
    for c in r["cells"]:
        verdicts = ", ".join(c.get("verdicts", [])) or "–"
        out.append(
            f"| {c['setting']} | {c['cell']} | {_p(c['ms'], digits=0)} | "
            f"{_p(c['ms'], 'p95', 0)} | {verdicts} |"
        )
    for k in r["classes"]:
        out.append(
            f"\n{k['students']} students press Check on the softmax cell at the same moment: "
            f"all {k['answered']} verdicts in {k['wall_s']:.2f} s ({k['checks_per_s']:.1f} "
            f"checks/s), median wait {_p(k['latency_ms'], digits=0)} ms, last "
            f"{_p(k['latency_ms'], 'max', 0)} ms; verdicts: {', '.join(k['verdicts'])}."
        )
    k = r.get("looping_class")
    if k:
        out.append(
            f"\n{k['students']} students press Check on the softmax cell at once, {k['looping']} "
            f"of them with a loop that never ends ({k['rounds']} rounds, pooled): the "
            f"{k['correct_ms'].get('n', 0)} correct verdicts in median "
            f"{_p(k['correct_ms'], digits=0)} ms, p95 {_p(k['correct_ms'], 'p95', 0)} ms, "
            f"slowest {_p(k['correct_ms'], 'max', 0)} ms; {k['busy_correct']} told busy; the "
            f"loops stopped ({', '.join(k['verdicts']['looping'])}) within "
            f"{_p(k['looping_ms'], 'max', 0)} ms."
        )
    if b := r.get("fresh_behind_loops"):
        out.append(
            f"\n{b['looping']} sessions press Check with a loop that never ends; then another "
            f"presses Check with correct code ({b['rounds']} rounds): its verdict "
            f"({', '.join(b['verdicts'])}) in median {_p(b['fresh_ms'], digits=0)} ms, slowest "
            f"{_p(b['fresh_ms'], 'max', 0)} ms."
        )
    out.append(f"\nLoad average at the end: {r['loadavg']}.")
    return out
