"""The page's language and title on the document, its scroll boxes reachable by keyboard, and
the live region that says what changed (``ui.frame.components.announce``): one element a run.

Streamlit serves every page with ``<html lang="en">`` (streamlit/streamlit#15726) and one page
title for the app; a screen reader reads a French page with English rules unless ``lang`` says
``fr``. A box that scrolls sideways (a wide matrix, a long formula on a phone) and holds nothing
focusable is given ``tabindex="0"`` and a label, so a keyboard can scroll it. The JavaScript
ships in this folder and runs in the app's own document; it draws nothing. The presenter bar's
previous and next links, whose visible label is a page number, are given the page's name.
Streamlit's own names and hints, English on every page ("Help for Phrase", "Press Enter to
apply"), are said in French on a French page (WCAG 3.1.2), and a slider's decimal value (τ's
0.5, a stop labelled as the link spells it) with a decimal comma. A page the server opens (a
student taken to the teacher's next page, or into a class from the home page's box) starts at
its top, as a link of the sidebar does.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.frame.components import flat
from ui.frame.components.announce import JS as SPEAK_JS

# the live region's function travels with this element's script (one element a run, not two)
_JS = (Path(__file__).parent / "page_lang.js").read_text(encoding="utf-8") + "\n" + SPEAK_JS
_mount = st.components.v2.component("attention_lab.page_lang", js=_JS, isolate_styles=False)
APP_NAME = "Attention Lab"
SCROLL_LABEL = {
    "en": "Wide content: scroll it with the arrow keys",
    "fr": "Contenu large : faites-le défiler avec les flèches",
}


def page_title(name: str) -> str:
    """The document title of a page: its name, then the app's. Example: "2. Scores" ->
    "2. Scores · Attention Lab"."""
    return f"{name} · {APP_NAME}"


def page_lang(
    lang: str,
    name: str,
    links: dict[str, str] | None = None,
    said: dict[str, object] | None = None,
    key: str = "page_lang",
) -> None:
    """Set the document's language (``"en"``, ``"fr"``) and title (``page_title(name)``) on
    this run and after every move to another page (each page mounts it with its own);
    ``links``: the spoken name of the presenter bar's links, by the URL path they open;
    ``said``: what the live region holds (``announce``), None where nothing is computed."""
    data = {
        "lang": lang,
        "title": page_title(name),
        "scroll": SCROLL_LABEL[lang],
        "links": flat(links or {}),
        "said": flat(said) if said is not None else "null",
    }
    _mount(key=key, data=data | {"hide": f"st-key-{key}"}, height=0)
