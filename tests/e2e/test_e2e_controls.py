"""The sidebar controls in a real browser: each one changes the numbers in the page and the URL;
values hold across pages; the language switch translates the navigation and the page."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Browser

from tests.e2e.harness import (
    DEFAULT_TEXT,
    PAGE_LINK,
    SIDEBAR,
    Server,
    Session,
    choose,
    exceptions,
    expected_head,
    heatmaps,
    nav_labels,
    new_session,
    press_slider,
    query,
    screenshot,
    settle,
    sidebar_values,
    switch_language,
    type_seed,
    wait_heatmap,
    wait_query,
)
from ui.frame.navigation import slug
from ui.frame.page import PAGES
from ui.text.common import TEXT as FRAME_TEXT
from ui.text.softmax import TEXT as SOFTMAX_TEXT

pytestmark = pytest.mark.e2e


def show_defaults(session: Session) -> None:
    session.open("/softmax")
    scaled, pattern = expected_head()
    wait_heatmap(session.page, 0, scaled)
    wait_heatmap(session.page, 1, pattern)


def test_d_model_slider_by_keyboard(session: Session) -> None:
    show_defaults(session)
    page = session.page
    slider = page.locator(SIDEBAR).get_by_role("slider")
    # 8 -> 9: the heads fall back to 3, the largest divisor below 4
    press_slider(slider, "ArrowRight")
    wait_query(page, d_model="9")
    scaled, pattern = expected_head(d_model=9, n_heads=3)
    wait_heatmap(page, 0, scaled)
    wait_heatmap(page, 1, pattern)
    assert sidebar_values(page)["n_heads"] == "3"
    assert "√3 = 1.7321" in page.locator(".lab-heatmap").first.inner_text()

    press_slider(slider, "ArrowLeft", times=2)  # 7: prime, so one head of 7 features
    wait_query(page, d_model="7")
    scaled, pattern = expected_head(d_model=7, n_heads=1)
    wait_heatmap(page, 0, scaled)
    wait_heatmap(page, 1, pattern)
    assert sidebar_values(page)["n_heads"] == "1"
    assert session.console.errors == []


def test_heads_selectbox(session: Session) -> None:
    show_defaults(session)
    page = session.page
    before = heatmaps(page)
    choose(page, 0, "2")
    wait_query(page, n_heads="2")
    scaled, pattern = expected_head(n_heads=2)
    wait_heatmap(page, 0, scaled)
    wait_heatmap(page, 1, pattern)
    assert not np.allclose(heatmaps(page)[0], before[0])
    assert "√4 = 2.0000" in page.locator(".lab-heatmap").first.inner_text()
    assert session.console.errors == []


def test_seed_typed_with_enter(session: Session) -> None:
    show_defaults(session)
    page = session.page
    before = heatmaps(page)
    type_seed(page, 123)
    wait_query(page, seed="123")
    scaled, pattern = expected_head(seed=123)
    wait_heatmap(page, 0, scaled)
    wait_heatmap(page, 1, pattern)
    assert not np.allclose(heatmaps(page)[0], before[0])
    assert sidebar_values(page)["seed"] == "123"
    assert session.console.errors == []


def test_sidebar_links_keep_every_value(session: Session) -> None:
    session.open("/softmax?d_model=6&n_heads=2&seed=5&causal=false&head=1")
    page = session.page
    sentence = "a cat saw a dog"
    text = page.locator(SIDEBAR).locator("[data-testid='stTextInput'] input")
    text.fill(sentence)
    text.press("Enter")
    wait_query(page, text=sentence)
    scaled, pattern = expected_head(6, 2, 5, head=1, causal=False, text=sentence)
    wait_heatmap(page, 1, pattern)
    values = sidebar_values(page)
    assert values == {
        "lang": "en",
        "text": sentence,
        "d_model": "6",
        "n_heads": "2",
        "seed": "5",
        "causal": "false",
        "embeddings": "seeded",
        "head": "1",
    }
    # none of these is a default value, so each one must stay in the URL
    url = {k: v for k, v in values.items() if k not in ("lang", "embeddings")}

    # every other page, then back to page 3, by clicking the links in the sidebar
    order = [p for p in PAGES if p[0] != "pages/3_softmax.py"] + [
        p for p in PAGES if p[0] == "pages/3_softmax.py"
    ]
    for file, key, _group in order:
        page.locator(PAGE_LINK).filter(has_text=FRAME_TEXT["en"][key]).click()
        page.wait_for_function(f"() => location.pathname === '/{slug(file)}'")
        settle(page)
        if file == "pages/10_learned.py":  # its own model: none of the lab's settings shown
            assert not page.locator(SIDEBAR).locator("[data-testid='stTextInput']").is_visible()
        else:
            assert sidebar_values(page) == values, file
        assert all(query(page).get(k) == v for k, v in url.items()), (file, page.url)
        assert exceptions(page) == [], file

    wait_heatmap(page, 0, scaled)
    wait_heatmap(page, 1, pattern)
    assert session.console.errors == []


def test_language_switch(browser: Browser, server: Server) -> None:
    session = new_session(browser, server.url)
    page = session.page
    try:
        session.open("/softmax")
        keys = [key for _file, key, _group in PAGES]
        assert nav_labels(page) == [FRAME_TEXT["en"][k] for k in keys]
        switch_language(page, "fr")
        wait_query(page, lang="fr")
        page.get_by_role("heading", name=SOFTMAX_TEXT["fr"]["title"]).wait_for()
        settle(page)
        assert nav_labels(page) == [FRAME_TEXT["fr"][k] for k in keys]
        assert page.locator("h1").first.inner_text() == SOFTMAX_TEXT["fr"]["title"]
        assert page.get_by_text(SOFTMAX_TEXT["fr"]["intro"]).count() == 1
        assert page.get_by_text(SOFTMAX_TEXT["en"]["intro"]).count() == 0
        assert (
            page.locator(SIDEBAR).get_by_text(FRAME_TEXT["fr"]["settings"], exact=True).count() == 1
        )
        assert page.locator(SIDEBAR).get_by_text(FRAME_TEXT["fr"]["text"], exact=True).count() == 1
        # the language holds on the next page too
        page.locator(PAGE_LINK).filter(has_text=FRAME_TEXT["fr"]["page_qkv"]).click()
        page.wait_for_function("() => location.pathname === '/qkv'")
        settle(page)
        assert query(page).get("lang") == "fr"
        assert nav_labels(page)[0] == FRAME_TEXT["fr"]["home"]
        assert session.console.errors == []
    finally:
        screenshot(page, "language_fr")
        session.close()

    # a browser set to French starts in French when the link names no language
    french = new_session(browser, server.url, locale="fr-FR")
    try:
        french.open("/softmax")
        assert french.page.locator("h1").first.inner_text() == SOFTMAX_TEXT["fr"]["title"]
        assert sidebar_values(french.page)["lang"] == "fr"
        assert french.console.errors == []
    finally:
        french.close()


def test_values_set_by_the_app_reach_the_url(session: Session) -> None:
    show_defaults(session)
    page = session.page
    page.locator(SIDEBAR).get_by_role("button", name=FRAME_TEXT["en"]["new_seed"]).click()
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='stSidebar'] [data-testid='stNumberInput'] "
        "input\").value !== '0'"
    )
    settle(page)
    seed = sidebar_values(page)["seed"]
    wait_query(page, seed=seed)  # the link must reproduce the new seed
    settle(page)  # the URL is written by a second run: let it finish before the next click

    page.locator(SIDEBAR).get_by_role("button", name=FRAME_TEXT["en"]["preset8"]).click()
    # the preset reproduces chapter 8 exactly: seed 0, the default, so it leaves the URL
    wait_query(page, d_model="4", n_heads="1", embeddings="handmade", seed=None)

    session.open("/softmax?text=")  # an empty sentence is replaced by the default
    assert sidebar_values(page)["text"] == DEFAULT_TEXT
    wait_query(page, text=None)  # the default sentence is left out of the URL


# sidebar texts that the browser cuts: a box that hides what overflows it (Streamlit's buttons
# end their label with an ellipsis there) and holds more text than it shows
CUT_TEXTS_JS = """(side) => [...document.querySelector(side).querySelectorAll('*')]
  .filter(el => ['hidden', 'clip'].includes(getComputedStyle(el).overflowX))
  .filter(el => el.textContent.trim() && el.scrollWidth > el.clientWidth + 1)
  .map(el => el.textContent.trim())"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_sidebar_label_is_cut(session: Session, lang: str) -> None:
    """Every button, control label and link of the sidebar shows its whole text at a laptop's
    width, in both languages (the "New seed" button used to read "Ne…")."""
    session.open(f"/softmax?lang={lang}")
    side = session.page.locator(SIDEBAR)
    button = side.get_by_role("button", name=FRAME_TEXT[lang]["new_seed"])
    assert button.inner_text().strip().endswith(FRAME_TEXT[lang]["new_seed"])
    assert session.page.evaluate(CUT_TEXTS_JS, SIDEBAR) == []
