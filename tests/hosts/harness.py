"""Several app hosts, each in its own network namespace, behind HAProxy: start, stop, tear down.

Host ``A`` is namespace ``lab-hA`` with a veth pair: ``lab-vA`` in the balancer's namespace
``lab-lb`` holds 198.18.1.1/30, its peer in the host 198.18.1.2/30 (B is 198.18.2.x, C 198.18.3.x:
the benchmarking range, 198.18.0.0/15, which no real network uses). Each host runs the app as one
``streamlit run`` on port 8501 of its own address, optionally pinned to cores with ``taskset``.
HAProxy (deploy/haproxy.cfg.template) runs in ``lab-lb``, listens on its 127.0.0.1 and names the
host of every response in ``X-Lab-Host``; whatever talks to it runs in ``lab-lb`` too: the
browser (``Lab.chromium``), Python calls (``Lab.in_lb``), services the hosts use, such as
PostgreSQL on the hosts' gateways (``Lab.run_in_lb``). The root namespace's links and addresses
never change (tests/hosts/network.py). ``hosts_lab`` always removes everything it made, and first
what an earlier run left behind (the same fixed names): processes, namespaces, temporary files.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tests.hosts.machine import (
    HAPROXY,
    LB_NAMESPACE,
    LINK_PREFIX,
    NAMESPACE_PREFIX,
    OWNER,
    ROOT,
    TEMP_PREFIX,
    LabUnavailable,
    app_python,
    clean_stale,
    clear_namespace,
    free_port,
    http_get,
    leftovers,
    require_tools,
    sigterm_interrupts,
    stop_process,
)
from tests.hosts.network import (
    NamespaceThread,
    in_namespace,
    links_and_addresses,
    make_balancer_namespace,
    make_host_namespace,
)

__all__ = ["Host", "Lab", "LabUnavailable", "hosts_lab", "http_get", "leftovers", "require_tools"]
__all__ += ["LB_NAMESPACE", "links_and_addresses"]

TEMPLATE = ROOT / "deploy" / "haproxy.cfg.template"
APP_PORT = 8501
STARTUP_S = 120.0  # a cold start imports numpy, pandas and plotly; three at once on two cores
COOKIE_LINE = "    cookie SERVERID insert indirect nocache httponly"
CHROMIUM = "/usr/bin/chromium"
T = TypeVar("T")


def render_config(
    address: str, port: int, servers: list[tuple[str, str]], run: Path, sticky: bool = True
) -> str:
    """deploy/haproxy.cfg.template filled in: ``servers`` as (name, "address:port"); without
    ``sticky`` no cookie line, so that each request may reach another host."""
    lines = []
    for line in TEMPLATE.read_text().splitlines():
        if line == "@COOKIE@":
            lines += [COOKIE_LINE] if sticky else []
        elif line == "@SERVERS@":
            cookie = " cookie {}" if sticky else ""
            lines += [f"    server {n} {a} check{cookie.format(n)}" for n, a in servers]
        elif not line.startswith("#"):
            lines.append(line.replace("@ADDRESS@", address).replace("@PORT@", str(port)))
    text = "\n".join(lines) + "\n"
    return text.replace("global\n", f"global\n    stats socket {run}/admin.sock mode 600\n", 1)


@dataclass
class Host:
    """One app host: its namespace, its link, its Streamlit process."""

    name: str  # "A"
    index: int  # 1 for A: its addresses are 198.18.1.x
    cpus: str | None = None  # taskset's list, "0" or "0,1"; None: not pinned
    process: subprocess.Popen | None = None
    secret: str = ""
    env: dict[str, str] = field(default_factory=dict)  # what it got beyond the lab's own

    @property
    def namespace(self) -> str:
        return f"{NAMESPACE_PREFIX}{self.name}"

    @property
    def link(self) -> str:
        return f"{LINK_PREFIX}{self.name}"

    @property
    def gateway(self) -> str:
        """``lab-lb``'s address facing this host: where the host reaches the lab's services."""
        return f"198.18.{self.index}.1"

    @property
    def address(self) -> str:
        return f"198.18.{self.index}.2"

    @property
    def server(self) -> str:
        """Its name in HAProxy, in X-Lab-Host and in the SERVERID cookie."""
        return f"h{self.name}"

    @property
    def url(self) -> str:
        return f"http://{self.address}:{APP_PORT}"

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class Lab:
    """The hosts, HAProxy in front, and the folder that holds their configs and logs."""

    names: str = "ABC"
    cpus: Mapping[str, str] = field(default_factory=dict)  # host name -> taskset's cores
    env: Mapping[str, str] = field(default_factory=dict)  # for every host; {gateway} filled in
    secret: str = field(default_factory=lambda: os.urandom(16).hex())
    balancer_cpus: str | None = None
    hosts: dict[str, Host] = field(default_factory=dict)
    folder: Path = field(default_factory=Path)
    port: int = 0
    sticky: bool = True
    balancer: subprocess.Popen | None = None
    services: dict[str, tuple[subprocess.Popen, int]] = field(default_factory=dict)  # run_in_lb
    root_before: list[str] = field(default_factory=list)  # the root namespace's links, addresses
    lb_before: list[str] = field(default_factory=list)  # lab-lb's, once every host's link is up
    lb_thread: NamespaceThread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """HAProxy's log: one line per request, ``client backend/server status method uri
        "cookie"``, and a line for every host that goes down or comes back."""
        return self.folder / "haproxy.log"

    @property
    def chromium(self) -> Path:
        """A chromium that runs in ``lab-lb``: playwright's ``executable_path`` (its pipes,
        the DevTools protocol among them, pass through ``ip netns exec``)."""
        return self.folder / "chromium-in-lb"

    def host_log(self, name: str) -> Path:
        return self.folder / f"streamlit-{name}.log"

    def start(self) -> None:
        """Make the namespaces, start every host and HAProxy; wait until all answer."""
        require_tools()
        clean_stale()
        self.root_before = links_and_addresses()
        self.folder = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
        self.folder.chmod(0o700)
        (self.folder / OWNER).write_text(str(os.getpid()))
        make_balancer_namespace()
        self.lb_thread = NamespaceThread(LB_NAMESPACE)
        self.chromium.write_text(f'#!/bin/sh\nexec {" ".join(in_namespace([CHROMIUM]))} "$@"\n')
        self.chromium.chmod(0o700)
        for index, name in enumerate(self.names, start=1):
            host = self.hosts[name] = Host(name, index, self.cpus.get(name))
            make_host_namespace(host.namespace, host.link, host.gateway, host.address)
        self.lb_before = links_and_addresses(LB_NAMESPACE)
        for name in self.names:
            self.start_host(name, wait=False)
        for name in self.names:
            self.wait_healthy(name)
        self.start_balancer(self.sticky)

    def in_lb(self, function: Callable[..., T], *args: object) -> T:
        """``function(*args)`` run in a thread inside ``lab-lb``: the sockets it opens (to
        HAProxy, to a host, a listener on a gateway) are that namespace's."""
        if self.lb_thread is None:
            raise RuntimeError("the lab is not started")
        return self.lb_thread.call(function, *args)

    def run_in_lb(
        self,
        command: Sequence[str],
        name: str,
        env: Mapping[str, str] | None = None,
        stdout: int | None = None,
        stop_signal: int = signal.SIGTERM,
    ) -> subprocess.Popen:
        """Start ``command`` inside ``lab-lb`` (a service for the hosts: it may listen on
        their gateways, ``Host.gateway``), in its own process group, its output in
        ``folder/name.log`` unless ``stdout`` (``subprocess.PIPE``) says otherwise. The lab
        stops it after the hosts when it closes, if it still runs, with ``stop_signal``
        (SIGINT for PostgreSQL's fast shutdown); ``stop_service(name)`` stops it before."""
        if name in self.services and self.services[name][0].poll() is None:
            raise RuntimeError(f"service {name} is already running")
        with (self.folder / f"{name}.log").open("a") as log:
            process = subprocess.Popen(
                in_namespace(list(command)),
                env=os.environ | dict(env or {}),
                stdout=log if stdout is None else stdout,
                stderr=subprocess.STDOUT if stdout is None else None,
                text=stdout is not None,
                start_new_session=True,
            )
        self.services[name] = (process, stop_signal)
        return process

    def stop_service(self, name: str) -> None:
        """Its stop signal to a service's process group (SIGKILL if it stays)."""
        process, stop_signal = self.services.pop(name, (None, signal.SIGTERM))
        if process is not None:
            stop_process(process, first=stop_signal)

    def host_env(self, host: Host) -> dict[str, str]:
        """The host's environment: this one's, the cookie secret, the lab's ``env`` and the
        host's own, with ``{gateway}`` replaced by ``lab-lb``'s address facing the host."""
        given = {**self.env, **host.env}
        extra = {k: v.replace("{gateway}", host.gateway) for k, v in given.items()}
        return os.environ | {
            "STREAMLIT_SERVER_COOKIE_SECRET": host.secret,
            "OPENBLAS_NUM_THREADS": "1",
            **extra,
        }

    def start_host(
        self,
        name: str,
        secret: str | None = None,
        env: Mapping[str, str] | None = None,
        wait: bool = True,
    ) -> Host:
        """Start the host's app (with another cookie secret, or more environment, if given);
        wait until it is healthy unless ``wait`` is False."""
        host = self.hosts[name]
        if host.running():
            raise RuntimeError(f"host {name} is already running")
        host.secret, host.env = secret or self.secret, dict(env or {})
        pin = ["taskset", "-c", host.cpus] if host.cpus else []
        command = in_namespace([*pin, app_python(), "-m", "streamlit"], host.namespace)
        command += ["run", "app.py", "--server.address", host.address]
        command += ["--server.port", str(APP_PORT), "--server.headless", "true"]
        with self.host_log(name).open("a") as out:
            host.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.host_env(host),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if wait:
            self.wait_healthy(name)
        return host

    def wait_healthy(self, name: str, timeout: float = STARTUP_S) -> None:
        host = self.hosts[name]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if host.process is None or host.process.poll() is not None:
                tail = self.host_log(name).read_text()[-3000:]
                raise RuntimeError(f"host {name} exited early:\n{tail}")
            if self.in_lb(http_get, host.url + "/_stcore/health", 2)[0] == 200:
                return
            time.sleep(0.3)
        raise RuntimeError(f"host {name} not healthy after {timeout} s")

    def stop_host(self, name: str) -> None:
        """SIGTERM to the host's app (its process group): HAProxy's checks then find nothing
        listening on its address. Its link stays up: a link going down or up in ``lab-lb``
        makes the lab's chromium there drop its connections (ERR_NETWORK_CHANGED)."""
        host = self.hosts[name]
        if host.process is not None:
            stop_process(host.process)
            host.process = None

    def start_balancer(self, sticky: bool = True) -> None:
        """(Re)start HAProxy in ``lab-lb``, with the cookie stickiness or without; wait until
        it takes connections and sees every running host up."""
        self.stop_balancer()
        self.sticky = sticky
        self.port = self.in_lb(free_port)
        servers = [(h.server, f"{h.address}:{APP_PORT}") for h in self.hosts.values()]
        config = self.folder / "haproxy.cfg"
        config.write_text(render_config("127.0.0.1", self.port, servers, self.folder, sticky))
        pin = ["taskset", "-c", self.balancer_cpus] if self.balancer_cpus else []
        with self.log.open("a") as out:
            self.balancer = subprocess.Popen(
                in_namespace([*pin, HAPROXY, "-db", "-f", str(config)]),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        (self.folder / "haproxy.pid").write_text(str(self.balancer.pid))
        self.wait_balancer({h.server for h in self.hosts.values() if h.running()})

    def stop_balancer(self) -> None:
        if self.balancer is not None:
            stop_process(self.balancer)
            self.balancer = None

    def states(self) -> dict[str, str]:
        """HAProxy's view of every host: server name -> "UP", "DOWN", ... ({} if it does not
        answer yet)."""
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(3)
                sock.connect(str(self.folder / "admin.sock"))
                sock.sendall(b"show stat\n")
                data = b"".join(iter(lambda: sock.recv(65536), b""))
        except OSError:
            return {}
        rows = csv.DictReader(io.StringIO(data.decode().lstrip("# ")))
        return {r["svname"]: r["status"] for r in rows if r["svname"].startswith("h")}

    def wait_balancer(self, up: set[str], timeout: float = 30.0) -> None:
        """Wait until HAProxy reports the hosts ``up`` as UP and every other one as DOWN."""
        deadline = time.monotonic() + timeout
        seen: dict[str, str] = {}
        while time.monotonic() < deadline:
            if self.balancer is None or self.balancer.poll() is not None:
                raise RuntimeError(f"haproxy exited:\n{self.log.read_text()[-3000:]}")
            seen = self.states()
            wanted = {s: "UP" if s in up else "DOWN" for s in seen}
            if seen and seen == wanted:
                return
            time.sleep(0.2)
        raise RuntimeError(f"haproxy never saw {sorted(up)} up: {seen}")

    def log_lines(self) -> list[list[str]]:
        """HAProxy's request lines, split: [client, backend/server, status, method, uri, cookie]."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [line.split(" ", 5) for line in lines if line.startswith("127.0.0.1 ")]

    def reset(self) -> None:
        """Back to the starting state: every host running with the lab's secret, HAProxy sticky."""
        for name, host in self.hosts.items():
            if host.running() and (host.secret != self.secret or host.env):
                self.stop_host(name)
            if not host.running():
                self.start_host(name)
        if not self.sticky or self.balancer is None or self.balancer.poll() is not None:
            self.start_balancer(True)
        self.wait_balancer({h.server for h in self.hosts.values()})

    def close(self) -> None:
        """Stop HAProxy, every host, then the services, delete the namespaces (whatever still
        runs in them is killed first), remove the folder. A lab refused at its start (another
        one runs) has made nothing and removes nothing: the namespaces are the other lab's."""
        if self.folder == Path():
            return
        with contextlib.suppress(Exception):
            self.stop_balancer()
        for host in self.hosts.values():
            if host.process is not None:
                with contextlib.suppress(Exception):
                    stop_process(host.process)
                host.process = None
        for name in list(self.services):
            with contextlib.suppress(Exception):
                self.stop_service(name)
        if self.lb_thread is not None:
            self.lb_thread.close()
            self.lb_thread = None
        for namespace in [h.namespace for h in self.hosts.values()] + [LB_NAMESPACE]:
            with contextlib.suppress(Exception):
                clear_namespace(namespace)
        with contextlib.suppress(Exception):
            clean_stale()
        if self.folder != Path() and self.folder.exists():
            shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def hosts_lab(**options: object) -> Iterator[Lab]:
    """A started ``Lab(**options)``, always torn down, even when the block fails or is
    interrupted."""
    lab = Lab(**options)  # type: ignore[arg-type]
    with sigterm_interrupts():
        try:
            lab.start()
            yield lab
        finally:
            lab.close()
