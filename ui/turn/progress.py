"""The learner's work: the cells solved, and the code and passes this browser keeps across reloads.

The session holds the work; the browser keeps a copy in its own ``localStorage`` (nothing a student
types is stored on the server). On a session's first runs the browser reports its copy once, if it
holds any (a new visitor's page does not run twice for an empty report); each change is sent to it
in the run it happens (the editor's, Check's and Start again's callbacks run before the frame
mounts the store, or before the panel that reruns alone does: ``flush``), and once more with the
next run that mounts it, numbered so that the browser keeps the newest whatever arrives last. Code
brought back stays in its editor even when a run comes with the editor the browser showed before
(``bring_back``), until the learner edits the cell or starts it again. A pass comes back as a ✓
only if the server can trust it: its seal (``exercises.seal``) opens with this server's key, or,
after a restart or a new version of the checker, the code that passed passes again, checked
silently on chapter 9's setting.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any

import streamlit as st

import exercises as ex
import sandbox
from exercises import seal
from ui.frame.components.local_store import local_store
from ui.text.exercises import CELLS as TEXTS

PASSED = "_turn_passed"  # session key: the ids of the cells solved in this session
RESTORED = "_turn_restored"  # session key: the ids whose ✓ came back from this browser
WORK = "_turn_work"  # session key: cell id -> {"code", and after a pass "passed", "seal"}
PUT = "_turn_put"  # session key: entries changed since the browser's copy was last written
ASK = "_turn_ask"  # session key: a token until the browser has reported its copy, then ""
ASKED = "_turn_asked"  # session key: the runs that have asked so far
AGAIN = "_turn_again"  # session key: the ids of the last batch, sent once more with the next
BROUGHT = "_turn_brought"  # session key: cell id -> the code brought back into its editor, until
# the learner edits the cell or starts it again
WHOLE = "_turn_whole"  # session key: set while a whole run is under way (the frame has written)
# a browser with saved work reports it on its first run; an empty store says nothing (a new
# visitor's page runs once, not twice), so the store is asked on the session's first runs, no more
ASK_RUNS = 8
STORE = "attention-lab/work/v1"  # the localStorage name
STORE_KEY = "turn_store"  # the component's key (its element is hidden)
FLUSH_KEY = "turn_store_cell"  # the store as a "Your turn" panel mounts it on its own reruns
STORE_CSS = f"<style>.st-key-{FLUSH_KEY} {{ display: none; }}</style>"
_NOT_THE_CODE = ("busy", "timeout", "crashed")  # a re-check that says nothing about the code


def solved() -> set[str]:
    """The ids of the cells solved in this session (or brought back by this browser)."""
    return st.session_state.get(PASSED, set())


def restored() -> set[str]:
    """The ids of the cells whose pass this browser brought back (not solved in this session)."""
    return st.session_state.get(RESTORED, set())


def templates(cell_id: str) -> set[str]:
    """The cell's starting code in every language: not the learner's own work."""
    return {texts["template"] for texts in TEXTS[cell_id].values()}


def progress() -> set[str]:
    """Read the browser's copy once, mount the store when there is something to write; the ids
    of the solved cells.

    The frame calls it once per run, before any cell is drawn. The browser's report is read from
    the session before the store is mounted, so what the restore corrects is written in the same
    run. Most runs neither read nor write, and mount nothing.
    """
    ss = st.session_state
    ask = ss.setdefault(ASK, secrets.token_hex(8))
    if ask:
        saved = _reported(ss.get(STORE_KEY))
        if isinstance(saved, dict) and saved.get("token") == ask:
            ss[ASK] = ask = ""
            _restore(saved.get("entries"))
        else:
            ss[ASKED] = ss.get(ASKED, 0) + 1
            if ss[ASKED] > ASK_RUNS:
                ss[ASK] = ask = ""
    _write(STORE_KEY, ask)
    ss[WHOLE] = True
    return solved()


def flush() -> None:
    """Send the browser what changed since its copy was last written, from a "Your turn" panel
    that reruns alone (editing, Check, Start again): the frame, which writes on a whole run, does
    not run then. On a whole run the frame has already written everything, and nothing mounts."""
    if not st.session_state.pop(WHOLE, False) or st.session_state.get(PUT):
        _write(FLUSH_KEY, "")


def _write(key: str, ask: str) -> None:
    """Mount the store as ``key`` when there is something to ask or write: the entries changed
    since the last batch, and once more those of the last batch, at their current value (a run cut
    short by the next one may not have delivered it). The store numbers each batch, so the
    browser keeps the newest whatever arrives last."""
    ss = st.session_state
    work, again, changed = ss.get(WORK, {}), ss.pop(AGAIN, ()), ss.get(PUT, {})
    put = {cell_id: work.get(cell_id) for cell_id in again} | changed
    if not (ask or put):
        return
    local_store(STORE, key=key, ask=ask or None, put=put, quiet=True)
    ss[PUT] = {}
    if changed:
        ss[AGAIN] = tuple(changed)


def _reported(state: Any) -> Any:
    """The store's state value ``saved``, as the browser last reported it (or None)."""
    if isinstance(state, Mapping):
        return state.get("saved")
    return getattr(state, "saved", None)


