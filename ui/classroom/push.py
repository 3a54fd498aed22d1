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

Shown = tuple[Hashable, Hashable]  # (the teacher's screen, the rest a student sees of the class)
WATCH_SECONDS = 0.25  # the thread's look at the followed classes (the caches: the store's)
log = logging.getLogger(__name__)
_lock = threading.Lock()
# code -> {the id of a session in the class: whether it follows the teacher's screen}
_sessions: dict[str, dict[str, bool]] = {}
_shown: dict[str, Shown] = {}  # code -> what its followers were last woken for
_watching: list[threading.Thread] = []


def follow(code: str, shown: Callable[[str], Shown], screen: bool = True) -> None:
    """Called from the poll fragment: this session is in class ``code``; ``shown(code)`` says
    what a student of it shows, (the teacher's screen, the rest: a question, the class's end, the
    store's state), equal values meaning nothing to wake it for. ``screen``: whether it follows
    the teacher's screen (a student exploring on their own is not woken for it)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with _lock:
        _sessions.setdefault(code, {})[ctx.session_id] = screen
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


def to_wake(sessions: dict[str, bool], before: Shown, now: Shown) -> set[str]:
    """The sessions to wake when what the class shows went from ``before`` to ``now``: all of
    them when the rest changed, those that follow the screen when only the screen did."""
    if before[1] != now[1]:
        return set(sessions)
    if before[0] != now[0]:
        return {session for session, screen in sessions.items() if screen}
    return set()


def _watch(shown: Callable[[str], Shown]) -> None:
    """The thread: forever, every WATCH_SECONDS, wake the students of each changed class."""
    while True:
        time.sleep(WATCH_SECONDS)
        with _lock:
            followed = {code: dict(s) for code, s in _sessions.items() if s}
        for code, sessions in followed.items():
            try:
                now = shown(code)
                before = _shown.setdefault(code, now)
                if before != now:
                    _shown[code] = now
                    _wake(code, to_wake(sessions, before, now))
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
                _sessions.get(code, {}).pop(session_id, None)
            continue
        state = ClientState()
        state.CopyFrom(info.session._client_state)  # noqa: SLF001 (as its last run left it)
        state.ClearField("fragment_id")  # the whole page, not the fragment that ran last
        state.is_auto_rerun = False
        info.session.request_rerun(state)
