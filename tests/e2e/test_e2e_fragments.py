"""Sections that rerun alone, in a real browser: the temperature on /softmax and a Check in a
"Your turn" cell redraw their own section and the address bar, and the server sends nothing for
the sidebar; a sidebar setting, or a Check that newly solves the cell, reruns the whole page.

What tells the two kinds of rerun apart is read off the websocket: the server's messages
(Streamlit's ``ForwardMsg``) say how each run ended (``FINISHED_FRAGMENT_RUN_SUCCESSFULLY`` for
a section run alone), and every element sent carries its place (``delta_path``: its first
number is the root, 1 for the sidebar). Every run starts with a ``new_session`` message; a
section's own run names its fragment there (``run.fragment_ids``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

import exercises as ex
import llm
from tests.e2e.harness import (
    DEFAULT_TEXT,
    SIDEBAR,
    Session,
    exceptions,
    nav_labels,
    settle,
    type_seed,
    wait_heatmap,
    wait_query,
    wait_until,
)
from tests.e2e.test_e2e_exercise import WRONG_SOFTMAX

pytestmark = pytest.mark.e2e
MAIN = "[data-testid='stMain']"
SIDEBAR_ROOT = 1  # RootContainer.SIDEBAR: the first number of a sidebar element's delta_path
FRAGMENT_RUN = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
WHOLE_RUN = ForwardMsg.FINISHED_SUCCESSFULLY
CUT_SHORT = ForwardMsg.FINISHED_EARLY_FOR_RERUN  # a run the next key press replaced


@dataclass
class Wire:
    """Every message the server sent the page since the last ``clear``, decoded."""

    messages: list[ForwardMsg] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("websocket", lambda ws: ws.on("framereceived", self._on_frame))

    def _on_frame(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            self.messages.append(msg)

    def clear(self) -> None:
        self.messages.clear()

    def endings(self) -> list[int]:
        """How each run since ``clear`` ended (a ForwardMsg.ScriptFinishedStatus)."""
        return [m.script_finished for m in self.messages if _kind(m) == "script_finished"]

    def whole_runs(self) -> int:
        """The whole runs started since ``clear``: a run begins with ``new_session``, and a
        section's own run names its fragment in the message's ``run``."""
        return sum(
            _kind(m) == "new_session" and not m.metadata.run.fragment_ids for m in self.messages
        )

    def sidebar_elements(self) -> int:
        """The sidebar's elements sent since ``clear`` (whole, or as a cached reference)."""
        return sum(
            _kind(m) in ("delta", "ref_hash")
            and len(m.metadata.delta_path) > 0
            and m.metadata.delta_path[0] == SIDEBAR_ROOT
            for m in self.messages
        )

    def main_elements(self) -> int:
        return sum(
            _kind(m) in ("delta", "ref_hash")
            and len(m.metadata.delta_path) > 0
            and m.metadata.delta_path[0] == 0
            for m in self.messages
        )


def _kind(msg: ForwardMsg) -> str | None:
    return msg.WhichOneof("type")


def idle(page: Page, wire: Wire) -> None:
    """Wait until a run has ended since ``clear`` and the page is still."""
    wait_until(page, lambda: any(e != CUT_SHORT for e in wire.endings()), "the end of a run")


def assert_alone(wire: Wire) -> None:
    """Since ``clear``: only sections rerun alone, and nothing was sent for the sidebar."""
    endings = wire.endings()
    assert FRAGMENT_RUN in endings and set(endings) <= {FRAGMENT_RUN, CUT_SHORT}, endings
    assert wire.whole_runs() == 0
    assert wire.sidebar_elements() == 0
    assert wire.main_elements() > 0  # the section itself was sent


def assert_whole(wire: Wire) -> None:
    """Since ``clear``: the whole page reran, the sidebar sent again."""
    assert WHOLE_RUN in wire.endings() and wire.whole_runs() >= 1, wire.endings()
    assert wire.sidebar_elements() > 0


