"""The load benchmark's websocket client behaves as a browser behind nginx: its own route."""

from __future__ import annotations

import asyncio
import json
import re
import threading

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.server import serve

from bench.wsclient import Session


def test_each_client_brings_a_route_cookie_of_its_own() -> None:
    """Behind nginx a browser keeps the route cookie of its first page; a client without one
    would be hashed by its address, and every client on the loopback would share one process."""
    seen: list[tuple[str | None, str | None]] = []

    async def handler(connection) -> None:
        headers = connection.request.headers
        seen.append((headers.get("Cookie"), headers.get("Sec-WebSocket-Protocol")))
        await connection.wait_closed()

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0, subprotocols=["streamlit"]) as server:
            port = server.sockets[0].getsockname()[1]
            for _ in range(3):
                session = Session(f"ws://127.0.0.1:{port}/_stcore/stream", "concat", {})
                await session.connect(timeout=5)
                await session.close()

    # a thread of its own: after the browser tests, playwright's loop runs in this one
    runner = threading.Thread(target=asyncio.run, args=(main(),))
    runner.start()
    runner.join(timeout=30)
    routes = [re.fullmatch(r"attention_lab_route=([0-9a-f]{32})", c or "") for c, _ in seen]
    assert all(routes) and len({r.group(1) for r in routes}) == 3, seen
    assert {protocol for _, protocol in seen} == {"streamlit"}


def _store_server_messages(early: bool, quiet: bool = False):
    """A server's side of a first visit whose frame asks the browser store for its copy: the run
    that asks, then the run the answer starts. ``early``: the answer ends the first run early (it
    arrived while the run was going), else the first run had finished when the answer came."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    def msg(**fill) -> bytes:
        fm = ForwardMsg()
        for name, value in fill.items():
            if name == "new_session":
                fm.new_session.page_script_hash = value
            elif name == "store":
                element = fm.delta.new_element.bidi_component
                element.id, element.json = value
            elif name == "finished":
                fm.script_finished = ForwardMsg.ScriptFinishedStatus.Value(value)
        return fm.SerializeToString()

    data = {"name": "w", "ask": "tok", "put": {}} | ({"quiet": True} if quiet else {})
    store = msg(store=("$$ID-abc-turn_store", json.dumps(data)))
    first = [msg(new_session="h1"), store]
    if not early:
        first.append(msg(finished="FINISHED_SUCCESSFULLY"))
    after = [msg(finished="FINISHED_EARLY_FOR_RERUN")] if early else []
    after += [msg(new_session="h1"), msg(finished="FINISHED_SUCCESSFULLY")]
    return first, after


def _answering(early: bool, quiet: bool = False):
    from streamlit.proto.BackMsg_pb2 import BackMsg

    received: list[BackMsg] = []
    runs: list[tuple[int, int]] = []
    first, after = _store_server_messages(early, quiet)

    async def handler(connection) -> None:
        # the load's run (which asks), the answer's run, and a change's run (which does not ask)
        replies = iter([first, after, after[-2:]])
        async for data in connection:
            back = BackMsg()
            back.ParseFromString(data)
            received.append(back)
            for out in next(replies, []):
                await connection.send(out)
        await connection.wait_closed()

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0, subprotocols=["streamlit"]) as server:
            port = server.sockets[0].getsockname()[1]
            session = Session(f"ws://127.0.0.1:{port}/_stcore/stream", "softmax", {"seed": 0})
            await session.connect(timeout=5)
            load = await session.load(timeout=5)
            runs.append((load.messages, len(received)))
            change = await session.change(timeout=5, seed=1)
            runs.append((change.messages, len(received)))
            await session.close()

    runner = threading.Thread(target=asyncio.run, args=(main(),))
    runner.start()
    runner.join(timeout=30)
    return received, runs


def test_a_quiet_store_is_not_answered_as_a_new_visitors_page_does_not() -> None:
    """A new visitor's learner store is empty and quiet: no answer, so the load is its first
    run alone and the change comes next."""
    received, runs = _answering(early=False, quiet=True)
    assert runs == [(3, 1), (2, 2)], runs
    ids = {w.id for w in received[1].rerun_script.widget_states.widgets}
    assert "$$ID-abc-turn_store" not in ids, ids


def test_the_client_answers_the_store_as_the_page_script_does() -> None:
    """A browser's store reports its copy as soon as it is drawn; the load is over when the run
    that answer started is, whether the answer cut the first run short or came after it."""
    import json

    for early in (True, False):
        received, runs = _answering(early)
        # the load reads both runs (the first one's end, early or not, included); the change one
        assert [r[0] for r in runs] == [5, 2], (early, runs)
        assert [r[1] for r in runs] == [2, 3], (early, runs)
        _, answer, change = received
        states = {w.id: w for w in answer.rerun_script.widget_states.widgets}
        assert json.loads(states["$$ID-abc-turn_store"].json_value) == {
            "saved": {"token": "tok", "entries": {}}
        }
        assert answer.rerun_script.page_script_hash == "h1"
        # the runs since drew no store: its state is no longer sent, as the frontend forgets it
        ids = {w.id for w in change.rerun_script.widget_states.widgets}
        assert "$$ID-abc-turn_store" not in ids, (early, ids)


def _message(kind: str, value: str = "", fragment: str = "") -> ForwardMsg:
    fm = ForwardMsg()
    if kind == "ref_hash":
        fm.ref_hash = value
    else:
        fm.hash = value
        fm.metadata.cacheable = True
        fm.delta.fragment_id = fragment
        fm.delta.new_element.markdown.body = "x"
    return fm


def test_the_client_forgets_cached_messages_as_a_browser_does() -> None:
    # Streamlit's frontend drops a cached message once 2 runs have ended since one used it (only
    # a fragment's own after a fragment's run): the hashes a rerun sends stay a page's, not a
    # visit's, which grew every BackMsg and the server's parse of it run after run
    session = Session("ws://127.0.0.1:1/_stcore/stream", "concat", {})
    session._cache(_message("delta", "a"))
    session._cache(_message("delta", "b", fragment="f"))
    session._ran()  # run 1 ends
    session._cache(_message("ref_hash", "a"))  # run 2 refers to a
    session._ran()
    assert set(session.cached) == {"a", "b"}
    session.run_fragments = ("g",)  # a run of fragment g alone keeps a and b, whatever their age
    session._ran()
    session._ran()
    assert set(session.cached) == {"a", "b"}
    session.run_fragments = ("f",)  # f's own run forgets f's old message
    session._ran()
    assert set(session.cached) == {"a"}
    session.run_fragments = ()  # a full run: a was last used 3 runs before
    session._ran()
    assert session.cached == {}


def test_every_select_slider_of_the_pages_is_sent_as_the_browser_sends_it() -> None:
    """The frontend sends a select slider's option as a one-item list of its text; the client
    sent a string for a select slider it did not know, and the page failed on the server (the
    temperature on /softmax, once it became a select slider)."""
    from streamlit.testing.v1 import AppTest

    from bench.common import ROOT, page_files
    from bench.wsclient import SELECT_SLIDERS

    keys = set()
    for path in page_files():
        at = AppTest.from_file(str(ROOT / path), default_timeout=60).run()
        keys |= {slider.key for slider in at.select_slider}
    assert {"temperature", "step", "eps"} <= keys  # the pages still have theirs
    assert keys <= SELECT_SLIDERS, keys - SELECT_SLIDERS
