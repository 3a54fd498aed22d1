"""Followers woken by their server: one thread a process watches the followed classes and starts
a run of the page of every session that follows a class whose state changed.

A browser that polls costs a script run each time, whatever it finds: 100 students polling every
second keep half a core busy doing nothing. Here the poll fragment (``ui.classroom.follow``) says
which class its session follows and what its run shows (``follow``); a thread of the process
reads each followed class through the process's caches every ``WATCH_SECONDS`` (one store read a
class and interval, however many follow it) and, for each follower that shows something else
than its class now does (the teacher's screen, the question, the store answering or not), asks
Streamlit for a run of its page, as a browser would: the frame's ``arrive`` reads the change
from the same caches and the page draws it in that one run. The browser's timer on the poll
stays, slower, in case a wake is lost.

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
from dataclasses import dataclass

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

Shown = tuple[Hashable, Hashable]  # (the teacher's screen, the rest a student sees of the class)
WATCH_SECONDS = 0.25  # the thread's look at the followed classes (the caches: the store's)
log = logging.getLogger(__name__)


@dataclass
class Follower:
    """A session in a class: whether it follows the teacher's screen, and what it shows (what
    its last run read, or what it was last woken for)."""

    screen: bool
    shown: Shown


_lock = threading.Lock()
_sessions: dict[str, dict[str, Follower]] = {}  # code -> {a session's id: its Follower}
_watching: list[threading.Thread] = []


def follow(code: str, shown: Callable[[str], Shown], screen: bool = True) -> None:
    """Called from the poll fragment: this session is in class ``code``; ``shown(code)`` says
    what a student of it shows, (the teacher's screen, the rest: a question, the class's end, the
    store's state), equal values meaning nothing to wake it for, read here before the run shows
    it. ``screen``: whether it follows the teacher's screen (a student exploring on their own is
    not woken for it)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    register(code, ctx.session_id, Follower(screen, shown(code)))
    with _lock:
        if not _watching:
            thread = threading.Thread(target=_watch, args=(shown,), name="class-watch", daemon=True)
            _watching.append(thread)
            thread.start()


def register(code: str, session_id: str, follower: Follower) -> None:
    """Session ``session_id`` is in class ``code`` and shows ``follower.shown``."""
    with _lock:
        _sessions.setdefault(code, {})[session_id] = follower


def leave(code: str) -> None:
    """This session follows ``code`` no longer (it ended, or the student left it)."""
    ctx = get_script_run_ctx()
    with _lock:
        if ctx is not None and code in _sessions:
            _sessions[code].pop(ctx.session_id, None)


def stale(follower: Follower, now: Shown) -> bool:
    """Whether a follower must run again for its class now showing ``now``: when the rest
    changed (a question, the class's end), and when the screen did for one that follows it."""
    before = follower.shown
    return before[1] != now[1] or (follower.screen and before[0] != now[0])


def look(shown: Callable[[str], Shown]) -> dict[str, set[str]]:
    """One look at the followed classes: the sessions to wake, by class, each then taken to show
    what its class now shows (a wake that is lost leaves it to the browser's own poll)."""
    with _lock:
        followed = {code: dict(s) for code, s in _sessions.items() if s}
    out: dict[str, set[str]] = {}
    for code, followers in followed.items():
        try:
            now = shown(code)
        except Exception:  # noqa: BLE001 (the poll itself reports the store's failures)
            log.exception("class watch: %s", code)  # the thread goes on watching
            continue
        wake = {session for session, f in followers.items() if stale(f, now)}
        with _lock:
            for session in wake:
                if (follower := _sessions.get(code, {}).get(session)) is not None:
                    follower.shown = now
        if wake:
            out[code] = wake
    return out


def _watch(shown: Callable[[str], Shown]) -> None:
    """The thread: forever, every WATCH_SECONDS, wake the students of each changed class."""
    while True:
        time.sleep(WATCH_SECONDS)
        for code, sessions in look(shown).items():
            try:
                _wake(code, sessions)
            except Exception:  # noqa: BLE001 (a session that cannot run now: the thread goes on)
                log.exception("class wake: %s", code)


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
