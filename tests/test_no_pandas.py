"""The app serves every page without importing pandas (a process is about 5 MB and an import
lighter): a real ``streamlit run`` (AppTest skips Streamlit's lazy-dataframe check, which
imports it), every page in both languages, on a screen and in presenter mode, opened over the
websocket as a browser opens it; the server writes down where pandas was first imported from."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

from bench.common import free_port
from bench.wsclient import Session
from ui.frame.page import PAGES

ROOT = Path(__file__).resolve().parent.parent

# ``streamlit run app.py`` with a finder that writes the stack of the first import of pandas
SERVER = textwrap.dedent(
    """
    import sys, traceback, importlib.abc

    log, port = sys.argv[1], sys.argv[2]

    class Watch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "pandas":
                with open(log, "a") as out:
                    out.write("".join(traceback.format_stack(limit=12)) + "\\n")
            return None

    sys.meta_path.insert(0, Watch())
    from streamlit.web.cli import main

    sys.argv = ["streamlit", "run", "app.py", "--server.headless", "true",
                "--server.address", "127.0.0.1", "--server.port", port]
    main()
    """
)


def slug(file: str) -> str:
    return "" if file == "app.py" else file.split("_", 1)[1].removesuffix(".py")


async def visit_every_page(port: int) -> list[str]:
    """Open every page as a new visitor would, in each mode; the errors the pages showed."""
    errors = []
    for file, _, _ in PAGES:
        for query in ({"lang": "en"}, {"lang": "fr", "present": "true", "d_model": 64}):
            session = Session(f"ws://127.0.0.1:{port}/_stcore/stream", slug(file), query)
            await session.connect()
            try:
                errors += [f"{file} {query}: {e}" for e in (await session.load()).errors]
            finally:
                await session.close()
    return errors


def start(log: Path) -> tuple[subprocess.Popen, int]:
    """The watched server, healthy, on a free port (another, if one is taken meanwhile)."""
    for _attempt in range(3):
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(log), str(port)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while server.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    return server, port
            except OSError:
                time.sleep(0.2)
        stop(server)
    raise AssertionError("no healthy server in three attempts")


def stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=15)


def test_no_page_imports_pandas(tmp_path: Path) -> None:
    log = tmp_path / "pandas.txt"
    server, port = start(log)
    try:
        errors: list[str] = []
        # a thread of its own: after the browser tests, playwright's loop runs in this one
        runner = threading.Thread(target=lambda: errors.extend(asyncio.run(visit_every_page(port))))
        runner.start()
        runner.join(timeout=240)
        assert not runner.is_alive(), "the visits did not end"
    finally:
        stop(server)
    assert errors == []
    assert not log.exists(), "pandas was imported, first from:\n" + log.read_text()[:4000]
