"""The learned-heads page in a real browser: moving the training-step slider redraws every head
with that checkpoint's patterns and puts the step in the URL; screenshots at step 0, mid-training
and the last step."""

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
    return [z for _, z in chart_traces(page, "patterns", "z")]


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
