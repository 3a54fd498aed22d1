"""WCAG 2.2 AA in a real browser: axe-core on every page, the page's language and title, and the
live region that says what changed.

The sweep opens the 11 pages in English and in French at 1280×800, on a 390×844 phone and in
presenter mode (66 views), with one browser context each (a view loaded, the next ones with the
same settings opened from it through the sidebar's links), and runs axe-core (``tests.e2e.axe``)
with the WCAG 2.0/2.1/2.2 A and AA tags. Each view's findings are written to
``artifacts/axe/<view>.json``. What axe cannot decide ("incomplete") is listed in ``REVIEWED``
with the reason it is right; anything else it cannot decide fails like a violation.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import asdict

import numpy as np
import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import llm
from tests.e2e.axe import Finding, inject, run_axe
from tests.e2e.harness import (
    ARTIFACTS,
    DEFAULT_TEXT,
    PAGE_LINK,
    PHONE_AGENT,
    Server,
    Session,
    expected_head,
    new_session,
    settle,
    start_server,
    switch_language,
    type_seed,
    url_path,
    wait_lang,
    wait_until,
)
from ui.frame.components.page_lang import page_title
from ui.frame.page import PAGES
from ui.text.common import TEXT as FRAME_TEXT

pytestmark = pytest.mark.e2e

# view -> (viewport, user agent, query added to every URL)
MODES: dict[str, tuple[tuple[int, int], str | None, str]] = {
    "desktop": ((1280, 800), None, ""),
    "phone": ((390, 844), PHONE_AGENT, ""),
    "present": ((1280, 800), None, "&present=true"),
}
LANGS = ("en", "fr")
LANG_MS = 10_000  # the page's component, mounted with the page: a second unless busy

# What axe returns as "incomplete" (it could not decide; each kind was reviewed by hand), by
# (rule, what the node is: ``tests.e2e.axe``'s ``where``): why it is right. For text, axe cannot
# tell its background when an element lies over it or its content is one glyph; this test then
# measures the text's colour against the opaque backgrounds under it and requires the ratio
# WCAG 1.4.3 asks (``MEASURED``). Anything else axe cannot decide fails the sweep.
REVIEWED: dict[tuple[str, str], str] = {
    ("color-contrast", "math"): (
        "KaTeX formulas: each glyph is a positioned span (axe sees it overlapped) or one "
        "character or an operator (too short, or not text, for axe); their colour is the "
        "paragraph's, measured here against the page under them"
    ),
    ("color-contrast", "chart"): (
        "a chart's axis ticks, titles and legend: SVG text over the chart's own rectangles, which "
        "axe cannot see through; the text's fill is measured here against the page and the "
        "chart's paper under it"
    ),
    ("color-contrast", "cell"): (
        "a number printed on a heatmap cell: its background is the cell's drawn colour, not an "
        "element's; the contrast of every cell number is measured from the rendered cell and "
        "text colours by the heatmap contrast test"
    ),
    ("color-contrast", "code"): (
        "inline code that runs past its line on a phone (partly over other elements): its colour "
        "against the code's own background is measured here"
    ),
    ("color-contrast", "page"): (
        "page text axe cannot decide (overlapped, or one character): measured here against the "
        "opaque backgrounds under it"
    ),
}
MEASURED = {"math", "chart", "code", "page"}  # measured by this test; "cell" by the cell test


def title_of(key: str, lang: str) -> str:
    """The document title a page has in a language: its name, then the app's."""
    return page_title(FRAME_TEXT[lang][key])


VIEWS = [(mode, lang, url_path(f), key) for mode in MODES for lang in LANGS for f, key, _ in PAGES]


@pytest.fixture(scope="module")
def a11y_server() -> Iterator[Server]:
    """The module's own server: its sessions see no other test's clicks."""
    own = start_server("a11y")
    try:
        yield own
    finally:
        own.stop()


class Contexts(dict):
    """One browser context per view kind, axe injected into its every page and frame, opened
    when first asked for."""

    def __init__(self, browser: Browser, base: str) -> None:
        super().__init__()
        self.browser = browser
        self.base = base

    def __missing__(self, mode: str) -> Session:
        viewport, agent, _ = MODES[mode]
        session = new_session(self.browser, self.base, viewport=viewport, user_agent=agent)
        inject(session.page)
        self[mode] = session
        return session


@pytest.fixture(scope="module")
def contexts(browser: Browser, a11y_server: Server) -> Iterator[Contexts]:
    """The module's browser contexts, closed at its end."""
    opened = Contexts(browser, a11y_server.url)
    try:
        yield opened
    finally:
        for session in opened.values():
            session.close()


