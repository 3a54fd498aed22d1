"""The app as a class meets it on a school network: scripts/serve.sh (nginx in front, as in the
container), opened from another machine under the teacher's name and a port that is not 80,
http://teacher.local:PORT. Streamlit takes the page's websocket only when the Origin's host and
port are the Host it is given; a proxy that drops the port leaves a grey page."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, WebSocket

from tests.e2e.harness import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, WAIT_MS
from tests.e2e.test_e2e_serve import serve_script

pytestmark = pytest.mark.e2e

NAME = "teacher.local"  # a LAN name, neither localhost nor this machine's address


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """scripts/serve.sh with one process: nginx on 127.0.0.1:port, which the tests reach as
    teacher.local:port."""
    with serve_script(1, log_name="serve-sh-lan") as listening:
        yield listening


def handshake(port: int, host: str, origin: str) -> str:
    """The status line nginx answers to a browser's websocket upgrade of /_stcore/stream sent
    with these Host and Origin headers (to 127.0.0.1:port, whatever the Host says)."""
    request = (
        "GET /_stcore/stream HTTP/1.1\r\n"
        f"Host: {host}\r\n"
        f"Origin: {origin}\r\n"
        "Connection: Upgrade\r\n"
        "Upgrade: websocket\r\n"
        "Sec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Protocol: streamlit\r\n"
        "\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


def test_the_websocket_opens_for_a_page_under_a_lan_name_and_port(port: int) -> None:
    address = f"{NAME}:{port}"
    assert handshake(port, address, f"http://{address}").startswith("HTTP/1.1 101 ")
    # and as on this machine
    local = f"127.0.0.1:{port}"
    assert handshake(port, local, f"http://{local}").startswith("HTTP/1.1 101 ")


def test_a_page_of_another_site_still_gets_no_websocket(port: int) -> None:
    """The check stands: only the address the page came from is let in, so another site's page
    (another name, or the same name on another port) cannot open a student's session."""
    address = f"{NAME}:{port}"
    for origin in (f"http://elsewhere.example:{port}", f"http://{NAME}:{port + 1}"):
        assert handshake(port, address, origin).startswith("HTTP/1.1 403 "), origin


def test_a_student_on_the_lan_sees_the_page(browser: Browser, port: int) -> None:
    """chromium resolves teacher.local to this machine, as a school's DNS or mDNS would, and
    opens /softmax there: the websocket connects and the page draws its charts."""
    lan_browser = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {NAME} 127.0.0.1"],
        headless=True,
    )
    try:
        page = lan_browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(WAIT_MS)
        sockets: list[WebSocket] = []
        page.on("websocket", lambda socket: sockets.append(socket))
        try:
            page.goto(f"http://{NAME}:{port}/softmax?d_model=8&n_heads=4&seed=7")
            page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for()
            page.locator(".js-plotly-plot .main-svg").first.wait_for()
            assert page.locator("[data-testid='stException']").count() == 0
            streams = [s for s in sockets if s.url.endswith("/_stcore/stream")]
            assert streams and streams[0].url == f"ws://{NAME}:{port}/_stcore/stream"
            assert not streams[-1].is_closed()
        finally:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / "e2e-lan-teacher-local.png")
    finally:
        lan_browser.close()
