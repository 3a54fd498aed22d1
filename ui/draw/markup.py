"""Markup that ``st.html`` sends as it is: the page's style, its tables, its figures of markup."""

from __future__ import annotations

import streamlit as st


class Markup(str):
    """HTML (or a style) that ``st.html`` takes as it is, through ``_repr_html_``: a plain string
    it would dedent line by line on every run (about 50 µs for 4 kB)."""

    def _repr_html_(self) -> str:
        return str(self)


def show_markup(markup: str, *, held: bool = False) -> None:
    """Send markup (a table of ``ui.draw.tables``, a box of ``ui.draw.heatmap_table``) as it
    is. ``held``: its column keeps its width, as a chart's does, so that columns too narrow
    for it stack instead of letting it overflow (``lab-held``, HEATMAP_CSS)."""
    st.html(Markup(f'<div class="lab-held">{markup}</div>' if held else markup))
