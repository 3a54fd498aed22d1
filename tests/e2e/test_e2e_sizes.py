"""Charts sized by their cells: on every page, at both chapter presets and on the screens a class
uses, every heatmap cell and its number stay readable, each number inside its cell, and no chart
text runs into another.

Measured in chromium, in CSS px (what a zoom scales): a cell is its heatmap image's box over its
rows and columns, a number the computed font size of its ``<text>``, a text's box its
``getBoundingClientRect``. The zoomed screen is 1280 × 720 at 150 %: a 853 × 480 CSS viewport
drawn at a device scale of 1.5, as the browser's own zoom lays it out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.harness import (
    ARTIFACTS,
    IPHONE_AGENT,
    WAIT_MS,
    Server,
    move,
    settle,
    url_path,
)
from tests.e2e.tabs import close_tab, new_tab
from ui.frame.page import PAGES

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class Screen:
    name: str
    width: int  # CSS px
    height: int
    scale: float  # device pixels per CSS px: 1.5 is a 150 % zoom of 1280 × 720
    phone: bool = False
    present: bool = False  # presenter mode (?present=true): projector-sized cells and text

    @property
    def cell(self) -> float:
        """The smallest cell side (CSS px) at the chapters' sizes."""
        return 24.0 if self.phone else 32.0

    @property
    def number(self) -> float:
        """The smallest cell number (CSS px)."""
        return 10.0 if self.phone else 12.0


# screens of one device scale share a browser context: a page is loaded once and measured at
# each of their sizes (the charts keep their widths; only the rows they wrap into change)
DEVICES = {
    "computer": [
        Screen("1280x720", 1280, 720, 1.0),
        Screen("1024x768-sidebar", 1024, 768, 1.0),
        Screen("1920x1080", 1920, 1080, 1.0),
    ],
    "zoom-150pc": [Screen("1280x720-150pc", 853, 480, 1.5)],
    "phone": [Screen("phone-390x844", 390, 844, 3.0, phone=True)],
    # presenter mode on a projector's 1280 × 720: its larger cells, text and margins
    "presenter": [Screen("1280x720-present", 1280, 720, 1.0, present=True)],
}
LANGS = ("en", "fr")
PRESETS = {
    "chapter8": "d_model=4&n_heads=1&embeddings=handmade",
    "chapter9": "d_model=8&n_heads=4",
}
CHAPTER_ROWS, CHAPTER_COLS = 8, 16  # the chapters' sizes: what must keep readable cells
# a few pages only, by their slugs: E2E_PAGES=heads,layernorm (unset: every page)
ONLY = [slug for slug in os.environ.get("E2E_PAGES", "").split(",") if slug]
# the pages in two halves, one test each, so that both workers share a device's pages: each
# half has heatmaps at the chapters' sizes
HALVES = {
    "chapter8": ("home", "qkv", "scores", "softmax", "mix"),
    "chapter9": ("heads", "concat", "layernorm", "depth", "code", "learned"),
}
# every screen's checks in presenter mode, its projector-sized cells and text: E2E_PRESENT=1
# (the "presenter" screen is always in presenter mode)
PRESENT = "&present=true" if os.environ.get("E2E_PRESENT") == "1" else ""
# presenter mode's smallest chart text (CSS px): ticks and legend 16, notes on a plot 15
PRESENT_TICK_PX, PRESENT_TITLE_PX = 16.0, 15.0


