"""The "Your turn" panel: the chapter's exercise cell, an editor, Check, a hint and the solution.

It only draws: ``exercises.check`` runs the learner's code in the ``sandbox`` and judges it, and
``ui.turn.progress`` keeps the work (the session's, and this browser's copy) so that the navigation
can mark the solved cells and a reload brings the code and the ✓ back.
"""

from __future__ import annotations

import functools
import math
import re
import secrets
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

import exercises as ex
import sandbox
from llm import LN_EPS
from ui.classroom import report_check
from ui.draw.sections import folded
from ui.text import md_escape, pick, translator
from ui.text.exercise import TEXT
from ui.text.exercises import CELLS
from ui.turn.progress import bring_back, flush, note_code, note_pass, restored, solved

VERDICTS = "_turn_verdicts"  # session key: cell id -> (the last Verdict, the code it judged)
OWNER = "_turn_owner"  # session key: who asks, so that the checker's queue is fair to sessions
_CODE_PARAMS = ("name", "function")  # shown in a code span
_LIST_METHOD = re.compile(r"attribute `\.(extend|insert|pop|copy|sort|reverse|index|count|remove)`")
# The editor's height (px) holds its starter code, every line of it, on the screens a class
# uses: the box cut the template's last lines (its ``return``) with no sign that it scrolls.
# On a computer's screen a line is 0.9rem × 1.4 = 20.16 px and the narrowest column, 1280 × 720
# at 150 % with the sidebar open, has 519 px for the box: 495 px of text, 57 characters of
# Source Code Pro (0.6 em each) before a line wraps. Presenter mode's 20 px rem makes each line
# 25.2 px in a column twice as wide: the lines do not wrap. The box takes the larger height.
LINE_PX = 20.16
WRAP_CHARS = 57
PRESENT_GROWTH = 1.25  # presenter mode's rem (20 px) over the screen's 16 px
CHROME_PX = 28 + 2 + 24  # the label above the box, its border and its padding
EDITOR_PX = (160, 720)  # the box's least and largest height: a few lines, one screen


def your_turn(
    lang: str,
    lab: ex.Run,
    cell_id: str,
    head: int,
    causal: bool,
    eps: float | Callable[[], float] = LN_EPS,
    layers: int | Callable[[], int] = 1,
) -> None:
    """Draw the exercise cell of one page, checked against ``lab`` (the page's current settings).

    ``head``, ``causal``, ``eps`` and ``layers`` are what the page shows of the lab: the head
    drawn, the mask, LayerNorm's eps and, on the depth page, the number of layers. A value set
    by a control of the page's that reruns its own section alone (eps, layers) is passed as a
    function that reads it: Check reads it when pressed. The panel reruns alone too (editing,
    Check, Start again), except after a Check that newly solves the cell: the whole page reruns
    then, so that the navigation's ✓ appears.
    """
    _follow_language(f"code_{cell_id}", cell_id, lang)
    _cell(lang, cell_id, _Case(lab, head, causal, eps, layers))


@dataclass(frozen=True)
class _Case:
    """What Check compares on the page: the lab and what the page shows of it; ``eps`` and
    ``layers`` read when Check runs if they are functions."""

    run: ex.Run
    head: int
    causal: bool
    eps: float | Callable[[], float]
    layers: int | Callable[[], int]

    def current(self) -> ex.Current:
        """The page's current setting as the checker takes it, read now."""
        eps = self.eps() if callable(self.eps) else self.eps
        layers = self.layers() if callable(self.layers) else self.layers
        return ex.Current(run=self.run, head=self.head, causal=self.causal, eps=eps, layers=layers)


