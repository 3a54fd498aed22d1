"""Class: students following one teacher, on two processes behind nginx, over the SQLite store.

A class is started from this process with the classroom API, on the SQLite file the servers use
(a fresh data folder, ``ATTENTION_LAB_DATA``); N websocket sessions (``Follower``) open
``/softmax?class=<code>`` and follow, answering the page's browser stores (the learner's work and
the class's: an empty copy, a new visitor) and running the poll fragment every time its
``auto_rerun`` message says, as the frontend does: a ``rerun_script`` with the fragment's id and
``is_auto_rerun``, the timers dropped when a full run starts. Then:

- **Idle following**: a minute of nothing; the servers' CPU (both processes and nginx), memory,
  polls answered and the store's statements per second (counted in each server by a
  ``sitecustomize`` of this benchmark on their ``PYTHONPATH``: SQLAlchemy's
  ``before_cursor_execute`` and ``begin`` events, written to a file).
- **The teacher's changes**: the teacher sets a new seed every 5 s, 10 times; for each, the time
  from the store's write to every student's full run that shows the new seed in its seed box
  (the run's ``script_finished``).

Every request goes to 127.0.0.1; every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl

from bench.common import CHAPTER9, check, context, cpu_seconds, loadavg, streamlit_cluster, summary
from bench.wsclient import Session

FINISHED = 0  # ForwardMsg.ScriptFinishedStatus: FINISHED_SUCCESSFULLY
EARLY, FRAGMENT_DONE = 2, 3  # FINISHED_EARLY_FOR_RERUN, FINISHED_FRAGMENT_RUN_SUCCESSFULLY
PROCESSES = 2
TARGET_CHANGE_S = 2.0
TARGET_IDLE_CORE = 0.10
CHANGE_EVERY_S = 5.0
MAX_MESSAGES = 200_000  # per session: a bound on the reader's loop

COUNTER = '''"""The class benchmark's SQL statement counter, loaded by the servers it starts."""
import json, os, threading, time

def _install(folder):
    from sqlalchemy import event
    from sqlalchemy.engine import Engine
    counts = {"select": 0, "write": 0, "other": 0, "transactions": 0}
    def on_execute(conn, cursor, statement, *_):
        word = (statement.split(None, 1) or [""])[0].upper()
        write = word in ("INSERT", "UPDATE", "DELETE")
        counts["select" if word in ("SELECT", "WITH") else "write" if write else "other"] += 1
    event.listen(Engine, "before_cursor_execute", on_execute)
    def on_begin(conn):
        counts["transactions"] += 1
    event.listen(Engine, "begin", on_begin)
    path = os.path.join(folder, f"{os.getpid()}.json")
    def dump():
        while True:
            with open(path + ".tmp", "w") as f:
                json.dump(counts, f)
            os.replace(path + ".tmp", path)
            time.sleep(0.5)
    threading.Thread(target=dump, daemon=True).start()

if os.environ.get("BENCH_SQL_COUNTS"):
    _install(os.environ["BENCH_SQL_COUNTS"])
