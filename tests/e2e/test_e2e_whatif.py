"""The what-ifs in a real browser: the temperature slider and the √d_k switch redraw page 3's
pattern and keep it through a switch of language, and a token chip (clicked, or picked with the
keyboard) moves the outlined row in every heatmap and in the URL; page 5's head view follows it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import Locator, Page

import llm
from tests.e2e.harness import (
    DEFAULT_TEXT,
    Session,
    exceptions,
    expected_head,
    outlined_rows,
    settle,
    switch_language,
    wait_heatmap,
    wait_query,
    wait_until,
)
from ui.text.softmax import TEXT as SOFTMAX_TEXT

pytestmark = pytest.mark.e2e
MAIN = "[data-testid='stMain']"


def expected_pattern(temperature: float, scale: bool, head: int = 0) -> np.ndarray:
    cfg = llm.AttentionConfig()
    x = llm.embed(llm.tokenize(DEFAULT_TEXT), cfg)
    trace = llm.multi_head_attention(x, llm.init_params(cfg), True, temperature, scale)
    return np.where(trace.mask, trace.heads[head].pattern, np.nan)


def wait_outline(page: Page, key: str, row: float, plots: int = 1) -> None:
    """Wait until each of the chart's ``plots`` heatmaps has one outline, on ``row``."""
    for _ in range(150):
        if outlined_rows(page, key) == [row] * plots:
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"{key}: outline on {outlined_rows(page, key)}, not on row {row}")


def chip(page: Page, label: str) -> Locator:
    """The token chip showing ``label``."""
    buttons = page.locator(".st-key-token button")
    return buttons.filter(has_text=re.compile(f"^{re.escape(label)}$")).first


def says(slider: Locator, text: str) -> bool:
    """Whether the slider's value, as a screen reader says it, is ``text``."""
    return slider.get_attribute("aria-valuetext") == text


def first_visit(session: Session, path: str) -> None:
    """Open a page, allowing a cold server (the first visit of a session) more time."""
    session.page.goto(session.base + path)
    session.page.wait_for_selector(".stPlotlyChart", timeout=120_000)
    settle(session.page)


def test_temperature_and_scale_redraw_the_pattern(session: Session) -> None:
    page = session.page
    first_visit(session, "/softmax")
    wait_heatmap(page, 1, expected_head()[1])
    slider = page.locator(MAIN).get_by_role("slider").first
    slider.focus()
    for _ in range(4):  # 1 -> 0.2, one stop a press: 0.7, 0.5, 0.3, 0.2
        slider.press("ArrowLeft")
    wait_query(page, temperature="0.2")
    cold = expected_pattern(0.2, True)
    wait_heatmap(page, 1, cold)
    assert SOFTMAX_TEXT["en"]["turn_note"] in page.locator(MAIN).inner_text()

    page.locator(MAIN).get_by_text(SOFTMAX_TEXT["en"]["scale"], exact=True).click()
    wait_query(page, scale="false")
    wait_heatmap(page, 1, expected_pattern(0.2, False))
    assert not np.allclose(np.nan_to_num(expected_pattern(0.2, False)), np.nan_to_num(cold)), (
        "the switch must change the numbers on this setting"
    )

    # the language reruns the whole page and keeps τ, on the slider too: the browser sends the
    # slider's stop back by its label, the same in both languages; a screen reader hears it
    # with the page's decimal comma, a new stop too, and the point again back in English
    switch_language(page, "fr")
    wait_query(page, temperature="0.2", scale="false", lang="fr")
    wait_heatmap(page, 1, expected_pattern(0.2, False))
    wait_until(page, lambda: says(slider, "0,2"), 'the slider saying "0,2"')
    words = SOFTMAX_TEXT["fr"]["temperature_value"].format(tau="0,20", low="0,05", high="20")
    assert words in page.locator(MAIN).inner_text()
    slider.press("ArrowLeft")
    wait_query(page, temperature="0.15", scale="false", lang="fr")
    wait_until(page, lambda: says(slider, "0,15"), 'the slider saying "0,15"')
    switch_language(page, "en")
    wait_query(page, temperature="0.15", lang=None)
    wait_until(page, lambda: says(slider, "0.15"), 'the slider saying "0.15"')
    assert not exceptions(page)


def test_a_token_chip_moves_the_outline_by_mouse_and_keyboard(session: Session) -> None:
    page = session.page
    first_visit(session, "/softmax")
    wait_outline(page, "pattern", 4.0)  # the last token by default
    chip(page, "sat").click()
    wait_query(page, token="2")
    for key in ("scaled", "masked", "pattern"):
        wait_outline(page, key, 2.0)

    # keyboard: Tab reaches the chips, Enter picks the focused one
    cat = chip(page, "cat")
    cat.focus()
    page.keyboard.press("Enter")
    wait_query(page, token="1")
    wait_outline(page, "pattern", 1.0)
    settle(page)

    # the value holds on page 5: the grid's plots and the head view follow the same token
    session.open("/heads?token=1")
    wait_outline(page, "figs-patterns", 1.0, plots=4)  # the grid, in one figure or in pieces
    widths = page.evaluate(
        """() => {
            // the head view's lines: one SVG line per pair, its query in data-q
            const lines = document.querySelectorAll('.st-key-headview svg line[data-p]');
            return [...lines].map(
                l => [Number(l.dataset.q), parseFloat(getComputedStyle(l).strokeWidth)]);
        }"""
    )
    thick = {w for y, w in widths if y == 1}
    thin = {w for y, w in widths if y != 1}
    assert len(widths) == 15 and len(thick) == 1 and min(thick) > max(thin)
    assert not exceptions(page)
