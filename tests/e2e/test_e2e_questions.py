"""Predict, then reveal in a real browser: a teacher asks on /softmax, three students (a phone
among them) answer on their devices, the projector counts without showing the distribution,
the reveal marks the answer the lab computes, and a new seed gives a new answer."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Browser, Page, expect

import llm
from tests.e2e.harness import (
    DEFAULT_TEXT,
    PHONE_AGENT,
    Server,
    exceptions,
    new_session,
    settle,
    wait_query,
    wait_until,
)
from tests.e2e.test_e2e_a11y import REGION
from tests.e2e.test_e2e_class import (
    FOLLOW_S,
    SCROLL_JS,
    SHOTS,
    class_server,  # noqa: F401, F811 (a fixture)
    click_chip,
    press,
    scroll_down,
    set_seed,
    shared_data_dir,  # noqa: F401, F811 (a fixture)
    start_class,
    wait_joined,
)
from tests.e2e.test_e2e_presenter import show, show_together

pytestmark = pytest.mark.e2e
QUESTION = re.compile(r"Question: Which token does mat attend to most \(head 0\)\?")


def right_token(seed: int, token: int = 4) -> str:
    """argmax of row ``token`` of A (head 0, causal, τ 1, √d_k) at ``seed``, with ``llm``."""
    cfg = llm.AttentionConfig(seed=seed)
    tokens = llm.tokenize(DEFAULT_TEXT)
    trace = llm.multi_head_attention(llm.embed(tokens, cfg), llm.init_params(cfg), causal=True)
    return DEFAULT_TEXT.split()[int(np.argmax(trace.heads[0].pattern[token]))]


# every text the live region holds from now on, in order
RECORD_JS = """(selector) => {
    const region = document.querySelector(selector);
    window.__regionLog = [];
    new MutationObserver(() => window.__regionLog.push(region.textContent)).observe(
        region, {childList: true, characterData: true, subtree: true});
}"""


def ask_top_key(page: Page) -> None:
    """The Class panel's first question: "Which token does … attend to most?"."""
    press(page, "class_panel")
    body = page.locator("[data-testid='stPopoverBody']")
    expect(body).to_contain_text("attend to most")
    body.locator(".st-key-class_ask_0 button").click()
    settle(page)
    page.keyboard.press("Escape")


def answer(page: Page, choice: str) -> None:
    box = page.locator(".st-key-class_question")
    expect(box).to_be_visible(timeout=15_000)
    settle(page)
    box.get_by_role("button", name=choice, exact=True).first.click()
    expect(box).to_contain_text(f"Your answer: {choice}", timeout=15_000)


def test_ask_answer_reveal_and_ask_at_a_new_seed(browser: Browser, class_server: Server) -> None:  # noqa: F811
    base = class_server.url
    teacher = new_session(browser, base, viewport=(1280, 720))
    students = [
        new_session(browser, base, viewport=(1280, 800)),
        new_session(browser, base, viewport=(390, 844), user_agent=PHONE_AGENT),
        new_session(browser, base, viewport=(1280, 800)),
    ]
    try:
        _code, _key, link = start_class(teacher)
        show_together([(s.page, link) for s in students])
        for s in students:
            wait_joined(s.page)
        tpage = teacher.page
        ask_top_key(tpage)
        projector = tpage.locator(".st-key-class_projector").first  # a run's stale copy aside
        expect(projector).to_contain_text(QUESTION)
        text = projector.inner_text()
        assert projector.locator("[data-testid='stProgress']").count() == 0
        phone = students[1].page
        expect(phone.locator(".st-key-class_question")).to_be_visible(timeout=15_000)
        settle(phone)  # during a run the run before's buttons may still stand beside the new
        for button in phone.locator(".st-key-class_question button").all():
            assert button.bounding_box()["height"] >= 44
        answer(students[0].page, "cat")
        answer(students[1].page, "cat")
        answer(students[2].page, "mat")
        expect(projector).to_contain_text("3 of 3 answered", timeout=15_000)
        assert projector.locator("[data-testid='stProgress']").count() == 0  # no distribution
        answer(students[2].page, "sat")  # changed: still 3 answers
        expect(projector).to_contain_text("3 of 3 answered")
        # legible on the projector: the question and every choice label at 16 px or more
        for part in (projector.locator("p").first, *projector.locator("li").all()):
            size = part.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 16, f"{part.inner_text()!r} at {size} px in {text!r}"
        assert projector.locator("li").count() == 5  # the, cat, sat, on, mat

        press(tpage, "class_reveal")
        expect(projector).to_contain_text(re.compile("Right answer: "), timeout=15_000)
        right = right_token(0)
        expect(projector).to_contain_text(f"Right answer: {right}")
        expect(projector).to_contain_text(re.compile(r"✓ " + re.escape(right)))
        expect(projector).to_contain_text("cat: 2 (67 %)")
        expect(projector).to_contain_text("sat: 1 (33 %)")
        expect(projector).to_contain_text("mat: 0 (0 %)")
        for s in students:
            expect(s.page.locator(".st-key-class_question")).to_contain_text(
                f"Right answer: {right}", timeout=15_000
            )
        SHOTS.mkdir(parents=True, exist_ok=True)
        tpage.screenshot(path=SHOTS / "teacher-question-revealed.png")

        # a new seed, a new Ask: the right answer follows the numbers
        new_seed = next(s for s in range(1, 40) if right_token(s) != right)
        set_seed(tpage, new_seed)
        wait_query(tpage, seed=str(new_seed))
        ask_top_key(tpage)
        expect(projector).not_to_contain_text("Right answer", timeout=15_000)
        answer(students[0].page, right_token(new_seed))
        press(tpage, "class_reveal")
        expect(projector).to_contain_text(f"Right answer: {right_token(new_seed)}", timeout=15_000)
        for s in (teacher, *students):
            assert exceptions(s.page) == []
    finally:
        for s in (teacher, *students):
            s.close()


