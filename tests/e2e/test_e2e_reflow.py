"""Every page at 320 CSS px wide, a 1280 px screen zoomed to 400 % (WCAG 1.4.10 and 2.5.8).

Nothing scrolls sideways but a wide matrix, formula or table inside its own box, and nothing runs
past the screen's right edge outside such a box. Every pointer target is at least 24 × 24 px,
or a 24 px circle on its centre touches no other target and no other small target's circle
(WCAG 2.5.8's spacing exception; a link inside a sentence is exempt), and no target is hidden
under another. One browser context opens the 11 pages in English and in French, and the sidebar
once in each language; each offender is listed with the element it is.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.e2e.harness import Server, Session, new_session, screenshot, url_path
from ui.frame.page import PAGES

pytestmark = pytest.mark.e2e

VIEWPORT = (320, 800)  # 1280 × 3200 zoomed to 400 %: the width WCAG names, a few screens high
LANGS = ("en", "fr")
PATHS = [url_path(path) for path, _, _ in PAGES]
# an element as a selector a person can find: its key's class, its test id, its tag and words
DESCRIBE = """() => {
    window.__describe = (el) => {
        const key = el.closest('[class*="st-key-"]');
        const k = key ? '.' + [...key.classList].find(c => c.startsWith('st-key-')) + ' ' : '';
        const id = el.closest('[data-testid]');
        const all = (el.getAttribute('aria-label') || el.textContent || '')
            .replace(/\\s+/g, ' ').trim();
        const words = Array.from(all).slice(0, 40).join('');  // whole characters, not halves
        return `${k}${id ? `[data-testid="${id.dataset.testid}"] ` : ''}`
            + `${el.tagName.toLowerCase()} "${words}"`;
    };
}"""
# what scrolls sideways, and what runs past the screen's right edge outside a box that scrolls
# it (a box that clips its content inside the screen, as an ellipsis does, is left alone)
SIDEWAYS = """() => {
    const W = document.documentElement.clientWidth;
    const main = document.querySelector('[data-testid="stMain"]');
    const page = [document.scrollingElement, main,
                  document.querySelector('[data-testid="stAppViewContainer"]')];
    const out = [];
    for (const el of page) {
        if (el && el.scrollWidth > el.clientWidth + 1) {
            out.push(`${__describe(el)} scrolls sideways: ${el.scrollWidth} > ${el.clientWidth}`);
        }
    }
    const past = [];
    for (const el of main.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || r.right <= W + 1) continue;
        if (!el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
        if (past.some(p => p.contains(el))) continue;
        let held = false;
        for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
            const x = getComputedStyle(a).overflowX;
            if (/(auto|scroll)/.test(x)
                || (x !== 'visible' && a.getBoundingClientRect().right <= W + 1)) {
                held = true;
                break;
            }
        }
        if (!held) {
            past.push(el);
            out.push(`${__describe(el)} runs past the right edge: ${Math.round(r.left)}-`
                + `${Math.round(r.right)} px`);
        }
    }
    return out;
}"""
# every pointer target on the screen (a switch's or a radio button's label, a slider's thumb),
# too small and too close to another, or hidden under something else at its centre
TARGETS = """(where) => {
    const W = document.documentElement.clientWidth;
    const scope = document.querySelector(where);
    const SEL = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, '
        + '[role="button"], [role="tab"], [role="radio"], [role="checkbox"], [role="switch"], '
        + '[role="slider"], [role="option"]';
    const seen = new Set(), all = [];
    for (const el of scope.querySelectorAll(SEL)) {
        let box = el;
        if (el.matches('input[type="checkbox"], input[type="radio"]')) {
            box = el.closest('label') || el;
        } else if (el.matches('input[type="range"]')) {
            box = el.parentElement.parentElement;  // the thumb around the hidden input
        }
        if (seen.has(box) || el.closest('canvas')) continue;  // a data frame's hidden table
        seen.add(box);
        if (!box.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
        const r = box.getBoundingClientRect();
        if (r.width < 1 || r.height < 1 || r.right <= 0 || r.left >= W) continue;
        if (el.matches('a') && getComputedStyle(el).display === 'inline'
            && el.closest('[data-testid="stMarkdownContainer"] :is(p, li)')) continue;
        all.push({el: box, name: __describe(el)});
    }
    const out = [];
    for (const t of all) {  // under something else? seen at its centre, in the middle of the screen
        t.el.scrollIntoView({block: 'center', inline: 'nearest'});
        const r = t.el.getBoundingClientRect();
        t.r = [r.left, r.top, r.right, r.bottom];
        const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
        if (top && !t.el.contains(top) && !top.contains(t.el)) {
            out.push(`${t.name}: under ${__describe(top)}`);
        }
    }
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;
    for (const t of all) {  // where they are with the page at its top, as drawn
        const r = t.el.getBoundingClientRect();
        t.r = [r.left, r.top, r.right, r.bottom];
        t.small = r.width < 23.5 || r.height < 23.5;
    }
    const centre = t => [(t.r[0] + t.r[2]) / 2, (t.r[1] + t.r[3]) / 2];
    const gap = (p, r) => Math.hypot(Math.max(r[0] - p[0], 0, p[0] - r[2]),
                                     Math.max(r[1] - p[1], 0, p[1] - r[3]));
    for (const t of all.filter(t => t.small)) {
        const c = centre(t);
        const near = all.filter(o => o !== t && !t.el.contains(o.el) && (gap(c, o.r) < 12
            || (o.small && Math.hypot(c[0] - centre(o)[0], c[1] - centre(o)[1]) < 24)));
        if (near.length) {
            const size = `${Math.round(t.r[2] - t.r[0])}×${Math.round(t.r[3] - t.r[1])} px`;
            out.push(`${t.name} (${size}) within 12 px of ${near.map(o => o.name).join(', ')}`);
        }
    }
    return out;
}"""


class Narrow:
    """One browser context at 320 px: each page opened once a language, what it finds kept."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.found: dict[tuple[str, str], tuple[list[str], list[str]]] = {}

    def look(self, lang: str, path: str) -> tuple[list[str], list[str]]:
        """(what scrolls or runs sideways, the targets too small or hidden) on a page."""
        if (lang, path) not in self.found:
            page = self.session.page
            # moved to through the sidebar's link while it is folded away, else loaded
            folded = page.locator("[data-testid='stExpandSidebarButton']").is_visible()
            (self.session.go if folded else self.session.open)(f"{path}?lang={lang}")
            page.evaluate(DESCRIBE)
            sideways = page.evaluate(SIDEWAYS)
            targets = page.evaluate(TARGETS, "[data-testid='stMain']")
            screenshot(page, f"reflow-{lang}-{path.strip('/') or 'home'}")
            self.found[lang, path] = (sideways, targets)
        return self.found[lang, path]


@pytest.fixture(scope="module")
def narrow(browser: Browser, server: Server) -> Iterator[Narrow]:
    session = new_session(browser, server.url, viewport=VIEWPORT)
    try:
        yield Narrow(session)
    finally:
        session.close()


CASES = [(lang, path) for lang in LANGS for path in PATHS]
IDS = [f"{lang}-{path.strip('/') or 'home'}" for lang, path in CASES]


@pytest.mark.parametrize(("lang", "path"), CASES, ids=IDS)
def test_nothing_scrolls_sideways(narrow: Narrow, lang: str, path: str) -> None:
    sideways, _ = narrow.look(lang, path)
    assert sideways == [], "\n".join(sideways)


@pytest.mark.parametrize(("lang", "path"), CASES, ids=IDS)
def test_every_target_is_24_px_or_spaced(narrow: Narrow, lang: str, path: str) -> None:
    _, targets = narrow.look(lang, path)
    assert targets == [], "\n".join(targets)


@pytest.mark.parametrize("lang", LANGS)
def test_the_open_sidebar_at_320_px(narrow: Narrow, lang: str) -> None:
    """The sidebar covers the page: its controls (all of them on /softmax) and its close button
    are targets of 24 px or spaced, none under the header's switch, and nothing scrolls."""
    page = narrow.session.page
    narrow.session.open(f"/softmax?lang={lang}")
    page.evaluate(DESCRIBE)
    page.locator("[data-testid='stExpandSidebarButton']").click()
    close = page.locator("[data-testid='stSidebarCollapseButton']")
    close.wait_for()
    page.wait_for_timeout(500)  # the sidebar slides in
    screenshot(page, f"reflow-{lang}-sidebar")
    targets = page.evaluate(TARGETS, "[data-testid='stSidebar']")
    sideways = page.evaluate(SIDEWAYS)
    assert targets == [], "\n".join(targets)
    assert sideways == [], "\n".join(sideways)
    close.click()  # a pointer reaches it: nothing lies over it
    page.locator("[data-testid='stExpandSidebarButton']").wait_for()
