"""The lab itself: HAProxy's two configs, what a host gets and reaches from its namespace, the
services of ``lab-lb``, and a root namespace left as it was."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.hosts.harness import (
    HAPROXY,
    LB_NAMESPACE,
    Lab,
    LabUnavailable,
    links_and_addresses,
    render_config,
)
from tests.hosts.machine import NAMESPACE_PREFIX, ROOT, cmdline, namespaces
from tests.hosts.network import NamespaceThread, namespace_pids

SERVERS = [("hA", "198.18.1.2:8501"), ("hB", "198.18.2.2:8501")]


def test_the_config_renders_with_and_without_stickiness(tmp_path: Path) -> None:
    sticky = render_config("127.0.0.1", 18000, SERVERS, tmp_path, sticky=True)
    loose = render_config("127.0.0.1", 18000, SERVERS, tmp_path, sticky=False)
    for text in (sticky, loose):
        assert "bind 127.0.0.1:18000" in text and "balance roundrobin" in text
        assert "timeout tunnel 1h" in text
        assert "option httpchk GET /_stcore/health" in text
        assert "http-check expect status 200" in text
        assert "inter 1s fall 2 rise 2" in text
        assert "http-response set-header X-Lab-Host %s" in text
        assert "@" not in text.replace(f"{tmp_path}", "")  # every placeholder filled in
    assert "    cookie SERVERID insert indirect nocache httponly" in sticky
    assert "server hA 198.18.1.2:8501 check cookie hA" in sticky
    assert "server hB 198.18.2.2:8501 check cookie hB" in sticky
    assert "cookie" not in loose.replace("capture request header Cookie", "")
    assert "server hB 198.18.2.2:8501 check\n" in loose
    # HAProxy itself takes both
    if not Path(HAPROXY).exists():
        pytest.fail(f"{HAPROXY} is missing: apt-get install haproxy")
    for name, text in (("sticky", sticky), ("loose", loose)):
        config = tmp_path / f"{name}.cfg"
        config.write_text(text)
        done = subprocess.run([HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_a_thread_cannot_enter_a_namespace_that_is_not_there() -> None:
    with pytest.raises(LabUnavailable, match="no thread in lab-missing: .*No such file"):
        NamespaceThread("lab-missing")


REACH = """import socket, sys
try:
    with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3) as s:
        print(s.recv(16).decode())
except OSError as err:
    print(type(err).__name__)
