"""Sections built only when open: folded expanders, lazy tabs, prose folded on a projector, and the
code beside the numbers."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cache

import streamlit as st
from streamlit.delta_generator import DeltaGenerator


def folded(label: str, key: str, icon: str | None = None) -> DeltaGenerator | None:
    """A closed expander whose content is built only while it is open: None when closed.

    A closed section then costs one element per rerun instead of its tables; opening it reruns
    the page, which fills it. ``key`` names it in the session (unique across pages).
    """
    box = st.expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None


def folded_when_presenting(label: str, present: bool) -> AbstractContextManager:
    """Where a page's explanation is drawn: under ``label``, folded, in presenter mode, so that
    the lesson's first chart starts on a 1280 × 720 projector's first screen; else in the page,
    where it stands. Use it as ``with folded_when_presenting(t("about"), s.present): ...``."""
    return st.expander(label) if present else nullcontext()


def lazy_tabs(labels: Sequence[str], key: str) -> list[DeltaGenerator | None]:
    """Tabs that build only the open tab's content: the others come back as None.
    Choosing a tab reruns the page; ``key`` names the choice in the session."""
    tabs = st.tabs(list(labels), key=key, on_change="rerun")
    return [tab if tab.open else None for tab in tabs]


@cache
def _source(fn: Callable[..., object]) -> str:
    # read once per process: inspect tokenizes the whole file to find a function's end
    return inspect.getsource(fn)


def show_code(*functions: Callable[..., object]) -> None:
    """The real source of the functions that computed what the page shows."""
    # long lines wrap on screen rather than hide past the box's right edge
    st.code("\n\n".join(_source(fn) for fn in functions), language="python", wrap_lines=True)
