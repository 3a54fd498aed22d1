"""What a 150 % zoom's narrow column and presenter mode must hold, measured in chromium (CSS px):
the home page's links wrap instead of running past the column, its table of steps fits it, the
depth page's token rows wrap onto a second row instead of being cut, its two line plots keep
the right one's y title off the left one, and every "Your turn" box shows its whole starter code.

The zoomed screen is 1280 × 720 at 150 %: an 853 × 480 CSS viewport at a device scale of 1.5.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.harness import WAIT_MS, Server, exceptions, move, screenshot, settle
from tests.e2e.tabs import close_tab, new_tab
from ui.text.exercises import CELLS

pytestmark = pytest.mark.e2e

SCREENS = {"1280x720": (1280, 720, 1.0), "1280x720-150pc": (853, 480, 1.5)}
LESSONS = ("qkv", "scores", "softmax", "depth", "code")  # the longest starter codes among them


@pytest.fixture(params=list(SCREENS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, height, scale = SCREENS[request.param]
    shown = new_tab(browser, viewport={"width": width, "height": height}, device_scale_factor=scale)
    shown.context.set_default_timeout(WAIT_MS)
    shown.screen_name = request.param  # type: ignore[attr-defined]
    yield shown
    close_tab(shown)


def visit(page: Page, server: Server, path: str, wait: str = "") -> None:
    page.goto(server.url + path)
    settle(page)
    if wait:
        page.wait_for_selector(wait)
        settle(page)
    assert exceptions(page) == []


FITS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const links = [...main.querySelectorAll('.st-key-beyond [data-testid="stPageLink-NavLink"]')];
  const table = main.querySelector('[data-testid="stMarkdownContainer"] table');
  const column = main.querySelector('[data-testid="stMainBlockContainer"] > div');
  return {
    links: links.map(a => { const p = a.querySelector('p');
      return {cut: p.scrollWidth > p.clientWidth + 1, right: a.getBoundingClientRect().right}; }),
    column: column.getBoundingClientRect().right,
    table: table && {scroll: table.scrollWidth, client: table.clientWidth,
                     right: table.getBoundingClientRect().right},
    intro: main.innerText,
  };
}"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_home_page_fits_its_column(page: Page, server: Server, lang: str) -> None:
    visit(page, server, f"/?lang={lang}", ".st-key-beyond")
    fits = page.evaluate(FITS)
    assert len(fits["links"]) == 6
    assert [link for link in fits["links"] if link["cut"]] == []
    assert all(link["right"] <= fits["column"] + 1 for link in fits["links"])
    table = fits["table"]
    assert table["scroll"] <= table["client"] + 1 and table["right"] <= fits["column"] + 1
    page.locator(".st-key-beyond").scroll_into_view_if_needed()
    screenshot(page, f"fit-home-{lang}-{page.screen_name}")  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_presenter_modes_home_sends_the_reader_to_the_bar(page: Page, server: Server, lang: str):
    visit(page, server, f"/?lang={lang}&present=true", ".st-key-beyond")
    intro = page.evaluate(FITS)["intro"]
    assert ("in the bar at the top" if lang == "en" else "dans la barre du haut") in intro
    assert "sidebar" not in intro and "latérale" not in intro


GEOMETRY = """() => {
  const box = (e) => e.getBoundingClientRect();
  const row = document.querySelector('.st-key-figs-rows');
  const pieces = [...row.querySelectorAll('.js-plotly-plot')].map(p => {
    const b = box(p.querySelector('svg.main-svg')); return {x0: b.left, x1: b.right, y0: b.top}; });
  const pair = document.querySelector('.st-key-similarity_collapse .js-plotly-plot');
  const svg = box(pair.querySelector('svg.main-svg')), left = pair._fullLayout.xaxis;
  return {pieces, row: {x0: box(row).left, x1: box(row).right,
                        scroll: row.scrollWidth, client: row.clientWidth},
          leftPlotEnd: svg.left + left._offset + left._length,
          rightTitle: box(pair.querySelector('.g-y2title text')).left};
}"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_depth_pages_charts_wrap_and_keep_apart(page: Page, server: Server, lang: str):
    visit(page, server, f"/depth?lang={lang}", ".st-key-rows-1 .js-plotly-plot svg.main-svg")
    geometry = page.evaluate(GEOMETRY)
    row, pieces = geometry["row"], geometry["pieces"]
    assert len(pieces) == 2 and row["scroll"] <= row["client"] + 1  # nothing cut, no scroll
    assert all(p["x0"] >= row["x0"] - 1 and p["x1"] <= row["x1"] + 1 for p in pieces)
    # the second heatmap on the next row: the pieces (423 and 469 px) do not fit side by side
    # in 1280 × 720's 820 px column either
    assert pieces[1]["y0"] > pieces[0]["y0"]
    # the right plot's rotated y title stands clear of the left plot
    assert geometry["rightTitle"] - geometry["leftPlotEnd"] >= 12
    page.locator(".st-key-figs-rows").scroll_into_view_if_needed()
    screenshot(page, f"fit-depth-{lang}-{page.screen_name}")  # type: ignore[attr-defined]


EDITOR = """() => { const t = document.querySelector('[class*="st-key-code_"] textarea');
  const cell = t.closest('[class*="st-key-code_"]').className.match(/st-key-code_(\\S+)/)[1];
  return {cell, scroll: t.scrollHeight, client: t.clientHeight, value: t.value}; }"""
EDITOR_BOX = '[class*="st-key-code_"] textarea'


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_editor_shows_its_whole_starter_code(page: Page, server: Server, lang: str) -> None:
    """The lessons with the longest starter codes, the first one loaded and the next ones
    opened from it in the app (``move``), as a class goes through them."""
    short: list[str] = []
    seen: list[str] = []
    for n, slug in enumerate(LESSONS):
        path = f"/{slug}?lang={lang}"
        if n == 0:
            visit(page, server, path, EDITOR_BOX)
        else:
            move(page, path)
            page.wait_for_selector(EDITOR_BOX)
            settle(page)
            assert exceptions(page) == [], slug
        editor = page.evaluate(EDITOR)
        seen.append(editor["cell"])
        if editor["value"] != CELLS[editor["cell"]][lang]["template"]:
            short.append(f"{slug}: the editor holds no starter code")
        if editor["scroll"] > editor["client"] + 1:  # the last line, return, hidden
            short.append(f"{slug}: {editor['scroll']} px of code in {editor['client']} px")
    assert short == [], short
    assert len(set(seen)) == len(LESSONS), seen  # each page's own cell, none left from the last
