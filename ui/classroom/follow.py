"""A student following the teacher: the banner, the poll that notices a change, and the change
applied to this session's controls before the page draws them.

The poll is a fragment that reads the process's cache of the teacher's screen
(``ui.classroom.live.followers``: one store read a class per process and READ_SECONDS) and
draws nothing; it runs on the browser's own timer, rarely, in case a wake is lost. A change
reaches a follower as a whole run of its page, started by the process's watcher
(``ui.classroom.push``): the frame calls ``arrive`` first, which reads the same cache, and when
the screen changed goes to the teacher's page and sets the controls as a link would, so that
the page draws the teacher's numbers and the student's address bar follows in that one run.
A run the student's browser asked for before that run reached it brings back its page and
controls as they were (Streamlit takes a widget's value from the browser): for a few seconds
``_hold`` sets the teacher's screen again. The student's language and "Your turn" work are
never touched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import streamlit as st

import llm
from classroom.config import FOLLOW_POLL_SECONDS
from ui.classroom import push
from ui.classroom.live import asked, attempt, followers, room, words
from ui.classroom.questions import student_box
from ui.frame.url_values import Refused, Sizes, Value
from ui.text import translator
from ui.text.classroom import TEXT

PENDING = "_class_pending"  # the teacher's values, to set before the controls are drawn
SEEN = "_class_seen"  # the version of the teacher's screen this session last applied
FOLLOW = "_class_follow"  # False once the student explores on their own
OVER = "_class_over"  # the class ended (or never was): the banner says so, the poll stops
DOWN = "_class_down"  # the class store did not answer the last poll: the banner says so
OVER_WHY = "_class_over_why"  # the ClassError that stopped it: "ended" or "unknown_class"
QUESTION = "_class_question"  # (number, round, revealed) of the question the page shows
REFUSED = "_class_refused"  # (code, ClassError): this student could not join (a full class)
FOLLOWING = "_class_following"  # the class whose banner this session shows (a student's)
LEFT = "_class_left"  # the page a change of the teacher's page took this session from
HELD = "_class_held"  # (when, page, values, page left, values before): ``arrive``'s last change
# how long after a change a run may still come with the controls as the browser showed them
# before it: the change's own run and a request on its way (a click, the poll, a store's report)
HOLD_SECONDS = 10.0
BEAT_SECONDS = 20.0  # a follower says it is still there this often (connected = last minute)
_INTS = ("d_model", "n_heads", "seed", "head")


def arrive(current: str, values: tuple[Value, ...], path_of: Callable[[str], str]) -> None:
    """Go to the teacher's page and set the controls to the teacher's values, when the
    teacher's screen changed since this session last showed it (read here, in the run the
    watcher started) or when the poll kept a change (called before any control: a page switch
    from the poll itself would meet the bound controls of the page it leaves)."""
    ss = st.session_state
    code = ss.get(FOLLOWING)
    if code is not None and ss.get(OVER) != code and st.query_params.get("class") == code:
        _news(code, path_of)  # applied in this run: the poll drawn below finds nothing new
    if ss.get(PENDING) is None:
        _hold(current)
        return
    target, pending = ss[PENDING]
    if target != current:
        ss[LEFT] = current
        # only the class in the new page's link: the bound controls write their own values
        # there once set below (a bound parameter may not be set or cleared by the app)
        st.switch_page(target, query_params={"class": st.query_params.get("class", "")})
    del ss[PENDING]
    shared = _shared(pending)
    names = [*shared, *(value.name for value in values)]
    before = {name: ss.get(name) for name in names}
    ss.update(shared)
    try:
        n_tokens = len(llm.tokenize(shared.get("text", ss.get("text") or "")))
    except llm.LabError:
        n_tokens = 1
    d_model = int(ss.get("d_model") or 8)
    n_heads = int(ss.get("n_heads") or 4)
    sizes = Sizes(n_tokens=n_tokens, d_model=d_model, n_heads=n_heads)
    for value in values:
        try:
            raw = pending.get(value.name)
            ss[value.name] = value.default_for(sizes) if raw is None else value.parse(raw, sizes)
        except Refused:
            ss[value.name] = value.default_for(sizes)
    # no second run for the address bar: values set here, before their bound controls are drawn,
    # reach the URL in this same run (one run a student and change, not two)
    applied = {name: ss.get(name) for name in names}
    ss[HELD] = (time.monotonic(), current, applied, ss.pop(LEFT, current), before)


def _hold(current: str) -> None:
    """Set the teacher's screen again when a run comes with this browser's page and controls as
    they were before ``arrive`` set them: the browser asked for it before the run that set them
    reached it (a click, its poll, its store's report), and Streamlit takes a widget's value from
    the browser over the one a run set in the session. A run with the teacher's values, a move
    of the student's own, or HOLD_SECONDS end the hold."""
    ss = st.session_state
    held = ss.get(HELD)
    if held is None:
        return
    since, page, applied, left, before = held
    now = {name: ss.get(name) for name in applied}
    moved = {name for name in applied if now[name] != applied[name]}
    old = all(now[name] == before[name] for name in moved) and current in (page, left)
    over = time.monotonic() - since > HOLD_SECONDS or not ss.get(FOLLOW, True)
    if over or not old or (current == page and not moved):
        del ss[HELD]
        return
    if current != page:
        st.switch_page(page, query_params={"class": st.query_params.get("class", "")})
    ss.update({name: applied[name] for name in moved})


def _shared(values: Mapping[str, str]) -> dict[str, object]:
    """The shared settings among the teacher's values, typed as their controls hold them."""
    out: dict[str, object] = {}
    for key in _INTS:
        if key in values and values[key].isdigit():
            out[key] = int(values[key])
    if values.get("causal") in ("true", "false"):
        out["causal"] = values["causal"] == "true"
    if values.get("embeddings") in llm.EMBEDDINGS:
        out["embeddings"] = values["embeddings"]
    if isinstance(values.get("text"), str):
        out["text"] = values["text"]
    return out


def banner(code: str, lang: str, path_of: Callable[[str], str], current: str) -> None:
    """The line on top of a student's page: following or exploring, and the way back."""
    ss = st.session_state
    t = translator(TEXT, lang)
    if ss.get(OVER) == code:
        why = ss.get(OVER_WHY)
        if why is not None and why.code == "unknown_class":  # never was: not "has ended"
            st.warning(words(why, lang), icon=":material/link_off:")
        else:
            st.info(t("ended", code=code), icon=":material/event_busy:")
        return
    refused = ss.get(REFUSED)
    if refused is not None and refused[0] == code:
        st.warning(
            t("refused", code=code, why=words(refused[1], lang)), icon=":material/group_off:"
        )
        return
    ss[FOLLOWING] = code
    if ss.get(DOWN):
        st.warning(t("unavailable"), icon=":material/cloud_off:")
    row = st.container(horizontal=True, vertical_alignment="center", key="class_banner")
    if ss.get(FOLLOW, True):
        row.markdown(f":material/cast_for_education: {t('following', code=code)}")
        row.button(t("explore"), help=t("explore_help"), on_click=_explore, key="class_explore")
    else:
        row.markdown(f":material/explore: {t('exploring', code=code)}")
        row.button(t("back"), help=t("back_help"), on_click=_back, key="class_back")
    with row:
        _poll(code, path_of, current)
    student_box(lang, code, ss["_class_student"], asked())


def _explore() -> None:
    st.session_state[FOLLOW] = False


def _back() -> None:
    ss = st.session_state
    ss[FOLLOW] = True
    ss[SEEN] = None  # the run this click starts applies the teacher's screen (``arrive``)


def _shown(code: str) -> push.Shown:
    """What a student of ``code`` shows: (the teacher's screen (its version), the rest: the
    question and whether it is revealed, or the store's refusal); ``ui.classroom.push`` wakes a
    student when it changes, for the screen only one that follows it."""
    state, err = attempt(lambda: followers().state(code))
    return (None if state is None else state.version, (err and err.code, _question_shown(code)))


def _question_shown(code: str) -> tuple[int, int, bool] | None:
    """(number, round, revealed) of the question a follower of ``code`` shows, or None."""
    question, _ = attempt(lambda: asked().state(code)[0])
    return None if question is None else (question.number, question.round, question.revealed)


@st.fragment(run_every=FOLLOW_POLL_SECONDS)
def _poll(code: str, path_of: Callable[[str], str], current: str) -> None:
    """Has the teacher's screen changed? Run with every run of the page (after ``arrive``,
    it then finds nothing new) and every FOLLOW_POLL_SECONDS by the browser's own timer, in case
    the watcher's wake was lost; draws nothing while nothing changed."""
    push.follow(code, _shown, st.session_state.get(FOLLOW, True))
    _beat(code)
    if _news(code, path_of):
        st.rerun(scope="app")


def _news(code: str, path_of: Callable[[str], str]) -> bool:
    """Keep in the session what changed for a follower of ``code`` since it last looked: the
    class ended or the store stopped (or started again) answering, a question, the teacher's
    screen (kept for ``arrive`` unless the student explores). Whether the page must run again
    to show it."""
    ss = st.session_state
    state, err = attempt(lambda: followers().state(code))
    if err is not None:
        if err.code in ("ended", "unknown_class"):
            push.leave(code)
            ss[OVER] = code
            ss[OVER_WHY] = err
            return True
        if ss.get(DOWN):  # still unavailable: the banner says so, the next poll tries again
            return False
        ss[DOWN] = True
        return True
    changed = bool(ss.pop(DOWN, False))  # back: the banner says following again
    if (shown := _question_shown(code)) != ss.get(QUESTION):
        ss[QUESTION] = shown  # a question opened, revealed or asked again: the page shows it
        changed = True
    if ss.get(FOLLOW, True) and state.version != ss.get(SEEN):
        ss[SEEN] = state.version
        ss[PENDING] = (path_of(state.page), dict(state.values))
        changed = True
    return changed


def _beat(code: str) -> None:
    """Join once, then tell the class this student is still here every ``BEAT_SECONDS``; a
    refused join (the class is full) ends the following with its message."""
    ss = st.session_state
    now = time.monotonic()
    if ss.get("_class_beat", (None, 0.0))[0] == code and now - ss["_class_beat"][1] < BEAT_SECONDS:
        return
    me = ss["_class_student"]
    joined = ss.get("_class_joined") == code
    call = room().heartbeat if joined else room().join
    _, err = attempt(lambda: call(code, me))
    ss["_class_beat"] = (code, now)
    if err is None:
        ss["_class_joined"] = code
    elif not joined and err.code in ("full", "rate_limited"):
        ss[REFUSED] = (code, err)
        st.rerun(scope="app")
