"""The learned-heads page in a real browser: moving the training-step slider redraws every head
with that checkpoint's patterns and puts the step in the URL; the head drawn large keeps the
classroom's cells and numbers, and its picker redraws it and writes it to the URL; the large
head, its picker and the small heads fit the column of the class's screens; screenshots at step
0, mid-training and the last step."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Browser, Page

import llm
from tests.e2e.harness import (
    Server,
    Session,
    decode,
    exceptions,
    new_session,
    press_slider,
    screenshot,
    settle,
    wait_query,
    wait_until,
)
from tests.e2e.tabs import close_tab, new_tab

pytestmark = pytest.mark.e2e
DEFAULT = "the cat sat on the mat . the cat sat on the mat"
CLASS_CELL_PX, CLASS_NUMBER_PX = 32.0, 12.0  # the lab's classroom sizes (test_e2e_sizes.py)


def run(step: int) -> llm.ModelRun:
    model = llm.load_model(step=step)
    return llm.run_model(model, model.encode(DEFAULT))


def expected(step: int) -> list[np.ndarray]:
    """Every head's pattern at ``step`` on the default sentence, NaN where masked."""
    return [
        np.where(trace.mask, head.pattern, np.nan)
        for trace in run(step).layers
        for head in trace.heads
    ]


def shown(page: Page) -> list[np.ndarray]:
    """Every head's pattern as the small heads draw it: a figure a head, its values its
    ``data-z``."""
    raw = page.evaluate(
        """() => [...document.querySelectorAll('.lab-small[data-z]')]
            .map(el => ({bdata: el.dataset.z, dtype: 'f8', shape: el.dataset.shape}))"""
    )
    return [decode(z) for z in raw]


# each training plot's dashed line: where it stands along its plot (0 to 1), the plot's width
MARKS = """() => [...document.querySelectorAll('.lab-lines .mark.moving')].map(m => {
  const plot = m.parentElement.getBoundingClientRect(), at = m.getBoundingClientRect();
  return {at: (at.left - plot.left) / plot.width, width: plot.width,
          visible: getComputedStyle(m).visibility === 'visible'};
})"""


def wait_patterns(page: Page, step: int, timeout: float = 30.0) -> None:
    want = expected(step)

    def drawn() -> bool:
        last = shown(page)
        return len(last) == len(want) and all(
            s.shape == w.shape and np.allclose(s, w, rtol=0, atol=1e-12, equal_nan=True)
            for s, w in zip(last, want)
        )

    wait_until(page, drawn, f"step {step}'s patterns in the heads", timeout)


def test_the_step_slider_redraws_every_head(session: Session) -> None:
    session.open("/learned?step=400")
    page = session.page
    wait_patterns(page, 400)
    before = shown(page)
    slider = page.locator(".st-key-step input[type='range']")
    press_slider(slider, "ArrowRight", times=2)  # 400 -> 450 (the induction head forms) -> 500
    wait_query(page, step="500")
    wait_patterns(page, 500)
    after = shown(page)
    # the previous-token head of layer 0 sharpens between the two checkpoints
    assert np.nanmax(np.abs(after[1] - before[1])) > 0.1
    # the training charts, drawn once, mark step 500 in every plot: x from -1 to 1501
    marks = page.evaluate(MARKS)
    assert len(marks) == 5 and all(m["visible"] for m in marks)
    for mark in marks:
        assert mark["at"] == pytest.approx(501 / 1502, abs=1 / mark["width"])
    assert "Every head at step 500" in page.locator("[data-testid='stMain']").inner_text()
    assert exceptions(page) == []
    assert session.console.errors == []


# The head drawn large as the browser draws it (CSS px): a cell's side (from one cell's left to
# the next's: a cell and its gap), and every number drawn in it with its size, its row and its
# column in its table.
LARGE = """() => {
  const fig = document.querySelector('figure.lab-heatmap[data-key="patterns"]');
  if (!fig) return null;
  const rows = [...fig.querySelectorAll('tbody tr')].map(tr => [...tr.querySelectorAll('td')]);
  const box = (td) => td.getBoundingClientRect(), at = box(rows[0][0]);
  const w = rows[0].length > 1 ? box(rows[0][1]).left - at.left : at.width;
  const h = rows.length > 1 ? box(rows[1][0]).top - at.top : at.height;
  const size = (td) => parseFloat(getComputedStyle(td).fontSize);
  const numbers = rows.flatMap((row, i) => row.map((td, j) => ({
      text: td.textContent.trim(), size: size(td), row: i, col: j})))
    .filter(n => n.text !== '');
  return {w, h, rows: rows.length, cols: rows[0].length, numbers};
}"""


