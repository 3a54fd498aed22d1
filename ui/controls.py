"""What every page's own control takes: bound to the URL, and kept for the session.

``st.slider(label, ..., key="layers", **BOUND)``: the value is read from and written to the
query parameter named by ``key`` (so a link shares it), and it survives a visit to another page.
The frame declares and repairs the value (``ui.url_values``) before the control reads it.
"""

from __future__ import annotations

from typing import Final

BOUND: Final = {"bind": "query-params", "persist_state": "session"}
