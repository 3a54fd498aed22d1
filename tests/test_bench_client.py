"""The load benchmark's websocket client behaves as a browser behind nginx: its own route."""

from __future__ import annotations

import asyncio
import re
import threading

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
