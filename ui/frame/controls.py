"""What every page's own control takes: bound to the URL, and kept for the session; the link
for a control whose shown labels are translated; and a slider's value in French words.

``st.slider(label, ..., key="layers", **BOUND)``: the value is read from and written to the
query parameter named by ``key`` (so a link shares it), and it survives a visit to another page.
The frame declares and repairs the value (``ui.frame.url_values``) before the control reads it.
"""

from __future__ import annotations

from typing import Final

import streamlit as st

from ui.frame.url_values import Value

BOUND: Final = {"bind": "query-params", "persist_state": "session"}


def keep_in_link(name: str, value: str, default: str) -> None:
    """Write ``value`` to the link's ``name`` as its own id, the default left out as a bound
    value's is. For a choice whose labels are translated: a bound radio would write the label
    it shows ("faits à la main") into the link, so such a control is kept with
    ``persist_state="session"`` alone and its value reaches the link through here."""
    if st.query_params.get(name, default) == value:
        return
    if value == default:
        del st.query_params[name]
    else:
        st.query_params[name] = value


def start_on(value: Value, current: object) -> None:
    """A control kept in the link by ``in_link`` starts on the frame's repaired value (the
    link's, on a visit's first run); afterwards the session holds it."""
    st.session_state.setdefault(value.name, current)


def in_link(value: Value, shown: object) -> None:
    """Write a page control's value to the link in its URL spelling, the default left out.

    For a control in a section that reruns alone (``st.fragment``): Streamlit 1.67's browser
    side can drop a bound widget's URL binding when the section is drawn again (the element
    of the run before, removed after the new one registered, unregisters the shared id), and
    the address bar then stops following it. A value the server writes reaches the address
    bar on every run, a section's own included, so such controls are kept with
    ``persist_state="session"`` alone and written here.
    """
    keep_in_link(value.name, value.label(shown), value.label(value.default))


def value_in_words(key: str, lang: str) -> None:
    """On a French page (``lang``), hide the value and the ends that the slider ``key`` writes
    itself, where a caption beside or under the slider writes them with a decimal comma instead:
    the stops are labelled as the link spells them (0.5, 0.001) in every language, since the
    browser sends a stop back by its label and a label that changed with the language would not
    be found again. Draws nothing on an English page. Call it outside the slider's section that
    reruns alone: drawn once a page run, not once a change."""
    if lang != "fr":
        return
    st.html(
        f"""<style>
.st-key-{key} [data-testid="stSliderThumbValue"] {{ visibility: hidden; }}
.st-key-{key} [data-testid="stSliderTickBar"] {{ display: none; }}
</style>"""
    )
