"""The teacher's side of a class, in presenter mode: start and end it, show its code, publish the
screen the students follow, and the folded Class panel with the class's progress.

The teacher is the browser that holds the class's key (``ui.classroom.browser``); the key goes to
the store with each change of state and nowhere else: not in a URL, a QR code or the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from classroom import Progress
from exercises import BY_ID
from ui.classroom import browser
from ui.classroom.live import attempt, room, say, words
from ui.text import pick, translator
from ui.text.classroom import MISTAKES, TEXT
from ui.text.common import TEXT as COMMON

_PUBLISHED = "_class_published"  # (code, page, values) last sent to the store
PANEL_SECONDS = 3.0  # the Class panel's counts refresh this often while it is open
CODE_CSS = """<style>
.st-key-class_box, .st-key-class_code { width: auto !important; flex: 0 0 auto !important; }
/* the code, its help and the panel at their own width, never squeezed by a full bar (French's
   longer labels at 1280 px put the code's help over the panel's button); on a narrower screen
   (a 1024 × 768 projector) they go to the bar's next line together */
[data-testid="stLayoutWrapper"]:has(> .st-key-class_box) {
  flex: 0 0 auto !important; width: auto !important; min-width: max-content; }
.st-key-class_box { flex-wrap: nowrap !important; }
.st-key-class_code p { margin: 0; white-space: nowrap; }
/* the code in a monospaced type, in the bar and under the QR code: as wide whatever its letters */
:is(.st-key-class_code strong, .st-key-class_qr_code p) {
  font-family: "Source Code Pro", monospace; }
.st-key-class_code strong { font-size: 1.8rem; letter-spacing: 0.02em; }
.st-key-class_qr_code p { font-size: 3rem; font-weight: 700; letter-spacing: 0.1em; margin: 0; }
</style>"""


def start(lang: str, page: str, values: Mapping[str, str]) -> None:
    """Start a class (a button's callback): the browser keeps the key, the URL the code."""
    started, err = attempt(lambda: room().start_class(page=page, values=dict(values)))
    if err is not None:
        st.session_state["_class_message"] = words(err, lang)
        return
    code, key = started
    browser.keep_teaching(code, key)
    st.session_state[_PUBLISHED] = (code, page, dict(values))
    st.query_params["class"] = code


def end(lang: str, code: str, key: str) -> None:
    """End the class (a button's callback): its rows are deleted, the browser forgets the key."""
    _, err = attempt(lambda: room().end_class(code, key))
    if err is not None and err.code not in ("ended", "unknown_class"):
        st.session_state["_class_message"] = words(err, lang)
        return
    browser.keep_teaching(None)
    st.session_state.pop(_PUBLISHED, None)
    st.query_params.pop("class", None)


def publish(code: str, key: str, page: str, values: Mapping[str, str]) -> str | None:
    """Send the screen to the followers when it changed since the last send; a refusal's code."""
    ss = st.session_state
    shown = (code, page, dict(values))
    if ss.get(_PUBLISHED) == shown:
        return None
    _, err = attempt(lambda: room().set_teacher_state(code, key, page, dict(values)))
    if err is None:
        ss[_PUBLISHED] = shown
        return None
    return err.code


def controls(
    bar: DeltaGenerator,
    lang: str,
    teaching: tuple[str, str] | None,
    page: str,
    values: Mapping[str, str],
    ask: Callable[[], None] = lambda: None,
) -> None:
    """The bar's class controls: Start a class, or the code (large) and the folded Class panel,
    which holds the class's progress, ``ask`` (the page's questions) and End the class: the bar
    stays one line at 1280 px."""
    t = translator(TEXT, lang)
    if teaching is None:
        bar.button(
            t("start"),
            help=t("start_help"),
            icon=":material/groups:",
            on_click=start,
            args=(lang, page, dict(values)),
            key="class_start",
        )
        return
    code, key = teaching
    # the code as large as the bar allows (CODE_CSS), for a student to type it; larger still
    # under the QR code
    bar.container(key="class_code").markdown(f"{t('code_label')} **{code}**", help=t("code_help"))
    panel(bar, lang, code, key, ask)


def panel(
    bar: DeltaGenerator, lang: str, code: str, key: str, ask: Callable[[], None] = lambda: None
) -> None:
    """The folded Class panel, in the bar: who is connected, each cell's passes, tries and
    mistakes, then ``ask`` (the page's questions) and End the class."""
    t = translator(TEXT, lang)
    with bar.popover(t("panel"), icon=":material/groups:", key="class_panel"):
        _progress(lang, code, key)
        ask()
        st.button(
            t("end"),
            help=t("end_help"),
            icon=":material/stop_circle:",
            on_click=end,
            args=(lang, code, key),
            key="class_end",
        )
        st.caption(t("stored"))


@st.fragment(run_every=PANEL_SECONDS)
def _progress(lang: str, code: str, key: str) -> None:
    """The class's counts, read again every few seconds while the page is open."""
    seen, err = attempt(lambda: room().progress(code, key))
    if err is not None:
        say(err, lang)
        return
    st.markdown(progress_lines(seen, lang, _page_name(lang)))


def progress_lines(seen: Progress, lang: str, page_name: Callable[[str], str]) -> str:
    """The panel's text: the connected count, then one line per cell someone has tried."""
    t = translator(TEXT, lang)
    lines = [t("connected_one") if seen.connected == 1 else t("connected", n=seen.connected)]
    rows = [(cell, p) for cell, p in seen.cells.items() if p.tried]
    for cell, p in rows:
        line = "- " + t("cell_row", page=page_name(cell), passed=p.passed, tried=p.tried)
        if p.mistakes:
            names = ", ".join(f"{mistake_name(m, lang)} ({n})" for m, n in p.mistakes)
            line += " · " + t("mistakes", list=names)
        lines.append(line)
    if not rows:
        lines.append(t("no_reports"))
    return lines[0] + "\n\n" + "\n".join(lines[1:])  # the count, then the cells' list


def mistake_name(mistake: str, lang: str) -> str:
    """The checker's short name of a recognised mistake ("no √d_k"), as the panel lists it."""
    return MISTAKES[lang].get(mistake) or MISTAKES["en"].get(mistake, mistake)


def _page_name(lang: str) -> Callable[[str], str]:
    """A cell's page as the navigation names it ("3. Scale, mask, softmax")."""
    return lambda cell: pick(COMMON, lang, f"page_{BY_ID[cell].page}")
