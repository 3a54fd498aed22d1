"""Every control by keyboard in a real browser (WCAG 2.1.1, 2.1.2, 2.4.3 and 2.4.7).

Tab from the top of /softmax visits the skip link, the sidebar, Streamlit's header and then the
lesson, each part top to bottom; every stop shows where the focus is (the pixels around it
change when it leaves), the "Your turn" editor lets Tab out, and Tab comes back to the top. The
token chips, the head picker, presenter mode's bar and Check are then used with keys alone.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Page, expect

import exercises as ex
from tests.e2e.harness import (
    ARTIFACTS,
    Session,
    exceptions,
    expected_head,
    outlined_rows,
    press_slider,
    query,
    settle,
    wait_heatmap,
    wait_query,
    wait_until,
)
from ui.frame.navigation import neighbour_names
from ui.text import translator
from ui.text.common import TEXT as FRAME_TEXT
from ui.text.exercise import TEXT as TURN_TEXT
from ui.text.exercises import CELLS
from ui.text.heads import TEXT as HEADS_TEXT
from ui.text.softmax import TEXT as SOFTMAX_TEXT

pytestmark = pytest.mark.e2e

MAIN = "[data-testid='stMain']"
MAX_STOPS = 200  # /softmax has about 60 Tab stops: a walk that does not come back is a trap
ROW_PX = 40  # controls side by side in one row: the next may start a little higher
CHANGED = 64  # a pixel changes with the focus when one of its channels moves this much
RING_PIXELS = 40  # at least this many such pixels: a ring, a border or a halo, not a tint
# where the focus is: its tag, role and name, its part of the page, its box on the screen and its
# top in the content of the box that scrolls it (reading order, whatever that box's scroll). A
# data frame keeps the focus on its canvas (or a cell of the table inside it) and draws the
# focused cell on the canvas: the canvas stands for it.
ACTIVE = """() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const grid = el.closest('canvas');
    const label = el.matches('input[type="checkbox"], input[type="radio"]') && el.closest('label');
    const shown = grid || label || el;  // a switch's input is hidden: its label is what shows
    const r = shown.getBoundingClientRect();
    let box = shown.parentElement;
    while (box && !(/(auto|scroll)/.test(getComputedStyle(box).overflowY)
                    && box.scrollHeight > box.clientHeight)) box = box.parentElement;
    const top = box ? r.top - box.getBoundingClientRect().top + box.scrollTop : r.top;
    const part = el.closest('[data-testid="stSidebar"]') ? 'sidebar'
        : el.closest('header') ? 'header' : el.closest('main') ? 'main' : 'page';
    const text = el.cloneNode(true);  // its words without its icons' names
    text.querySelectorAll('[aria-hidden="true"]').forEach(icon => icon.remove());
    const name = (el.getAttribute('aria-label') || text.textContent || el.value || '')
        .replace(/\\s+/g, ' ').trim();
    const key = el.closest('[class*="st-key-"]');
    return {tag: el.tagName.toLowerCase(), role: el.getAttribute('role') || '', name, part,
            key: key ? [...key.classList].find(c => c.startsWith('st-key-')) : '',
            top: Math.round(top), left: Math.round(r.left),
            box: [r.x, r.y, r.width, r.height], grid: shown === grid};
}"""
PARTS = ["page", "sidebar", "header", "main"]  # the skip link, then Streamlit's DOM order


def active(page: Page) -> dict | None:
    """The focused element, as ACTIVE describes it; None on the page's body."""
    return page.evaluate(ACTIVE)


def grab(page: Page, clip: dict[str, float]) -> np.ndarray:
    png = page.screenshot(clip=clip, animations="disabled")  # the caret is hidden too
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def clip_of(page: Page, stop: dict) -> dict[str, float] | None:
    """The focused element's box and 4 px around it, within the screen (None: off the screen)."""
    x, y, w, h = stop["box"]
    view = page.viewport_size or {"width": 1280, "height": 900}
    left, top = max(round(x) - 4, 0), max(round(y) - 4, 0)
    right = min(round(x + w) + 4, view["width"])
    bottom = min(round(y + h) + 4, view["height"])
    if right - left < 1 or bottom - top < 1:
        return None
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


def changed(a: np.ndarray, b: np.ndarray) -> int:
    """How many pixels differ by CHANGED or more in a channel."""
    return int((np.abs(a - b).max(axis=2) >= CHANGED).sum())


