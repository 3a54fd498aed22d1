"""Links in a real browser: a deep link on a fresh server, a link shared between browsers, bad
values in a link."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import numpy as np
import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.harness import (
    DEFAULT_TEXT,
    IPHONE_AGENT,
    PAGE_LINK,
    SIDEBAR,
    Server,
    Session,
    choose,
    exceptions,
    expected_head,
    heatmaps,
    new_session,
    query,
    screenshot,
    settle,
    sidebar_values,
    start_server,
    type_seed,
    wait_heatmap,
    wait_query,
)
from ui.frame.components.page_lang import page_title
from ui.text import pick
from ui.text.common import TEXT as FRAME_TEXT
from ui.text.softmax import TEXT as SOFTMAX_TEXT

pytestmark = pytest.mark.e2e


@pytest.fixture
def fresh_server() -> Iterator[Server]:
    """A server of its own that nobody has visited: the first request is the test's link."""
    server = start_server("fresh")
    yield server
    server.stop()


def test_deep_link_is_the_first_visit_of_a_fresh_server(
    browser: Browser, fresh_server: Server
) -> None:
    text = "the dog saw the cat"
    link = "/softmax?" + urllib.parse.urlencode(
        {"text": text, "d_model": 16, "n_heads": 8, "seed": 7, "head": 3, "causal": "false"}
    )
    session = new_session(browser, fresh_server.url)
    page = session.page
    try:
        page.goto(fresh_server.url + link)
        scaled, pattern = expected_head(16, 8, 7, head=3, causal=False, text=text)
        wait_heatmap(page, 0, scaled)
        wait_heatmap(page, 1, pattern)

        # the page's own title (the frame's component sets it once the page has drawn)
        page.wait_for_function(
            "(t) => document.title === t", arg=page_title(FRAME_TEXT["en"]["page_softmax"])
        )
        assert page.locator("h1").first.inner_text() == SOFTMAX_TEXT["en"]["title"]
        assert sidebar_values(page) == {
            "lang": "en",
            "text": text,
            "d_model": "16",
            "n_heads": "8",
            "seed": "7",
            "causal": "false",
            "embeddings": "seeded",
            "head": "3",
        }
        # the repeated token is told apart on the axes; d_head 2 gives sqrt 2 in the title
        heads = ".lab-heatmap thead th"  # the first heatmap's column labels, then the others'
        labels = page.evaluate(
            f"() => [...document.querySelectorAll('{heads}')].map(th => th.textContent)"
        )
        labels = labels[:5]
        assert labels == ["the", "dog", "saw", "the·2", "cat"]
        assert "√2 = 1.4142" in page.locator(".lab-heatmap").first.inner_text()
        # nothing was wrong with the link, so nothing was changed or reported
        assert query(page)["seed"] == "7" and query(page)["head"] == "3"
        assert page.get_by_text(FRAME_TEXT["en"]["fixed_title"]).count() == 0
        assert exceptions(page) == []
        assert session.console.errors == []
    finally:
        screenshot(page, "deep_link_fresh_server")
        session.close()


def test_a_copied_link_shows_the_same_numbers_in_another_browser(
    browser: Browser, server: Server
) -> None:
    first = new_session(browser, server.url)
    second = new_session(browser, server.url)
    try:
        first.open("/softmax")
        page = first.page
        type_seed(page, 4242)
        wait_query(page, seed="4242")
        settle(page)
        page.locator(SIDEBAR).locator("[data-testid='stCheckbox'] label").click()
        wait_query(page, causal="false")
        settle(page)
        choose(page, 1, "2")
        wait_query(page, head="2")
        scaled, pattern = expected_head(seed=4242, head=2, causal=False)
        wait_heatmap(page, 0, scaled)
        wait_heatmap(page, 1, pattern)

        link = page.url
        second.page.goto(link)
        wait_heatmap(second.page, 1, pattern)
        for mine, theirs in zip(heatmaps(page), heatmaps(second.page), strict=True):
            np.testing.assert_array_equal(mine, theirs)  # bit for bit
        assert sidebar_values(second.page) == sidebar_values(page)
        assert sidebar_values(second.page)["seed"] == "4242"
        assert second.page.url == link
        assert first.console.errors == [] and second.console.errors == []
    finally:
        screenshot(second.page, "shared_link_second_browser")
        first.close()
        second.close()


