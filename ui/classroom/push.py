"""Followers woken by their server: one thread a process watches the followed classes and reruns
the poll of every session that follows a class whose state changed.

A browser that polls costs a script run each time, whatever it finds: 100 students polling every
second keep half a core busy doing nothing. Here the poll fragment (``ui.classroom.follow``) says
which class its session follows (``follow``); a thread of the process reads each followed class
through the process's caches every ``WATCH_SECONDS`` (one store read a class and interval, however
many follow it) and, when what a follower shows has changed (the teacher's screen, the question,
the store answering or not), asks Streamlit to rerun the poll fragment of each of its sessions,
as a browser's own timer would. The browser's timer stays, slower, in case a wake is lost.

Streamlit has no public call that reruns another session: the thread uses its runtime's session
manager and a session's last client state with the fragment's id, as Streamlit's own reruns on a
changed source file do (``AppSession.request_rerun``), pinned to the version requirements.txt
names.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    ThreadState,
    get_script_run_ctx,
)

WATCH_SECONDS = 0.25  # the thread's look at the followed classes (the caches: the store's)
log = logging.getLogger(__name__)
_lock = threading.Lock()
_sessions: dict[str, dict[str, str]] = {}  # code -> {session id: its poll fragment's id}
_shown: dict[str, Hashable] = {}  # code -> what its followers were last woken for
_watching: list[threading.Thread] = []


def follow(code: str, shown: Callable[[str], Hashable]) -> None:
    """Called from the poll fragment: this session follows ``code``; ``shown(code)`` says what a
    follower of it shows (equal values: nothing to wake it for)."""
    ctx, fragment = get_script_run_ctx(), ThreadState.get().fragment_id
    if ctx is None or fragment is None:
        return
    with _lock:
        _sessions.setdefault(code, {})[ctx.session_id] = fragment
        if not _watching:
            thread = threading.Thread(target=_watch, args=(shown,), name="class-watch", daemon=True)
            _watching.append(thread)
            thread.start()


def leave(code: str) -> None:
    """This session follows ``code`` no longer (it ended, or the student left it)."""
    ctx = get_script_run_ctx()
    with _lock:
        if ctx is not None and code in _sessions:
            _sessions[code].pop(ctx.session_id, None)


def _watch(shown: Callable[[str], Hashable]) -> None:
    """The thread: forever, every WATCH_SECONDS, wake the followers of each changed class."""
    while True:
        time.sleep(WATCH_SECONDS)
        with _lock:
            followed = {code: dict(s) for code, s in _sessions.items() if s}
        for code, sessions in followed.items():
            try:
                now = shown(code)
                if _shown.setdefault(code, now) != now:
                    _shown[code] = now
                    _wake(code, sessions)
            except Exception:  # noqa: BLE001 (the poll itself reports the store's failures)
                log.exception("class watch: %s", code)  # the thread goes on watching


def _wake(code: str, sessions: dict[str, str]) -> None:
    """Rerun each session's poll fragment; forget the sessions that are gone. Without a running
    server (a script run by AppTest) there is nothing to wake."""
    if not Runtime.exists():
        return
    manager = Runtime.instance()._session_mgr  # noqa: SLF001 (no public call reruns a session)
    for session_id, fragment in sessions.items():
        info = manager.get_active_session_info(session_id)
        if info is None:
            with _lock:
                _sessions.get(code, {}).pop(session_id, None)
            continue
        state = ClientState()
        state.CopyFrom(info.session._client_state)  # noqa: SLF001 (its last run's widgets)
        state.fragment_id = fragment
        state.is_auto_rerun = True
        info.session.request_rerun(state)
