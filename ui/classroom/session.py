"""The class on a page: who this browser is in it (teacher, student, or neither), and what the
frame draws for each. The frame calls ``arrive`` before its controls and ``in_class`` after.

A class exists for a browser when its link says ``class=<code>`` (a student) or when it holds a
class's teacher key (the teacher). Until the browser has reported what it keeps, nothing of the
class is drawn, so that a teacher's reload is never taken for a student's visit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from classroom import ClassError, codes
from exercises import BY_ID
from ui.classroom import browser, follow, questions, teacher
from ui.classroom.follow import arrive
from ui.classroom.live import POLL_SECONDS, attempt, followers, room, words
from ui.frame.url_values import Value
from ui.text import translator
from ui.text.classroom import TEXT

__all__ = ["arrive", "class_link_params", "in_class", "report_check"]
_DECLARED = "_class_declared"  # the page's own values and their labels, for the teacher's poll
SHARED = ("text", "d_model", "n_heads", "seed", "causal", "embeddings", "head")


def link_code() -> str | None:
    """The class code of this page's link, normalised; a bad one is reported once and dropped."""
    raw = st.query_params.get("class")
    if raw is None:
        return None
    try:
        code = codes.normalise(raw)
    except ClassError as err:
        st.session_state["_class_bad_link"] = err
        del st.query_params["class"]
        return None
    if code != raw:
        st.query_params["class"] = code
    return code


def class_link_params() -> dict[str, str]:
    """What the class adds to the presenter's link and QR code: ``class=<code>`` while this
    browser teaches a class; never the key."""
    teaching = browser.teaching() if st.session_state.get("_class_copy") is not None else None
    return {"class": teaching[0]} if teaching else {}


def in_class(
    lang: str,
    slug: str,
    current: str,
    path_of: Callable[[str], str],
    values: tuple[Value, ...],
    labels: Mapping[str, str],
    bar: DeltaGenerator | None,
) -> None:
    """Draw what the class needs on this page: a teacher's controls and panel, a student's
    banner and poll, or nothing (``labels``: the page's own values as a link spells them)."""
    ss = st.session_state
    code = link_code()
    if (bad := ss.pop("_class_bad_link", None)) is not None:
        st.warning(
            translator(TEXT, lang)("bad_code", why=words(bad, lang)), icon=":material/link_off:"
        )
    if code is None and bar is None and "_class_copy" not in ss:
        if slug:  # no class in sight (the browser is not even asked): the questions alone
            questions.alone(lang, slug, _screen(slug, values, labels))
        return
    if browser.browser_copy() is None:
        return  # the browser reports on this run's answer, which reruns the page
    ss[_DECLARED] = (slug, values, dict(labels))
    teaching = _live(browser.teaching())
    if teaching is not None:
        _teach(lang, teaching, bar, current)
    elif bar is not None:
        teacher.controls(bar, lang, None, slug, _screen(slug, values, labels))
    if code is not None and (teaching is None or teaching[0] != code):
        ss["_class_student"] = browser.student_id()
        follow.banner(code, lang, path_of, current)
    if (message := ss.pop("_class_message", None)) is not None:
        st.warning(message, icon=":material/group_off:")


def _live(teaching: tuple[str, str] | None) -> tuple[str, str] | None:
    """The class this browser teaches, if it still runs (an ended one is forgotten)."""
    if teaching is None:
        return None
    _, err = attempt(lambda: followers().state(teaching[0]))
    if err is not None and err.code in ("ended", "unknown_class"):
        browser.keep_teaching(None)
        return None
    return teaching


def _teach(lang: str, teaching: tuple[str, str], bar: DeltaGenerator | None, current: str) -> None:
    """The teacher's page (``current``): the link keeps the code, the screen is published, and
    in presenter mode the bar's controls and the Class panel."""
    code, key = teaching
    if st.query_params.get("class") != code:
        st.query_params["class"] = code
    slug, values, labels = st.session_state[_DECLARED]
    if teacher.publish(code, key, slug, _screen(slug, values, labels)) == "unavailable":
        st.warning(translator(TEXT, lang)("unavailable"), icon=":material/cloud_off:")
    if bar is not None:
        st.html(teacher.CODE_CSS)
        screen = lambda: _screen(slug, values, labels)  # noqa: E731 (as it is when asked)
        ask = lambda: questions.ask_menu(lang, code, key, slug, screen)  # noqa: E731
        teacher.controls(bar, lang, teaching, slug, {}, ask)
        questions.projector(lang, code, key, lambda highlight: _focus(current, highlight))
    _publish_poll(code, key)


@st.fragment(run_every=POLL_SECONDS / 2)
def _publish_poll(code: str, key: str) -> None:
    """A section's own control (a fragment: the temperature, a token) changes no frame run:
    the teacher's screen is read again twice a second and sent when it changed."""
    slug, values, labels = st.session_state[_DECLARED]
    teacher.publish(code, key, slug, _screen(slug, values, labels))


def _focus(current: str, highlight: Mapping[str, int]) -> None:
    """After a reveal, the teacher's page shows what makes the answer right: the asked token
    followed (its row outlined), the answering head shown; the students follow it."""
    slug, values, labels = st.session_state[_DECLARED]
    screen = _screen(slug, values, labels) | {k: str(v) for k, v in highlight.items()}
    st.session_state[follow.PENDING] = (current, screen)
    st.rerun(scope="app")


def _screen(slug: str, values: tuple[Value, ...], labels: Mapping[str, str]) -> dict[str, str]:
    """The teacher's screen as a link spells it: every shared setting, and the page's values
    (the session's current value where its control has run, else the frame's)."""
    ss = st.session_state
    out = {key: _spelled(ss[key]) for key in SHARED if ss.get(key) is not None}
    for value in values:
        out[value.name] = value.label(ss[value.name]) if value.name in ss else labels[value.name]
    return out


def _spelled(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def report_check(cell_id: str, passed: bool, verdict_code: str) -> None:
    """A student's Check, told to the class: the cell, pass or fail, and the recognised
    mistake's id; nothing of the code."""
    ss = st.session_state
    code, me = ss.get("_class_joined"), ss.get("_class_student")
    if code is None or me is None or ss.get(follow.OVER) == code:
        return
    names = {m.code for m in BY_ID[cell_id].mistakes} if cell_id in BY_ID else set()
    mistake = verdict_code if not passed and verdict_code in names else None
    attempt(lambda: room().report(code, me, cell_id, passed, mistake))
