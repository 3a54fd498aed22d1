"""The sidebar's page list as one element: a link a page under its chapter's name, the page shown
marked (``aria-current``), and the count of solved cells under the list.

Streamlit's page links are an element each, sent again on every run with the chapters' names
between them: sixteen elements, about 1.5 ms of the server's time a run on any page. Here the
list is one element, drawn by ``page_list.js`` in the app's own document and redrawn only when
its words change. A click opens the page in the same session, as a Streamlit link does, with
the settings every page shares (``keep``); a link opened in a new tab carries them too.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.frame.components import flat

_JS = (Path(__file__).parent / "page_list.js").read_text(encoding="utf-8")
_mount = st.components.v2.component("attention_lab.page_list", js=_JS, isolate_styles=False)


def page_list(
    pages: list[dict[str, str]], current: str, note: str, label: str, keep: tuple[str, ...]
) -> None:
    """Draw the page list: ``pages`` in order, each ``{"path", "label", "group"}`` (path ""
    for the home page, ``group`` the chapter's name where a chapter starts, else ""),
    ``current`` the path of the page shown, ``note`` the line under the list, ``label`` the
    list's spoken name, ``keep`` the link's values that every page shares."""
    data = {"pages": flat(pages), "current": current, "note": note, "label": label}
    _mount(key="page_list", data=data | {"keep": flat(list(keep))}, height="content")