# Every chart of the page: its heatmaps' cells and numbers, and the boxes of its texts. A title
# is the chart's title, a plot's title (an annotation), an axis title or a colour bar's title;
# every other text (tick labels, colour bar numbers, legend) may touch a neighbour of its kind
# but never a title. Boxes are the rendered ones, in CSS px.
MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
  const out = [];
  for (const el of document.querySelectorAll('.js-plotly-plot')) {
    const holder = el.closest('.stElementContainer');
    const key = ((holder && holder.className.match(/st-key-(\\S+)/)) || [null, '?'])[1];
    const chart = {key, svg: box(el.querySelector('svg.main-svg')), heatmaps: [], texts: []};
    const cds = (el.calcdata || []).filter(cd => cd[0] && cd[0].trace.type === 'heatmap');
    el.querySelectorAll('g.hm').forEach((g, k) => {
      const image = g.querySelector('image');
      const cd = cds[k];
      if (!image || !cd) return;
      const z = cd[0].z, r = box(image);
      const numbers = [...g.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
      const fonts = numbers.map(t => parseFloat(getComputedStyle(t).fontSize));
      // the widest number and its text (the SVG's units are CSS px)
      const widest = numbers.reduce((w, t) => {
        const px = t.getBBox().width; return px > w[0] ? [px, t.textContent] : w; }, [0, '']);
      chart.heatmaps.push({rows: z.length, cols: z[0].length,
        w: (r.x1 - r.x0) / z[0].length, h: (r.y1 - r.y0) / z.length, fonts, widest});
    });
    const kinds = [
      ['title', '.g-gtitle text, .annotation text, [class^="g-x"][class$="title"] text, '
        + '[class^="g-y"][class$="title"] text, .cbtitle text'],
      ['tick', '.xtick text, .ytick text, .colorbar .cbaxis text, .legendtext'],
    ];
    for (const [kind, selector] of kinds) {
      for (const t of el.querySelectorAll(selector)) {
        if (t.textContent.trim() === '' || getComputedStyle(t).display === 'none') continue;
        const b = box(t);
        if (b.x1 - b.x0 < 0.5) continue;
        chart.texts.push({kind, text: Array.from(t.textContent.trim()).slice(0, 40).join(''),
                          size: parseFloat(getComputedStyle(t).fontSize), ...b});
      }
    }
    out.push(chart);
  }
  // the heatmap tables (ui/draw/heatmap_table.py): their cells and numbers, titles and labels
  for (const el of document.querySelectorAll('.lab-heatmap')) {
    const cells = [...el.querySelectorAll('td')].filter(td => !td.closest('thead'));
    const [rows, cols] = el.dataset.shape.split(',').map(Number);
    const numbers = cells.filter(td => td.textContent.trim() !== '');
    const width = (td) => { const range = document.createRange();  // its number's, not the
      range.selectNodeContents([...td.childNodes].find(n => n.nodeType === 3));  // outline's
      return range.getBoundingClientRect().width; };
    const widest = numbers.reduce((w, td) => {
      const px = width(td); return px > w[0] ? [px, td.textContent.trim()] : w; }, [0, '']);
    const first = cells[0].getBoundingClientRect();
    const heatmaps = [{rows, cols, w: first.width + 1, h: first.height + 1, widest,
      fonts: numbers.map(td => parseFloat(getComputedStyle(td).fontSize))}];
    const texts = [];
    for (const [kind, selector] of [['title', 'figcaption, .hm-x, .hm-y, .bar-title'],
                                    ['tick', 'th, .hm-bar span:not(.bar-title)']]) {
      for (const t of el.querySelectorAll(selector)) {
        if (t.textContent.trim() === '') continue;
        texts.push({kind, text: Array.from(t.textContent.trim()).slice(0, 40).join(''),
                    size: parseFloat(getComputedStyle(t).fontSize), ...box(t)});
      }
    }
    out.push({key: el.dataset.key, svg: box(el), heatmaps, texts});
  }
  // page 5's head view, an SVG drawing: its column titles, token labels and legend
  for (const el of document.querySelectorAll('svg.head-view')) {
    const texts = [...el.querySelectorAll('text')].map(t => ({
      kind: t.classList.contains('hv-title') ? 'title' : 'tick',
      text: Array.from(t.textContent.trim()).slice(0, 40).join(''),
      size: parseFloat(getComputedStyle(t).fontSize),
      ...box(t)}));
    out.push({key: 'headview', svg: box(el), heatmaps: [], texts});
  }
  const main = document.querySelector('[data-testid="stMain"]');
  // which tables scroll sideways inside their own box, in page order
  const wideTables = [...document.querySelectorAll('.lab-table')]
    .map(t => t.scrollWidth > t.clientWidth + 1);
  return {charts: out, wideTables,
          pageWide: document.scrollingElement.scrollWidth > window.innerWidth + 1,
          mainWide: main.scrollWidth > main.clientWidth + 1,
          drawn: document.querySelectorAll('.stPlotlyChart').length
            + document.querySelectorAll('svg.head-view, .lab-heatmap').length === out.length};
}"""


def overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    """Whether two boxes share more than ``slack`` px each way (touching edges do not count)."""
    return min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > slack and (
        min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack
    )


def problems(measured: dict, screen: Screen, path: str = "") -> list[str]:
    """What is wrong on the page at ``path``, as readable lines (empty: the page passes)."""
    found = []
    if measured["pageWide"] or measured["mainWide"]:
        found.append("the page scrolls sideways")
    if path.startswith("/qkv?") and screen.width >= 1280 and measured["wideTables"][:1] == [True]:
        found.append("the X table scrolls sideways")  # d_model 8 fits 1280 px
    for chart in measured["charts"]:
        key = chart["key"]
        for hm in chart["heatmaps"]:
            if hm["rows"] > CHAPTER_ROWS or hm["cols"] > CHAPTER_COLS:
                continue  # larger settings may shrink cells and drop numbers
            side = min(hm["w"], hm["h"])
            if side < screen.cell:
                found.append(f"{key}: {hm['rows']}×{hm['cols']} cells of {side:.1f} px")
            if not hm["fonts"]:
                found.append(f"{key}: {hm['rows']}×{hm['cols']} cells without their numbers")
            elif min(hm["fonts"]) < screen.number:
                found.append(f"{key}: numbers of {min(hm['fonts']):.1f} px")
            # each number inside its cell, a pixel from each edge (the cells' 1 px gap)
            width, text = hm["widest"]
            if width > hm["w"] - 2:
                found.append(f"{key}: {text} is {width:.1f} px wide in cells of {hm['w']:.1f} px")
        texts, svg = chart["texts"], chart["svg"]
        if screen.present:
            for a in texts:
                least = PRESENT_TICK_PX if a["kind"] == "tick" else PRESENT_TITLE_PX
                if a["size"] < least - 0.5:
                    found.append(f"{key}: {a['text']!r} at {a['size']:.1f} px in presenter mode")
        for n, a in enumerate(texts):
            if a["kind"] != "title":
                continue
            inside = (
                a["x0"] >= svg["x0"] - 1
                and a["x1"] <= svg["x1"] + 1
                and a["y0"] >= svg["y0"] - 1
                and a["y1"] <= svg["y1"] + 1
            )
            if not inside:
                found.append(f"{key}: {a['text']!r} passes the chart's edge")
            for m, b in enumerate(texts):
                if m != n and (b["kind"] != "title" or m > n) and overlap(a, b):
                    found.append(f"{key}: {a['text']!r} runs into {b['text']!r}")
    return found


@dataclass
class Visit:
    screen: Screen
    path: str
    measured: dict

    @property
    def cells(self) -> list[float]:
        return [
            min(h["w"], h["h"])
            for c in self.measured["charts"]
            for h in c["heatmaps"]
            if h["rows"] <= CHAPTER_ROWS and h["cols"] <= CHAPTER_COLS
        ]

    @property
    def fonts(self) -> list[float]:
        return [
            f
            for c in self.measured["charts"]
            for h in c["heatmaps"]
            if h["rows"] <= CHAPTER_ROWS and h["cols"] <= CHAPTER_COLS
            for f in h["fonts"]
        ]


def wait_drawn(page: Page) -> None:
    """Until every chart of the page has been drawn by plotly."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('.stPlotlyChart')].every(
            c => { const p = c.querySelector('.js-plotly-plot');
                   return p && p._fullLayout && p.querySelector('svg.main-svg'); })""",
        polling=200,
        timeout=WAIT_MS,
    )


# the charts' boxes, as a string, the same on three looks 100 ms apart: the rows have re-wrapped
STEADY = """(width) => {
    if (window.innerWidth !== width) { window.__boxes = []; return false; }
    const boxes = [...document.querySelectorAll('.stPlotlyChart')].map((c) => {
        const r = c.getBoundingClientRect(); return `${r.left},${r.top},${r.width}`; }).join(';');
    const seen = (window.__boxes || []).concat([boxes]).slice(-3);
    window.__boxes = seen;
    return seen.length === 3 && seen.every((b) => b === boxes);
}"""


def wait_rewrapped(page: Page, width: int) -> None:
    """After a resize, until the window has the new width and the charts' rows have re-wrapped
    (the charts keep their size; only the rows they wrap into change)."""
    page.evaluate("() => { window.__boxes = []; }")
    page.wait_for_function(STEADY, arg=width, polling=100, timeout=WAIT_MS)


def visits(
    browser: Browser, server: Server, screens: list[Screen], half: tuple[str, ...]
) -> Iterator[Visit]:
    """Every page of ``half`` at both presets in both languages (French at the chapter 9
    preset, whose titles are the longest), in a context of the screens' device scale (a phone's
    user agent on the phone), measured at each screen's size: a link's first page loaded, the
    next ones opened from it in the app (``move``), as a class moves through the lesson."""
    first = screens[0]
    agent = {"user_agent": IPHONE_AGENT, "is_mobile": True, "has_touch": True}
    page = new_tab(
        browser,
        viewport={"width": first.width, "height": first.height},
        device_scale_factor=first.scale,
        **(agent if first.phone else {}),
    )
    page.context.set_default_timeout(WAIT_MS)
    links = [(lang, query) for lang in LANGS for name, query in PRESETS.items()]
    try:
        for lang, query in links:
            if lang == "fr" and query == PRESETS["chapter8"]:
                continue
            loaded = False  # a link's first page is loaded, the next ones moved to in the app
            for file, _, _ in PAGES:
                slug = url_path(file).strip("/") or "home"
                if slug not in half or (ONLY and slug not in ONLY):
                    continue
                present = "&present=true" if first.present else PRESENT
                path = f"{url_path(file)}?{query}&lang={lang}{present}"
                page.set_viewport_size({"width": first.width, "height": first.height})
                if loaded:
                    move(page, path)
                else:
                    page.goto(server.url + path)
                    page.wait_for_selector(
                        "[data-testid='stApp'][data-test-script-state='notRunning']"
                    )
                    settle(page)
                    loaded = True
                wait_drawn(page)
                for screen in screens:
                    if screen is not first:
                        page.set_viewport_size({"width": screen.width, "height": screen.height})
                        wait_rewrapped(page, screen.width)
                        wait_drawn(page)
                    measured = page.evaluate(MEASURE)
                    if (
                        lang == "en"
                        and query == PRESETS["chapter9"]
                        and screen.width in (853, 1280)
                    ) or screen.present:
                        preset = (
                            ""
                            if not screen.present
                            else f"-{lang}-"
                            + next(name for name, q in PRESETS.items() if q == query)
                        )
                        shoot(page, f"sizes-{screen.name}-{slug}{preset}")
                    yield Visit(screen, path, measured)
    finally:
        close_tab(page)


def shoot(page: Page, name: str) -> None:
    """A screenshot with the page's first chart in view (Streamlit scrolls inside stMain)."""
    page.evaluate(
        """() => { const c = document.querySelector('.stPlotlyChart');
                   if (c) c.scrollIntoView({block: 'start'}); }"""
    )
    page.wait_for_timeout(150)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"e2e-{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png")


