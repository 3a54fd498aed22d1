"""Every page in a real browser: it loads without an exception or a console error, and page 3
reads well on a phone."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import Browser
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.harness import (
    FORMULAS_FIT_JS,
    PHONE_AGENT,
    SIDEBAR,
    Server,
    Session,
    exceptions,
    expected_head,
    new_session,
    screenshot,
    settle,
    sidebar_values,
    touch_drag,
    type_seed,
    url_path,
    wait_heatmap,
)
from ui.draw.grid_plan import COMPACT_CELL_PX
from ui.frame.components.page_lang import page_title
from ui.frame.page import PAGES
from ui.text.common import TEXT as FRAME_TEXT
from ui.text.concat import TEXT as CONCAT_TEXT

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    "file, key", [(file, key) for file, key, _ in PAGES], ids=[url_path(f) for f, _, _ in PAGES]
)
def test_every_page_loads(session: Session, file: str, key: str) -> None:
    page = session.page
    session.open(url_path(file) + "?seed=3")
    main = page.locator("[data-testid='stMain']")
    assert exceptions(page) == []
    assert main.locator("h1").first.inner_text().strip()
    # the frame ran: its navigation names this page, and the link's seed reached the controls
    assert page.locator(SIDEBAR).get_by_text(FRAME_TEXT["en"][key], exact=True).count() == 1
    # the document says the page's language and its own title (the frame's page_lang)
    title = page_title(FRAME_TEXT["en"][key])
    page.wait_for_function("(t) => document.title === t", arg=title)
    assert page.evaluate("() => document.documentElement.lang") == "en"
    if file == "pages/10_learned.py":  # its own model: no shared control, the link keeps them
        assert not page.locator(f"{SIDEBAR} .st-key-seed").is_visible()
        assert "seed=3" in page.url
    else:
        assert sidebar_values(page)["seed"] == "3", sidebar_values(page)
    # nothing unseen takes room above the page (the presenter switch, the document's language,
    # the live region): its first element starts where the column's padding ends
    assert abs(page.evaluate(FIRST_ELEMENT_GAP_JS)) < 1
    # every formula fits its box: a box that scrolls shows a scroll bar where they take room
    assert all(page.evaluate(FORMULAS_FIT_JS))
    assert session.console.errors == []


# how far below the main column's padding the page's first element with a height starts (px)
FIRST_ELEMENT_GAP_JS = """() => {
  const column = document.querySelector('[data-testid=stMainBlockContainer]');
  const padding = parseFloat(getComputedStyle(column).paddingTop);
  const start = column.getBoundingClientRect().top + padding;
  const block = column.querySelector(':scope > [data-testid=stVerticalBlock]');
  const first = [...block.children].find((child) =>
    child.getBoundingClientRect().height > 0 && getComputedStyle(child).position !== 'absolute');
  return first.getBoundingClientRect().top - start;
}"""

PHONE = (390, 844)


def test_phone_viewport(browser: Browser, server: Server) -> None:
    session = new_session(browser, server.url, viewport=PHONE, user_agent=PHONE_AGENT)
    page = session.page
    try:
        page.goto(server.url + "/softmax")
        scaled, pattern = expected_head()
        wait_heatmap(page, 0, scaled)
        wait_heatmap(page, 1, pattern)
        width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1] == PHONE[0]  # the page itself never scrolls sideways
        main = page.locator("[data-testid='stMain']")  # Streamlit scrolls the lesson in here
        assert main.evaluate("el => el.scrollWidth <= el.clientWidth")
        # the formula and its mask, one under the other, fit the screen
        assert page.evaluate(FORMULAS_FIT_JS) == [True]
        charts = page.locator(".lab-heatmap, .lab-bars, .js-plotly-plot")
        # the causal mask is on: scaled scores, masked scores, pattern (heatmap tables), the
        # rows' entropy (bars of markup) and why √d_k (three line plots, one under the other)
        assert charts.count() == 5
        for i in range(5):
            charts.nth(i).scroll_into_view_if_needed()
            assert charts.nth(i).is_visible()
            box = charts.nth(i).bounding_box()
            assert box is not None
            # one chart per row, at the column's left: the markup as wide as its cells, bars and
            # labels, tall enough for 5 rows of numbers or the bars' plot; the plotly chart most
            # of the screen wide (its three line plots 3 × 300 px)
            markup = i < 4
            assert box["x"] == 16 if markup else 0.7 * PHONE[0] <= box["width"], box
            assert box["height"] >= (180 if markup else 240), box
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0], box
        # the sidebar starts closed on a phone, so the lesson is what one sees first
        sidebar = page.locator(SIDEBAR).bounding_box()
        assert sidebar is not None and sidebar["x"] + sidebar["width"] <= 0, sidebar
        # a temperature's formula and its τ, one under the other, fit too
        session.open("/softmax?temperature=0.5")
        assert page.evaluate(FORMULAS_FIT_JS) == [True, True]
        assert session.console.errors == []
    finally:
        screenshot(page, "phone_softmax")
        session.close()


GRID_JS = """() => {
    // the grid's figures: one, or its pieces that wrap
    const gds = document.querySelectorAll('.st-key-figs-patterns .js-plotly-plot');
    return [...gds].flatMap(gd => { const full = gd._fullLayout;
        const top = gd.getBoundingClientRect().top;
        return gd._fullData.map(t => { const y = full[t.yaxis.replace('y', 'yaxis')];
            return {x: full[t.xaxis.replace('x', 'xaxis')]._length, y: y._length,
                    top: top + y._offset}; }); });
}"""


@pytest.mark.parametrize("agent", [PHONE_AGENT, None], ids=["phone", "desktop"])
def test_grid_of_heads_stacks_on_a_phone(
    browser: Browser, server: Server, agent: str | None
) -> None:
    """Page 5's four heads: one plot a row on a phone, two a row in one figure on a computer
    (the narrowest column's width); every plot 5 square cells of 28 px (phone) or 34-40 px."""
    session = new_session(
        browser, server.url, viewport=PHONE if agent else (1280, 900), user_agent=agent
    )
    try:
        session.open("/heads")
        plots = session.page.evaluate(GRID_JS)
        assert len(plots) == 4
        for plot in plots:  # 5 tokens of square cells
            assert abs(plot["x"] - plot["y"]) <= 1, plots
            if agent:
                assert abs(plot["x"] - 5 * 28) <= 1, plots
            else:
                assert 5 * COMPACT_CELL_PX - 1 <= plot["x"] <= 5 * 40 + 1, plots
        if not agent:  # two a row
            assert len({round(plot["top"]) for plot in plots}) == 2, plots
        if agent:
            main = session.page.locator("[data-testid='stMain']")
            assert main.evaluate("el => el.scrollWidth <= el.clientWidth")
        assert session.page.evaluate(OVERLAPS_JS, ".st-key-figs-patterns") == []
        assert session.console.errors == []
    finally:
        screenshot(session.page, f"grid_heads_{'phone' if agent else 'desktop'}")
        session.close()


SIDE_BY_SIDE = {
    # page 5's two heads of six tokens, sidebar open: the grid, too wide for a class's narrowest
    # column, comes in two pieces that fit the 820 px column together (with 32 px between
    # figures, 352 + 444 px did not, and the second stood under the first)
    "two heads": ("/heads?n_heads=2&text=the+cat+sat+on+the+mat", "patterns", 2),
    # the same in presenter mode: one plot a row was one figure, the second head under the
    # first and off the screen, the 1 200 px column empty beside them
    "two heads, presenter": (
        "/heads?n_heads=2&text=the+cat+sat+on+the+mat&present=true",
        "patterns",
        2,
    ),
    # page 1's Q, K and V at chapter 9 in presenter mode: one figure fitted to the narrowest
    # column stood V under Q and K, the rest of the row empty
    "Q, K and V, presenter": ("/qkv?present=true", "qkv_map", 3),
}


@pytest.mark.parametrize("case", list(SIDE_BY_SIDE))
def test_figures_a_class_compares_stand_in_one_row_on_a_projector(
    browser: Browser, server: Server, case: str
) -> None:
    """On a 1280 × 720 projector the figures a class compares stand in one row of the page's
    column, apart, inside it (``SIDE_BY_SIDE``: the link, the figures' box, how many)."""
    path, key, count = SIDE_BY_SIDE[case]
    session = new_session(browser, server.url, viewport=(1280, 720))
    try:
        session.open(path)
        page = session.page
        pieces = page.locator(f".st-key-figs-{key} .js-plotly-plot")
        assert pieces.count() == count
        boxes = [pieces.nth(k).bounding_box() for k in range(count)]
        assert len({box["y"] for box in boxes}) == 1, boxes
        assert all(a["x"] + a["width"] <= b["x"] for a, b in zip(boxes, boxes[1:])), boxes
        column = page.locator(f".st-key-figs-{key}").bounding_box()
        assert boxes[-1]["x"] + boxes[-1]["width"] <= column["x"] + column["width"] + 1
        assert page.evaluate(OVERLAPS_JS, f".st-key-figs-{key}") == []
        assert session.console.errors == []
    finally:
        screenshot(session.page, f"one_row_{key}{'_presenter' * ('present' in path)}")
        session.close()


PLOT_WIDTHS_JS = """(key) => [...document.querySelectorAll(`.st-key-${key} .js-plotly-plot`)]
    .map(gd => Object.keys(gd._fullLayout).filter(k => /^xaxis[0-9]*$/.test(k))
        .map(k => gd._fullLayout[k]._length))"""


# each figure of markup's box and the boxes of its text (title, ticks, labels, a line's label)
MARKUP_TEXT_JS = """(key) => {
  const fig = document.querySelector(`figure[data-key="${key}"]`);
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height, right: r.right, bottom: r.bottom}; };
  const texts = [...fig.querySelectorAll('figcaption, span')].filter(el => el.textContent.trim());
  return {figure: box(fig), plot: box(fig.querySelector('.bars-plot')),
          texts: texts.map(el => [el.textContent, box(el)])};
}"""


@pytest.mark.parametrize("agent", [PHONE_AGENT, None], ids=["phone", "desktop"])
def test_row_statistics_side_by_side_on_a_computer_one_under_the_other_on_a_phone(
    browser: Browser, server: Server, agent: str | None
) -> None:
    """Page 7's means and stds: two bar charts of markup in one box, side by side on a
    computer, one under the other on a phone, each at its own width; every text of each, the
    line std = 1's label too, inside its own figure."""
    session = new_session(
        browser, server.url, viewport=PHONE if agent else (1280, 900), user_agent=agent
    )
    try:
        session.open("/layernorm")
        page = session.page
        means, stds = (page.evaluate(MARKUP_TEXT_JS, key) for key in ("means", "stds"))
        boxes = [means["figure"], stds["figure"]]
        for chart in (means, stds):
            assert chart["plot"]["width"] >= 200, chart["plot"]
            outside = [
                text
                for text, b in chart["texts"]
                if b["x"] < chart["figure"]["x"] - 1 or b["right"] > chart["figure"]["right"] + 1
            ]
            assert outside == []
        assert "std = 1" in [text for text, _ in stds["texts"]]
        if agent:  # one under the other
            assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"] - 1, boxes
        else:  # side by side
            assert boxes[0]["y"] == boxes[1]["y"] and boxes[1]["x"] >= boxes[0]["right"], boxes
        assert session.console.errors == []
    finally:
        screenshot(session.page, f"row_stats_{'phone' if agent else 'desktop'}")
        session.close()


def test_a_finger_on_a_chart_scrolls_the_page_on_a_phone(browser: Browser, server: Server) -> None:
    """On a phone the charts are as wide as the screen: a finger that starts on one must scroll
    the lesson (plotly's default drag would zoom the chart and hold the page still), and a tap
    still shows the cell's value."""
    session = new_session(browser, server.url, viewport=PHONE, user_agent=PHONE_AGENT)
    page = session.page
    try:
        session.open("/heads")
        chart = page.locator(".stPlotlyChart").first
        chart.scroll_into_view_if_needed()
        cells = chart.locator(".nsewdrag").first.bounding_box()
        x, y = cells["x"] + cells["width"] / 2, cells["y"] + cells["height"] / 2
        page.touchscreen.tap(x, y)
        chart.locator(".hoverlayer .hovertext").first.wait_for()
        main = page.locator("[data-testid='stMain']")
        before = main.evaluate("el => el.scrollTop")
        touch_drag(page, x, y, 300)
        with contextlib.suppress(PlaywrightTimeout):  # until it has scrolled; the assert says
            page.wait_for_function(
                "([sel, top]) => document.querySelector(sel).scrollTop >= top",
                arg=["[data-testid='stMain']", before + 200],
                timeout=15_000,
            )
        assert main.evaluate("el => el.scrollTop") >= before + 200
        assert exceptions(page) == [] and session.console.errors == []
    finally:
        screenshot(page, "phone_scroll_over_chart")
        session.close()


# titles (axis titles, the plots' titles) that cross or touch a tick label of the same chart
OVERLAPS_JS = """(scope) => [...document.querySelectorAll(scope + ' .js-plotly-plot')]
  .flatMap(gd => {
    const boxes = (sel) => [...gd.querySelectorAll(sel)].filter(el => el.textContent)
        .map(el => [el.textContent, el.getBoundingClientRect()]);
    // plotly's classes: xtick, x2tick, ... for tick labels; g-xtitle, g-x2title, ... for titles
    const ticks = boxes('g[class$="tick"] text');
    const titles = boxes('g[class^="g-"][class$="title"] text, .annotation-text');
    const gap = 3;  // px kept clear around every tick label
    const cross = (a, b) => a.left < b.right + gap && b.left - gap < a.right
        && a.top < b.bottom + gap && b.top - gap < a.bottom;
    return titles.flatMap(
        ([t, a]) => ticks.filter(([, b]) => cross(a, b)).map(([l]) => t + ' × ' + l));
})"""


# What plotly drew against the margins the figure asked for: when labels do not fit, plotly grows
# the margins and draws the chart a second time. It redraws only for a change of more than 1 px.
MARGINS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
    const full = gd._fullLayout, size = full._size, asked = full.margin;
    return {title: (full.title && full.title.text) || '',
            asked: [asked.l, asked.r, asked.t, asked.b], drawn: [size.l, size.r, size.t, size.b]};
})"""
LONG_SENTENCE = (
    "the cat sat on the mat and the dog lay by the door while a bird sang in the old tree "
    "as the sun rose over the quiet little town today ."
)
# the pages that draw plotly charts (/layernorm's are markup: ``ui.draw.grid_tables``)
CHART_PAGES = ["qkv", "scores", "softmax", "mix", "heads", "concat"]


@pytest.mark.parametrize(
    "query",
    ["seed=3", "d_model=64&n_heads=16&text=" + LONG_SENTENCE.replace(" ", "+")],
    ids=["chapter9", "largest"],
)
def test_every_chart_is_drawn_once_in_the_margins_it_asks_for(session: Session, query: str) -> None:
    """Each figure's margins already hold its tick labels and titles: plotly did not have to
    push any of them, so it drew every chart in one pass (desktop width, both presets); and no
    title crosses or touches a tick label."""
    pushed = []
    for slug in CHART_PAGES:  # the first page loaded, the next ones moved to in the app
        (session.open if slug == CHART_PAGES[0] else session.move)(f"/{slug}?{query}")
        charts = session.page.evaluate(MARGINS_JS)
        assert charts, slug
        assert session.page.evaluate(OVERLAPS_JS, "[data-testid='stMain']") == [], slug
        pushed += [
            (slug, c["title"][:40], c["asked"], c["drawn"])
            for c in charts
            if any(abs(a - d) > 1 for a, d in zip(c["asked"], c["drawn"]))
        ]
    assert pushed == []


def test_a_closed_section_is_built_when_opened_and_follows_the_settings(session: Session) -> None:
    """The tables of page 6 are built only once their section is opened; then they stay open
    and change with the seed like the rest of the page."""
    page = session.page
    session.open("/concat?seed=3")
    section = page.locator(".st-key-concat_tables")
    assert section.locator(".lab-table").count() == 0
    section.get_by_text(CONCAT_TEXT["en"]["tables"]).click()
    section.locator(".lab-table").nth(2).wait_for()
    settle(page)
    assert section.locator(".lab-table").count() == 3
    assert section.get_by_text("attn_out  [5 × 8]").count() == 1
    type_seed(page, 4)
    settle(page)
    assert section.locator(".lab-table").count() == 3  # still open
    assert exceptions(page) == [] and session.console.errors == []


# plotly.js stores a chart's computed traces in ``gd.calcdata`` each time it works them out anew
# (new numbers, a new layout): counting these stores counts the full draws of every chart.
COUNT_DRAWS_JS = """
window.__draws = 0;
Object.defineProperty(HTMLElement.prototype, 'calcdata', {
  configurable: true,
  get() { return this.__calcdata; },
  set(value) { if (Array.isArray(value)) window.__draws += 1; this.__calcdata = value; },
});
"""


@pytest.mark.parametrize("slug", ["concat", "heads"])
def test_a_change_draws_each_chart_once(browser: Browser, server: Server, slug: str) -> None:
    """A new seed redraws every chart of the page once: the figures carry their own style,
    so no second pass re-themes them in the browser."""
    session = new_session(browser, server.url)
    page = session.page
    try:
        page.add_init_script(COUNT_DRAWS_JS)
        session.open(f"/{slug}?seed=3")
        charts = page.locator(".js-plotly-plot").count()
        assert charts >= 2
        page.evaluate("window.__draws = 0")
        type_seed(page, 4)
        page.wait_for_function("() => window.__draws >= 1")
        settle(page)
        page.wait_for_timeout(500)  # a late second pass would show here
        assert page.evaluate("window.__draws") == charts
        assert exceptions(page) == [] and session.console.errors == []
    finally:
        screenshot(page, f"draws_once_{slug}")
        session.close()


# the computed fill of each kind of chart text, and the app's background behind it
CHART_COLOURS_JS = """() => {
  const fills = (sel) => [...new Set([...document.querySelectorAll(sel)]
      .filter(t => t.textContent.trim()).map(t => getComputedStyle(t).fill))].sort();
  const chart = '.stPlotlyChart ';
  return {
    background: getComputedStyle(document.querySelector("[data-testid='stApp']")).backgroundColor,
    labels: fills([' .xaxislayer-above text', ' .yaxislayer-above text', ' .cbaxis text',
                   ' g[class^="g-"][class$="title"]:not(.g-gtitle) text', ' .annotation-text']
                  .map(s => chart + s).join(',')),
    titles: fills(chart + '.g-gtitle text,' + chart + '.annotation-text tspan[style*="bold"]'),
    legend: fills(chart + '.legendtext'),
  };
}"""
BACKGROUND_IS_JS = """(colour) =>
  getComputedStyle(document.querySelector("[data-testid='stApp']")).backgroundColor === colour"""
THEME_COLOURS = {
    "light": {
        "background": "rgb(255, 255, 255)",
        "labels": ["rgb(95, 98, 114)"],  # #5f6272, 6.0:1 on white
        "titles": ["rgb(47, 45, 43)"],
        "legend": ["rgb(38, 39, 48)"],
    },
    "dark": {
        "background": "rgb(23, 22, 20)",
        "labels": ["rgb(230, 234, 241)"],
        "titles": ["rgb(237, 235, 232)"],
        "legend": ["rgb(250, 250, 250)"],
    },
}


# the text colours of the figures of markup: their titles, then their labels and ticks
MARKUP_COLOURS_JS = """() => {
  const colours = (sel) => [...new Set([...document.querySelectorAll(sel)]
      .filter(el => el.textContent.trim()).map(el => getComputedStyle(el).color))].sort();
  return {titles: colours('figure[data-key] figcaption'),
          labels: colours('.lab-heatmap th, .hm-x, .hm-y, .hm-bar span, .hm-lying span, '
                          + '.bars-ticks span, .bars-x span')};
}"""


def _markup_colours(theme: str) -> dict[str, list[str]]:
    """What MARKUP_COLOURS_JS reads in ``theme``: the charts' own title and label colours."""
    return {"titles": THEME_COLOURS[theme]["titles"], "labels": THEME_COLOURS[theme]["labels"]}