def focus_pixels(page: Page, stop: dict) -> int:
    """How many pixels in and around the focused element change when it loses the focus."""
    clip = clip_of(page, stop)
    if clip is None:
        return 0  # off the screen: nobody sees it
    focused = grab(page, clip)
    page.evaluate("() => { window.__kbStop = document.activeElement; __kbStop.blur(); }")
    plain = grab(page, clip)
    page.evaluate("() => window.__kbStop.focus()")  # the walk goes on from here
    return changed(focused, plain)


def grid_pixels(page: Page, stop: dict, before: np.ndarray | None) -> int:
    """How many pixels of a data frame's canvas the last Tab changed: its focused cell drawn,
    or moved (the canvas keeps its selection when the focus leaves: a blur tells nothing)."""
    clip = clip_of(page, stop)
    if clip is None or before is None:
        return 0
    after = grab(page, clip)
    x, y = int(clip["x"]), int(clip["y"])
    return changed(after, before[y : y + after.shape[0], x : x + after.shape[1]])


GRID_ON_SCREEN = """() => [...document.querySelectorAll('canvas')].some(c => {
    const r = c.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.width > 0;
})"""


def walk(page: Page) -> tuple[list[dict], bool]:
    """Tab from the top of the page until the focus comes back to its first stop: (every stop,
    with the pixels its focus changes, whether it came back)."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); }")
    stops: list[dict] = []
    for _ in range(MAX_STOPS):
        before = None
        if page.evaluate(GRID_ON_SCREEN):  # the screen before the Tab, for a canvas's cells
            png = page.screenshot(animations="disabled")
            before = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
        page.keyboard.press("Tab")
        stop = active(page)
        if stop is None:  # past the last stop the focus leaves the document for a moment
            continue
        if stops and (stop["name"], stop["tag"]) == (stops[0]["name"], stops[0]["tag"]):
            return stops, True
        grid = stop["grid"]
        stop["pixels"] = grid_pixels(page, stop, before) if grid else focus_pixels(page, stop)
        stops.append(stop)
    return stops, False


def tab_to(page: Page, want: Callable[[dict], bool], what: str, key: str = "Tab") -> dict:
    """Press ``key`` until the focused element is what ``want`` says; fail after MAX_STOPS."""
    for _ in range(MAX_STOPS):
        page.keyboard.press(key)
        stop = active(page)
        if stop is not None and want(stop):
            return stop
    raise AssertionError(f"{key} never reached {what}")


def out_of_order(stops: list[dict]) -> list[str]:
    """Stops that go back up the page from the one before, in the same part of the page."""
    back = []
    for a, b in zip(stops, stops[1:], strict=False):
        if a["part"] == b["part"] and b["top"] < a["top"] - ROW_PX:
            back.append(f"{a['name']!r} (top {a['top']}) -> {b['name']!r} (top {b['top']})")
    return back


def parts(stops: list[dict]) -> list[str]:
    """The parts of the page in the order the walk visits them, each once a run."""
    seen = [stop["part"] for stop in stops]
    return [p for i, p in enumerate(seen) if i == 0 or p != seen[i - 1]]


def test_tab_walks_the_page_in_order_with_a_visible_focus_and_comes_back(
    session: Session,
) -> None:
    page = session.page
    session.open("/softmax")
    stops, back = walk(page)
    (ARTIFACTS / "keyboard-softmax.json").write_text(json.dumps(stops, indent=1), "utf-8")
    assert back, f"Tab never came back to the top after {len(stops)} stops: a trap"
    assert stops[0]["name"] == "Skip to main content"
    assert parts(stops) == PARTS, parts(stops)
    assert out_of_order(stops) == []
    unseen = [
        f"{s['key']} {s['tag']} {s['name'][:60]!r}" for s in stops if s["pixels"] < RING_PIXELS
    ]
    assert unseen == [], "no visible focus on: " + "; ".join(unseen)
    names = [stop["name"] for stop in stops]
    en, turn = FRAME_TEXT["en"], TURN_TEXT["en"]
    for name in (
        en["page_softmax"],  # the navigation
        en["present"],  # the presenter switch
        SOFTMAX_TEXT["en"]["temperature"],
        SOFTMAX_TEXT["en"]["scale"],
        "the",  # the token chips: Tab enters the group, the arrows move in it
        turn["editor"],
        turn["check"],
    ):
        assert name in names, f"Tab never reaches {name!r}"
    # Tab goes into the editor and straight out of it, to Check
    editor = names.index(turn["editor"])
    assert names[editor + 1] == turn["check"]
    assert exceptions(page) == []


def test_the_editor_says_how_to_leave_it_and_those_keys_do(session: Session) -> None:
    page = session.page
    session.open("/softmax")
    turn = TURN_TEXT["en"]
    editor = page.locator(".st-key-code_softmax textarea")
    assert editor.get_attribute("aria-label") == turn["editor"]
    assert "Tab" in turn["editor"] and "Tab" in TURN_TEXT["fr"]["editor"]
    expect(page.locator(".st-key-code_softmax [data-testid='stWidgetLabel']")).to_contain_text(
        turn["editor"]
    )
    tab_to(page, lambda s: s["tag"] == "textarea", "the editor")
    for keys, landing, back in (
        (["Tab"], turn["check"], "Shift+Tab"),
        (["Shift+Tab"], f"Help for {turn['editor']}", "Tab"),
        (["Escape", "Tab"], turn["check"], "Shift+Tab"),
    ):
        for key in keys:
            page.keyboard.press(key)
        stop = active(page)
        assert stop is not None and stop["name"] == landing, (keys, stop)
        page.keyboard.press(back)
        assert (active(page) or {}).get("tag") == "textarea", back
    assert editor.input_value() == CELLS["softmax"]["en"]["template"]  # nothing typed


def test_a_token_chip_is_picked_with_space_and_enter(session: Session) -> None:
    page = session.page
    session.open("/softmax")
    assert outlined_rows(page, "pattern") == [4.0]  # the last token by default
    chip = tab_to(page, lambda s: s["key"] == "st-key-token" and s["role"] == "radio", "a chip")
    assert chip["name"] == "the"  # Tab enters the chips at the first one
    for key, word, row in (("Space", "cat", 1), ("Enter", "sat", 2)):
        page.keyboard.press("ArrowRight")
        assert (active(page) or {}).get("name") == word
        page.keyboard.press(key)
        wait_query(page, token=str(row))
        wait_until(page, lambda r=row: outlined_rows(page, "pattern") == [float(r)], f"row {row}")
        assert outlined_rows(page, "scaled") == [float(row)]
    assert exceptions(page) == []


def head_lines(page: Page) -> int:
    """The head view's lines: one per query-key pair and head drawn."""
    return page.evaluate(
        "() => document.querySelectorAll('.st-key-headview svg line[data-p]').length"
    )