@st.fragment
def _cell(lang: str, cell_id: str, case: _Case) -> None:
    """The cell, a section that reruns alone: its text, the editor, Check and Start again, the
    verdict, the hint and the solution; and the browser's copy of what changed (``flush``)."""
    cell = ex.BY_ID[cell_id]
    t = translator(TEXT, lang)
    texts = CELLS[cell_id][lang]
    st.divider()
    st.header(texts["title"], anchor=False)
    st.markdown(texts["instructions"])
    if cell.helpers:
        st.caption(t("helpers", names=", ".join(f"`{name}`" for name in cell.helpers)))
    bring_back(cell_id)
    st.text_area(
        t("editor"),
        value=texts["template"],
        key=f"code_{cell_id}",
        height=editor_height(texts["template"]),
        max_chars=sandbox.MAX_SOURCE,
        help=t("editor_help"),
        persist_state="session",
        on_change=_edited,
        args=(cell_id,),
    )
    _buttons(t, lang, cell_id, case)
    _verdict(t, lang, cell_id)
    with st.expander(t("hint"), icon=":material/lightbulb:"):
        st.markdown(texts["hint"])
    # built only once asked for: the page does not send the solution on every rerun
    solution = folded(t("solution"), key=f"solution_{cell_id}", icon=":material/visibility:")
    if solution is not None:
        with solution:
            st.caption(t("solution_caption", module=cell.solution[-1].__module__))
            st.code(cell.solution_source(), language="python")
    st.caption(t("language", calls=_calls()))
    flush()


def _buttons(t: Callable[..., str], lang: str, cell_id: str, case: _Case) -> None:
    """Check and Start again, on one line."""
    buttons = st.container(horizontal=True, vertical_alignment="center")
    buttons.button(
        t("check"),
        key=f"check_{cell_id}",
        type="primary",
        icon=":material/play_arrow:",
        on_click=_check,
        args=(cell_id, case),
    )
    buttons.button(
        t("reset"), key=f"reset_{cell_id}", on_click=_reset, args=(cell_id, lang), type="tertiary"
    )


def _verdict(t: Callable[..., str], lang: str, cell_id: str) -> None:
    """The last verdict on this cell, or a word on a pass kept from before."""
    verdict, judged = st.session_state.get(VERDICTS, {}).get(cell_id, (None, ""))
    with st.container(key=f"verdict_{cell_id}"):
        if verdict is not None:
            show_verdict(verdict, lang, judged)
        elif cell_id in restored():
            st.caption(t("passed_kept"), help=t("passed_kept_help"))
        elif cell_id in solved():
            st.caption(t("passed_before"))


def wrapped_lines(code: str, width: int = WRAP_CHARS) -> int:
    """How many lines ``code`` takes in a box ``width`` characters wide that wraps long lines
    at spaces (CSS ``pre-wrap``), a word longer than the box broken anywhere."""
    return sum(
        len(textwrap.wrap(line, width, replace_whitespace=False, break_on_hyphens=False)) or 1
        for line in code.split("\n")
    )


@functools.lru_cache(maxsize=64)  # a cell's template, once a process: it wraps every line
def editor_height(code: str) -> int:
    """The editor's height (px) that shows all of ``code``: its lines wrapped in the narrowest
    computer screen's column, or its lines at presenter mode's size, whichever is taller;
    within EDITOR_PX (a longer code scrolls in the box)."""
    screen = CHROME_PX + LINE_PX * wrapped_lines(code)
    present = PRESENT_GROWTH * (CHROME_PX + LINE_PX * len(code.split("\n")))
    least, most = EDITOR_PX
    return min(most, max(least, math.ceil(max(screen, present)) + 4))


def _calls() -> str:
    return ", ".join(f"`{name}`" for name in sandbox.ALLOWED_CALLS)


def _follow_language(key: str, cell_id: str, lang: str) -> None:
    """An untouched template switches language with the page; the learner's own code stays."""
    code = st.session_state.get(key)
    templates = {other: CELLS[cell_id][other]["template"] for other in CELLS[cell_id]}
    if code is not None and code != templates[lang] and code in templates.values():
        st.session_state[key] = templates[lang]


def _edited(cell_id: str) -> None:
    note_code(cell_id, st.session_state.get(f"code_{cell_id}", ""))