def pattern(temperature: float, seed: int = 0) -> np.ndarray:
    """Page 3's pattern (head 0) at chapter 9's setting and ``temperature``, NaN where masked."""
    cfg = llm.AttentionConfig(seed=seed)
    x = llm.embed(llm.tokenize(DEFAULT_TEXT), cfg)
    trace = llm.multi_head_attention(x, llm.init_params(cfg), True, temperature, True)
    return np.where(trace.mask, trace.heads[0].pattern, np.nan)


def open_page(session: Session, wire: Wire, path: str) -> None:
    """Open ``path`` with the wire listening, and wait until its first runs are over."""
    wire.attach(session.page)
    session.open(path)
    settle(session.page)


def test_the_temperature_reruns_its_section_alone(session: Session) -> None:
    page, wire = session.page, Wire()
    open_page(session, wire, "/softmax")
    wait_heatmap(page, 1, pattern(1.0))
    wire.clear()
    slider = page.locator(MAIN).get_by_role("slider").first
    slider.focus()
    for _ in range(4):  # 1 -> 0.2, one stop a press: 0.7, 0.5, 0.3, 0.2
        slider.press("ArrowLeft")
    wait_query(page, temperature="0.2")
    wait_heatmap(page, 1, pattern(0.2))
    idle(page, wire)
    assert not np.allclose(np.nan_to_num(pattern(0.2)), np.nan_to_num(pattern(1.0)))
    assert_alone(wire)

    # a reload of the address shows the same numbers
    page.goto(page.url)
    settle(page)
    wait_heatmap(page, 1, pattern(0.2))
    slider = page.locator(MAIN).get_by_role("slider").first
    assert slider.get_attribute("aria-valuetext") == "0.2"

    # the measure tells the two apart: a sidebar setting reruns the whole page, sidebar included
    wire.clear()
    type_seed(page, 5)
    wait_query(page, seed="5", temperature="0.2")
    wait_heatmap(page, 1, pattern(0.2, seed=5))
    idle(page, wire)
    assert_whole(wire)
    assert not exceptions(page)


def check(page: Page, code: str, words: str) -> None:
    """Type ``code``, press Check and wait for a verdict with ``words``."""
    page.locator(".st-key-code_softmax textarea").fill(code)
    page.locator(".st-key-check_softmax button").click()
    verdict = page.locator(".st-key-verdict_softmax [data-testid='stAlert']")
    expect(verdict).to_contain_text(words)
    settle(page)


def test_a_check_reruns_the_cell_alone_unless_it_newly_solves_it(session: Session) -> None:
    page, wire = session.page, Wire()
    open_page(session, wire, "/softmax?temperature=0.5")
    solved = "3. Scale, mask, softmax ✓"
    assert solved not in nav_labels(page)

    wire.clear()
    check(page, WRONG_SOFTMAX, "not divided by √d_k")
    idle(page, wire)
    assert_alone(wire)
    assert solved not in nav_labels(page)

    # the first pass: the whole page reruns, and the navigation marks the page
    wire.clear()
    check(page, ex.BY_ID["softmax"].solution_source(), "Correct")
    idle(page, wire)
    assert_whole(wire)
    assert solved in nav_labels(page)
    assert page.url.endswith("temperature=0.5") or "temperature=0.5" in page.url

    # a pass on a solved cell, and a failure, change nothing in the navigation: the cell alone
    wire.clear()
    check(page, WRONG_SOFTMAX, "not divided by √d_k")
    idle(page, wire)
    assert_alone(wire)
    assert solved in nav_labels(page)

    # the browser kept what the cell's own run changed: a reload brings the code and the ✓ back
    page.goto(page.url)
    settle(page)
    expect(page.locator(".st-key-code_softmax textarea")).to_have_value(WRONG_SOFTMAX)
    expect(page.locator(SIDEBAR)).to_contain_text(solved)
    assert not exceptions(page)
    assert session.console.errors == []
