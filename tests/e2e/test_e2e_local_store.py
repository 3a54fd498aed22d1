"""The browser's store on its own, in chromium: which batch of entries it writes and which it
refuses, whatever order its elements run in (a page of a stand-in origin, no app)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

import ui.frame.components.local_store as store

pytestmark = pytest.mark.e2e

ORIGIN = "http://store.test"
NAME = "attention-lab/work/v1"
JS = (Path(store.__file__).parent / "local_store.js").read_text(encoding="utf-8")

# the store's module, imported as the app's frontend imports it; each call is one element's run
RUN = """async ([js, data]) => {
  const url = URL.createObjectURL(new Blob([js], {type: "text/javascript"}));
  const reports = [];
  (await import(url)).default({data, setStateValue: (name, value) => reports.push([name, value])});
  return [JSON.parse(localStorage.getItem(data.name) || "null"), reports];
}"""


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.route(f"{ORIGIN}/**", lambda route: route.fulfill(body="<html></html>"))
    page.goto(ORIGIN + "/")
    yield page
    context.close()


def run(page: Page, put: dict, seq: int, writer: str = "w1", ask: str | None = None) -> tuple:
    data = {"name": NAME, "ask": ask, "put": json.dumps(put), "quiet": True}
    data |= {"writer": writer, "seq": seq}
    return tuple(page.evaluate(RUN, [JS, data]))


def test_an_older_batch_run_again_does_not_bring_back_older_work(page: Page) -> None:
    code = {"code": "x = 1"}
    passed = {"code": "x = 1", "passed": "x = 1", "seal": "ab"}
    assert run(page, {"softmax": code}, seq=1) == ({"softmax": code}, [])
    assert run(page, {"softmax": passed, "scores": code}, seq=2)[0] == {
        "softmax": passed,
        "scores": code,
    }
    # the first element runs again after the second (drawn anew, or left on the page)
    assert run(page, {"softmax": code}, seq=1)[0] == {"softmax": passed, "scores": code}
    # the same batch again writes nothing either: another tab's newer write stays
    page.evaluate("n => localStorage.setItem(n, JSON.stringify({scores: {code: 'y'}}))", NAME)
    assert run(page, {"softmax": passed, "scores": code}, seq=2)[0] == {"scores": {"code": "y"}}
    # a newer batch writes, a removal included
    assert run(page, {"scores": None, "softmax": code}, seq=3)[0] == {"softmax": code}


def test_each_session_numbers_its_own_batches(page: Page) -> None:
    """A new session in the same page (a reconnect) starts its numbers again and is written."""
    a, b = {"softmax": {"code": "a"}}, {"softmax": {"code": "b"}}
    assert run(page, a, seq=5, writer="old")[0] == a
    assert run(page, b, seq=1, writer="new")[0] == b
    assert run(page, a, seq=5, writer="old")[0] == b


def test_the_store_is_reported_once_per_token_and_not_when_empty_and_quiet(page: Page) -> None:
    assert run(page, {}, seq=1, ask="t1") == (None, [])
    run(page, {"softmax": {"code": "a"}}, seq=2)
    saved = ("saved", {"token": "t2", "entries": {"softmax": {"code": "a"}}})
    assert run(page, {}, seq=3, ask="t2")[1] == [list(saved)]
    assert run(page, {}, seq=4, ask="t2")[1] == []
