"""What every benchmark shares: statistics, the machine's state, and a local Streamlit server.

Benchmarks measure; they never pass or fail. Each result carries the load average of the machine
when it was taken, so a noisy number can be told from a slow one.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from deploy.static_assets import prepare as prepare_static

ROOT = Path(__file__).resolve().parents[1]  # the project: app.py, pages/, .streamlit/
PORTS = range(8800, 8850)  # the only ports a benchmark server may take
HOST = "127.0.0.1"  # every request stays on this machine

CHAPTER9 = {"d_model": 8, "n_heads": 4, "embeddings": "seeded", "text": "the cat sat on mat"}
# the link a benchmark's visitor opens a page with: chapter 9's sentence and sizes, seed 0
CHAPTER9_LINK = {k: CHAPTER9[k] for k in ("text", "d_model", "n_heads")} | {"seed": 0}
# the largest sublayer the sidebar offers: d_model 64, 16 heads, a 32-token sentence
LARGEST_TEXT = (
    "the cat sat on the mat and the dog lay by the door while a bird sang in the old tree "
    "as the sun rose over the quiet little town today ."
)
LARGEST = {"d_model": 64, "n_heads": 16, "embeddings": "seeded", "text": LARGEST_TEXT}
PRESETS = {"chapter9": CHAPTER9, "largest": LARGEST}


def summary(values: Sequence[float]) -> dict[str, float]:
    """Median, p95 (linear interpolation), min, max and count of a sample."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return {"n": 0}
    return {
        "n": int(a.size),
        "median": float(np.median(a)),
        "p95": float(np.percentile(a, 95)),
        "min": float(a.min()),
        "max": float(a.max()),
    }


def loadavg() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded."""
    return [round(v, 2) for v in os.getloadavg()]


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:  # an optional package that is absent
        return None


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
        return out.stdout.strip()
    except OSError:
        return ""


def machine() -> dict[str, object]:
    """The machine and software a result was measured on (threadpoolctl's view when installed)."""
    info: dict[str, object] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_start": loadavg(),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "dirty_files": len(_git("status", "--porcelain").splitlines()),
        "env": {
            k: os.environ[k]
            for k in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
            if k in os.environ
        },
        "versions": {
            m: _version(m)
            for m in ("numpy", "streamlit", "plotly", "pandas", "torch", "playwright")
        },
    }
    try:
        from threadpoolctl import threadpool_info

        info["threadpools"] = [
            {k: p.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
            for p in threadpool_info()
        ]
    except ImportError:
        info["threadpools"] = "threadpoolctl not installed"
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        info["cpu_model"] = names[0] if names else None
    except OSError:
        pass
    return info


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory of a process now (VmRSS) and at its peak so far (VmHWM), in MB."""
    out: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(rest.split()[0]) / 1024.0
    except OSError:
        pass
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used, in seconds (from /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def worker_ports(ports: range) -> range:
    """This process's share of ``ports``: under pytest-xdist, worker gwN of M takes the N-th of
    M equal slices, so that two test workers never try the same port; alone, all of them."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count <= 1:
        return ports
    width = max(len(ports) // count, 1)
    start = ports.start + (int(worker[2:]) * width) % len(ports)
    return range(start, min(start + width, ports.stop))


def free_port(exclude: Sequence[int] = ()) -> int:
    """A free port in 8800-8849 on 127.0.0.1 (in this test worker's share of them)."""
    for port in worker_ports(PORTS):
        if port in exclude:
            continue
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 8800-8849")


class Addresses:
    """The page and websocket addresses of whatever listens on ``self.port``."""

    port: int

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}/_stcore/stream"


@dataclass
class Server(Addresses):
    """A Streamlit server of this project on 127.0.0.1, run with its own .streamlit/config.toml."""

    port: int
    proc: subprocess.Popen
    started_s: float  # from launch to the first healthy answer
    log: Path
    extra: list[str] = field(default_factory=list)

    def rss(self) -> dict[str, float]:
        return rss_mb(self.proc.pid)

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


@contextmanager
def streamlit_server(
    extra: Sequence[str] = (), timeout: float = 60.0, root: Path = ROOT
) -> Iterator[Server]:
    """Start ``streamlit run app.py`` from the project root (or another checkout of it, ``root``)
    on a free port; always stop it."""
    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"attention-lab-bench-{port}.log"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.address",
        HOST,
        "--server.port",
        str(port),
        *extra,
    ]
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(port, proc, t0, timeout, "streamlit", log)
        yield Server(port, proc, time.perf_counter() - t0, log, list(extra))
    finally:
        _stop(proc)


def _wait_healthy(
    port: int, proc: subprocess.Popen, t0: float, timeout: float, name: str, log: Path
) -> None:
    """Poll /_stcore/health on ``port`` until it answers; fail if ``proc`` dies or time runs out."""
    url = f"http://{HOST}:{port}"
    _wait_until(lambda: _healthy(url), proc, t0, timeout, f"{name} not healthy", log)


def _listening(port: int) -> bool:
    try:
        socket.create_connection((HOST, port), timeout=1).close()
        return True
    except OSError:
        return False


