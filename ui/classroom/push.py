"""Followers woken by their server: one thread a process watches the followed classes and starts
a run of the page of every session that follows a class whose state changed.

A browser that polls costs a script run each time, whatever it finds: 100 students polling every
second keep half a core busy doing nothing. Here the poll fragment (``ui.classroom.follow``) says
which class its session follows (``follow``); a thread of the process reads each followed class
through the process's caches every ``WATCH_SECONDS`` (one store read a class and interval, however
many follow it) and, when what a follower shows has changed (the teacher's screen, the question,
the store answering or not), asks Streamlit for a run of each of its sessions' page, as a
browser would: the frame's ``arrive`` reads the change from the same caches and the page draws
it in that one run. The browser's timer on the poll stays, slower, in case a wake is lost.

Streamlit has no public call that reruns another session: the thread uses its runtime's session
manager and a session's client state as its last run left it (its page, its link, its widgets),
as Streamlit's own reruns on a changed source file do (``AppSession.request_rerun``), pinned to
the version requirements.txt names.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

WATCH_SECONDS = 0.25  # the thread's look at the followed classes (the caches: the store's)
log = logging.getLogger(__name__)
_lock = threading.Lock()
_sessions: dict[str, set[str]] = {}  # code -> the ids of the sessions that follow it
_shown: dict[str, Hashable] = {}  # code -> what its followers were last woken for
_watching: list[threading.Thread] = []


def follow(code: str, shown: Callable[[str], Hashable]) -> None:
    """Called from the poll fragment: this session follows ``code``; ``shown(code)`` says what a
    follower of it shows (equal values: nothing to wake it for)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with _lock:
        _sessions.setdefault(code, set()).add(ctx.session_id)
        if not _watching:
            thread = threading.Thread(target=_watch, args=(shown,), name="class-watch", daemon=True)
            _watching.append(thread)
            thread.start()


def leave(code: str) -> None:
    """This session follows ``code`` no longer (it ended, or the student left it)."""
    ctx = get_script_run_ctx()
    with _lock:
        if ctx is not None and code in _sessions:
            _sessions[code].discard(ctx.session_id)


def _watch(shown: Callable[[str], Hashable]) -> None:
    """The thread: forever, every WATCH_SECONDS, wake the followers of each changed class."""
    while True:
        time.sleep(WATCH_SECONDS)
        with _lock:
            followed = {code: set(s) for code, s in _sessions.items() if s}
        for code, sessions in followed.items():
            try:
                now = shown(code)
                if _shown.setdefault(code, now) != now:
                    _shown[code] = now
                    _wake(code, sessions)
            except Exception:  # noqa: BLE001 (the poll itself reports the store's failures)
                log.exception("class watch: %s", code)  # the thread goes on watching


def _wake(code: str, sessions: set[str]) -> None:
    """Start a run of each session's page; forget the sessions that are gone. Without a running
    server (a script run by AppTest) there is nothing to wake."""
    if not Runtime.exists():
        return
    manager = Runtime.instance()._session_mgr  # noqa: SLF001 (no public call reruns a session)
    for session_id in sessions:
        info = manager.get_active_session_info(session_id)
        if info is None:
            with _lock:
                _sessions.get(code, set()).discard(session_id)
            continue
        state = ClientState()
        state.CopyFrom(info.session._client_state)  # noqa: SLF001 (as its last run left it)
        state.ClearField("fragment_id")  # the whole page, not the fragment that ran last
        state.is_auto_rerun = False
        info.session.request_rerun(state)