def _row_softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_back_and_forward_open_another_page_on_its_link(session: Session) -> None:
    """Back and Forward to another page keep the link's settings, in the page and in the
    address bar (Streamlit alone drops them there: the page opened in English on the
    defaults), and the page's own value, τ."""
    settings = {"lang": "fr", "d_model": "16", "n_heads": "8", "seed": "7", "causal": "false"}
    page = session.page
    session.open("/softmax?" + urllib.parse.urlencode(settings | {"temperature": "0.5"}))
    scaled, _ = expected_head(16, 8, 7, head=0, causal=False)
    shown = scaled / 0.5  # S / (τ √d_k), τ = 0.5
    wait_heatmap(page, 0, shown)
    wait_heatmap(page, 1, _row_softmax(shown))  # no mask: every key of every row

    # the link carries the settings every page shares (a new tab opened from it shows the
    # same numbers), not this page's own τ
    link = page.locator(f"{PAGE_LINK}[data-page='mix']")
    link.hover()
    href = urllib.parse.urlsplit(link.get_attribute("href"))
    assert href.path == "/mix"
    assert dict(urllib.parse.parse_qsl(href.query)) == settings
    history = page.evaluate("history.length")
    link.click()
    page.wait_for_function("location.pathname === '/mix'")
    settle(page)
    assert page.evaluate("history.length") == history + 1  # the move is one step of the history
    # the page shown is the list's current page (a screen reader says so), and only it
    current = page.locator(f"{PAGE_LINK}[aria-current='page']")
    assert current.count() == 1 and current.get_attribute("data-page") == "mix"
    page.go_back()
    page.wait_for_function("location.pathname === '/softmax'")
    settle(page)
    wait_query(page, **settings, temperature="0.5")
    wait_heatmap(page, 0, shown)
    wait_heatmap(page, 1, _row_softmax(shown))
    assert sidebar_values(page)["seed"] == "7"
    assert page.evaluate("document.documentElement.lang") == "fr"

    page.go_forward()
    page.wait_for_function("location.pathname === '/mix'")
    settle(page)
    wait_query(page, **settings)
    assert sidebar_values(page)["seed"] == "7"
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert exceptions(page) == [] and session.console.errors == []


def test_a_page_tapped_on_a_phone_opens_with_the_sidebar_folded(
    browser: Browser, server: Server
) -> None:
    """On a phone the open sidebar covers the page: a tap on a page's link opens the page, in
    the link's language and settings, and folds the sidebar away so that the page is in view."""
    phone = new_session(browser, server.url, viewport=(390, 844), user_agent=IPHONE_AGENT)
    page = phone.page
    try:
        phone.open("/mix?lang=fr&seed=3")
        page.locator("[data-testid='stExpandSidebarButton']").click()
        link = page.locator(f"{PAGE_LINK}[data-page='heads']")
        link.scroll_into_view_if_needed()  # the list is at the sidebar's end
        expect(link).to_be_in_viewport()  # the sidebar is open over the page
        link.tap()
        page.wait_for_function("location.pathname === '/heads'")
        settle(page)
        assert query(page) == {"lang": "fr", "seed": "3"}
        expect(page.locator("[data-testid='stExpandSidebarButton']")).to_be_visible()
        expect(link).not_to_be_in_viewport()
        assert exceptions(page) == []
    finally:
        phone.close()


LONG_TEXT = "word " * 2000  # 10 000 characters
XSS_KEY = "<img src=x onerror=window.__xss=1>"
BAD_LINKS = {
    "en": (
        {
            "d_model": "abc",
            "n_heads": "3",
            "seed": "-1",
            "colour": "red",
            XSS_KEY: "1",
            "text": LONG_TEXT,
        },
        [
            "colour is not a setting of this lab; ignored.",
            f"{XSS_KEY} is not a setting of this lab; ignored.",
            "d_model = “abc” is not a whole number; using 8.",
            "3 heads do not divide d_model 8 (possible: 1, 2, 4, 8); using 4.",
            "seed = -1 is outside 0–4294967295; using 0.",
            "the sentence from the link could not be used (The sentence has 10000 characters; "
            "the lab takes at most 400); using “the cat sat on mat”.",
        ],
    ),
    "fr": (
        {"lang": "fr", "seed": "-1", "n_heads": "3"},
        [
            "3 têtes ne divisent pas d_model 8 (possibles\u00a0: 1, 2, 4, 8)\u00a0; on prend 4.",
            "seed = -1 sort de 0–4294967295\u00a0; on prend 0.",
        ],
    ),
}


@pytest.mark.parametrize("lang", list(BAD_LINKS))
def test_bad_link_values_are_replaced_and_reported(
    browser: Browser, server: Server, lang: str
) -> None:
    params, lines = BAD_LINKS[lang]
    session = new_session(browser, server.url)
    page = session.page
    try:
        page.goto(server.url + "/softmax?" + urllib.parse.urlencode(params))
        scaled, pattern = expected_head()  # every bad value falls back to the default
        wait_heatmap(page, 0, scaled)
        wait_heatmap(page, 1, pattern)

        title = pick(FRAME_TEXT, lang, "fixed_title")
        warning = page.locator("[data-testid='stAlert']").filter(has_text=title)
        assert warning.count() == 1
        shown = [item.strip() for item in warning.locator("li").all_inner_texts()]
        assert sorted(shown) == sorted(lines)
        # a URL value is shown as text: the key with HTML became no element and ran no script
        assert warning.locator("img").count() == 0
        assert page.evaluate("() => window.__xss") is None

        values = sidebar_values(page)
        assert (values["d_model"], values["n_heads"], values["seed"]) == ("8", "4", "0")
        assert values["text"] == DEFAULT_TEXT and values["lang"] == lang
        # the corrected numbers replace the bad ones in the address bar (a default value is
        # left out); the sentence is covered by test_values_set_by_the_app_reach_the_url
        url = query(page)
        assert url.get("d_model", "8") == "8" and url.get("n_heads", "4") == "4"
        assert url.get("seed", "0") == "0"
        assert "colour" not in url and XSS_KEY not in url
        assert page.locator("h1").first.inner_text() == SOFTMAX_TEXT[lang]["title"]
        assert exceptions(page) == []
        assert session.console.errors == []
    finally:
        screenshot(page, f"bad_link_{lang}")
        session.close()