def _wait_until(
    ready: Callable[[], bool], proc: subprocess.Popen, t0: float, timeout: float, what: str, log
) -> None:
    """Poll ``ready()`` until it is true; fail if ``proc`` dies or ``timeout`` s pass after t0."""
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"{what}: exited with {proc.returncode}; see {log}")
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"{what} after {timeout} s; see {log}")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@dataclass
class Cluster(Addresses):
    """Several Streamlit servers of this project behind nginx (deploy/nginx.conf.template)."""

    port: int
    servers: list[Server]
    nginx: subprocess.Popen

    def rss(self) -> dict[str, float]:
        """Resident memory of every process added up (Streamlit servers and nginx)."""
        total: dict[str, float] = {}
        for pid in [s.proc.pid for s in self.servers] + [self.nginx.pid]:
            for key, value in rss_mb(pid).items():
                total[key] = total.get(key, 0.0) + value
        return total

    def cpu(self) -> float:
        return sum(cpu_seconds(p) for p in [s.proc.pid for s in self.servers] + [self.nginx.pid])


def nginx_config(port: int, backends: Sequence[int], prefix: Path) -> str:
    """deploy/nginx.conf.template filled in, as scripts/serve.sh fills it."""
    text = (ROOT / "deploy" / "nginx.conf.template").read_text()
    upstreams = "".join(f"        server {HOST}:{b};\n" for b in backends).rstrip("\n")
    lines = [upstreams if line == "@UPSTREAMS@" else line for line in text.splitlines()]
    text = "\n".join(lines) + "\n"
    return (
        text.replace("@ADDRESS@", HOST)
        .replace("@PORT@", str(port))
        .replace("@PREFIX@", str(prefix))
        .replace("@WORKERS@", "1")
    )


def nginx_path() -> str | None:
    """nginx's program, on the PATH or where Debian puts it (/usr/sbin, off a user's PATH)."""
    import shutil

    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if os.access(found, os.X_OK) else None


@contextmanager
def running_nginx(
    port: int, backends: Sequence[int], prefix: Path, timeout: float = 10.0
) -> Iterator[subprocess.Popen]:
    """nginx with deploy/nginx.conf.template, its working folder ``prefix``, listening on
    ``port`` in front of ``backends``: yielded once it takes connections, always stopped."""
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_config(port, backends, prefix))
    proc = subprocess.Popen(
        # -e: nginx's start-up log in the working folder too (its default path is root's)
        [nginx_path() or "nginx", "-p", str(prefix), "-e", str(prefix / "error.log")]
        + ["-c", str(conf)],  # nginx not installed: Popen says so
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        t0 = time.perf_counter()
        _wait_until(lambda: _listening(port), proc, t0, timeout, "nginx not listening", prefix)
        yield proc
    finally:
        _stop(proc)


@contextmanager
def streamlit_cluster(processes: int, timeout: float = 60.0) -> Iterator[Cluster]:
    """``processes`` servers behind nginx with sticky sessions; always stop them all."""
    import tempfile
    from contextlib import ExitStack

    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="attention-lab-nginx.") as tmp:
        servers = [stack.enter_context(streamlit_server()) for _ in range(processes)]
        port = free_port(exclude=[s.port for s in servers])
        prefix = Path(tmp)
        prepare_static(prefix / "static")  # as scripts/serve.sh does, readable by nginx's workers
        prefix.chmod(0o711)
        t0 = time.perf_counter()
        with running_nginx(port, [s.port for s in servers], prefix, timeout) as proc:
            _wait_healthy(port, proc, t0, timeout, "nginx", prefix)
            yield Cluster(port, servers, proc)


def page_files() -> list[Path]:
    """app.py and every lesson page, in the order of their numbers (9 before 10)."""
    pages = (ROOT / "pages").glob("[0-9]*_*.py")
    return [ROOT / "app.py", *sorted(pages, key=lambda path: int(path.name.split("_")[0]))]


def page_slug(path: Path) -> str:
    """The URL path of a page file: pages/5_heads.py -> heads, app.py -> '' (the home page)."""
    return "" if path.name == "app.py" else path.stem.split("_", 1)[1]


def check(name: str, value: float | None, target: float, unit: str, lower_is_better: bool = True):
    """One result against its target: {'name', 'value', 'target', 'unit', 'met'}."""
    met = None
    if value is not None and np.isfinite(value):
        met = value <= target if lower_is_better else value >= target
    return {
        "name": name,
        "value": value,
        "target": target,
        "unit": unit,
        "op": "<=" if lower_is_better else ">=",
        "met": met,
    }


def context(name: str, value: float | None, unit: str) -> dict:
    """A result reported beside the targets without one of its own: ``check``'s fields, with
    no target and ``met`` None."""
    return {"name": name, "value": value, "target": None, "unit": unit, "op": "", "met": None}


def dump_json(obj: object, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, default=_jsonable) + "\n")
    tmp.replace(path)


def _jsonable(o: object) -> object:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)


def shown(stats: dict | None, key: str = "median", digits: int = 1) -> str:
    """A statistic of ``summary`` as a report writes it ("–" when it is missing)."""
    if not stats or stats.get(key) is None:
        return "–"
    return f"{stats[key]:.{digits}f}"


def has_control(at, key: str) -> bool:
    """Whether the page shows a number input ``key``: the frame keeps every shared control in
    its place but hides those a page does not use (``ui.frame.shared.unused_css``: /learned
    shows no seed), and a hidden one is no control of that page."""
    selector = f".st-key-{key}"
    hidden = any(
        f"{selector}," in body or f"{selector} {{" in body
        for body in (element.proto.body for element in at.get("html"))
        if 'id="unused-settings"' in body
    )
    return not hidden and any(widget.key == key for widget in at.number_input)
