"""A host stopped in the middle of a lesson: its browser goes on with another host, its numbers, its
code and its ✓ intact."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

import exercises as ex
from tests.e2e.harness import (
    SIDEBAR,
    exceptions,
    expected_head,
    nav_labels,
    type_seed,
    wait_heatmap,
)
from tests.e2e.test_e2e_exercise import check
from tests.hosts.browsing import Visit, sealed
from tests.hosts.harness import Lab

pytestmark = pytest.mark.e2e

RECONNECT_S = 10.0  # the longest a student waits for the page to come back


def test_a_stopped_host_s_browser_reconnects_to_another_host_with_its_work(
    lab_visit: Visit, hosts: Lab
) -> None:
    page, traffic = lab_visit.page, lab_visit.traffic
    solution = ex.BY_ID["softmax"].solution_source()
    lab_visit.session.open("/softmax?seed=3")
    check(lab_visit.session, solution, "Correct")
    wait_heatmap(page, 1, expected_head(seed=3)[1])
    passed = {
        "code": solution,
        "passed": solution,
        "seal": sealed(hosts.secret, "softmax", solution),
    }
    assert lab_visit.wait_kept("softmax", passed)["softmax"] == passed
    assert traffic.sockets == ["hA"]

    stopped = time.monotonic()
    hosts.stop_host("A")  # SIGTERM to its app: nothing listens on its address any more
    # Streamlit's front end opens its websocket again; HAProxy sends it to a host that is up
    host = traffic.wait_socket(page, 2, timeout=RECONNECT_S - (time.monotonic() - stopped))
    assert host in {"hB", "hC"}
    # the new host runs the page: a new seed gives its numbers, the old ones were seed 3's
    type_seed(page, 4)
    wait_heatmap(page, 1, expected_head(seed=4)[1])
    # the new host's session has the learner's code and ✓ back from the browser's copy
    expect(page.locator(".st-key-code_softmax textarea")).to_have_value(solution)
    expect(page.locator(".st-key-verdict_softmax")).to_contain_text("You solved this cell before")
    assert "3. Scale, mask, softmax ✓" in nav_labels(page)
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 1 of {len(ex.CELLS)} cells solved")
    # HAProxy has seen host A go and sends nothing more there
    hosts.wait_balancer({"hB", "hC"})
    assert exceptions(page) == []
