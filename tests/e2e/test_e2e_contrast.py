"""Numbers on heatmap cells read on their cells, measured in chromium from what it drew.

Each number's colour is the computed fill of the element that holds its glyphs; its cell's colour
is the screenshot's pixel inside the same cell, near its top-left corner, away from the number
(the heatmap is an ``<image>``: its cells are pixels, not elements). The contrast is WCAG 2's,
computed here. And with chromium's emulated colour-vision deficiencies, the lowest and the
highest cell of a heatmap still look different.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page

from tests.e2e.harness import Server, exceptions, new_session, screenshot, settle

pytestmark = pytest.mark.e2e

CHAPTER_9 = "?d_model=8&n_heads=4"
PAGES = ["qkv", "scores", "softmax", "mix", "concat"]
VIEWPORT = (1280, 1000)

# every heatmap number of one chart: its text, its glyphs' fill, its centre, and its cell's
# top-left corner (the heatmap image's box over its rows and columns, calcdata's z)
NUMBERS_JS = """(gd) => {
  const out = [];
  const cds = (gd.calcdata || []).filter(cd => cd[0] && cd[0].trace.type === 'heatmap');
  gd.querySelectorAll('g.hm').forEach((g, k) => {
    const image = g.querySelector('image'), cd = cds[k];
    if (!image || !cd) return;
    const box = image.getBoundingClientRect(), z = cd[0].z;
    const w = box.width / z[0].length, h = box.height / z.length;
    g.querySelectorAll('g.heatmap-label text').forEach((t, n) => {
      const text = t.textContent.trim();
      if (!text) return;
      const glyphs = [...t.querySelectorAll('tspan')].pop() || t;
      const r = t.getBoundingClientRect(), cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
      const col = Math.floor((cx - box.left) / w), row = Math.floor((cy - box.top) / h);
      const corner = [box.left + col * w + 3, box.top + row * h + 3];
      // in the window and not under anything (the app's header): the chart's own pixel
      const hit = document.elementFromPoint(corner[0], corner[1]);
      out.push({id: k + ':' + n, text, fill: getComputedStyle(glyphs).fill, corner,
                seen: !!hit && gd.contains(hit)});
    });
  });
  return out;
}"""


# every number of one heatmap table (``ui.draw.heatmap_table``): its cell's text, its colour,
# its centre and its cell's top-left corner
TABLE_NUMBERS_JS = """(figure) => [...figure.querySelectorAll('td')].flatMap((td, n) => {
  const text = td.textContent.trim();
  if (!text) return [];
  const r = td.getBoundingClientRect(), corner = [r.left + 3, r.top + 3];
  const hit = document.elementFromPoint(corner[0], corner[1]);
  return [{id: String(n), text, fill: getComputedStyle(td).color, corner,
           seen: !!hit && td.contains(hit)}];
})"""


def luminance(rgb: tuple[float, ...]) -> float:
    def linear(v: float) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def css_rgb(fill: str) -> tuple[float, ...]:
    assert fill.startswith("rgb"), fill
    return tuple(float(v) for v in fill[fill.index("(") + 1 : -1].split(",")[:3])


def shot(page: Page) -> Image.Image:
    return Image.open(io.BytesIO(page.screenshot())).convert("RGB")


def measured_numbers(page: Page) -> list[dict]:
    """Every heatmap number of the page (a plotly chart's, a heatmap table's) with its contrast
    on its cell: each chart scrolled to
    the top of the window, then to its bottom, read and shot each time; every number measured
    where its cell is in sight."""
    out = []
    charts = page.locator(".js-plotly-plot, .lab-heatmap")
    for k in range(charts.count()):
        chart, done, total = charts.nth(k), {}, set()
        table = chart.evaluate("el => el.matches('.lab-heatmap')")
        for block in ("start", "end"):
            chart.evaluate(f"el => el.scrollIntoView({{block: '{block}'}})")
            page.wait_for_timeout(150)
            numbers = chart.evaluate(TABLE_NUMBERS_JS if table else NUMBERS_JS)
            total |= {n["id"] for n in numbers}
            image = shot(page)
            for n in numbers:
                if n["seen"] and n["id"] not in done:
                    cell = image.getpixel(tuple(round(v) for v in n["corner"]))
                    ratio = contrast(css_rgb(n["fill"]), cell)
                    done[n["id"]] = n | {"chart": k, "cell": cell, "ratio": ratio}
        assert set(done) == total, f"chart {k}: numbers never in sight: {total - set(done)}"
        out.extend(done.values())
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_number_on_a_cell_reads_at_four_and_a_half(
    browser: Browser, server: Server, theme: str
) -> None:
    """The pages with the most numbers on cells, the first one loaded and the next ones opened
    from it in the app (``Session.go``), each measured in the theme."""
    session = new_session(browser, server.url, viewport=VIEWPORT)
    page = session.page
    low: dict[str, list] = {}
    try:
        page.emulate_media(color_scheme=theme)
        for slug in PAGES:
            session.go(f"/{slug}{CHAPTER_9}")
            settle(page)
            numbers = measured_numbers(page)
            assert len(numbers) >= 25, slug  # at least one 5 × 5 matrix of the five tokens
            screenshot(page, f"contrast_{slug}_{theme}")
            if any(n["ratio"] < 4.5 for n in numbers):
                low[slug] = [
                    (n["text"], n["fill"], n["cell"], round(n["ratio"], 2))
                    for n in sorted(numbers, key=lambda n: n["ratio"])[:5]
                ]
            assert exceptions(page) == [] and session.console.errors == [], slug
        assert low == {}, low
    finally:
        session.close()


# --- colour-vision deficiencies ---------------------------------------------------------------

DEFICIENCIES = ["deuteranopia", "protanopia", "tritanopia", "achromatopsia"]
DELTA_E = 40.0  # CIE 1976 ΔE between the scale's two ends: far apart, not merely "not equal"

# the first heatmap of the page: its lowest, highest and nearest-to-zero cells' centres
ENDS_JS = """() => {
  const heat = (el) => (el.calcdata || []).find(c => c[0] && c[0].trace.type === 'heatmap');
  const gd = [...document.querySelectorAll('.js-plotly-plot')].find(heat);
  const cd = heat(gd)[0];
  const box = gd.querySelector('g.hm image').getBoundingClientRect();
  const w = box.width / cd.z[0].length, h = box.height / cd.z.length;
  let lo = null, hi = null, mid = null;
  cd.z.forEach((row, i) => row.forEach((v, j) => {
    if (v === undefined || v === null || !isFinite(v)) return;
    const at = {v, x: box.left + j * w + 3, y: box.top + i * h + 3};
    if (!lo || v < lo.v) lo = at;
    if (!hi || v > hi.v) hi = at;
    if (!mid || Math.abs(v) < Math.abs(mid.v)) mid = at;
  }));
  const seen = (p) => gd.contains(document.elementFromPoint(p.x, p.y));
  return {lo, hi, mid, seen: seen(lo) && seen(hi) && seen(mid)};
}"""
SCROLL_JS = """() => {
  const heat = (el) => (el.calcdata || []).some(c => c[0] && c[0].trace.type === 'heatmap');
  [...document.querySelectorAll('.js-plotly-plot')].find(heat).scrollIntoView({block: 'center'});
}"""


def lab(rgb: tuple[float, ...]) -> np.ndarray:
    """sRGB (0-255) -> CIE L*a*b* (D65)."""
    c = np.array(rgb[:3], dtype=float) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        @ linear
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return float(np.linalg.norm(lab(a) - lab(b)))


def ends_seen(page: Page, deficiency: str) -> dict[str, tuple]:
    """The colours of the first heatmap's lowest, highest and nearest-to-zero cells, as a
    screenshot shows them under ``deficiency`` (chromium's own filter on the whole page)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
        page.evaluate(SCROLL_JS)
        page.wait_for_timeout(200)
        at = page.evaluate(ENDS_JS)
        assert at.pop("seen"), at  # the three cells in sight, under nothing
        image = shot(page)
        return {k: image.getpixel((round(p["x"]), round(p["y"]))) for k, p in at.items()}
    finally:
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
        cdp.detach()


def test_the_scales_ends_stay_apart_with_colour_vision_deficiencies(
    browser: Browser, server: Server
) -> None:
    """Viridis (/mix's pattern, 0 to 1): its two ends ΔE ≥ 40 apart under every deficiency.
    Red-blue (/scores, -b to b): its ends ΔE ≥ 40 apart under the three dichromacies; with no
    colour at all (achromatopsia) its dark red and dark blue are alike by design, so there
    each end stands ΔE ≥ 40 from the middle: the size reads from the colour, the sign from the
    printed number's minus."""
    session = new_session(browser, server.url, viewport=VIEWPORT)
    page = session.page
    try:
        found = {}
        for slug in ("mix", "scores"):
            session.open(f"/{slug}{CHAPTER_9}")
            normal = ends_seen(page, "none")
            assert delta_e(normal["lo"], normal["hi"]) >= DELTA_E
            for deficiency in DEFICIENCIES:
                seen = ends_seen(page, deficiency)
                found[slug, deficiency] = seen
                assert seen != normal or deficiency == "none"  # the filter did apply
        for deficiency in DEFICIENCIES:
            mix = found["mix", deficiency]
            assert delta_e(mix["lo"], mix["hi"]) >= DELTA_E, (deficiency, mix)
            scores = found["scores", deficiency]
            if deficiency == "achromatopsia":
                assert delta_e(scores["lo"], scores["mid"]) >= DELTA_E, scores
                assert delta_e(scores["hi"], scores["mid"]) >= DELTA_E, scores
            else:
                assert delta_e(scores["lo"], scores["hi"]) >= DELTA_E, (deficiency, scores)
        assert exceptions(page) == [] and session.console.errors == []
    finally:
        screenshot(page, "contrast_vision_deficiencies")
        session.close()
