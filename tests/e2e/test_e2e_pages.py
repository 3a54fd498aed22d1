"""Every page in a real browser: it loads without an exception or a console error, and page 3
reads well on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.e2e.harness import (
    SIDEBAR,
    Server,
    Session,
    exceptions,
    expected_head,
    new_session,
    screenshot,
    sidebar_values,
    wait_heatmap,
)
from ui.frame import PAGES
from ui.text.common import TEXT as FRAME_TEXT

pytestmark = pytest.mark.e2e


def url_path(file: str) -> str:
    """``app.py`` -> ``/``; ``pages/3_softmax.py`` -> ``/softmax``."""
    return "/" if file == "app.py" else "/" + file.split("_", 1)[1].removesuffix(".py")


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
    assert sidebar_values(page)["seed"] == "3", sidebar_values(page)
    assert session.console.errors == []


PHONE = (390, 844)


def test_phone_viewport(browser: Browser, server: Server) -> None:
    session = new_session(browser, server.url, viewport=PHONE)
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
        charts = page.locator(".js-plotly-plot")
        assert charts.count() == 3  # scaled scores, masked scores, pattern
        for i in range(3):
            charts.nth(i).scroll_into_view_if_needed()
            assert charts.nth(i).is_visible()
            box = charts.nth(i).bounding_box()
            assert box is not None
            # one chart per row, most of the screen wide, tall enough for 5 rows of numbers
            assert 0.7 * PHONE[0] <= box["width"] <= PHONE[0], box
            assert box["height"] >= 240, box
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0], box
        # the sidebar starts closed on a phone, so the lesson is what one sees first
        sidebar = page.locator(SIDEBAR).bounding_box()
        assert sidebar is not None and sidebar["x"] + sidebar["width"] <= 0, sidebar
        assert session.console.errors == []
    finally:
        screenshot(page, "phone_softmax")
        page.context.close()
