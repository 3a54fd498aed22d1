"""The app serves every page without importing pandas (about 40 MB a process): a real
``streamlit run`` (AppTest skips Streamlit's lazy-dataframe check, which imports it), every
page in both languages, on a screen and in presenter mode, opened over the websocket as a
browser opens it; the server writes down where pandas was first imported from."""

from __future__ import annotations

import asyncio
import textwrap
import threading
import urllib.parse
from pathlib import Path

import pytest

from bench.wsclient import Session
from tests.e2e.harness import start_server
from ui.frame.navigation import slug
from ui.frame.page import PAGES

# Streamlit's command line (``run app.py`` and the server's options follow the log's path) with
# a finder that writes the stack of the first import of pandas into the log
WATCHED = textwrap.dedent(
    """
    import sys, traceback, importlib.abc

    log = sys.argv[1]

    class Watch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "pandas":
                with open(log, "a") as out:
                    out.write("".join(traceback.format_stack(limit=12)) + "\\n")
            return None

    sys.meta_path.insert(0, Watch())
    from streamlit.web.cli import main

    sys.argv = ["streamlit", *sys.argv[2:]]
    main()
    """
)


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


@pytest.mark.slow  # a real server opened on every page: scripts/test.sh, not the quick loop
def test_no_page_imports_pandas(tmp_path: Path) -> None:
    log = tmp_path / "pandas.txt"
    server = start_server("no-pandas", launcher=("-c", WATCHED, str(log)))
    try:
        errors: list[str] = []
        port = urllib.parse.urlsplit(server.url).port
        # a thread of its own: after the browser tests, playwright's loop runs in this one
        runner = threading.Thread(target=lambda: errors.extend(asyncio.run(visit_every_page(port))))
        runner.start()
        runner.join(timeout=240)
        assert not runner.is_alive(), "the visits did not end"
    finally:
        server.stop()
    assert errors == []
    assert not log.exists(), "pandas was imported, first from:\n" + log.read_text()[:4000]
