"""A box brought into view once a moment: a question the teacher opens, or reveals, on a
student's page, which stands at its top while the student may be reading further down.

``in_view(target, moment, say)``: when ``moment`` differs from the last one this browser saw for
``target``, the page's column scrolls to the box drawn with ``key=target``, and the page's polite
live region (``ui.frame.components.announce``) says ``say``, for a student who does not see the
box move. A student typing in a code editor is left where they type, and still hears it. Its
JavaScript ships in this folder and runs in the app's own document; it draws nothing.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_JS = (Path(__file__).parent / "in_view.js").read_text(encoding="utf-8")
_mount = st.components.v2.component("attention_lab.in_view", js=_JS, isolate_styles=False)


def in_view(target: str, moment: str, say: str = "") -> None:
    """Scroll to the box of key ``target`` and say ``say`` (plain text) when ``moment`` is new to
    this browser."""
    data = {"target": target, "moment": moment, "say": say}
    _mount(key=f"in_view_{target}", data=data, height=0)
