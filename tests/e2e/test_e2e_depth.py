"""The depth page in a real browser: moving the number of layers and the variant redraws the charts
with llm.depth_stack's numbers and puts them in the URL; screenshots in English and French."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Browser, Page

import llm
from tests.e2e.harness import (
    DEFAULT_TEXT,
    Server,
    Session,
    chart_traces,
    exceptions,
    new_session,
    press_slider,
    screenshot,
    settle,
    wait_query,
    wait_until,
)
from ui.text.depth import TEXT

pytestmark = pytest.mark.e2e
CFG = llm.AttentionConfig(d_model=8, n_heads=4, seed=0)
TOKENS = llm.tokenize(DEFAULT_TEXT)


def chart_lines(page: Page, key: str) -> dict[str, np.ndarray]:
    """The y values of every line of the chart drawn with key ``key`` (null -> NaN)."""
    return dict(chart_traces(page, key, "y"))


def wait_lines(page: Page, key: str, name: str, want: np.ndarray, timeout: float = 30.0) -> None:
    def drawn() -> bool:
        shown = chart_lines(page, key).get(name)
        if shown is None or shown.shape != want.shape:
            return False
        return np.allclose(shown, want, rtol=1e-12)

    wait_until(page, drawn, f"/{key}'s {name} = {want}", timeout)


def test_layers_and_variant_redraw_the_charts(session: Session) -> None:
    session.open("/depth")
    page = session.page
    twelve = llm.depth_stacks(CFG, TOKENS, 12)
    wait_lines(page, "grad", "none", twelve["none"].grad_norm)
    wait_lines(page, "rms", "residual", twelve["residual"].rms)

    slider = page.locator("[data-testid='stMain']").get_by_role("slider")
    press_slider(slider, "ArrowRight")  # 12 -> 13 layers
    wait_query(page, layers="13")
    thirteen = llm.depth_stacks(CFG, TOKENS, 13)
    wait_lines(page, "grad", "post_ln", thirteen["post_ln"].grad_norm)
    wait_lines(page, "rms", "pre_ln", thirteen["pre_ln"].rms)
    assert "After 13 layers" in page.locator("[data-testid='stMain']").inner_text()

    page.locator("[data-testid='stMain'] [data-testid='stRadio'] label").filter(
        has_text="pre_ln"
    ).first.click()
    wait_query(page, layers="13", variant="pre_ln")
    want = thirteen["pre_ln"].x[13] / thirteen["pre_ln"].rms[13]

    def rows_drawn() -> bool:
        # the two heatmaps are pieces that wrap (ui.draw.grids.grid_figures): keys rows, rows-1
        shown = [z for key in ("rows", "rows-1") for _, z in chart_traces(page, key, "z")]
        return len(shown) == 2 and np.allclose(shown[1], want, rtol=1e-12)

    wait_until(page, rows_drawn, "the token rows of pre_ln after 13 layers")
    assert exceptions(page) == []
    assert session.console.errors == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_screenshots(browser: Browser, server: Server, lang: str) -> None:
    """The page at 1280 × 720 in both languages: the first chart and its sentence in view."""
    shot = new_session(browser, server.url, viewport=(1280, 720))
    try:
        shot.open(f"/depth?lang={lang}&layers=24")
        page = shot.page
        none = TEXT[lang]["name_none"]  # the legend names the variant in the page's language
        wait_lines(page, "grad", none, llm.depth_stacks(CFG, TOKENS, 24)["none"].grad_norm)
        assert exceptions(page) == []
        screenshot(page, f"depth-{lang}-top")
        page.locator(".st-key-similarity_collapse").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"depth-{lang}-similarity")
        page.locator(".st-key-rows").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"depth-{lang}-rows")
        assert shot.console.errors == []
    finally:
        shot.close()