"""


def _listener(address: str, port: int = 0) -> socket.socket:
    """A listening socket on address:port, in the namespace of the thread that calls it."""
    sock = socket.socket()
    sock.bind((address, port))
    sock.listen(4)
    sock.settimeout(10)
    return sock


def _reach_run(namespace: str, address: str, port: int) -> str:
    """What a connection from ``namespace`` to address:port reads, or the error's name."""
    command = ["ip", "netns", "exec", namespace, sys.executable, "-c", REACH, address, str(port)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.strip()


@pytest.mark.e2e
def test_a_host_gets_its_environment_and_reaches_the_host_side_only(hosts: Lab) -> None:
    store = "postgresql+psycopg://lab@{gateway}:5432/attention_lab"
    hosts.stop_host("B")
    host = hosts.start_host("B", env={"ATTENTION_LAB_CLASS_STORE": store})
    environ = Path(f"/proc/{host.process.pid}/environ").read_bytes().split(b"\0")
    assert b"ATTENTION_LAB_CLASS_STORE=postgresql+psycopg://lab@198.18.2.1:5432/attention_lab" in (
        environ
    )
    assert f"STREAMLIT_SERVER_COOKIE_SECRET={hosts.secret}".encode() in environ
    # a service on lab-lb's address facing host A answers host B too; loopback stays each
    # namespace's own: neither lab-lb's (where HAProxy listens) nor the root one's answer a host
    service, local = hosts.in_lb(_listener, "198.18.1.1"), hosts.in_lb(_listener, "127.0.0.1")
    with service, local, _listener("127.0.0.1") as root_local:
        port, local_port = service.getsockname()[1], local.getsockname()[1]
        command = ["ip", "netns", "exec", host.namespace, sys.executable, "-c", REACH]
        reach = subprocess.Popen(
            [*command, "198.18.1.1", str(port)], stdout=subprocess.PIPE, text=True
        )
        conn, peer = service.accept()
        with conn:
            conn.sendall(b"store")
        assert reach.communicate(timeout=30)[0].strip() == "store"
        assert peer[0] == host.address
        assert _reach_run(host.namespace, "127.0.0.1", local_port) == "ConnectionRefusedError"
        root_port = root_local.getsockname()[1]
        assert _reach_run(host.namespace, "127.0.0.1", root_port) == "ConnectionRefusedError"


SERVE = """import socket, sys
listeners = [socket.socket() for _ in sys.argv[1:]]
port = 0
for sock, address in zip(listeners, sys.argv[1:]):
    sock.bind((address, port))
    sock.listen(4)
    port = sock.getsockname()[1]
print(port, flush=True)
for sock in listeners:
    conn, peer = sock.accept()
    with conn:
        conn.sendall(peer[0].encode())
"""


@pytest.mark.e2e
def test_a_service_started_in_the_balancer_s_namespace_answers_every_host(hosts: Lab) -> None:
    """As PostgreSQL will: one port on every host's gateway, each host at its own."""
    gateways = [h.gateway for h in hosts.hosts.values()]
    assert gateways == ["198.18.1.1", "198.18.2.1", "198.18.3.1"]
    command = [sys.executable, "-c", SERVE, *gateways]
    service = hosts.run_in_lb(command, "probe", stdout=subprocess.PIPE)
    try:
        port = int(service.stdout.readline())
        assert service.pid in namespace_pids(LB_NAMESPACE)
        for host in hosts.hosts.values():  # the service answers each with the address it saw
            assert _reach_run(host.namespace, host.gateway, port) == host.address
        assert service.wait(timeout=30) == 0
    finally:
        hosts.stop_service("probe")
    assert "probe" not in hosts.services


@pytest.mark.e2e
def test_the_root_namespace_keeps_its_links_and_addresses(hosts: Lab, browser: Browser) -> None:
    """Everything the lab made is in its namespaces, its browser and HAProxy in lab-lb: the
    root namespace's links and addresses are what they were before the lab, and lab-lb's what
    the lab made, hosts stopped and started again by the tests before this one."""
    root = links_and_addresses()
    assert root == hosts.root_before
    assert [line for line in root if "lab-" in line or "198.18." in line] == []
    balancer = links_and_addresses(LB_NAMESPACE)
    assert balancer == hosts.lb_before  # every host's link up since the lab started
    for host in hosts.hosts.values():
        assert any(line.split()[1].startswith(f"{host.link}@") for line in balancer), balancer
        assert any(f" {host.link} inet {host.gateway}/30 " in line for line in balancer)
        with socket.socket() as sock, pytest.raises(OSError) as refused:
            sock.bind((host.gateway, 0))  # the gateway is no address of the root namespace
        assert refused.value.errno == errno.EADDRNOTAVAIL
    inside = {pid: cmdline(pid) for pid in namespace_pids(LB_NAMESPACE)}
    assert hosts.balancer is not None and hosts.balancer.pid in inside
    browsers = [line for line in inside.values() if "--remote-debugging-pipe" in line]
    assert any(line.startswith("/usr/lib/chromium/chromium ") for line in browsers), inside
    assert browser.is_connected()


def test_another_run_cannot_tear_a_running_lab_down(hosts: Lab) -> None:
    """A second run's lab would take the same namespaces: it is refused, with the process whose
    lab runs; its own tear-down after the refusal removes nothing, and this lab goes on as it
    was: its namespaces, its folder, its three hosts up behind HAProxy."""
    before = sorted(namespaces(NAMESPACE_PREFIX) + namespaces(LB_NAMESPACE))
    second = "from tests.hosts.harness import hosts_lab\nwith hosts_lab(names='AB'): pass"
    done = subprocess.run(
        [sys.executable, "-c", second], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert f"another run's lab is up (process {os.getpid()})" in done.stderr
    assert sorted(namespaces(NAMESPACE_PREFIX) + namespaces(LB_NAMESPACE)) == before
    assert len(before) == 4  # lab-lb and one a host
    assert hosts.folder.exists() and hosts.states() == dict.fromkeys(hosts.states(), "UP")
    assert len(hosts.states()) == 3
