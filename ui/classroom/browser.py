"""This browser's part in a class, kept in its own localStorage: a random student id, and the
teacher key of the class it started.

The server keeps neither across sessions: the browser reports its copy once per session (as the
learner's work does, ``ui.turn.progress``), and the app writes the entries that change. A reload
or a second tab of the teacher's browser finds the key again; the key never goes into a URL.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

import streamlit as st

from classroom import ClassError, codes
from ui.frame.components.local_store import local_store

STORE = "attention-lab/class/v1"  # the localStorage name
STORE_KEY = "class_store"  # the component's key (its element is hidden)
ASK_RUNS = 8  # a browser reports on its first run; a client without JavaScript is asked no more
_ASK = "_class_ask"  # a token until the browser has reported, then ""
_ASKED = "_class_asked"
_COPY = "_class_copy"  # what the browser holds: {"student": id, "teaching": {"code", "key"}}
_PUT = "_class_put"


def browser_copy() -> dict[str, Any] | None:
    """What this browser keeps of classes, or None while it has not reported yet.

    Mounts the store while it asks or has something to write; most runs mount nothing.
    """
    ss = st.session_state
    ask = ss.setdefault(_ASK, secrets.token_hex(8))
    if ask:
        state = ss.get(STORE_KEY)
        saved = state.get("saved") if isinstance(state, dict) else getattr(state, "saved", None)
        if isinstance(saved, dict) and saved.get("token") == ask:
            ss[_ASK] = ask = ""
            ss[_COPY] = _trusted(saved.get("entries"))
        else:
            ss[_ASKED] = ss.get(_ASKED, 0) + 1
            if ss[_ASKED] > ASK_RUNS:
                ss[_ASK] = ask = ""
                ss.setdefault(_COPY, {})
    put = ss.get(_PUT)
    if ask or put:
        local_store(STORE, key=STORE_KEY, ask=ask or None, put=put)
        ss[_PUT] = {}
    return None if ask else ss.setdefault(_COPY, {})


def _trusted(entries: Any) -> dict[str, Any]:
    """The browser's entries, kept only where they have the shape the app writes (untrusted)."""
    out: dict[str, Any] = {}
    if not isinstance(entries, dict):
        return out
    with contextlib.suppress(ClassError):  # not an id the app draws: a new one is drawn instead
        out["student"] = codes.check_student_id(entries.get("student"))
    teaching = entries.get("teaching")
    if isinstance(teaching, dict):
        code, key = teaching.get("code"), teaching.get("key")
        if isinstance(code, str) and isinstance(key, str) and len(key) <= 200:
            out["teaching"] = {"code": code, "key": key}
    return out


def _write(name: str, value: Any) -> None:
    ss = st.session_state
    ss.setdefault(_COPY, {})
    if value is None:
        ss[_COPY].pop(name, None)
    else:
        ss[_COPY][name] = value
    ss.setdefault(_PUT, {})[name] = value


def student_id() -> str:
    """This browser's random student id (drawn once, then kept by the browser)."""
    copy = st.session_state.setdefault(_COPY, {})
    if "student" not in copy:
        _write("student", codes.new_student_id())
    return copy["student"]


def teaching() -> tuple[str, str] | None:
    """(code, teacher key) of the class this browser started, or None."""
    entry = st.session_state.get(_COPY, {}).get("teaching")
    return (entry["code"], entry["key"]) if entry else None


def keep_teaching(code: str | None, key: str | None = None) -> None:
    """Remember the class this browser teaches (or forget it: ``code`` None)."""
    _write("teaching", None if code is None else {"code": code, "key": key})
