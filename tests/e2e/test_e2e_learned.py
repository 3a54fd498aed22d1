"""The learned-heads page in a real browser: moving the training-step slider redraws every head
with that checkpoint's patterns and puts the step in the URL; every head fits the column of the
class's screens (two side by side at 1280 × 720); screenshots at step 0, mid-training and the
last step."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import Browser, Page

import llm
from tests.e2e.harness import (
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

pytestmark = pytest.mark.e2e
DEFAULT = "the cat sat on the mat . the cat sat on the mat"


def expected(step: int) -> list[np.ndarray]:
    """Every head's pattern at ``step`` on the default sentence, NaN where masked."""
    model = llm.load_model(step=step)
    run = llm.run_model(model, model.encode(DEFAULT))
    return [
        np.where(trace.mask, head.pattern, np.nan) for trace in run.layers for head in trace.heads
    ]


def shown(page: Page) -> list[np.ndarray]:
    """Every head's pattern as drawn: one figure a head, keys patterns, patterns-1, ..."""
    keys = ["patterns", *(f"patterns-{k}" for k in range(1, 8))]
    return [z for key in keys for _, z in chart_traces(page, key, "z")]


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
    assert "Every head at step 500" in page.locator("[data-testid='stMain']").inner_text()
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
        page.locator(".st-key-patterns").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"learned-{name}-heads")
        page.locator(".st-key-scores1").scroll_into_view_if_needed()
        settle(page)
        screenshot(page, f"learned-{name}-training")
        assert shot.console.errors == []
    finally:
        shot.page.context.close()


# every head's figure, the colour bar's and the predictions' (CSS px), the column, and whether
# a box scrolls sideways
LAYOUT = """() => {
  const r = (e) => e.getBoundingClientRect();
  const col = document.querySelector('[data-testid="stMainBlockContainer"]');
  const style = getComputedStyle(col);
  const column = r(col).width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const svg = (key) => [...document.querySelectorAll(`.st-key-${key} svg.main-svg`)]
    .slice(0, 1).map(s => ({x: r(s).left, y: r(s).top, w: r(s).width}))[0];
  const heads = [...Array(8).keys()].map(k => svg(k ? `patterns-${k}` : 'patterns'));
  const boxes = [...document.querySelectorAll('[class*="st-key-figs-"]')];
  return {column, heads, bar: svg('patterns-scale'), predictions: svg('predictions'),
          scrolls: boxes.filter(b => b.scrollWidth > b.clientWidth + 1).length,
          titles: [...document.querySelectorAll('.st-key-figs-patterns .annotation-text')]
            .map(t => parseFloat(getComputedStyle(t).fontSize))};
}"""


@pytest.mark.parametrize(
    ("width", "height", "scale", "per_row"),
    [(853, 480, 1.5, 1), (1024, 768, 1.0, 1), (1280, 720, 1.0, 2), (1920, 1080, 1.0, 3)],
)
def test_every_head_fits_the_column_two_side_by_side_at_1280(
    browser: Browser, server: Server, width: int, height: int, scale: float, per_row: int
) -> None:
    """1280 × 720 at 150 % (a 521 px column), 1024 × 768 (564 px beside the sidebar), 1280 ×
    720 (820 px) and 1920 × 1080: no head is cut or scrolls, and the heads stand as many a row
    as the column holds, their colour bar over the first one."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=scale
    )
    try:
        page = context.new_page()
        page.goto(server.url + "/learned")
        wait_patterns(page, 1500)
        measured = page.evaluate(LAYOUT)
        column, heads, bar = measured["column"], measured["heads"], measured["bar"]
        assert measured["scrolls"] == 0
        for head in heads:
            assert head["w"] <= min(column, 521)
            assert head["x"] + head["w"] <= heads[0]["x"] + column + 1  # inside the column
        rows = [round(head["y"]) for head in heads]
        assert rows.count(rows[0]) == per_row  # heads side by side on the first row
        assert bar["y"] < heads[0]["y"] and abs(bar["x"] - heads[0]["x"]) < 1
        assert bar["w"] == pytest.approx(heads[0]["w"], abs=1)
        assert 400 <= measured["predictions"]["w"] <= 521
        assert min(measured["titles"]) >= 13
        screenshot(page, f"learned-{width}x{height}-{scale}")
        assert exceptions(page) == []
    finally:
        context.close()


def test_presenter_mode_titles_are_projector_sized(browser: Browser, server: Server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.goto(server.url + "/learned?present=true")
        wait_patterns(page, 1500)
        measured = page.evaluate(LAYOUT)
        assert min(measured["titles"]) >= 16
        assert measured["scrolls"] == 0
        assert all(head["w"] <= 800 for head in measured["heads"])
    finally:
        context.close()
