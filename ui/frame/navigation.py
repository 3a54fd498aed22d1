"""The pages in the chapters' order, and the sidebar's navigation: links grouped by chapter.

The navigation marks each page whose "Your turn" cell is solved with a ✓ and counts them; in
presenter mode the bar links the previous and the next page instead.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitPageNotFoundError
from streamlit.navigation.page import StreamlitPage
from streamlit.runtime.scriptrunner import get_script_run_ctx

from exercises import BY_PAGE, CELLS
from ui.frame.components.page_list import page_list
from ui.frame.url_check import SHARED_KEYS
from ui.text import pick
from ui.text.exercise import TEXT as TURN_TEXT

# (file, text key, group); the URL of pages/N_slug.py is /slug
PAGES: list[tuple[str, str, str | None]] = [
    ("app.py", "home", None),
    ("pages/1_qkv.py", "page_qkv", "chapter8"),
    ("pages/2_scores.py", "page_scores", "chapter8"),
    ("pages/3_softmax.py", "page_softmax", "chapter8"),
    ("pages/4_mix.py", "page_mix", "chapter8"),
    ("pages/5_heads.py", "page_heads", "chapter9"),
    ("pages/6_concat.py", "page_concat", "chapter9"),
    ("pages/7_layernorm.py", "page_layernorm", "chapter9"),
    ("pages/8_depth.py", "page_depth", "chapter9"),
    ("pages/9_code.py", "page_code", "chapter9"),
    ("pages/10_learned.py", "page_learned", "beyond"),
]


def page_file(page: str) -> str:
    """The file of the page whose text key is ``page`` (``"page_mix"`` -> pages/4_mix.py)."""
    return next(path for path, key, _ in PAGES if key == page)


def slug(path: str) -> str:
    """The URL path of a page file: pages/4_mix.py -> mix, app.py -> "" (the home page)."""
    return path.removesuffix(".py").partition("_")[2]


def around(current: str, step: int) -> tuple[str, str] | None:
    """(file, title key) of the page ``step`` away from ``current`` (-1: previous, +1: next) in
    the page list, or None past either end."""
    j = [path for path, _, _ in PAGES].index(current) + step
    return PAGES[j][:2] if 0 <= j < len(PAGES) else None


def linked(path: str) -> StreamlitPage | None:
    """The page of ``path`` as ``st.page_link`` takes it, made once a process; None where the
    app has no such page (a page script run on its own, as AppTest opens one). Given a file
    path, ``st.page_link`` looks the file up on the disk on every call (``os.path.realpath``,
    about 15 µs a link: the presenter bar's two, the home page's)."""
    ctx = get_script_run_ctx()
    return _page(ctx.pages_manager.main_script_parent if ctx else Path.cwd(), path)


@cache
def _page(root: Path, path: str) -> StreamlitPage | None:
    try:  # the home page is the app's default page: its URL path is "" (/), not /app
        return st.Page(root / path, default=path == PAGES[0][0])
    except StreamlitPageNotFoundError:
        return None


def neighbour(bar: DeltaGenerator, t: Callable[..., str], current: str, step: int) -> None:
    """The page ``step`` away from this one (-1: previous, +1: next) as a link in the bar; past
    either end an empty slot in its place, so that the bar's controls stand in the same place
    on every page (a widget drawn elsewhere than on the page before loses its link binding)."""
    if (page := around(current, step)) is None:
        bar.empty()
    else:
        path, key = page
        number = t(key).partition(". ")[0]  # "3" of "3. Scale, mask, softmax"; "Home"
        icon = ":material/arrow_back:" if step < 0 else ":material/arrow_forward:"
        if (target := linked(path)) is not None:
            bar.page_link(target, label=number, icon=icon, help=t(key))
        else:  # a page run on its own has no page list
            bar.caption(t(key))


def neighbour_names(t: Callable[..., str], current: str) -> dict[str, str]:
    """The spoken names of the bar's previous and next links, by the URL path they open: their
    visible label is the page's number alone. Example, on /softmax: {"scores": "Previous page:
    2. Scores", "mix": "Next page: 4. Mix the values"}."""
    names = {}
    for step, key in ((-1, "previous_page"), (+1, "next_page")):
        if (page := around(current, step)) is not None:
            names[slug(page[0])] = t(key, page=t(page[1]))
    return names


def navigation(
    box: DeltaGenerator, t: Callable[..., str], lang: str, current: str, done: set[str]
) -> None:
    """Every page as a link, under its chapter's name, ``current`` (a page file) marked; ``done``:
    the ids of the solved cells, whose pages get a ✓, and their count under the list. One
    element (``ui.frame.components.page_list``)."""
    pages, group = [], None
    for path, key, page_group in PAGES:
        cell = BY_PAGE.get(slug(path))
        label = t(key) + (" ✓" if cell is not None and cell.id in done else "")
        starts = page_group != group and page_group is not None
        pages.append({"path": slug(path), "label": label, "group": t(page_group) if starts else ""})
        group = page_group
    note = pick(TURN_TEXT, lang, "progress", done=len(done), total=len(CELLS))
    with box:
        # a link carries to the next page the settings every page shares
        page_list(pages, slug(current), note, t("pages"), SHARED_KEYS)