def test_the_reveal_shows_the_asked_row_on_every_screen(
    browser: Browser,
    class_server: Server,  # noqa: F811
) -> None:
    """Asked about sat (token 2), the teacher moves on to the (token 0); the reveal brings the
    teacher's page and the student's back to sat, its row outlined: what makes the answer
    right is on the chart when the answer shows."""
    base = class_server.url
    teacher = new_session(browser, base, viewport=(1280, 720))
    student = new_session(browser, base, viewport=(1280, 800))
    try:
        _code, _key, link = start_class(teacher)
        tpage = teacher.page
        click_chip(tpage, "sat")
        wait_query(tpage, token="2")
        show(student.page, link)
        wait_joined(student.page)
        wait_query(student.page, timeout=FOLLOW_S, token="2")
        ask_top_key(tpage)
        projector = tpage.locator(".st-key-class_projector").first  # a run's stale copy aside
        expect(projector).to_contain_text("Which token does sat attend to most")
        click_chip(tpage, "the")
        wait_query(tpage, token="0")
        wait_query(student.page, timeout=FOLLOW_S, token="0")
        press(tpage, "class_reveal")
        expect(projector).to_contain_text("Right answer: ", timeout=15_000)
        wait_query(tpage, token="2")
        wait_query(student.page, timeout=FOLLOW_S, token="2")
        for page in (tpage, student.page):
            expect(page.locator("[data-testid='stMain']")).to_contain_text(
                "Following sat (position 2)"
            )
            assert exceptions(page) == []
    finally:
        for s in (teacher, student):
            s.close()


def box_top(page: Page) -> float | None:
    """Where the question's box stands on the screen (px from the top), None where not drawn."""
    return page.evaluate(
        """() => { const box = document.querySelector('.st-key-class_question');
                   return box ? box.getBoundingClientRect().top : null; }"""
    )


def test_a_student_reading_further_down_is_brought_to_the_question(
    browser: Browser,
    class_server: Server,  # noqa: F811
) -> None:
    """The question opens at the top of a student's page: a phone student reading halfway down
    is brought up to it when it opens and again when it is revealed (they saw nothing of it); a
    student typing in the "Your turn" editor is left where they type."""
    base = class_server.url
    teacher = new_session(browser, base, viewport=(1280, 720))
    student = new_session(browser, base, viewport=(390, 844), user_agent=PHONE_AGENT)
    page = student.page

    def in_view(what: str) -> None:
        wait_until(page, lambda: 0 <= (box_top(page) or -1) < 844 / 3, what, timeout=FOLLOW_S)

    try:
        _code, _key, link = start_class(teacher)
        tpage = teacher.page
        show(page, link)
        wait_joined(page)
        assert scroll_down(page, 1500) > 1000
        ask_top_key(tpage)
        in_view("the question brought into view")
        expect(page.locator(".st-key-class_question")).to_contain_text("attend to most")
        # and said, for a student who does not see it come: the page's polite live region
        region = page.locator(REGION)
        expect(region).to_have_text(re.compile(r"^Question from the teacher: .*attend to most"))

        scroll_down(page, 1500)
        assert box_top(page) < 0  # out of sight above
        press(tpage, "class_reveal")
        in_view("the revealed question brought into view")
        expect(page.locator(".st-key-class_question")).to_contain_text("Right answer: ")
        right = page.locator(".st-key-class_question [data-testid='stAlert']").inner_text()
        choice = right.split("Right answer: ", 1)[1].strip()
        expect(region).to_have_text(re.compile(r"^Revealed: .*attend to most"))
        expect(region).to_contain_text(f"The right answer is {choice}.")

        editor = page.locator(".st-key-code_softmax textarea")
        editor.scroll_into_view_if_needed()
        editor.click()
        settle(page)
        typing_at = page.evaluate(SCROLL_JS)["top"]
        ask_top_key(tpage)  # asked again
        expect(page.locator(".st-key-class_question")).not_to_contain_text(
            "Right answer", timeout=FOLLOW_S * 1000
        )
        settle(page)
        page.wait_for_timeout(1000)
        assert page.evaluate(SCROLL_JS)["top"] == typing_at
        expect(region).to_have_text(re.compile(r"^Question from the teacher: "))  # still said
        # the same question once more: the same words, which the region says again (it is
        # emptied first: a screen reader says a change, not words equal to the ones it holds)
        said = region.inner_text()
        page.evaluate(RECORD_JS, REGION)
        ask_top_key(tpage)
        page.wait_for_function(
            "(said) => window.__regionLog.indexOf('') >= 0"
            " && window.__regionLog.lastIndexOf(said) > window.__regionLog.indexOf('')",
            arg=said,
            timeout=FOLLOW_S * 1000,
        )
        for p in (tpage, page):
            assert exceptions(p) == []
    finally:
        for s in (teacher, student):
            s.close()