def unreviewed(finding: Finding) -> list[str]:
    """The nodes of an incomplete item that no review covers, or whose measured contrast is
    under what they need: "target: why" each."""
    rest = []
    for target, where, (ratio, needs) in zip(
        finding.targets, finding.where, finding.ratio, strict=True
    ):
        if (finding.rule, where) not in REVIEWED:
            rest.append(f"{target}: not reviewed ({where})")
        elif where in MEASURED and ratio < needs:
            rest.append(f"{target}: contrast {ratio:.2f} < {needs}")
    return rest


@pytest.mark.parametrize(
    "mode, lang, path, key", VIEWS, ids=[f"{m}-{lang}-{p}" for m, lang, p, _ in VIEWS]
)
def test_axe_finds_no_violation(
    contexts: dict[str, Session], mode: str, lang: str, path: str, key: str
) -> None:
    session = contexts[mode]
    session.go(f"{path}?lang={lang}{MODES[mode][2]}")  # the same settings: moved to, no reload
    # the frame's component sets the language and makes the scroll boxes focusable; without it
    # (a frame that does not mount it) the sweep goes on and the language test says so
    with contextlib.suppress(PlaywrightTimeout):
        session.page.wait_for_function(
            "(lang) => window.__pageLang && window.__pageLang.lang === lang",
            arg=lang,
            timeout=LANG_MS,
        )
    result = run_axe(session.page)
    out = ARTIFACTS / "axe"
    out.mkdir(parents=True, exist_ok=True)
    name = f"{mode}-{lang}-{path.strip('/') or 'home'}"
    (out / f"{name}.json").write_text(json.dumps(asdict(result), indent=1), encoding="utf-8")
    violations = [f.line() for f in result.violations]
    undecided = {f.rule: rest for f in result.incomplete if (rest := unreviewed(f))}
    assert violations == [], "\n".join(violations)
    assert undecided == {}, undecided


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_says_its_language_and_title(contexts: dict[str, Session], lang: str) -> None:
    """``<html lang>`` is the page's language and every page has its own title in it, after a
    first load and after each move to another page in the app (a first load of every page says
    its English title too: ``test_e2e_pages.test_every_page_loads``)."""
    session = contexts["desktop"]
    page = session.page
    titles = []
    for file, key, _ in PAGES:
        link = f"{url_path(file)}?lang={lang}"
        (session.open if file == PAGES[0][0] else session.move)(link)
        wait_lang(page, lang)
        page.wait_for_function("(t) => document.title === t", arg=title_of(key, lang))
        titles.append(page.title())
    assert len(set(titles)) == len(PAGES), titles
    # a move inside the app (no new document): the next page's language and title
    page.locator(PAGE_LINK).nth(3).click()
    settle(page)
    page.wait_for_function("(t) => document.title === t", arg=title_of(PAGES[3][1], lang))
    assert page.evaluate("() => document.documentElement.lang") == lang


NAMES_JS = """() => [...document.querySelectorAll('[aria-label], [placeholder]')]
    .flatMap(el => [el.getAttribute('aria-label'), el.getAttribute('placeholder')])
    .filter(name => name)"""
# words Streamlit writes in English on every page: names of its buttons and fields, a placeholder
STREAMLIT_ENGLISH = {
    "Collapse sidebar",
    "Main menu",
    "Increment",
    "Decrement",
    "Open",
    "Choose an option",
    "Copy to clipboard",
}


