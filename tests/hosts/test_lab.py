"""The lab itself: HAProxy's two configs, and what a host gets and reaches from its namespace."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hosts.harness import HAPROXY, Lab, render_config

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


REACH = """import socket, sys
try:
    with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3) as s:
        print(s.recv(16).decode())
except OSError as err:
    print(type(err).__name__)
"""


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
    # a service on host A's host-side address answers host B too; loopback stays each one's own
    with socket.socket() as service, socket.socket() as local:
        service.bind(("198.18.1.1", 0))
        local.bind(("127.0.0.1", 0))
        for sock in (service, local):
            sock.listen(4)
            sock.settimeout(10)
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
