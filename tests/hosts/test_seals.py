"""A pass sealed on one host opens on another with the same cookie secret, and is checked again on
a host with another secret.

Whether a host checked a pass again is read off the browser's copy, without timing: a seal that
opens is kept as it is; one that does not is replaced by the host's own seal when the code passes
again, and dropped when it fails. A pass of wrong code with a genuine seal tells the two apart:
only a host that trusts the seal without running the code shows its ✓.
"""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

import exercises as ex
from tests.e2e.harness import SIDEBAR, exceptions, nav_labels, settle
from tests.e2e.test_e2e_exercise import check
from tests.hosts.browsing import Visit, sealed
from tests.hosts.harness import Lab

pytestmark = pytest.mark.e2e

# code that fails the scores cell; sealed here with the lab's key, as if a host had passed it
WRONG_SCORES = "def attention_scores(q, k):\n    return [[0.0 for b in k] for a in q]\n"


def pass_on_a(lab_visit: Visit, lab: Lab) -> str:
    """The learner passes the softmax cell on host A; a genuine seal of wrong scores code is put
    in the same browser's copy too. The solution's code."""
    solution = ex.BY_ID["softmax"].solution_source()
    lab_visit.session.open("/softmax")
    assert "Correct: all 5 cases pass" in check(lab_visit.session, solution, "Correct")
    passed = {"code": solution, "passed": solution, "seal": sealed(lab.secret, "softmax", solution)}
    kept = lab_visit.wait_kept("softmax", passed)
    assert kept["softmax"] == passed
    kept["scores"] = {
        "code": WRONG_SCORES,
        "passed": WRONG_SCORES,
        "seal": sealed(lab.secret, "scores", WRONG_SCORES),
    }
    lab_visit.keep(kept)
    assert set(lab_visit.traffic.hosts()) == {"hA"}
    return solution


def open_on_b(lab_visit: Visit, lab: Lab) -> list[str]:
    """The same browser sent to host B: the page again, its navigation's labels."""
    lab_visit.go_to_host(lab.hosts["B"].server)
    sockets = len(lab_visit.traffic.sockets)
    lab_visit.session.open("/softmax")
    assert lab_visit.traffic.wait_socket(lab_visit.page, sockets + 1) == "hB"
    settle(lab_visit.page)
    return nav_labels(lab_visit.page)


def test_a_pass_sealed_on_host_a_opens_on_host_b(lab_visit: Visit, hosts: Lab) -> None:
    solution = pass_on_a(lab_visit, hosts)
    labels = open_on_b(lab_visit, hosts)
    page = lab_visit.page
    assert "3. Scale, mask, softmax ✓" in labels
    # trusted on its seal alone: the wrong code's ✓ shows, which a check of it would refuse
    assert "2. Scores ✓" in labels
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 2 of {len(ex.CELLS)} cells solved")
    expect(page.locator(".st-key-code_softmax textarea")).to_have_value(solution)
    expect(page.locator(".st-key-verdict_softmax")).to_contain_text("You solved this cell before")
    kept = lab_visit.kept()
    assert kept["softmax"]["seal"] == sealed(hosts.secret, "softmax", solution)
    assert kept["scores"]["seal"] == sealed(hosts.secret, "scores", WRONG_SCORES)
    assert exceptions(page) == []


def test_on_a_host_with_another_secret_the_pass_is_checked_again(
    lab_visit: Visit, hosts: Lab
) -> None:
    other = secrets.token_hex(16)
    hosts.stop_host("B")
    hosts.start_host("B", secret=other)
    hosts.wait_balancer({"hA", "hB", "hC"})
    solution = pass_on_a(lab_visit, hosts)
    labels = open_on_b(lab_visit, hosts)
    page = lab_visit.page
    # the solution passes again and gets host B's seal; the wrong code fails and loses its ✓
    assert "3. Scale, mask, softmax ✓" in labels
    assert "2. Scores" in labels and "2. Scores ✓" not in labels
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 1 of {len(ex.CELLS)} cells solved")
    expect(page.locator(".st-key-verdict_softmax")).to_contain_text("You solved this cell before")
    renewed = {"code": solution, "passed": solution, "seal": sealed(other, "softmax", solution)}
    kept = lab_visit.wait_kept("softmax", renewed)
    assert kept["softmax"] == renewed
    assert kept["softmax"]["seal"] != sealed(hosts.secret, "softmax", solution)
    assert kept["scores"] == {"code": WRONG_SCORES}
    assert exceptions(page) == []