def test_streamlit_s_own_words_are_in_the_page_s_language(contexts: dict[str, Session]) -> None:
    """A French page names Streamlit's own buttons and fields in French ("Aide : Phrase", not
    "Help for Phrase"), the hint under a changed field says how to apply it in French, and so
    does the main menu (WCAG 3.1.2: a screen reader reads the page's words with its language's
    rules); back in English, the same elements say their English names again."""
    session = contexts["desktop"]
    page = session.page
    session.open("/softmax?lang=fr")
    wait_lang(page, "fr")
    sentence = page.locator("[data-testid='stSidebar'] .st-key-text input")
    sentence.click()
    sentence.press("End")
    sentence.type(" x")  # not applied: the hint under the field says how
    hint = page.locator("[data-testid='stSidebar'] [data-testid='InputInstructions']")
    wait_until(page, lambda: "Entrée" in hint.inner_text(), "the hint in French")
    assert hint.inner_text().startswith("Entrée pour appliquer")
    names = set(page.evaluate(NAMES_JS))
    assert names & STREAMLIT_ENGLISH == set()
    assert not any(name.startswith("Help for ") for name in names), sorted(names)
    fr = FRAME_TEXT["fr"]
    assert {f"Aide : {fr['text']}", "Menu principal", "Replier la barre latérale"} <= names
    sentence.press("Escape")
    page.locator("[data-testid='stMainMenu'] button").first.click()
    menu = page.locator("[data-testid='stMainMenuPopover']")
    wait_until(page, lambda: "Imprimer" in menu.inner_text(), "the main menu in French")
    assert "Print" not in menu.inner_text() and "Sombre" in menu.inner_text()
    page.keyboard.press("Escape")

    switch_language(page, "en")
    en = FRAME_TEXT["en"]
    wait_until(
        page,
        lambda: (
            {"Main menu", "Collapse sidebar", f"Help for {en['text']}"}
            <= set(page.evaluate(NAMES_JS))
        ),
        "Streamlit's English names back",
    )
    assert not any(" : " in n and n.startswith("Aide") for n in page.evaluate(NAMES_JS))


def test_a_lost_connection_is_said_in_the_page_s_language(browser: Browser) -> None:
    """When the server can no longer be reached (a school's Wi-Fi, a restart), Streamlit's
    label at the top right, then its dialog, say so in French on a French page, not
    "CONNECTING" and "Connection error"."""
    server = start_server("lost-connection")
    session = new_session(browser, server.url)
    page = session.page
    try:
        session.open("/softmax?lang=fr")
        wait_lang(page, "fr")
        server.stop()
        status = page.locator("[data-testid='stConnectionStatus']")
        wait_until(page, lambda: status.count() > 0, "the connection's label", timeout=30)
        # its words (text_content: inner_text would give them as the style shows them, in capitals)
        wait_until(page, lambda: "Connexion" in status.text_content(), "the label in French")
        assert "Connecting" not in status.text_content()
        # where the presenter switch stood: the switch gives way while nothing can be changed
        assert not page.locator(".st-key-present_switch p").first.is_visible()  # its words too
        # after a few tries, Streamlit's dialog
        dialog = page.locator("[data-testid='stDialog']")
        wait_until(page, lambda: "Erreur de connexion" in dialog.text_content(), "the dialog")
        assert "ne répond pas" in dialog.text_content()
        assert "not responding" not in dialog.text_content()
        assert set(page.evaluate(NAMES_JS)) & {"Close", "Dismiss"} == set()
        assert page.locator("html").get_attribute("lang") == "fr"
    finally:
        session.close()
        server.stop()


REGION = "[aria-live='polite'][data-announce]"


def live_text(page: Page) -> str:
    return page.locator(REGION).inner_text().strip()


def spoken(page: Page) -> int:
    """How many sentences the region has said in this document."""
    return page.evaluate("() => window.__announceSpoken || 0")


def looked_at(seed: int) -> str:
    """The token head 0 gives the most attention on page 3's default setting (its pattern's
    largest column sum), computed here with ``llm``."""
    _, pattern = expected_head(seed=seed)
    labels = llm.token_labels(llm.tokenize(DEFAULT_TEXT))
    return labels[int(np.argmax(np.nansum(pattern, axis=0)))]


def test_live_region_says_once_what_changed(contexts: dict[str, Session]) -> None:
    """After the seed moves to 7 on page 3 the polite region says which head looks most at which
    token; a rerun that keeps the numbers (the language switch) does not say it again; the next
    seed says its own sentence."""
    session = contexts["desktop"]
    page = session.page
    session.open("/softmax?lang=en&seed=0")
    assert page.locator(REGION).count() == 1
    assert live_text(page) == ""  # a first visit has nothing to announce
    assert spoken(page) == 0
    for seed, count in ((7, 1), (8, 2)):
        type_seed(page, seed)
        expected = (
            f"Seed {seed}: the pattern is recomputed; head 0 now looks most at “{looked_at(seed)}”."
        )
        wait_until(page, lambda e=expected: live_text(page) == e, f"the sentence {expected!r}")
        assert spoken(page) == count
        if seed == 7:
            side = page.locator("[data-testid='stSidebar'] [data-testid='stButtonGroup']")
            side.locator("button", has_text="fr").click()  # a rerun: new words, same numbers
            wait_until(
                page,
                lambda: page.evaluate("() => document.documentElement.lang") == "fr",
                "lang=fr",
            )
            assert live_text(page) == expected
            assert spoken(page) == count
            side.locator("button", has_text="en").click()
            settle(page)
            assert spoken(page) == count