def note_code(cell_id: str, code: str, *, start_again: bool = False) -> None:
    """The editor's code changed (a callback): the browser keeps it, or forgets a template. A
    template in a cell whose code the browser brought back is the browser's editor from before
    that (``bring_back``), not the learner's choice, unless they pressed Start again."""
    brought = st.session_state.get(BROUGHT, {})
    if cell_id in brought:
        if code in templates(cell_id) and not start_again:
            return
        del brought[cell_id]
    work = st.session_state.setdefault(WORK, {})
    old = work.get(cell_id) or {}
    if "seal" in old:
        _put(cell_id, {**old, "code": code})
    elif code in templates(cell_id):
        _put(cell_id, None)
    else:
        _put(cell_id, {"code": code})


def note_pass(cell_id: str, code: str) -> None:
    """``code`` passed (a callback): solved in the session, sealed for the browser."""
    ss = st.session_state
    ss[PASSED] = solved() | {cell_id}
    ss[RESTORED] = restored() - {cell_id}
    _put(cell_id, {"code": code, "passed": code, "seal": seal.seal(_key(), cell_id, code)})


def _put(cell_id: str, entry: dict[str, str] | None) -> None:
    ss = st.session_state
    work = ss.setdefault(WORK, {})
    if entry is None:
        if work.pop(cell_id, None) is None:
            return
    elif work.get(cell_id) == entry:
        return
    else:
        work[cell_id] = entry
    ss.setdefault(PUT, {})[cell_id] = entry


def _text(value: Any) -> str | None:
    """A string the browser sent that may be code, or None (it is untrusted input)."""
    return value if isinstance(value, str) and len(value) <= sandbox.MAX_SOURCE else None


def _restore(entries: Any) -> None:
    """Bring back what the browser kept: the code of each cell, and the passes it can trust."""
    if not isinstance(entries, dict):
        return
    ss = st.session_state
    work = ss.setdefault(WORK, {})
    for cell_id in ex.BY_ID:
        entry = entries.get(cell_id)
        code = _text(entry.get("code")) if isinstance(entry, dict) else None
        if code is None or cell_id in work:  # nothing kept, or the session has its own work
            continue
        work[cell_id] = {"code": code}
        passed, sealed = _text(entry.get("passed")), entry.get("seal")
        if passed is not None and isinstance(sealed, str):
            kept, solved_now = _trusted(cell_id, passed, sealed)
            if kept is not None:
                work[cell_id] = {"code": code, "passed": passed, "seal": kept}
            if solved_now:
                ss[PASSED] = solved() | {cell_id}
                ss[RESTORED] = restored() | {cell_id}
            if kept != sealed:
                ss.setdefault(PUT, {})[cell_id] = work[cell_id]
        editor = ss.get(f"code_{cell_id}")
        if editor is None or editor in templates(cell_id):
            ss[f"code_{cell_id}"] = code
            ss.setdefault(BROUGHT, {})[cell_id] = code


def bring_back(cell_id: str) -> None:
    """Put the code this browser brought back into the cell's editor again where it shows a
    template (the panel calls it before it draws the editor). A run the browser asked for before
    the restoring run reached it carries the editor as it was, the template, and Streamlit takes
    a widget's value from the browser over the one the last run set in the session."""
    code = st.session_state.get(BROUGHT, {}).get(cell_id)
    key = f"code_{cell_id}"
    if code is not None and st.session_state.get(key) in templates(cell_id):
        st.session_state[key] = code


def _trusted(cell_id: str, passed: str, sealed: str) -> tuple[str | None, bool]:
    """(the seal to keep, whether it is a pass) for a pass the browser gave back.

    A seal that opens is a pass. Otherwise (another key after a restart, another version of the
    checker, or forged) the code is checked again, silently, and a pass gets a new seal; a check
    that could not run (busy, timed out) keeps the old seal for the next reload, without a ✓.
    """
    if seal.opens(_key(), cell_id, passed, sealed):
        return sealed, True
    verdict = ex.check(cell_id, passed, ex.setting())
    if verdict.passed:
        return seal.seal(_key(), cell_id, passed), True
    if verdict.code == "error" and verdict.params.get("error") in _NOT_THE_CODE:
        return sealed, False
    return None, False


@functools.cache
def _key() -> bytes:
    """This server's key for seals, derived from its cookie secret (shared by its processes)."""
    secret = str(st.config.get_option("server.cookieSecret") or "") or secrets.token_hex(32)
    return hmac.new(secret.encode(), b"attention-lab exercise seals", hashlib.sha256).digest()
