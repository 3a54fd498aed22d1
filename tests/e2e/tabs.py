"""Browser contexts kept from one test to the next: a new tab of a kept context loads the app on
half the CPU time of a new context's.

Chromium keeps no compiled code for an off-the-record context (every ``browser.new_context``):
each new context compiled Streamlit's 8 MB of JavaScript again, 5.4 s of CPU and 3.9 s to a
settled /softmax on the 2-core test machine, where a new tab of a context that had loaded it
once took 2.6 s of CPU and 2.0 s. That tab reuses its context's renderer process, and the
code that process compiled: chromium runs with ``--process-per-site`` (``CHROMIUM_ARGS``), and
a kept context holds one tab open on the server's health check, which keeps the process.

A tab given back (``close_tab``) is closed, and its context forgets what a visit leaves behind:
the cookies, and the local storage and IndexedDB of every origin its tabs opened. The next test
gets a new tab: its own session storage, history, routes, listeners and emulated media, as in a
new context. A kept context also keeps its open connections to the servers its tabs used. A
test that changes the context itself (an init script, a fake clock), or whose proxy chooses a
host by connection (HAProxy, ``tests.hosts.browsing``), calls ``spoil``: that context is
closed, never kept.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from dataclasses import dataclass, field

from playwright.sync_api import Browser, BrowserContext, Frame, Page
from playwright.sync_api import Error as PlaywrightError

KEEP = 4  # idle contexts kept for one set of options (a class test holds four at once)
# what a visit leaves in a context, by origin (Storage.clearDataForOrigin's storage types)
LEFT = "cookies,local_storage,indexeddb,cache_storage,service_workers,file_systems"


@dataclass(eq=False)
class _Kept:
    """A context, the tab that keeps its renderer process, and the origins its tabs opened."""

    context: BrowserContext
    keeper: Page | None = None
    origins: set[str] = field(default_factory=set)
    spoiled: bool = False

    def note(self, frame: Frame) -> None:
        parts = urllib.parse.urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")


_idle: dict[tuple, list[_Kept]] = {}
_busy: dict[Page, tuple[tuple, _Kept]] = {}


def new_tab(browser: Browser, **options: object) -> Page:
    """A new tab in a kept context made with ``options`` (``browser.new_context``'s), or in a
    new one; give it back with ``close_tab``."""
    key = (id(browser), repr(sorted(options.items())))
    kept = None
    while _idle.get(key) and kept is None:
        candidate = _idle[key].pop()
        if candidate.context.browser is browser and browser.is_connected():
            kept = candidate
    if kept is None:
        kept = _Kept(browser.new_context(**options))
    page = kept.context.new_page()
    page.on("framenavigated", kept.note)
    _busy[page] = (key, kept)
    return page


def spoil(page: Page) -> None:
    """The test changed ``page``'s context itself: it is closed when the tab is given back."""
    if page in _busy:
        _busy[page][1].spoiled = True


def close_tab(page: Page) -> None:
    """Give the tab back: closed, and its context kept, clean, for the next test (or closed)."""
    key, kept = _busy.pop(page, (None, None))
    if kept is None:  # not one of ours
        page.context.close()
        return
    try:
        if kept.spoiled or page.is_closed() or len(_idle.setdefault(key, [])) >= KEEP:
            raise _Discard
        _keep_process(kept, page)
        for other in kept.context.pages:
            if other is not kept.keeper:
                other.close()
        _forget(kept)
        _idle[key].append(kept)
    except (_Discard, PlaywrightError):
        _close(kept.context)


def close_all(browser: Browser) -> None:
    """Close every kept context of ``browser`` (before the browser closes)."""
    for key in [k for k in _idle if k[0] == id(browser)]:
        for kept in _idle.pop(key):
            _close(kept.context)


class _Discard(Exception):
    """This context is not kept."""


def _keep_process(kept: _Kept, page: Page) -> None:
    """Open the keeper tab on the server ``page`` shows, once: while it is open, the renderer
    process of that site, and the code it compiled, outlive the tab being closed."""
    if kept.keeper is not None and not kept.keeper.is_closed():
        return
    parts = urllib.parse.urlsplit(page.url)
    if parts.scheme not in ("http", "https"):
        raise _Discard
    kept.keeper = kept.context.new_page()
    kept.keeper.goto(f"{parts.scheme}://{parts.netloc}/_stcore/health")


def _forget(kept: _Kept) -> None:
    """Clear what the context's tabs left: every origin's storage, then every cookie."""
    cdp = kept.context.new_cdp_session(kept.keeper)
    try:
        for origin in sorted(kept.origins):
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": LEFT})
    finally:
        cdp.detach()
    kept.origins.clear()
    kept.context.clear_cookies()
    kept.context.clear_permissions()


def _close(context: BrowserContext) -> None:
    with contextlib.suppress(PlaywrightError):
        context.close()
