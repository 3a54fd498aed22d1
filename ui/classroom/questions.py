"""Predict, then reveal: the page's questions (``classroom.questions.for_page``) asked to the
class from presenter mode, answered on the students' devices, revealed with the distribution and
why; and the same questions for a student alone, who is their own teacher.

The right answer is never stored: whoever draws a question computes it again from the setting it
was asked at, in their own language. A question's text may quote the sentence's tokens: it is
always written as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from classroom import Asked, ClassCache
from classroom.questions import Question, for_page
from ui.classroom.live import attempt, room, say, words
from ui.draw.sections import folded
from ui.frame.components.in_view import in_view
from ui.text import md_escape, translator
from ui.text.questions import TEXT

TAP_CSS = """<style>
.st-key-class_question button { min-height: 48px; width: 100%; }
.st-key-class_question [data-testid="stMarkdownContainer"] p { font-size: 1.15rem; }
.st-key-in_view_class_question { display: none; }
</style>"""
REFRESH_SECONDS = 2.0  # the projector's count of answers


def asked_question(asked: Asked, lang: str) -> Question | None:
    """The question the class was asked, recomputed at its setting in ``lang``."""
    slug = asked.question_id.partition(".")[0]
    return next((q for q in for_page(slug, asked.setting, lang) if q.id == asked.question_id), None)


def ask_menu(
    lang: str, code: str, key: str, slug: str, screen: Callable[[], Mapping[str, str]]
) -> None:
    """The Class panel's questions: this page's at the teacher's ``screen`` as it is now, each
    with its Ask button."""
    t = translator(TEXT, lang)
    st.markdown(f"**{t('ask')}**", help=t("ask_help"))
    _questions_now(lang, code, key, slug, screen)


@st.fragment(run_every=REFRESH_SECONDS)
def _questions_now(
    lang: str, code: str, key: str, slug: str, screen: Callable[[], Mapping[str, str]]
) -> None:
    """The questions at the current screen, read again every few seconds: a section's own
    control (a token chip, τ) changes the screen without a run of the whole page."""
    t = translator(TEXT, lang)
    for i, q in enumerate(for_page(slug, screen(), lang)):
        st.markdown(md_escape(q.text))
        if q.answer is None:
            st.caption(t("not_good"))
            continue
        st.button(
            t("ask_this"),
            key=f"class_ask_{i}",
            on_click=_open,
            args=(lang, code, key, slug, screen, q.id),
            type="primary",
            icon=":material/quiz:",
        )


def _open(
    lang: str,
    code: str,
    key: str,
    slug: str,
    screen: Callable[[], Mapping[str, str]],
    question_id: str,
) -> None:
    """Ask (a button's callback) the question at the screen as it is at the click."""
    q = next((q for q in for_page(slug, screen(), lang) if q.id == question_id), None)
    if q is None or q.answer is None:
        st.session_state["_class_message"] = translator(TEXT, lang)("not_good")
        return
    _, err = attempt(lambda: room().open_question(code, key, q.id, q.setting, q.choices))
    if err is not None:
        st.session_state["_class_message"] = words(err, lang)


FOCUS = "_class_focus"  # a revealed question's highlight, for the page to show next


def projector(lang: str, code: str, key: str, focus: Callable[[Mapping[str, int]], None]) -> None:
    """The open question on the teacher's screen: how many answered, then the reveal. After
    the reveal, ``focus`` gets what makes the answer right on the page's charts
    (``Question.highlight``: the token followed, the head shown), for the page to show it."""
    st.html(TAP_CSS)
    if (highlight := st.session_state.pop(FOCUS, None)) is not None:
        focus(highlight)  # reruns the page with it
    _projected(lang, code, key)


@st.fragment(run_every=REFRESH_SECONDS)
def _projected(lang: str, code: str, key: str) -> None:
    if FOCUS in st.session_state:  # revealed in this fragment's run: the whole page shows it
        st.rerun(scope="app")
    t = translator(TEXT, lang)
    asked, err = attempt(lambda: room().results(code, key))
    if err is not None:
        say(err, lang)
        return
    if asked is None:
        return
    q = asked_question(asked, lang)
    if q is None:
        return
    with st.container(border=True, key="class_projector"):
        st.markdown(f"**{t('question')}**: {md_escape(q.text)}")
        if not asked.revealed:
            connected, _ = attempt(lambda: room().progress(code, key).connected)
            st.markdown(t("answered", n=asked.answered, of=max(connected or 0, asked.answered)))
            st.markdown("\n".join(f"- {md_escape(c)}" for c in q.choices))
            row = st.container(horizontal=True)
            row.button(
                t("reveal"),
                key="class_reveal",
                type="primary",
                on_click=_reveal,
                args=(lang, code, key, q),
            )
        else:
            reveal(q, asked, lang)
            st.button(
                t("again"),
                key="class_again",
                on_click=_teacher_call,
                args=(lang, lambda: room().ask_again(code, key)),
            )


def _reveal(lang: str, code: str, key: str, q: Question) -> None:
    """Reveal (a button's callback); the page then shows what makes the answer right."""
    _, err = attempt(lambda: room().reveal(code, key))
    if err is not None:
        st.session_state["_class_message"] = words(err, lang)
    elif q.highlight:
        st.session_state[FOCUS] = dict(q.highlight)


def _teacher_call(lang: str, call: Callable[[], object]) -> None:
    _, err = attempt(call)
    if err is not None:
        st.session_state["_class_message"] = words(err, lang)


def reveal(q: Question, asked: Asked, lang: str) -> None:
    """The distribution of every revealed round side by side (before and after a discussion),
    the right answer marked, and why."""
    t = translator(TEXT, lang)
    columns = st.columns(max(1, len(asked.rounds)))
    for n, (column, counts) in enumerate(zip(columns, asked.rounds, strict=False), start=1):
        total = sum(counts) or 1
        if len(asked.rounds) > 1:
            column.markdown(f"**{t('round', n=n)}**")
        for i, (choice, count) in enumerate(zip(q.choices, counts, strict=False)):
            mark = "✓ " if i == q.answer else ""
            share = round(100 * count / total)
            label = mark + t("votes", choice=md_escape(choice), n=count, share=share)
            column.progress(count / total, text=label)
    st.success(t("right", choice=md_escape(q.choices[q.answer])), icon=":material/check:")
    st.caption(t("why", why=md_escape(q.why)))


def student_box(lang: str, code: str, student: str, cache: ClassCache) -> None:
    """The open question on top of a student's page, whatever the page: tap-sized choices, the
    answer changeable until the reveal; after it, the distribution and why."""
    t = translator(TEXT, lang)
    asked, err = attempt(lambda: cache.state(code)[0])
    q = None if err is not None or asked is None else asked_question(asked, lang)
    st.html(TAP_CSS)
    # a student reading further down is brought up to it when it opens, and when it is revealed;
    # a screen reader says it
    if q is None:
        in_view("class_question", "")
        return
    choice = q.choices[q.answer] if q.answer is not None else ""
    said = t("said_right", text=q.text, choice=choice) if asked.revealed else t("said", text=q.text)
    in_view("class_question", f"{asked.number}-{asked.round}-{asked.revealed}", said)
    mine = st.session_state.get("_class_mine")
    mine = mine[1] if mine and mine[0] == (asked.number, asked.round) else None
    with st.container(border=True, key="class_question"):
        st.markdown(f"**{t('question')}**: {md_escape(q.text)}")
        if asked.revealed:
            reveal(q, asked, lang)
            return
        st.caption(t("pick") if mine is None else t("yours", choice=md_escape(q.choices[mine])))
        for i, choice in enumerate(q.choices):
            st.button(
                md_escape(choice),
                key=f"class_choice_{i}",
                use_container_width=True,
                type="primary" if i == mine else "secondary",
                on_click=_answer,
                args=(lang, code, student, asked, i),
            )


def _answer(lang: str, code: str, student: str, asked: Asked, choice: int) -> None:
    _, err = attempt(lambda: room().answer(code, student, choice))
    if err is None:
        st.session_state["_class_mine"] = ((asked.number, asked.round), choice)
    else:
        st.session_state["_class_message"] = words(err, lang)


def alone(lang: str, slug: str, values: Mapping[str, str]) -> None:
    """The page's questions for a student on their own: answer, then reveal (folded)."""
    t = translator(TEXT, lang)
    box = folded(t("alone"), key="alone_questions", icon=":material/quiz:")
    if box is None:  # closed: nothing computed
        return
    questions = [q for q in for_page(slug, values, lang) if q.answer is not None]
    with box:
        if not questions:
            st.caption(t("none_here"))
            return
        st.caption(t("alone_help"))
        i = st.selectbox(
            t("alone_pick"),
            range(len(questions)),
            key="alone_pick",
            format_func=lambda j: questions[j].text,
        )
        q = questions[i]
        choice = st.radio(
            md_escape(q.text),
            range(len(q.choices)),
            index=None,
            format_func=lambda j: md_escape(q.choices[j]),
            key=f"alone_choice_{q.id}",
        )
        if st.button(t("alone_reveal"), key="alone_reveal", disabled=choice is None):
            right = q.choices[q.answer]
            if choice == q.answer:
                st.success(t("alone_right", choice=md_escape(right)), icon=":material/check:")
            else:
                st.warning(t("alone_wrong", choice=md_escape(right)), icon=":material/close:")
            st.caption(t("why", why=md_escape(q.why)))