def large_head(page: Page) -> dict:
    measured = page.evaluate(LARGE)
    assert measured is not None, "the large head is not drawn"
    return measured


def numbers_of(pattern: np.ndarray, mask: np.ndarray) -> dict[tuple[int, int], str]:
    """The numbers the large head should draw: one decimal, × where masked."""
    return {
        (i, j): f"{pattern[i, j]:.1f}".replace("-", "\u2212") if mask[i, j] else "×"
        for i in range(pattern.shape[0])
        for j in range(pattern.shape[1])
    }


def drawn_numbers(measured: dict) -> dict[tuple[int, int], str]:
    return {(n["row"], n["col"]): n["text"] for n in measured["numbers"]}


def test_the_large_head_keeps_the_class_sizes_and_its_picker_redraws_it(session: Session) -> None:
    """At 1280 × 720: the head drawn large (the best induction head at first) has 32 px cells
    or more and 12 px numbers or more, each the pattern's; picking another head by its control
    puts it in the URL and draws that head's numbers."""
    page = session.page
    page.set_viewport_size({"width": 1280, "height": 720})
    session.open("/learned")
    wait_patterns(page, 1500)
    final = run(1500)
    mask = final.layers[0].mask
    first = large_head(page)
    assert (first["rows"], first["cols"]) == (13, 13)
    assert min(first["w"], first["h"]) >= CLASS_CELL_PX, first["w"]
    assert len(first["numbers"]) == 13 * 13
    assert min(n["size"] for n in first["numbers"]) >= CLASS_NUMBER_PX
    assert drawn_numbers(first) == numbers_of(final.layers[1].heads[1].pattern, mask)
    screenshot(page, "learned-large-head-L1H1")

    page.locator(".st-key-focus").get_by_text("layer 0 · head 1", exact=True).click()
    wait_query(page, focus="L0H1")
    want = numbers_of(final.layers[0].heads[1].pattern, mask)
    wait_until(page, lambda: drawn_numbers(large_head(page)) == want, "layer 0 · head 1's numbers")
    after = large_head(page)
    assert min(after["w"], after["h"]) >= CLASS_CELL_PX  # another head keeps the cells
    assert min(n["size"] for n in after["numbers"]) >= CLASS_NUMBER_PX
    title = page.locator('figure[data-key="patterns"] figcaption').first.text_content() or ""
    assert "layer 0 · head 1" in title and "previous token" in title
    # the small heads stay as they were: the picker reruns its own section
    wait_patterns(page, 1500)
    # the default again: the link leaves it out
    page.locator(".st-key-focus").get_by_text("layer 1 · head 1", exact=True).click()
    wait_query(page, focus=None)
    want = numbers_of(final.layers[1].heads[1].pattern, mask)
    wait_until(page, lambda: drawn_numbers(large_head(page)) == want, "layer 1 · head 1's numbers")
    assert exceptions(page) == []
    assert session.console.errors == []


@pytest.mark.parametrize(("name", "step"), [("step0", 0), ("mid", 450), ("final", 1500)])
def test_screenshots(browser: Browser, server: Server, name: str, step: int) -> None:
    """The page at 1280 × 720: the top, the heads, and the training charts."""
    shot = new_session(browser, server.url, viewport=(1280, 720))
    try:
        shot.open(f"/learned?step={step}")
        page = shot.page
        wait_patterns(page, step)
        assert exceptions(page) == []
        screenshot(page, f"learned-{name}-top")
        page.locator(".st-key-focus").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"learned-{name}-heads")
        page.locator(".lab-small-heads").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"learned-{name}-small-heads")
        page.locator('figure[data-key="scores1"]').scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"learned-{name}-training")
        assert shot.console.errors == []
    finally:
        shot.close()