def test_the_head_picker_by_keyboard(session: Session) -> None:
    page = session.page
    session.open("/heads")
    pairs = 15  # 5 tokens under the causal mask: 5 + 4 + 3 + 2 + 1
    assert head_lines(page) == pairs
    label = HEADS_TEXT["en"]["bar_label"]
    first = tab_to(
        page,
        lambda s: s["key"].startswith("st-key-headview_heads_") and s["name"].startswith("head"),
        "the head picker",
    )
    assert first["name"] == label.format(h=0)
    page.keyboard.press("ArrowRight")
    assert (active(page) or {}).get("name") == label.format(h=1)
    page.keyboard.press("Space")  # head 1 drawn with head 0
    wait_until(page, lambda: head_lines(page) == 2 * pairs, "the lines of two heads")
    expect(page.locator(MAIN)).to_contain_text(f"{2 * pairs} lines: {pairs} pairs × 2 heads")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")  # head 0 left out: head 1 alone
    wait_until(page, lambda: head_lines(page) == pairs, "the lines of head 1 alone")
    pressed = page.locator("[class*='st-key-headview_heads_'] button[aria-pressed='true']")
    expect(pressed).to_have_text([label.format(h=1)])
    assert exceptions(page) == []


def test_presenter_bar_by_keyboard(session: Session) -> None:
    page = session.page
    session.open("/softmax?present=true")
    en = FRAME_TEXT["en"]
    # "Previous page: 2. Scores", "Next page: 4. Mix the values": the links show 2 and 4
    names = neighbour_names(translator(FRAME_TEXT, "en"), "pages/3_softmax.py")
    previous, following = names["scores"], names["mix"]

    def at(key: str, name: str | None = None) -> Callable[[dict], bool]:
        """The stop under ``st-key-<key>`` (named ``name``, if given)."""
        return lambda s: s["key"] == f"st-key-{key}" and name in (None, s["name"])

    # every control of the bar is a Tab stop, left to right, each with a visible focus
    bar = (
        ("bar", previous),
        ("preset_chapter8", None),
        ("preset_chapter9", None),
        ("d_model", None),
        ("n_heads", None),
        ("seed", None),
        ("new_seed", None),
        ("bar", following),
        ("bar", en["qr"]),
        ("class_start", None),
        ("present", en["present_short"]),
    )
    stops = []
    for key, name in bar:
        stop = tab_to(page, at(key, name), f"{key} {name or ''}")
        stops.append((key, name, stop["left"], focus_pixels(page, stop)))
    lefts = [left for _, _, left, _ in stops]
    assert lefts == sorted(lefts), stops
    assert [(k, n) for k, n, _, pixels in stops if pixels < RING_PIXELS] == []

    # the seed: typed, then Enter
    seed = tab_to(page, at("seed"), "the seed", key="Shift+Tab")
    assert seed["tag"] == "input" and seed["name"] == en["seed_short"]
    page.keyboard.press("Control+A")
    page.keyboard.type("7")
    page.keyboard.press("Enter")
    wait_query(page, seed="7")
    wait_heatmap(page, 1, expected_head(seed=7)[1])

    # Ch. 9 with Enter: the chapter's settings, seed 0
    tab_to(page, at("preset_chapter9", en["preset9_short"]), "Ch. 9", key="Shift+Tab")
    page.keyboard.press("Enter")
    wait_query(page, seed=None)
    wait_heatmap(page, 1, expected_head()[1])

    # d_model with the arrow keys: 8 -> 12, one step a press (on the way, 9 takes a head count
    # that divides it: the bar says which one the page now uses)
    tab_to(page, at("d_model"), "d_model")
    press_slider(page.locator(f"{MAIN} .st-key-d_model input[type='range']"), "ArrowRight", 4)
    wait_query(page, d_model="12")
    # the link takes d_model=12 as the run for it starts: the head count it settles on (which
    # of 9, 10 and 11 the server saw decides it) is the bar's once that run has drawn
    settle(page)
    heads = int(page.locator(f"{MAIN} .st-key-n_heads input").input_value())
    assert 12 % heads == 0
    wait_heatmap(page, 1, expected_head(d_model=12, n_heads=heads)[1])

    # the dice with Space: a new seed
    tab_to(page, at("new_seed"), "the dice")
    page.keyboard.press("Space")
    wait_until(page, lambda: query(page).get("seed", "0") != "0", "a new seed")
    drawn = int(query(page)["seed"])
    wait_heatmap(page, 1, expected_head(d_model=12, n_heads=heads, seed=drawn)[1])

    # the QR code opens with Enter and closes with Escape
    tab_to(page, at("bar", en["qr"]), "the QR button")
    page.keyboard.press("Enter")
    qr = page.locator("img[src^='data:image/svg+xml']")
    expect(qr).to_be_visible()
    page.keyboard.press("Escape")
    expect(qr).to_be_hidden()

    # the next page with Enter: /mix, the same settings
    tab_to(page, at("bar", following), "the next page", key="Shift+Tab")
    page.keyboard.press("Enter")
    wait_until(page, lambda: "/mix" in page.url, "/mix")
    assert query(page)["seed"] == str(drawn) and query(page)["d_model"] == "12", page.url
    expect(page.locator("h1")).to_contain_text(en["page_mix"].split(". ", 1)[1])
    assert exceptions(page) == []


def test_check_by_keyboard(session: Session) -> None:
    page = session.page
    session.open("/softmax")
    tab_to(page, lambda s: s["tag"] == "textarea", "the editor")
    page.keyboard.press("Control+A")
    page.keyboard.type(ex.BY_ID["softmax"].solution_source())
    stop = tab_to(page, lambda s: s["tag"] == "button", "Check")
    assert stop["name"] == TURN_TEXT["en"]["check"]
    page.keyboard.press("Enter")
    verdict = page.locator(".st-key-verdict_softmax [data-testid='stAlert']")
    expect(verdict).to_contain_text("Correct: all 5 cases pass")
    settle(page)
    assert page.locator(".st-key-code_softmax textarea").input_value() == (
        ex.BY_ID["softmax"].solution_source()
    )
    assert exceptions(page) == []