@pytest.mark.parametrize("half", list(HALVES))
@pytest.mark.parametrize("device", list(DEVICES))
def test_cells_numbers_and_chart_texts_stay_readable(
    browser: Browser, server: Server, device: str, half: str
) -> None:
    every = sorted(url_path(file).strip("/") or "home" for file, _, _ in PAGES)
    assert sorted(p for pages in HALVES.values() for p in pages) == every, "a page in no half"
    screens = DEVICES[device]
    found: list[str] = []
    cells: dict[str, list[float]] = {s.name: [] for s in screens}
    fonts: dict[str, list[float]] = {s.name: [] for s in screens}
    for visit in visits(browser, server, screens, HALVES[half]):
        where = f"{visit.screen.name} {visit.path}"
        found += [f"{where}: {line}" for line in problems(visit.measured, visit.screen, visit.path)]
        if not visit.measured["drawn"]:
            found.append(f"{where}: a chart was not drawn")
        cells[visit.screen.name] += visit.cells
        fonts[visit.screen.name] += visit.fonts
    summary = [
        f"{name}: cells {min(cells[name]):.1f}-{max(cells[name]):.1f} px, numbers "
        f"{min(fonts[name]):.1f}-{max(fonts[name]):.1f} px, {len(cells[name])} heatmaps"
        for name in cells
        if cells[name] and fonts[name]
    ]
    print("\n".join(summary))
    if not ONLY:  # a run of chosen pages (E2E_PAGES=learned) may hold no chapter-sized heatmap
        assert len(summary) == len(screens), summary
    assert found == [], "\n".join([*summary, *found])
