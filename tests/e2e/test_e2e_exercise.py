"""The "Your turn" panel in a real browser: type an answer, press Check, read the verdict."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, WebSocket, expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

import exercises as ex
from tests.e2e.harness import (
    SIDEBAR,
    Message,
    Server,
    Session,
    exceptions,
    http_status,
    keep_work,
    kept_work,
    nav_labels,
    new_session,
    page_summary,
    relay_stream,
    reported,
    run_ended,
    settle,
    store_report,
)
from ui.text.exercises import CELLS

pytestmark = pytest.mark.e2e

WRONG_SOFTMAX = """def scale_mask_softmax(scores, d_k, causal):
    out = []
    for i, row in enumerate(scores):
        s = [v if (j <= i or not causal) else -1e9 for j, v in enumerate(row)]
        e = [exp(a - max(s)) for a in s]
        out += [[a / sum(e) for a in e]]
    return out
"""
HOSTILE = "def scale_mask_softmax(scores, d_k, causal):\n    return ().__class__.__bases__\n"


def check(session: Session, code: str, words: str) -> str:
    """Type ``code`` into the editor, press Check, wait for a verdict with ``words``, return it."""
    page = session.page
    page.locator(".st-key-code_softmax textarea").fill(code)
    page.locator(".st-key-check_softmax button").click()
    verdict = page.locator(".st-key-verdict_softmax")
    expect(verdict.locator("[data-testid='stAlert']")).to_contain_text(words)
    settle(page)
    return verdict.inner_text()


def test_typing_a_wrong_then_a_right_answer(session: Session) -> None:
    page = session.page
    session.open("/softmax")
    editor = page.locator(".st-key-code_softmax textarea")
    assert editor.input_value() == CELLS["softmax"]["en"]["template"]

    text = check(session, WRONG_SOFTMAX, "not divided by √d_k")
    assert "Case 1 of 5, the current settings of the page: scores [5 × 5], d_k 2" in text
    assert "The scores were not divided by √d_k before the softmax." in text

    text = check(session, HOSTILE, "is not allowed")
    assert "Line 2: attribute .__class__ is not allowed in the checker." in text

    text = check(session, ex.BY_ID["softmax"].solution_source(), "Correct")
    assert "Correct: all 5 cases pass" in text
    # the navigation marks the solved page and counts it
    assert "3. Scale, mask, softmax ✓" in nav_labels(page)
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 1 of {len(ex.CELLS)} cells solved")
    assert exceptions(page) == []
    assert session.console.errors == []

    # the code and the progress stay when the learner moves to another page and comes back
    page.locator(SIDEBAR).get_by_role("link", name="2. Scores").click()
    settle(page)
    page.locator(SIDEBAR).get_by_role("link", name="3. Scale, mask, softmax ✓").click()
    settle(page)
    expect(page.locator(".st-key-code_softmax textarea")).to_have_value(
        re.compile(r"^def softmax\(values")
    )


def test_an_endless_loop_is_stopped_and_other_students_are_served(
    session: Session, browser: Browser, server: Server
) -> None:
    page = session.page
    session.open("/softmax")
    page.locator(".st-key-code_softmax textarea").fill(
        "def scale_mask_softmax(scores, d_k, causal):\n    while True:\n        d_k += 1\n"
    )
    page.locator(".st-key-check_softmax button").click()
    # while the check runs, another student opens a page and gets it
    other = new_session(browser, server.url)
    try:
        other.open("/qkv?seed=2")
        assert exceptions(other.page) == []
        assert other.page.locator(".st-key-code_qkv textarea").is_visible()
    finally:
        other.close()
    verdict = page.locator(".st-key-verdict_softmax [data-testid='stAlert']")
    expect(verdict).to_contain_text("Too slow", timeout=10_000)
    settle(page)
    assert exceptions(page) == []
    assert http_status(server.url + "/_stcore/health") == 200


OWN_MATMUL = "def matmul(x, w):\n    return [[0.0] * len(w[0]) for row in x]\n"


def count_runs(page: Page) -> list[str]:
    """The runs of the page's script from now on (the page each ran), as the server starts them:
    each sends the browser a ``new_session`` message (a run that a report interrupts and starts
    again counts twice, which the app's own "running" state, unchanged, would not show)."""
    runs: list[str] = []

    def watch(socket: WebSocket) -> None:
        def read(payload: bytes | str) -> None:
            if isinstance(payload, bytes):
                message = ForwardMsg.FromString(payload)
                if message.WhichOneof("type") == "new_session":
                    runs.append(message.new_session.page_script_hash)

        socket.on("framereceived", read)

    page.on("websocket", watch)
    return runs


def test_the_code_and_the_passes_come_back_after_a_reload_in_this_browser_only(
    session: Session, browser: Browser, server: Server
) -> None:
    page = session.page
    session.open("/softmax")
    solution = ex.BY_ID["softmax"].solution_source()
    check(session, solution, "Correct")
    session.open("/qkv")
    editor = page.locator(".st-key-code_qkv textarea")
    editor.fill(OWN_MATMUL)
    editor.press("Control+Enter")  # the editor sends its code, as when it loses the focus
    settle(page)
    kept = kept_work(page)
    assert kept["qkv"] == {"code": OWN_MATMUL}
    assert kept["softmax"]["code"] == kept["softmax"]["passed"] == solution

    runs = count_runs(page)
    page.reload()
    settle(page)
    reported(page)
    assert len(runs) == 2, runs  # the store's report of the kept work reruns it
    expect(page.locator(".st-key-code_qkv textarea")).to_have_value(OWN_MATMUL)
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 1 of {len(ex.CELLS)} cells solved")
    assert "3. Scale, mask, softmax ✓" in nav_labels(page)
    assert "1. Q, K, V" in nav_labels(page)  # typed, not solved: no ✓
    session.open("/softmax")
    expect(page.locator(".st-key-code_softmax textarea")).to_have_value(solution)
    expect(page.locator(".st-key-verdict_softmax")).to_contain_text("You solved this cell before")

    # another browser (a new context) starts from the templates, with nothing solved
    other = new_session(browser, server.url)
    try:
        runs = count_runs(other.page)
        other.open("/softmax")  # until the store has seen the question: it says nothing
        assert len(runs) == 1, runs  # a new visitor's page runs once
        expect(other.page.locator(".st-key-code_softmax textarea")).to_have_value(
            CELLS["softmax"]["en"]["template"]
        )
        expect(other.page.locator(SIDEBAR)).to_contain_text(
            f"Your turn: 0 of {len(ex.CELLS)} cells solved"
        )
        assert kept_work(other.page) is None
    finally:
        other.close()
    assert exceptions(page) == []
    assert session.console.errors == []


def test_a_pass_given_back_is_trusted_only_if_its_code_passes(session: Session) -> None:
    page = session.page
    session.open("/")
    wrong = "def attention_scores(q, k):\n    return [[0.0 for b in k] for a in q]\n"
    right = ex.BY_ID["qkv"].solution_source()
    forged = {
        # a forged seal on code that fails: the code comes back, the ✓ does not
        "scores": {"code": wrong, "passed": wrong, "seal": "0" * 64},
        # a seal this server did not make (a restart) on code that passes: checked again, ✓
        "qkv": {"code": right, "passed": right, "seal": "f" * 64},
    }
    keep_work(page, forged)
    page.reload()
    settle(page)
    expect(page.locator(SIDEBAR)).to_contain_text(f"Your turn: 1 of {len(ex.CELLS)} cells solved")
    labels = nav_labels(page)
    assert "1. Q, K, V ✓" in labels and "2. Scores" in labels
    session.open("/scores")
    try:
        expect(page.locator(".st-key-code_scores textarea")).to_have_value(wrong)
    except AssertionError as err:
        kept = kept_work(page)
        raise AssertionError(f"{page_summary(page)}\nthe browser keeps: {kept}") from err
    expect(page.locator("[data-testid='stMain']")).not_to_contain_text("You solved this cell")
    # the browser's copy now holds the server's own seal for the pass, none for the failure
    kept = kept_work(page)
    assert "seal" not in kept["scores"] and kept["qkv"]["seal"] != "f" * 64
    assert exceptions(page) == []


def test_kept_code_survives_a_run_that_the_browser_asked_with_its_old_editor(
    session: Session,
) -> None:
    """The browser reports its kept work and, before the run that restores it has reached it,
    asks for another run with its editor as it was then, the template (its store's report sent
    again, or any other widget's change): Streamlit takes a widget's value from the browser over
    the one the last run set in the session. The request comes here once the restoring run has
    ended, its messages still on their way. The kept code stays in the editor, and the browser's
    store is not told to forget it (the template is not the learner's choice)."""
    page = session.page
    session.open("/scores")
    own = "def attention_scores(q, k):\n    return [[1.0 for b in k] for a in q]\n"
    keep_work(page, {"scores": {"code": own}})
    report: list[Message] = []
    again: list[Message] = []

    def keep_the_report(message: Message) -> list[Message]:
        if store_report(message) and not report:
            report.append(message)
        return [message]

    def again_once_restored(message: Message) -> list[Message]:
        if report and not again and run_ended(message):
            again.append(report[0])
            return [report[0]]  # before the page reads the run's end
        return []

    relay_stream(page, keep_the_report, again_once_restored)
    page.reload()
    settle(page)
    assert len(again) == 1
    expect(page.locator(".st-key-code_scores textarea")).to_have_value(own)
    settle(page)
    kept = kept_work(page)
    assert kept == {"scores": {"code": own}}
    assert exceptions(page) == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_templates_long_lines_wrap_in_a_zoomed_column(
    browser: Browser, server: Server, lang: str
) -> None:
    """At 1280×720 zoomed to 150 % (853×480 CSS px, the sidebar open) the editor is about 58
    characters wide: its lines wrap on screen instead of running past its right edge, and the
    code it holds is the template, line for line."""
    current = new_session(browser, server.url, viewport=(853, 480))
    try:
        current.open(f"/depth?lang={lang}")
        editor = current.page.locator(".st-key-code_depth textarea")
        expect(editor).to_have_value(CELLS["depth"][lang]["template"])
        width = editor.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert width[0] <= width[1], width
        longest = max(map(len, CELLS["depth"][lang]["template"].splitlines()))
        assert longest > 60  # the case that needs wrapping: a line longer than the box
    finally:
        current.close()
