"""Presenter mode and the controls' reach in a real browser, at a projector's 1280×720.

The QR code is read back from a screenshot of the page with zxing-cpp (a real decoder: what a
phone in class does), not from the SVG the server sent.
"""

from __future__ import annotations

import io
import urllib.parse

import numpy as np
import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.e2e.harness import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    DEFAULT_TEXT,
    FORMULAS_FIT_JS,
    SIDEBAR,
    WAIT_MS,
    Server,
    exceptions,
    expected_head,
    move,
    new_session,
    query,
    settle,
    wait_heatmap,
    wait_query,
)
from tests.e2e.test_e2e_serve import serve_script
from ui.frame.navigation import neighbour_names, slug
from ui.frame.page import PAGES
from ui.text import translator
from ui.text.common import TEXT as FRAME_TEXT

pytestmark = pytest.mark.e2e

PROJECTOR = (1280, 720)
MAIN = "[data-testid='stMain']"
SHOTS = ARTIFACTS / "presenter"
LOAD_MS = 90_000  # a page's first visit on a busy machine imports its modules


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png")


def read_qr(page: Page) -> str:
    """The QR code on the screen, decoded from the pixels of its screenshot."""
    picture = page.locator("img[src^='data:image/svg+xml']")
    picture.wait_for()
    for _ in range(10):  # the popover fades in: read again until the code is whole
        grey = np.asarray(Image.open(io.BytesIO(picture.screenshot())).convert("L"))
        found = zxingcpp.read_barcodes(grey)
        if found:
            break
        page.wait_for_timeout(300)
    assert len(found) == 1, f"{len(found)} codes read"
    return found[0].text


def open_qr(page: Page) -> None:
    """Open the bar's QR popover, closed first if a previous look left it open."""
    page.keyboard.press("Escape")
    page.locator("img[src^='data:image/svg+xml']").wait_for(state="hidden")
    page.get_by_role("button", name="QR").click()


def show(page: Page, url: str) -> None:
    """Open a page and wait until its script has finished, every widget is drawn (no skeleton
    waiting for its code) and the page stopped changing (the page's own errors are other
    tests' business: here only the frame's part is looked at)."""
    page.goto(url)
    wait_shown(page)


def show_together(visits: list[tuple[Page, str]]) -> None:
    """Open each page at its URL at once, as a class joins, then wait until each is shown
    (``show``): the browsers load side by side instead of one after the other."""
    for page, url in visits:
        page.goto(url, wait_until="commit")
    for page, _url in visits:
        wait_shown(page)


def show_next(page: Page, base: str, path: str, first: bool) -> None:
    """The next page of a tour with the same settings: the first loaded (``show``), the next
    ones opened from it through the sidebar's link (``move``, no reload)."""
    if first:
        show(page, base + path)
    else:
        move(page, path)
        wait_shown(page)


def wait_shown(page: Page) -> None:
    """Until the script has finished, every widget is drawn and the page stopped changing."""
    page.wait_for_function(
        """() => {
            const app = document.querySelector("[data-testid='stApp']");
            const ready = app !== null && app.dataset.testScriptState === 'notRunning'
                && !document.querySelector("[data-stale='true']")
                && !document.querySelector("[data-testid='stSkeletonElement']");
            const size = document.getElementsByTagName('*').length;
            const stable = ready && window.__shown === size;
            window.__shown = ready ? size : -1;
            return stable;
        }""",
        polling=400,
        timeout=LOAD_MS,
    )


