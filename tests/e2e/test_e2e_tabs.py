"""The kept browser contexts (``tests.e2e.tabs``): a tab given back leaves its context clean for
the next test, which loads the app in the renderer process the first one warmed."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.e2e.harness import Server, settle
from tests.e2e.tabs import close_tab, new_tab, spoil

pytestmark = pytest.mark.e2e

OPTIONS = {"viewport": {"width": 900, "height": 700}, "locale": "en-GB"}  # this test's own
LEAVE = """(name) => {
    localStorage.setItem(name, '1');
    sessionStorage.setItem(name, '1');
    document.cookie = name + '=1; path=/';
}"""
FIND = """(name) => [localStorage.getItem(name), sessionStorage.getItem(name),
                  document.cookie.includes(name + '=')]"""


def test_a_kept_context_comes_back_with_nothing_a_test_left(
    browser: Browser, server: Server
) -> None:
    first = new_tab(browser, **OPTIONS)
    context = first.context
    first.goto(server.url + "/?seed=3")
    settle(first)
    first.evaluate(LEAVE, "left_behind")
    assert first.evaluate(FIND, "left_behind") == ["1", "1", True]
    close_tab(first)
    assert first.is_closed()

    second = new_tab(browser, **OPTIONS)
    try:
        assert second.context is context  # kept, not made anew
        assert [p for p in context.pages if p is not second] != []  # the process's keeper
        second.goto(server.url + "/?seed=3")
        settle(second)
        assert second.evaluate(FIND, "left_behind") == [None, None, False]
        assert "left_behind" not in {c["name"] for c in context.cookies()}
        spoil(second)  # a context the test changed is closed, not kept
    finally:
        close_tab(second)
    third = new_tab(browser, **OPTIONS)
    try:
        assert third.context is not context
    finally:
        close_tab(third)
