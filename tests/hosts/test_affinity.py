"""Session affinity through HAProxy: every request of a browser reaches one host, and without the
cookie the same page shows the failure it prevents."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import Browser, Page

import llm
from tests.e2e.harness import DEFAULT_TEXT, exceptions, reported, settle
from tests.hosts.browsing import Visit, download, visit
from tests.hosts.harness import Lab

pytestmark = pytest.mark.e2e

SEED = 7


def tables(seed: int) -> dict[str, np.ndarray]:
    """/concat's three tables at chapter 9's sizes and ``seed``, computed here with llm."""
    cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=seed)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(llm.embed(llm.tokenize(DEFAULT_TEXT), cfg), params)
    return {"concat": trace.concat, "W_O": params.W_O, "attn_out": trace.attn_out}


def open_tables(page: Page) -> None:
    """Open /concat's box of tables, once the page has drawn and reported, when it is folded:
    a page loaded anew folds it, and so does a session started on another host (without
    affinity, a websocket reopened there)."""
    box = page.locator("[data-testid='stExpander'] details", has_text="The same numbers as tables")
    if box.get_attribute("open") is None:
        box.locator("summary").click()
        settle(page)  # the box draws its tables when it opens


def test_the_websocket_the_downloads_and_later_requests_reach_one_host(
    lab_visit: Visit, hosts: Lab
) -> None:
    page, traffic = lab_visit.page, lab_visit.traffic
    mark = len(hosts.log_lines())
    lab_visit.session.open(f"/concat?seed={SEED}")
    open_tables(page)
    for name, want in tables(SEED).items():
        response = download(page, name)
        table = pd.read_csv(io.StringIO(response.text()), index_col=0, float_precision="round_trip")
        np.testing.assert_array_equal(table.to_numpy(), want, err_msg=name)
    # later requests: the page again, a new websocket, and a download of the new session
    page.reload()
    settle(page)
    reported(page)
    open_tables(page)
    download(page, "W_O")
    assert len(traffic.sockets) == 2 and len(traffic.media()) >= 4
    assert traffic.hosts() == {"hA"}, traffic.responses
    assert traffic.strays() == []
    assert {status for _, status, _ in traffic.media()} == {200}
    # HAProxy's own log agrees: every request of this browser went to hosts/hA
    lines = hosts.log_lines()[mark:]
    assert lines and {line[1] for line in lines} == {"hosts/hA"}, lines[:5]
    assert exceptions(page) == []


def test_without_stickiness_the_requests_of_one_page_reach_several_hosts(
    browser: Browser, hosts: Lab
) -> None:
    hosts.start_balancer(sticky=False)
    current = visit(browser, hosts)
    try:
        page, traffic = current.page, current.traffic
        current.session.open(f"/concat?seed={SEED + 1}")
        for name in tables(SEED + 1):
            open_tables(page)
            download(page, name)
        page.reload()
        settle(page)
        strays = traffic.strays()
        # round robin over three hosts: a page's own requests are spread over all of them
        assert traffic.hosts() == {"hA", "hB", "hC"}, traffic.responses
        assert len(strays) >= 3, strays
        # what affinity prevents: a download sent to a host without its file, or to another
        # host than the session's, or the page's websocket reopened on another host
        assert any(s.startswith(("/media/", "websocket ")) for s in strays), strays
        assert "SERVERID" not in {c["name"] for c in page.context.cookies()}
    finally:
        current.close()
