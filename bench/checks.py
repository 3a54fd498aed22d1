"""The exercise checker: how long one Check takes, and a class pressing Check at once.

Each Check spawns one child process (the sandbox worker) that runs the learner's function on the
current setting and the hidden cases; at most two run at once per server. Measured through
``exercises.check``, the function the Check button calls, with our readable solutions and
a learner-style triple-loop matmul at chapter 9's preset and at the largest setting.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import exercises as ex
import llm
from bench.common import loadavg, summary

LEARNER_MATMUL = """
def matmul(x, w):
    out = [[0.0] * len(w[0]) for _ in range(len(x))]
    for i in range(len(x)):
        for j in range(len(w[0])):
            for k in range(len(w)):
                out[i][j] += x[i][k] * w[k][j]
    return out
"""
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


def _timed(cell_id: str, code: str, current: ex.Current) -> tuple[float, ex.Verdict]:
    t0 = time.perf_counter()
    verdict = ex.check(cell_id, code, current)
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
    return {"cells": cells, "classes": classes, "loadavg": loadavg()}
