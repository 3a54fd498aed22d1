"""The app as the container serves it (scripts/serve.sh: two processes behind nginx), shown in a
frame of another site's page, as a Space's own page or a course page shows it."""

from __future__ import annotations

import functools
import http.server
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Browser, Frame, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import llm
from bench.common import nginx_path
from tests.e2e.harness import (
    ARTIFACTS,
    DEFAULT_TEXT,
    ROOT,
    WAIT_MS,
    http_status,
    reported,
    server_log,
    settle,
)

pytestmark = pytest.mark.e2e

SEEDS = (3, 4, 5, 6)  # a seed a student: a download's file is named by its content


def _free_serve_port(processes: int) -> int:
    """A port the kernel finds free, with the ``processes`` ports serve.sh gives its processes
    (port + 101, port + 102, ...) free too: outside the ranges other servers of the tests take."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        wanted = [port, *(port + 100 + i for i in range(1, processes + 1))]
        if wanted[-1] < 65536 and all(_bindable(p) for p in wanted):
            return port


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@contextmanager
def serve_script(processes: int, log_name: str = "serve-sh") -> Iterator[int]:
    """scripts/serve.sh with ``processes`` processes on a free port, as the Dockerfile runs it
    (the Python given, so no .venv is made), until it answers through nginx; yields the port.
    Its log is artifacts/server-<log_name>-<worker>-<n>.log (``server_log``)."""
    if nginx_path() is None:
        pytest.fail("nginx is missing: scripts/test.sh installs it (apt-get install nginx)")
    with tempfile.TemporaryDirectory(prefix="attention-lab-e2e.") as folder:
        # in /tmp itself: nginx's workers, which may run as nobody, must reach the files
        Path(folder).chmod(0o711)
        port = _free_serve_port(processes)
        env = {**os.environ, "PYTHON": sys.executable, "TMPDIR": folder}
        with server_log(log_name).open("w") as log:
            script = subprocess.Popen(
                ["bash", "scripts/serve.sh", str(processes), str(port)],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while http_status(base + "/_stcore/health", timeout=2) != 200:
                assert script.poll() is None, "scripts/serve.sh stopped"
                assert time.monotonic() < deadline, "no healthy answer through nginx in 120 s"
                time.sleep(0.3)
            # the answer came from this script's nginx, not from a server that took the port
            assert script.poll() is None, "scripts/serve.sh stopped"
            yield port
        finally:
            os.killpg(script.pid, signal.SIGTERM)
            script.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """scripts/serve.sh with two processes on a free port; its base URL."""
    with serve_script(2) as port:
        yield f"http://127.0.0.1:{port}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_site(cluster: str, tmp_path: Path) -> Iterator[Callable[[int], str]]:
    """Pages on another site (localhost, not 127.0.0.1), each showing /concat at one seed in a
    frame; yields the address of the page for a seed."""
    for seed in SEEDS:
        (tmp_path / f"course-{seed}.html").write_text(
            "<html><body><h1>Chapter 9</h1>"
            f'<iframe src="{cluster}/concat?seed={seed}" width="1250" height="900"></iframe>'
            "</body></html>"
        )
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield lambda seed: f"http://localhost:{server.server_address[1]}/course-{seed}.html"
    finally:
        server.shutdown()
        server.server_close()


def test_a_download_in_a_frame_of_another_site_comes_from_its_own_process(
    browser: Browser, other_site: Callable[[int], str]
) -> None:
    """A frame of another site does not send the route cookie back, so each request used to
    reach a random process, and a CSV download was often cancelled: its file lives in the
    session's own process (a process that made the same file for an earlier student could
    answer too, hence a new seed for each student). Every download now brings the page's
    numbers: four students, each a new browser, download the page's three tables."""
    for seed in SEEDS:
        cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=seed)
        params = llm.init_params(cfg)
        trace = llm.multi_head_attention(llm.embed(llm.tokenize(DEFAULT_TEXT), cfg), params)
        tables = {"concat": trace.concat, "W_O": params.W_O, "attn_out": trace.attn_out}
        context = browser.new_context(viewport={"width": 1300, "height": 1000})
        context.set_default_timeout(WAIT_MS)
        try:
            page = context.new_page()
            page.goto(other_site(seed))
            frame = page.locator("iframe").element_handle().content_frame()
            assert frame is not None
            frame.locator(".js-plotly-plot").first.wait_for()
            # a click on a download button the store's rerun replaces brings no file
            reported(frame)
            frame.get_by_text("The same numbers as tables").click()
            settle(frame)  # the box draws its tables when it opens
            for name, want in tables.items():
                button = frame.get_by_role("button", name=f"{name} · CSV")
                text = Path(_download(page, frame, button, f"{seed}-{name}")).read_text()
                table = pd.read_csv(io.StringIO(text), index_col=0, float_precision="round_trip")
                assert table.shape == want.shape, (seed, name)
                np.testing.assert_array_equal(table.to_numpy(), want, err_msg=f"{seed} {name}")
            cookie = [c for c in context.cookies() if c["name"] == "attention_lab_route"]
            assert cookie and cookie[0]["sameSite"] == "Lax"  # plain http: not sent to a frame
            if seed == SEEDS[0]:
                page.screenshot(path=ARTIFACTS / "e2e-serve-frame-of-another-site.png")
        finally:
            context.close()


def _download(page: Page, frame: Frame, button: Locator, name: str, tries: int = 3) -> str:
    """Click a download button until its file comes (at most ``tries`` clicks, 15 s each): the
    path of the file. On a loaded machine the tables above the button may still be settling
    their height when the click lands, so a click can meet the space the button has just left;
    a student clicks again, and so does this. A click that brings no file is reported (with a
    screenshot and what the buttons say) as a warning, and after the last one as a failure."""
    for attempt in range(1, tries + 1):
        try:
            with page.expect_download(timeout=15_000) as download:
                button.click()
            return download.value.path()
        except PlaywrightTimeout:
            page.screenshot(path=ARTIFACTS / f"e2e-serve-no-download-{name}-{attempt}.png")
            said = frame.get_by_test_id("stDownloadButtonError").all_inner_texts()
            message = f"click {attempt} on {name}.csv brought no file in 15 s; buttons say {said}"
            if attempt == tries:
                pytest.fail(message)
            warnings.warn(message, stacklevel=1)
    raise AssertionError("unreachable")