'''


class Follower(Session):
    """A student's browser on a class link: it reads every message as it comes, answers the
    browser stores, runs the poll fragment on its timer and notes when each seed is shown."""

    def __init__(self, ws_url: str, page: str, query: dict[str, object]) -> None:
        super().__init__(ws_url, page, query)
        self.timers: dict[str, asyncio.Task] = {}
        self.seen: dict[int, float] = {}  # seed -> perf_counter of the first full run showing it
        self.errors: list[str] = []
        self.polls = self.bytes = 0  # fragment runs finished, bytes received
        self.full_run = False
        self.run_seed: int | None = None
        self.ready = asyncio.Event()  # a full run finished and the poll's timer is running
        self.closing = False
        self.shown: list[int] = []  # the seed of every full run, in order

    async def start(self) -> None:
        await self.connect()
        self.values = dict(parse_qsl(self.query_string))
        await self._send(first=True)

    async def _send(self, first: bool = False, fragment: str | None = None) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        self._client_state(msg, first)
        if fragment is not None:
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = True
        await self.ws.send(msg.SerializeToString())

    async def _tick(self, fragment: str, interval: float) -> None:
        """The frontend's setInterval for a fragment's run_every."""
        while True:
            await asyncio.sleep(interval)
            await self._send(fragment=fragment)

    def _stop_timers(self, ids: list[str] | None = None) -> None:
        for fid in list(self.timers) if ids is None else ids:
            task = self.timers.pop(fid, None)
            if task is not None:
                task.cancel()

    async def read(self) -> None:
        """Every message until the socket closes (or the bound): the session's whole life."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        try:
            for _ in range(MAX_MESSAGES):
                data = await self.ws.recv()
                self.bytes += len(data)
                fm = ForwardMsg()
                fm.ParseFromString(data)
                await self._message(fm)
        except Exception as err:  # the socket closed at the end, or a failure to count
            if not self.closing:
                self.errors.append(f"{type(err).__name__}: {err}"[:200])
        finally:
            self._stop_timers()

    async def _message(self, fm) -> None:
        kind = fm.WhichOneof("type")
        if kind == "new_session":
            self.full_run = not fm.metadata.run.fragment_ids
            self.run_fragments = tuple(fm.metadata.run.fragment_ids)
            if self.full_run:
                self._stop_timers()  # a full run: the frontend drops every auto-rerun timer
                self.run_seed = None
        elif kind == "auto_rerun":
            fid, every = fm.auto_rerun.fragment_id, fm.auto_rerun.interval
            if fid and fid not in self.timers:
                self.timers[fid] = asyncio.create_task(self._tick(fid, every))
        elif kind == "stop_auto_rerun":
            self._stop_timers(list(fm.stop_auto_rerun.fragment_ids))
        elif kind == "delta":
            await self._delta_seen(fm)
        elif kind == "page_info_changed":
            self.query_string = fm.page_info_changed.query_string
        elif kind == "navigation":
            self.page_script_hash = fm.navigation.page_script_hash
        elif kind == "script_finished":
            self._ran()
            self._finished(fm.script_finished)
        self._cache(fm)

    async def _delta_seen(self, fm) -> None:
        self._delta(fm, self.errors)
        element = fm.delta.new_element
        if element.WhichOneof("type") == "number_input":
            box = element.number_input
            if box.id == self.widget_ids.get("seed"):
                shown = box.value if box.set_value else self.values.get("seed", box.default)
                self.run_seed = int(float(shown))
                self.values["seed"] = self.run_seed  # the frontend keeps the value it shows
        if self._store_answer(fm):
            await self._send()

    def _finished(self, status: int) -> None:
        if status == FRAGMENT_DONE:
            self.polls += 1
        elif status == FINISHED and self.full_run:
            if self.run_seed is not None:
                self.seen.setdefault(self.run_seed, time.perf_counter())
                self.shown.append(self.run_seed)
            if self.timers:
                self.ready.set()
        elif status != EARLY:
            self.errors.append(f"script_finished status {status}")


def _statements(folder: Path, pids: list[int]) -> dict[str, int]:
    """The SQL statements the servers have executed so far, added up."""
    total: dict[str, int] = {}
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            for k, v in json.loads((folder / f"{pid}.json").read_text()).items():
                total[k] = total.get(k, 0) + v
    return total


@contextlib.contextmanager
def _class_cluster(data: Path, counts: Path) -> Iterator[object]:
    """Two processes behind nginx over the SQLite store in ``data``, counting their SQL."""
    (counts / "sitecustomize.py").write_text(COUNTER)
    env = {
        "ATTENTION_LAB_DATA": str(data),
        "BENCH_SQL_COUNTS": str(counts),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(counts), os.environ.get("PYTHONPATH")])),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
        "ATTENTION_LAB_CLASS_SIZE": "300",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with streamlit_cluster(PROCESSES) as cluster:
            yield cluster
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


async def _open_class(cluster, code: str, n: int) -> tuple[list[Follower], list[asyncio.Task]]:
    """N followers on the class link, one every 50 ms; returns once each follows (or 120 s)."""
    query = {k: CHAPTER9[k] for k in ("text", "d_model", "n_heads")} | {"seed": 0, "class": code}
    followers = [Follower(cluster.ws_url, "softmax", query) for _ in range(n)]
    readers = []
    for f in followers:
        try:
            await f.start()
            readers.append(asyncio.create_task(f.read()))
        except Exception as err:  # a refused connection: counted, the class goes on
            f.errors.append(f"{type(err).__name__}: {err}"[:200])
        await asyncio.sleep(0.05)
    waits = [asyncio.wait_for(f.ready.wait(), 120) for f in followers if f.ws is not None]
    await asyncio.gather(*waits, return_exceptions=True)
    return followers, readers


async def _idle(cluster, followers: list[Follower], counts: Path, seconds: float) -> dict:
    """A minute (or ``seconds``) of following while nothing changes."""
    pids = [s.proc.pid for s in cluster.servers] + [cluster.nginx.pid]
    cpu0 = [cpu_seconds(p) for p in pids]
    sql0, polls0 = _statements(counts, pids), sum(f.polls for f in followers)
    bytes0, rss0 = sum(f.bytes for f in followers), cluster.rss()
    client0, t0 = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - t0
    cpu = [cpu_seconds(p) - c for p, c in zip(pids, cpu0)]
    sql = _statements(counts, pids)
    rss = cluster.rss()
    return {
        "seconds": elapsed,
        "server_cpu_s": cpu,  # each Streamlit process, then nginx
        "core_fraction": sum(cpu) / elapsed,
        "polls_per_s": (sum(f.polls for f in followers) - polls0) / elapsed,
        "kb_per_s": (sum(f.bytes for f in followers) - bytes0) / elapsed / 1024,
        "statements_per_s": {k: (v - sql0.get(k, 0)) / elapsed for k, v in sql.items()},
        "rss_mb_start": rss0.get("VmRSS"),
        "rss_mb_end": rss.get("VmRSS"),
        "rss_hwm_mb": rss.get("VmHWM"),
        "client_cpu_s": time.process_time() - client0,
    }


async def _changes(room, code: str, key: str, followers: list[Follower], n: int) -> dict:
    """The teacher sets a new seed every CHANGE_EVERY_S; each change's time to every screen."""
    live = [f for f in followers if f.ready.is_set()]
    base = {k: str(CHAPTER9[k]) for k in ("text", "d_model", "n_heads", "embeddings")}
    starts: dict[int, float] = {}
    for i in range(n):
        seed = 5000 + i
        t0 = time.perf_counter()
        starts[seed] = t0
        await asyncio.to_thread(
            room.set_teacher_state, code, key, "softmax", base | {"seed": str(seed)}
        )
        await asyncio.sleep(max(0.0, t0 + CHANGE_EVERY_S - time.perf_counter()))
    deadline = time.perf_counter() + 15.0  # the last change's stragglers
    while time.perf_counter() < deadline and any(s not in f.seen for f in live for s in starts):
        await asyncio.sleep(0.1)
    every, each, missed = [], [], 0
    for seed, t0 in starts.items():
        times = [f.seen[seed] - t0 for f in live if seed in f.seen]
        missed += len(live) - len(times)
        each += times
        if len(times) == len(live) and times:
            every.append(max(times))
    return {
        "changes": n,
        "students": len(live),
        "all_students_s": summary(every),  # per change: until the last student shows it
        "per_student_s": summary(each),
        "missed": missed,
        # students whose poll timer is gone: a full run cut short left them without the poll
        "stalled": sum(not f.timers for f in live),
    }


async def _class_run(cluster, room, counts: Path, n: int, idle_s: float, changes: int) -> dict:
    code, key = await asyncio.to_thread(
        room.start_class, "softmax", {"seed": "0", "text": str(CHAPTER9["text"])}
    )
    rss_before = cluster.rss().get("VmRSS")
    t0 = time.perf_counter()
    followers, readers = await _open_class(cluster, code, n)
    joined_s = time.perf_counter() - t0
    await asyncio.sleep(3.0)  # the joins' writes and the first heartbeats settle
    idle = await _idle(cluster, followers, counts, idle_s)
    moved = await _changes(room, code, key, followers, changes)
    for f in followers:
        f.closing = True
        with contextlib.suppress(Exception):
            await f.close()
    for r in readers:
        r.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    errors = [e for f in followers for e in f.errors]
    return {
        "students": n,
        "following": sum(f.ready.is_set() for f in followers),
        "join_s": joined_s,
        "rss_mb_before_class": rss_before,
        "idle": idle,
        "changes": moved,
        "errors": len(errors),
        "error_samples": sorted(set(errors))[:5],
    }


def run(quick: bool = False) -> dict:
    """One class on a fresh cluster and a fresh store."""
    from classroom import Classes

    n, idle_s, changes = (30, 20.0, 4) if quick else (100, 60.0, 10)
    with tempfile.TemporaryDirectory(prefix="attention-lab-class.") as tmp:
        data, counts = Path(tmp) / "data", Path(tmp) / "counts"
        data.mkdir()
        counts.mkdir()
        room = Classes(store=f"sqlite:///{data / 'classes.sqlite'}")
        with _class_cluster(data, counts) as cluster:
            out = asyncio.run(_class_run(cluster, room, counts, n, idle_s, changes))
        room.store.dispose()
    out |= {"processes": PROCESSES, "loadavg": loadavg()}
    out["checks"] = _checks(out)
    return out


def _checks(r: dict) -> list[dict]:
    n, idle, moved = r["students"], r["idle"], r["changes"]
    sql = idle["statements_per_s"]
    return [
        check(
            f"class of {n} on {r['processes']} processes: teacher's change to a student's "
            "screen (p95 over students and changes)",
            moved["per_student_s"].get("p95"),
            TARGET_CHANGE_S,
            "s",
        ),
        context(
            f"class of {n}: changes seen by every student", moved["all_students_s"].get("n"), ""
        ),
        check(
            f"class of {n}: idle following, server CPU (fraction of one core)",
            idle["core_fraction"],
            TARGET_IDLE_CORE,
            "",
        ),
        context(f"class of {n}: store SELECTs per second while idle", sql.get("select"), "/s"),
        check(f"class of {n}: errors", r["errors"] + moved["missed"], 0, ""),
    ]


def render(r: dict) -> list[str]:
    """The class section of latest.md."""
    idle, moved = r["idle"], r["changes"]
    sql = idle["statements_per_s"]
    cpu = ", ".join(f"{c:.2f}" for c in idle["server_cpu_s"])
    every, each = moved["all_students_s"], moved["per_student_s"]
    s = lambda d, k: "–" if d.get(k) is None else f"{d[k]:.2f}"  # noqa: E731

    return [
        f"{r['students']} websocket students on `/softmax?class=<code>`, {r['processes']} "
        "Streamlit processes behind nginx (`deploy/nginx.conf.template`), a fresh SQLite class "
        "store; the class started with the classroom API from the benchmark's process. Each "
        "student answers the browser stores and runs the poll fragment on its `auto_rerun` "
        f"timer, as the frontend does. {r['following']} of them followed after "
        f"{r['join_s']:.1f} s.",
        "",
        f"- idle following, {idle['seconds']:.0f} s: server CPU {idle['core_fraction']:.3f} of "
        f"one core (CPU s per process, then nginx: {cpu}); {idle['polls_per_s']:.1f} polls "
        f"answered/s, {idle['kb_per_s']:.1f} kB/s to the students; store statements/s: "
        f"{sql.get('select', 0):.2f} SELECT, {sql.get('write', 0):.2f} INSERT/UPDATE/DELETE, "
        f"{sql.get('transactions', 0):.2f} transactions (both processes).",
        f"- memory (both processes and nginx): {r['rss_mb_before_class'] or 0:.0f} MB before "
        f"the class, {idle['rss_mb_start'] or 0:.0f} MB with the class following, "
        f"{idle['rss_mb_end'] or 0:.0f} MB a minute later (peak {idle['rss_hwm_mb'] or 0:.0f}).",
        f"- the teacher's seed, {moved['changes']} changes {CHANGE_EVERY_S:.0f} s apart, from "
        "the store's write to every student's full run showing it: median "
        f"{s(every, 'median')} s, p95 {s(every, 'p95')} s, slowest {s(every, 'max')} s; per "
        f"student: median {s(each, 'median')} s, p95 {s(each, 'p95')} s "
        f"({moved['missed']} missed; {moved.get('stalled', 0)} students no longer polling at "
        "the end: a full run cut short left them without the poll's timer).",
        f"- errors: {r['errors']}"
        + (f" ({'; '.join(r['error_samples'])})" if r["error_samples"] else "")
        + f"; load average {r['loadavg']}.",
    ]