def bottom(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box["y"] + box["height"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_settings_in_reach_at_1280x720_on_every_page(
    browser: Browser, server: Server, lang
) -> None:
    session = new_session(browser, server.url, viewport=PROJECTOR)
    out_of_reach = []
    try:
        for path, _key, _group in PAGES:
            page = session.page
            show_next(page, server.url, f"/{slug(path)}?lang={lang}", path == PAGES[0][0])
            for key in ("preset_chapter8", "preset_chapter9", "d_model", "n_heads", "seed"):
                selector = f"{SIDEBAR} .st-key-{key}"
                if path == "pages/10_learned.py":  # its own model: none of them is shown
                    if any(box.is_visible() for box in page.locator(selector).all()):
                        out_of_reach.append((path, key, "drawn where it does nothing"))
                elif not page.locator(selector).is_visible():
                    out_of_reach.append((path, key, "not drawn"))
                elif bottom(page, selector) > PROJECTOR[1]:
                    out_of_reach.append((path, key, f"bottom at {bottom(page, selector)} px"))
            if path == "pages/3_softmax.py":
                shoot(page, f"sidebar-softmax-{lang}")
    finally:
        session.close()
    assert not out_of_reach


def test_presenter_mode_bar_qr_code_and_back(browser: Browser, server: Server) -> None:
    session = new_session(browser, server.url, viewport=PROJECTOR)
    page = session.page
    try:
        text = "the cat & the dog"
        show(
            page,
            f"{server.url}/mix?present=true&d_model=6&n_heads=2&text={urllib.parse.quote(text)}",
        )
        # /mix draws the pattern first (NaN where masked), as expected_head gives it
        wait_heatmap(page, 0, expected_head(d_model=6, n_heads=2, text=text)[1])
        assert not page.locator(SIDEBAR).is_visible()  # folded away, with Streamlit's header
        assert not page.locator("header[data-testid='stHeader']").is_visible()
        for key in ("d_model", "n_heads", "seed", "present"):
            bar = f"{MAIN} .st-key-{key}"
            assert page.locator(bar).is_visible(), key
            assert bottom(page, bar) <= 150, f"{key} is not in the bar at the top"
        # previous and next page: the number shows, the page's name is spoken
        for name in ("Previous page: 3. Scale, mask, softmax", "Next page: 5. Many heads"):
            link = page.locator(MAIN).get_by_role("link", name=name, exact=True)
            expect(link).to_be_visible()
            assert link.inner_text().strip().endswith(name.split(": ")[1].partition(".")[0])

        open_qr(page)
        expected = f"{server.url}/mix?lang=en&text=the%20cat%20%26%20the%20dog&d_model=6&n_heads=2"
        assert read_qr(page) == expected
        assert page.locator("[data-testid='stCode']").inner_text().strip() == expected
        shoot(page, "presenter-mix-qr")
        page.keyboard.press("Escape")

        # the bar's controls move the numbers: d_model by keyboard, the seed, a preset
        slider = page.locator(MAIN).get_by_role("slider")
        slider.focus()
        slider.press("End")  # 6 -> 64 in one step; 2 heads still divide 64
        wait_query(page, d_model="64", n_heads="2")
        wait_heatmap(page, 0, expected_head(d_model=64, n_heads=2, text=text)[1])
        seed = page.locator(f"{MAIN} .st-key-seed input")
        seed.fill("3")
        seed.press("Enter")
        wait_query(page, seed="3")
        wait_heatmap(page, 0, expected_head(d_model=64, n_heads=2, seed=3, text=text)[1])
        open_qr(page)
        assert read_qr(page) == expected.replace("d_model=6", "d_model=64") + "&seed=3"
        page.keyboard.press("Escape")
        page.locator(MAIN).get_by_role("button", name="Ch. 8").click()
        wait_query(page, d_model="4", n_heads="1", embeddings="handmade")
        chapter8 = expected_head(d_model=4, n_heads=1, embeddings="handmade", text=DEFAULT_TEXT)
        wait_heatmap(page, 0, chapter8[1])
        shoot(page, "presenter-mix-chapter8")
        # projector-sized cell numbers: at least 16 px at 1280x720
        numbers = page.evaluate(
            """() => [...document.querySelectorAll('.js-plotly-plot text.heatmap-label, '
                + '.js-plotly-plot .heatmap-label text')]
                .map(t => parseFloat(getComputedStyle(t).fontSize))"""
        )
        assert numbers and min(numbers) >= 16, sorted(set(numbers))

        # the switch in the bar turns presenter mode off: the sidebar comes back
        page.locator(f"{MAIN} .st-key-present label").click()
        wait_query(page, present=None)
        settle(page)
        assert page.locator(SIDEBAR).is_visible()
        assert page.locator(f"{SIDEBAR} .st-key-d_model").is_visible()
        assert query(page).get("d_model") == "4"
        assert not exceptions(page) and not session.console.errors
    finally:
        session.close()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_presenter_mode_on_every_page(browser: Browser, server: Server, lang: str) -> None:
    session = new_session(browser, server.url, viewport=PROJECTOR)
    try:
        for path, _key, group in PAGES:
            page = session.page
            first = path == PAGES[0][0]
            show_next(page, server.url, f"/{slug(path)}?present=true&lang={lang}", first)
            shoot(page, f"presenter-{slug(path) or 'home'}-{lang}")
            # the learned heads' own model reads none of the four settings: the bar hides them
            d_model = page.locator(f"{MAIN} .st-key-d_model")
            if path == "pages/10_learned.py":
                expect(d_model).to_be_hidden()
            else:
                expect(d_model).to_be_visible()
            switch = page.locator(f"{MAIN} .st-key-present")
            expect(switch).to_contain_text(FRAME_TEXT[lang]["present_short"])
            # Start a class in the bar on every page, the home page's too (it stood under it)
            expect(page.locator(f"{MAIN} .st-key-bar .st-key-class_start")).to_be_visible()
            expect(page.locator(SIDEBAR)).to_be_hidden()
            # the previous and next pages' links: by the name of their page
            names = neighbour_names(translator(FRAME_TEXT, lang), path)
            assert len(names) == (1 if path in (PAGES[0][0], PAGES[-1][0]) else 2)
            for name in names.values():
                link = page.locator(MAIN).get_by_role("link", name=name, exact=True)
                expect(link).to_be_visible()
            # the bar is one line; a lesson's first chart (and the learned heads') starts on
            # the first screen
            bar = page.locator(f"{MAIN} .st-key-bar").bounding_box()
            assert bar is not None and bar["height"] < 90, (path, lang, bar)
            charts = page.locator(f"{MAIN} .stPlotlyChart, {MAIN} .lab-heatmap, {MAIN} .lab-bars")
            lesson = group in ("chapter8", "chapter9") or path == "pages/10_learned.py"
            if lesson and charts.count():
                first = charts.first.bounding_box()
                assert first is not None and first["y"] < PROJECTOR[1], (path, lang, first)
            # every formula fits its box (a box that scrolls shows a bar where bars take room)
            assert all(page.evaluate(FORMULAS_FIT_JS)), (path, lang)
    finally:
        session.close()


def test_behind_nginx_the_qr_code_carries_the_teachers_address(browser: Browser) -> None:
    """scripts/serve.sh (nginx in front, as in the container), opened as a school's network
    names the teacher's machine: the students' link is http://teacher.local:PORT/..., the
    address the teacher's browser used, not the 127.0.0.1 of the process behind nginx."""
    name = "teacher.local"
    lan = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {name} 127.0.0.1"],
        headless=True,
    )
    try:
        with serve_script(1, log_name="serve-sh-presenter") as port:
            page = lan.new_page(viewport={"width": PROJECTOR[0], "height": PROJECTOR[1]})
            page.set_default_timeout(WAIT_MS)
            show(page, f"http://{name}:{port}/heads?present=true&seed=7")
            open_qr(page)
            assert read_qr(page) == f"http://{name}:{port}/heads?lang=en&seed=7"
            shoot(page, "presenter-heads-behind-nginx")
    finally:
        lan.close()