# the large head's figure, its colour bar's and its cells' (the first cell's top left to the last
# one's bottom right), the small heads', the predictions' and the picker's boxes (CSS px), the
# column, whether a box scrolls sideways, and the heads' titles' sizes
LAYOUT = """() => {
  const r = (e) => e.getBoundingClientRect();
  const col = document.querySelector('[data-testid="stMainBlockContainer"]');
  const style = getComputedStyle(col);
  const column = r(col).width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const left = r(col).left + parseFloat(style.paddingLeft);
  const box = (e) => e && {x: r(e).left, y: r(e).top, w: r(e).width, h: r(e).height};
  const large = document.querySelector('figure[data-key="patterns"]');
  const tds = [...large.querySelectorAll('tbody td')];
  const first = r(tds[0]), last = r(tds[tds.length - 1]);
  const boxes = [...document.querySelectorAll(
    '[class*="st-key-figs-"], .lab-maps, .lab-small-heads')];
  const fonts = (sel) => [...document.querySelectorAll(sel)]
    .map(t => parseFloat(getComputedStyle(t).fontSize));
  return {column, left, large: box(large), bar: box(large.querySelector('.hm-lying .scale')),
          cells: {x: first.left, y: first.top, w: last.right - first.left,
                  h: last.bottom - first.top},
          small: box(document.querySelector('.lab-small-heads')),
          predictions: box(document.querySelector('figure[data-key="predictions"]')),
          picker: box(document.querySelector('.st-key-focus')),
          scrolls: boxes.filter(b => b.scrollWidth > b.clientWidth + 1).length,
          titles: fonts('figure[data-key="patterns"] figcaption, .lab-small figcaption')};
}"""


@pytest.mark.parametrize(
    ("width", "height", "scale", "beside"),
    [
        (853, 480, 1.5, False),
        (1024, 768, 1.0, False),
        (1280, 720, 1.0, True),
        (1920, 1080, 1.0, True),
    ],
)
def test_the_heads_fit_the_column_the_picker_beside_the_large_head_at_1280(
    browser: Browser, server: Server, width: int, height: int, scale: float, beside: bool
) -> None:
    """1280 × 720 at 150 % (a 521 px column), 1024 × 768 (564 px beside the sidebar), 1280 ×
    720 (820 px) and 1920 × 1080: no figure is cut or scrolls; the picker stands beside the
    large head where the column holds both, above it where it does not; the colour bar over
    the large head's cells; the small heads under them."""
    page = new_tab(browser, viewport={"width": width, "height": height}, device_scale_factor=scale)
    try:
        page.goto(server.url + "/learned")
        wait_patterns(page, 1500)
        measured = page.evaluate(LAYOUT)
        column, large, bar, small = (measured[k] for k in ("column", "large", "bar", "small"))
        picker = measured["picker"]
        assert measured["scrolls"] == 0
        for figure in (large, small):
            assert figure["w"] <= min(column, 521)
        if beside:  # the picker left of the large head, level with its colour bar
            assert picker["x"] + picker["w"] <= large["x"] and abs(picker["y"] - bar["y"]) < 40
        else:
            assert picker["y"] + picker["h"] <= bar["y"]
        assert large["x"] + large["w"] <= measured["left"] + column + 1  # inside the column
        cells = measured["cells"]  # the colour bar over them, as wide
        assert bar["y"] + bar["h"] <= cells["y"] and abs(bar["x"] - cells["x"]) <= 1
        assert bar["w"] == pytest.approx(cells["w"], abs=1)
        assert small["y"] >= large["y"] + large["h"]
        assert 400 <= measured["predictions"]["w"] <= 521
        assert min(measured["titles"]) >= 13
        assert large_head(page)["w"] >= CLASS_CELL_PX
        screenshot(page, f"learned-{width}x{height}-{scale}")
        assert exceptions(page) == []
    finally:
        close_tab(page)


def test_presenter_mode_keeps_the_large_head_projector_sized(
    browser: Browser, server: Server
) -> None:
    page = new_tab(browser, viewport={"width": 1280, "height": 720})
    try:
        page.goto(server.url + "/learned?present=true")
        wait_patterns(page, 1500)
        measured = page.evaluate(LAYOUT)
        assert min(measured["titles"]) >= 16
        assert measured["scrolls"] == 0
        assert measured["large"]["w"] <= 800
        # the picker beside the large head, which starts on the first screen
        assert measured["picker"]["x"] + measured["picker"]["w"] <= measured["large"]["x"]
        assert measured["bar"]["y"] < 720
        large = large_head(page)
        assert min(large["w"], large["h"]) >= 48
        assert min(n["size"] for n in large["numbers"]) >= 16
        screenshot(page, "learned-present-1280x720")
    finally:
        close_tab(page)