def test_chart_text_follows_the_theme_without_a_rerun(browser: Browser, server: Server) -> None:
    """Page 5's charts (a grid with its colour bar, bars with a legend and titles) take the
    text colours of Streamlit's light theme, and those of the dark one as soon as the visitor's
    system turns dark: no rerun, no redraw. So do page 7's figures of markup (heatmap tables
    and bars): their titles and labels in the same colours as the charts'."""
    session = new_session(browser, server.url)
    page = session.page
    try:
        page.add_init_script(COUNT_DRAWS_JS)
        page.emulate_media(color_scheme="light")
        session.open("/layernorm")
        assert page.evaluate(MARKUP_COLOURS_JS) == _markup_colours("light")
        page.emulate_media(color_scheme="dark")
        page.wait_for_function(BACKGROUND_IS_JS, arg=THEME_COLOURS["dark"]["background"])
        assert page.evaluate(MARKUP_COLOURS_JS) == _markup_colours("dark")
        page.emulate_media(color_scheme="light")
        session.move("/heads")
        assert page.evaluate(CHART_COLOURS_JS) == THEME_COLOURS["light"]
        draws = page.evaluate("window.__draws")
        page.emulate_media(color_scheme="dark")
        page.wait_for_function(BACKGROUND_IS_JS, arg=THEME_COLOURS["dark"]["background"])
        assert page.evaluate(CHART_COLOURS_JS) == THEME_COLOURS["dark"]
        assert page.evaluate("window.__draws") == draws
        chart = page.locator(".stPlotlyChart").first
        chart.scroll_into_view_if_needed()
        box = chart.locator(".nsewdrag").first.bounding_box()  # the first plot's cells
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        hover = page.locator(".stPlotlyChart .hoverlayer .hovertext").first
        hover.wait_for()
        assert (
            hover.locator("path").evaluate("el => getComputedStyle(el).fill")
            == THEME_COLOURS["dark"]["background"]
        )
        assert (
            hover.locator("text").first.evaluate("el => getComputedStyle(el).fill")
            == THEME_COLOURS["dark"]["labels"][0]
        )
        assert exceptions(page) == [] and session.console.errors == []
    finally:
        screenshot(page, "chart_text_dark")
        session.close()
