"""What every page's own control takes: bound to the URL, and kept for the session; and the
link for a control whose shown labels are translated.

``st.slider(label, ..., key="layers", **BOUND)``: the value is read from and written to the
query parameter named by ``key`` (so a link shares it), and it survives a visit to another page.
The frame declares and repairs the value (``ui.frame.url_values``) before the control reads it.
"""

from __future__ import annotations

from typing import Final

import streamlit as st

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
