"""What the lab makes on the machine: commands, namespaces, processes, what is left, SIGTERM.

Every name the lab gives starts with a fixed prefix, so that what an earlier run left (after a
crash or a kill) is found and removed by the next one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HAPROXY = "/usr/sbin/haproxy"
NAMESPACE_PREFIX = "lab-h"  # lab-hA, lab-hB, ...: the hosts' namespaces
LB_NAMESPACE = "lab-lb"  # HAProxy's, the lab's browser's and its services' namespace
LINK_PREFIX = "lab-v"  # lab-vA, ... inside lab-lb; lab-vA-in inside lab-hA; none in the root one
TEMP_PREFIX = "lab-hosts-"  # the working folder in /tmp: configs, logs, HAProxy's socket


class LabUnavailable(RuntimeError):
    """What the machine lacks to run the hosts (ip, haproxy, root), said plainly."""


def run_command(*command: str, check: bool = True) -> str:
    """Run a command; its stdout. A failure raises with the command and what it said."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    if check and done.returncode != 0:
        raise LabUnavailable(f"`{' '.join(command)}` failed: {done.stderr.strip()}")
    return done.stdout


def require_tools() -> None:
    """Fail with a clear message when ``ip netns``, HAProxy or root is missing."""
    if shutil.which("ip") is None:
        raise LabUnavailable("`ip` is missing: apt-get install iproute2")
    if not os.access(HAPROXY, os.X_OK):
        raise LabUnavailable(f"{HAPROXY} is missing: apt-get install haproxy")
    if os.geteuid() != 0:
        raise LabUnavailable("network namespaces need root (ip netns add)")
    if shutil.which("taskset") is None:
        raise LabUnavailable("`taskset` is missing: apt-get install util-linux")


def namespaces(prefix: str = "lab-") -> list[str]:
    """The network namespaces whose name starts with ``prefix``."""
    listed = run_command("ip", "netns", "list").splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    return [n for n in names if n.startswith(prefix)]


def links(prefix: str = LINK_PREFIX) -> list[str]:
    """The links of the root namespace whose name starts with ``prefix``."""
    names = [
        line.split(":")[1].strip().split("@")[0]
        for line in run_command("ip", "-o", "link", "show").splitlines()
    ]
    return [n for n in names if n.startswith(prefix)]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


# what only the lab's own processes say on their command line: HAProxy's working folder, and
# the hosts' addresses (198.18.N.2); a server another test of this worker runs is not the lab's
LAB_MARKS = (TEMP_PREFIX, "--server.address 198.18.")


def children(marks: tuple[str, ...] = LAB_MARKS) -> list[str]:
    """This process's living children whose command line holds one of ``marks``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError):
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            line = cmdline(int(entry.name))
            if int(stat[1]) == os.getpid() and stat[0] != "Z" and any(m in line for m in marks):
                found.append(f"{entry.name}: {line}")
    return found


def leftovers() -> list[str]:
    """What a lab leaves behind if its teardown failed: namespaces (the hosts' and lab-lb),
    links in the root namespace, child processes."""
    return (
        [f"namespace {n}" for n in namespaces()]
        + [f"link {n}" for n in links()]
        + [f"process {p}" for p in children()]
    )


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def clear_namespace(name: str) -> None:
    """SIGKILL to every process still in the namespace, then delete it (its links go with it,
    and their peers in the other namespaces)."""
    for pid in run_command("ip", "netns", "pids", name, check=False).split():
        _kill(int(pid))
    run_command("ip", "netns", "delete", name, check=False)


OWNER = "owner.pid"  # in a lab's folder: the process whose lab it is


def running_owner() -> int | None:
    """The process of a lab that runs now (its folder's OWNER alive), if any: the namespaces'
    names are fixed, so a second lab would tear the first one down under its tests."""
    for folder in Path(tempfile.gettempdir()).glob(TEMP_PREFIX + "*"):
        with contextlib.suppress(OSError, ValueError):
            pid = int((folder / OWNER).read_text())
            if pid != os.getpid() and "python" in cmdline(pid):
                return pid
    return None


def clean_stale() -> None:
    """Remove what an earlier run left: processes in our namespaces, the namespaces, links of
    ours in the root namespace (from an older lab), HAProxy started from an old working folder,
    and the folders. A lab that still runs (``running_owner``) is refused, never removed."""
    if (owner := running_owner()) is not None:
        raise LabUnavailable(f"another run's lab is up (process {owner}): one lab at a time")
    for name in namespaces(NAMESPACE_PREFIX) + namespaces(LB_NAMESPACE):
        clear_namespace(name)
    for name in links():
        run_command("ip", "link", "delete", name, check=False)
    for folder in Path(tempfile.gettempdir()).glob(TEMP_PREFIX + "*"):
        pid_file = folder / "haproxy.pid"
        with contextlib.suppress(OSError, ValueError):
            pid = int(pid_file.read_text())
            if "haproxy" in cmdline(pid) and str(folder) in cmdline(pid):
                _kill(pid)
        shutil.rmtree(folder, ignore_errors=True)


def http_get(url: str, timeout: float = 3.0) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lowercase names, body) of a GET; status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            headers = {k.lower(): v for k, v in response.headers.items()}
            return response.status, headers, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, b""
    except OSError:
        return 0, {}, b""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def app_python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def stop_process(
    process: subprocess.Popen, timeout: float = 15.0, first: int = signal.SIGTERM
) -> None:
    """``first`` (SIGTERM) to the process group, SIGKILL if it is still there after
    ``timeout``."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, first)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=timeout)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While the lab runs, SIGTERM (a test runner or CI stopping the run) interrupts like Ctrl+C,
    so that the teardown runs too; the handler before is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