def _reset(cell_id: str, lang: str) -> None:
    template = CELLS[cell_id][lang]["template"]
    st.session_state[f"code_{cell_id}"] = template
    st.session_state.setdefault(VERDICTS, {}).pop(cell_id, None)
    note_code(cell_id, template, start_again=True)


def _check(cell_id: str, case: _Case) -> None:
    """Run the learner's code on every case and keep the verdict (a button callback). A pass
    that newly solves the cell reruns the whole page (the navigation's ✓); any other verdict
    reruns the panel alone."""
    code = st.session_state.get(f"code_{cell_id}", "")
    owner = st.session_state.setdefault(OWNER, secrets.token_hex(8))
    verdict = ex.check(cell_id, code, case.current(), owner=owner)
    st.session_state.setdefault(VERDICTS, {})[cell_id] = (verdict, code)
    report_check(cell_id, verdict.passed, verdict.code)  # to a class: never the code
    if not verdict.passed:
        note_code(cell_id, code)
        return
    newly = cell_id not in solved()  # a ✓ brought back by the browser is shown already
    note_pass(cell_id, code)
    if newly:
        st.rerun(scope="app")


def verdict_text(verdict: ex.Verdict, lang: str) -> tuple[str, str]:
    """(where, what): the case that failed and the message, as safe markdown."""
    t = translator(TEXT, lang)
    if verdict.passed:
        return "", t("passed", cases=verdict.cases, hidden=verdict.params["hidden"])
    where = ""
    if verdict.case:
        name = "case_hidden" if verdict.hidden else "case_current"
        where = t(name, case=verdict.case, cases=verdict.cases, shapes=md_escape(verdict.shapes))
    params = _safe(verdict.params)
    if verdict.code == "error":
        name = "err_" + str(verdict.params.get("error", ""))
        params["calls"] = _calls()
        if f"what_{params.get('what')}" in TEXT["en"]:
            params["what"] = t(f"what_{params['what']}")
    elif f"bad_{verdict.code}" not in TEXT["en"]:
        name = "mistake_" + verdict.code
    elif verdict.code in ("nan", "value") and verdict.params.get("col") == -1:
        name = f"bad_{verdict.code}_item"
    else:
        name = "bad_" + verdict.code
    try:
        what = pick(TEXT, lang, name, **params)
    except (KeyError, IndexError, ValueError):
        return where, pick(TEXT, lang, "err_unknown", error=md_escape(name))
    construct = str(verdict.params.get("construct", ""))
    if name == "err_not_allowed" and _LIST_METHOD.fullmatch(construct):
        what += " " + t("hint_append")
    elif name == "err_not_allowed" and ("`import" in construct or "`from" in construct):
        what += " " + t("hint_import")
    return where, what


def show_verdict(verdict: ex.Verdict, lang: str, code: str = "") -> None:
    """The verdict; for an error on a line of the learner's code, that line, highlighted."""
    where, what = verdict_text(verdict, lang)
    if verdict.passed:
        st.success(what, icon=":material/check_circle:")
        return
    st.error(f"{where}\n\n{what}" if where else what, icon=":material/error:")
    line = verdict.params.get("line") if verdict.code == "error" else None
    lines = sandbox.source_lines(code)
    if isinstance(line, int) and 1 <= line <= len(lines) and lines[line - 1].strip():
        st.code(lines[line - 1].strip(), language="python")


def _safe(params: dict[str, Any]) -> dict[str, Any]:
    """Values a learner may have typed, made literal: code spans lose backticks, prose escaped."""
    safe: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, str) and name == "construct":
            # prose with `code` parts: the prose is escaped, each code part stays one code span
            parts = " ".join(value.split())[:120].split("`")
            safe[name] = "".join(
                f"`{part}`" if i % 2 else md_escape(part) for i, part in enumerate(parts)
            )
        elif isinstance(value, str) and name in _CODE_PARAMS:
            safe[name] = " ".join(value.replace("`", "'").split())[:80]
        elif isinstance(value, str):
            safe[name] = md_escape(value[:200])
        else:
            safe[name] = value
    return safe
