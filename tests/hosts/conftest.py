"""Fixtures of the multi-host tests: three app hosts behind HAProxy, and headless chromium.

``lab`` starts the hosts once for the whole run and removes everything after, then asserts that
no ``lab-`` namespace (the hosts' ones, ``lab-lb``), root link or child process is left, and that
the root namespace's links and addresses are what they were before. ``hosts`` hands each test
the lab in its starting state (every host up with the same cookie secret, HAProxy sticky),
whatever the test before it stopped or changed. ``browser`` is a chromium inside ``lab-lb``,
beside HAProxy; ``lab_visit`` opens a browser context through HAProxy; a test that needs another
browser on the lab calls ``browsing.visit`` itself.

``LAB_ENV`` is the environment every host gets on top of the cookie secret; ``{gateway}`` in a
value is replaced by ``lab-lb``'s address facing that host (198.18.N.1), where a service the lab
runs there (``Lab.run_in_lb``: PostgreSQL for the class store) is reached from the host.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Playwright

from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, screenshot
from tests.hosts.browsing import Visit, visit
from tests.hosts.harness import (
    LB_NAMESPACE,
    Lab,
    LabUnavailable,
    hosts_lab,
    leftovers,
    links_and_addresses,
    require_tools,
)

LAB_ENV: dict[str, str] = {}


@pytest.fixture(scope="session")
def lab() -> Iterator[Lab]:
    """Hosts A, B and C and HAProxy, for the whole run; nothing left after."""
    try:
        require_tools()
    except LabUnavailable as err:
        pytest.fail(f"the multi-host tests cannot run: {err}")
    with hosts_lab(names="ABC", env=LAB_ENV) as started:
        yield started
    left = leftovers()
    assert left == [], f"the lab left these behind: {left}"
    # as they were when the lab started (after it removed what an earlier run left)
    after = links_and_addresses()
    assert after == started.root_before, "the root namespace's links or addresses changed"


@pytest.fixture
def hosts(lab: Lab) -> Lab:
    """The lab as it starts: every host running with the lab's secret, HAProxy sticky; the root
    namespace's links and addresses as they were before the lab, lab-lb's as the lab made them
    (a change there would make the lab's chromium drop its connections)."""
    lab.reset()
    assert links_and_addresses() == lab.root_before, "the lab changed the root namespace"
    assert links_and_addresses(LB_NAMESPACE) == lab.lb_before, "a link of lab-lb changed"
    return lab


@pytest.fixture(scope="session")
def browser(playwright: Playwright, lab: Lab) -> Iterator[Browser]:
    """One headless chromium for the run, in ``lab-lb`` (``Lab.chromium``), closed before the
    lab. Missing chromium is a failure, never a skip."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: scripts/test.sh installs it (apt-get install chromium)"
        )
    chromium = playwright.chromium.launch(
        executable_path=lab.chromium, args=CHROMIUM_ARGS, headless=True
    )
    yield chromium
    chromium.close()


@pytest.fixture
def lab_visit(browser: Browser, hosts: Lab, request: pytest.FixtureRequest) -> Iterator[Visit]:
    """A new browser context through HAProxy, first sent to host A; a screenshot of its last
    state is saved in artifacts/."""
    current = visit(browser, hosts, server=hosts.hosts["A"].server)
    yield current
    try:
        screenshot(current.page, f"hosts-{request.node.name}")
    finally:
        current.close()
