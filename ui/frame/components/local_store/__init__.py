"""A JSON store in the browser's localStorage: read once per session, written as entries change.

Nothing is kept on the server: the browser reports what it holds once (``ask``), and the app
sends the entries that changed (``put``). Each mount is numbered for its session and store name
(``writer``, ``seq``), so that the browser never writes an entry from an older batch than one it
has written it from: an element drawn again, or one that stayed on the page while a newer one
wrote, cannot bring back older work. The JavaScript ships in this folder and is sent inline with
the element; it draws nothing.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import streamlit as st

from ui.frame.components import flat

_JS = (Path(__file__).parent / "local_store.js").read_text(encoding="utf-8")
_mount = st.components.v2.component("attention_lab.local_store", js=_JS)


def local_store(
    name: str,
    key: str,
    ask: str | None,
    put: dict[str, Any] | None = None,
    quiet: bool = False,
) -> dict[str, Any] | None:
    """Mount the store (once per run) and return what the browser reported, or None.

    ``ask``: a token while the app still wants the browser's entries, None once it has them.
    ``quiet``: an empty store reports nothing (its report would rerun the page for nothing),
    so the app cannot tell it from a browser that has not answered yet.
    The return value is ``{"token": ask, "entries": {...}}`` as the browser sent it: untrusted.
    """
    writer, seq = _numbered(name)
    result = _mount(
        key=key,
        data={
            "name": name,
            "ask": ask,
            "put": flat(put or {}),
            "hide": f"st-key-{key}",
            "quiet": quiet,
            "writer": writer,
            "seq": seq,
        },
        default={"saved": None},
        on_saved_change=lambda: None,
        height=0,
    )
    return result.saved


def _numbered(name: str) -> tuple[str, int]:
    """This session's writer id for the store ``name`` and the number of its next batch, larger
    than every earlier one: whichever of the store's elements mounts it, in a whole run or a
    section's own."""
    key = f"_local_store_{name}"
    writer, sent = st.session_state.get(key) or (secrets.token_hex(8), 0)
    st.session_state[key] = writer, sent + 1
    return writer, sent + 1
