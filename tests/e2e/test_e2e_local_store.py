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


def test_each_store_hides_its_own_element(page: Page) -> None:
    """Two stores on a page (the learner's work, the class), each element hidden by its class."""
    for name in ("work", "class"):
        page.evaluate(
            "name => { const el = document.body.appendChild(document.createElement('div'));"
            " el.className = `st-key-${name}_store`; el.textContent = name; }",
            name,
        )
        data = {"name": f"{NAME}/{name}", "ask": None, "put": "{}", "hide": f"st-key-{name}_store"}
        page.evaluate(RUN, [JS, data | {"writer": "w1", "seq": 1}])
    shown = page.evaluate(
        "() => [...document.querySelectorAll('[class$=_store]')]"
        ".map(el => getComputedStyle(el).display)"
    )
    assert shown == ["none", "none"]


# one element's run whose reports, later ones included, gather in window.__reports; its element
# (parentElement) stays in the document until the test removes it
RUN_KEPT = """async ([js, data]) => {
  const url = URL.createObjectURL(new Blob([js], {type: "text/javascript"}));
  window.__reports ||= [];
  const parentElement = document.body.appendChild(document.createElement("div"));
  parentElement.id = "store-" + data.seq;
  (await import(url)).default(
    {data, parentElement, setStateValue: (name, value) => window.__reports.push([name, value])});
}"""


def run_kept(page: Page, seq: int, ask: str | None) -> None:
    data = {"name": NAME, "ask": ask, "put": "{}", "quiet": False, "writer": "w1", "seq": seq}
    page.evaluate(RUN_KEPT, [JS, data])


def stop_the_clock(page: Page) -> None:
    """Fake timers that move only when the test moves them: once installed, playwright's clock
    still flows with real time until paused, so a slow host would fire timers of its own."""
    page.clock.install(time=0)
    page.clock.pause_at(1_000)


def reports(page: Page) -> list[int | None]:
    """The reports sent so far, each as its ``again`` number (None for the first)."""
    return [value.get("again") for _name, value in page.evaluate("() => window.__reports")]


def test_a_report_the_server_did_not_take_is_sent_again_a_few_times(page: Page) -> None:
    stop_the_clock(page)
    run_kept(page, seq=1, ask="t1")
    assert reports(page) == [None]
    page.clock.run_for(1_900)
    assert reports(page) == [None]  # not before REPORT_AGAIN_MS
    page.clock.run_for(200)
    assert reports(page) == [None, 1]
    # the page ran again (the same element, still asking): the report is still wanted
    run_kept(page, seq=2, ask="t1")
    page.clock.run_for(60_000)
    assert reports(page) == [None, 1, 2, 3, 4]  # REPORTS in all, then no more


def test_a_report_taken_is_not_sent_again(page: Page) -> None:
    stop_the_clock(page)
    run_kept(page, seq=1, ask="t1")
    run_kept(page, seq=2, ask=None)  # the next run asks no more: the server has it
    page.clock.run_for(10_000)
    assert reports(page) == [None]
    run_kept(page, seq=3, ask="t2")
    page.evaluate("() => document.getElementById('store-3').remove()")  # the run dropped it
    page.clock.run_for(10_000)
    assert reports(page) == [None, None]


def test_a_report_waits_while_the_app_runs(page: Page) -> None:
    """While a run goes on (it may yet take the report), nothing is sent again."""
    stop_the_clock(page)
    page.evaluate(
        """() => { const app = document.body.appendChild(document.createElement('div'));
                   app.dataset.testid = 'stApp'; app.dataset.testScriptState = 'running'; }"""
    )
    run_kept(page, seq=1, ask="t1")
    page.clock.run_for(9_000)
    assert reports(page) == [None]
    page.evaluate(
        "() => { document.querySelector('[data-testid=stApp]')"
        ".dataset.testScriptState = 'notRunning'; }"
    )
    page.clock.run_for(2_100)
    assert reports(page) == [None, 1]
