"""The widgets' look-up of their own key (``ui.frame.widget_state``) answers as Streamlit's whole
``filtered_state`` does, on the session state of a page that has run, and is in place."""

from __future__ import annotations

import streamlit
from streamlit.elements.widgets import selectbox, text_widgets

from tests.apptest_pages import open_link
from ui.frame import widget_state
from ui.frame.widget_state import OwnKey, lookup_own_key, widget_session_state


def test_one_key_answers_as_the_whole_filtered_state() -> None:
    # a page whose run made widgets (keyed and not), values started from the link, a section's
    at = open_link("../pages/3_softmax.py", temperature="0.37", seed="7")
    state = at._session_state  # Streamlit's SafeSessionState, as the widgets get it
    at.session_state["nothing_yet"] = None  # a key that holds None: a widget then shows none
    whole = state.filtered_state
    view = OwnKey(state)
    assert {"temperature", "seed", "token", "nothing_yet"} <= set(whole)
    for key, value in whole.items():
        assert key in view, key
        assert (view[key] is None) == (value is None), key
        assert view[key] == value, key
    assert view["temperature"] == 0.37 and view["seed"] == 7
    for absent in ("absent", "", 0, None):
        assert absent not in view and absent not in whole


def test_the_widget_modules_get_the_view_on_this_version() -> None:
    open_link("../pages/1_qkv.py")  # the frame puts it in place on its first run
    assert streamlit.__version__ == widget_state.VERSION, "a new Streamlit: read its widgets again"
    assert lookup_own_key()
    for module in (selectbox, text_widgets, *widget_state.WIDGETS):
        assert module.get_session_state is widget_session_state, module.__name__


def test_another_version_is_left_as_it_is(monkeypatch) -> None:
    monkeypatch.setattr(streamlit, "__version__", "1.99.0")
    saved = {module: module.get_session_state for module in widget_state.WIDGETS}
    for module in widget_state.WIDGETS:
        monkeypatch.setattr(module, "get_session_state", "Streamlit's own")
    assert lookup_own_key.__wrapped__() is False
    assert all(module.get_session_state == "Streamlit's own" for module in saved)
