"""Streamlit's widgets asking the session state about their own key alone.

Streamlit 1.67's selectbox, number input, radio, slider, text input and text area each build the
whole session state as a dict (``SessionState.filtered_state``: every key, every widget's value
deserialized) only to ask whether their own key holds None. On this lab's pages, with about 30
keys, that is 6–7 dicts a run and 0.7–1.5 ms of a 12–20 ms rerun (``docs/performance.md``).
``lookup_own_key`` gives those widget modules a session state whose ``filtered_state`` looks the
one key up, under the same lock, with the same answer: a user key is in it when reading it from
the session state does not fail (``SessionState.__contains__``), and its value is what reading
it returns. Everything else the modules ask goes to Streamlit's own session state. Another
Streamlit version is left as it is: its widgets may ask something else.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import streamlit
from streamlit.elements.widgets import number_input, radio, selectbox, slider, text_widgets
from streamlit.runtime.state import get_session_state

VERSION = "1.67.0"  # the version whose widgets read filtered_state only as ``key in s and s[key]``
WIDGETS = (number_input, radio, selectbox, slider, text_widgets)


class OwnKey:
    """What a widget reads of ``filtered_state``: ``key in view`` and ``view[key]``, one key at
    a time. ``state``: Streamlit's ``SafeSessionState``, whose lock guards its session state."""

    __slots__ = ("_state",)

    def __init__(self, state: Any) -> None:
        self._state = state

    def __contains__(self, key: object) -> bool:
        with self._state._lock:
            return isinstance(key, str) and key in self._state._state

    def __getitem__(self, key: str) -> Any:
        with self._state._lock:
            return self._state._state[key]


class WidgetSessionState:
    """Streamlit's session state with ``filtered_state`` as ``OwnKey``; the rest is its own."""

    __slots__ = ("_state",)

    def __init__(self, state: Any) -> None:
        self._state = state

    @property
    def filtered_state(self) -> OwnKey:
        return OwnKey(self._state)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)


def widget_session_state() -> WidgetSessionState:
    """The running session's state, as the widget modules are given it."""
    return WidgetSessionState(get_session_state())


@cache
def lookup_own_key() -> bool:
    """Give the widget modules ``widget_session_state``, once a process, on Streamlit
    ``VERSION`` only; returns whether it did."""
    if streamlit.__version__ != VERSION:
        return False
    for module in WIDGETS:
        module.get_session_state = widget_session_state
    return True
