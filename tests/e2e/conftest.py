"""Real-browser fixtures: a Streamlit server on a free local port and headless chromium.

One server and one browser serve the whole session; every test gets a new tab in a clean
context (no cookies, nothing stored: ``tests.e2e.tabs``) and a Streamlit session of its own. A
test that needs a server nobody has visited yet starts its own with ``start_server``. Every
test leaves a screenshot in ``artifacts/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright

from tests.e2e.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Server,
    Session,
    new_session,
    screenshot,
    start_server,
)
from tests.e2e.tabs import close_all


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The shared server of the session."""
    shared = start_server("shared")
    yield shared
    shared.stop()


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One headless chromium for the session. Missing chromium is a failure, never a skip."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: scripts/test.sh installs it (apt-get install chromium)"
        )
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    yield chromium
    close_all(chromium)
    chromium.close()


@pytest.fixture
def session(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Session]:
    """A new browser context on the shared server; a screenshot of its last state is saved."""
    current = new_session(browser, server.url)
    yield current
    try:
        screenshot(current.page, request.node.name)
    finally:
        current.close()
