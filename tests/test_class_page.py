"""A page opened with a bad, unknown or ended ``class=`` link (AppTest): the lab opens as usual,
says why in the student's language, and raises nothing; before the browser has reported what it
keeps, nothing of the class is drawn; a teacher's value reaches a student as it is."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import classroom
from classroom.questions import for_page
from classroom.texts import MESSAGES
from tests.apptest_pages import html_tables
from ui.classroom import follow, live
from ui.text import md_escape
from ui.text.classroom import TEXT

PAGE = "../pages/1_qkv.py"


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[classroom.Classes]:
    """A fresh SQLite class store in a temporary data folder, for the app and the test."""
    monkeypatch.setenv("ATTENTION_LAB_DATA", str(tmp_path))
    monkeypatch.delenv("ATTENTION_LAB_CLASS_STORE", raising=False)
    caches: list[functools._lru_cache_wrapper] = [live.room, live.followers, live.asked]
    for cache in caches:
        cache.cache_clear()
    monkeypatch.setattr(classroom, "_DEFAULT", None)
    yield live.room()
    for cache in caches:
        cache.cache_clear()


def opened(code: str, lang: str, reported: bool = True) -> AppTest:
    """The page opened from a link with ``class=code``; ``reported``: as if the browser had
    already said what it keeps (nothing: a new student)."""
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["class"] = code
    at.query_params["lang"] = lang
    if reported:
        at.session_state["_class_ask"] = ""
        at.session_state["_class_copy"] = {}
    at.run()
    return at


def shown(at: AppTest) -> str:
    """Every message and markdown text of the page."""
    parts = [w.value for w in (*at.warning, *at.info, *at.error, *at.markdown)]
    return "\n".join(str(p) for p in parts)


def bad_link(lang: str, code: str, **kw: object) -> str:
    why = MESSAGES[code][lang].format(**kw)
    return TEXT[lang]["bad_code"].format(why=md_escape(why))  # written as text, escaped


def class_buttons(at: AppTest) -> list[str]:
    return [b.key for b in at.button if b.key and b.key.startswith("class_")]


def assert_page_as_usual(at: AppTest, following: bool = False) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert html_tables(at) or at.get("plotly_chart"), "the lesson is drawn"
    assert class_buttons(at) == (["class_explore"] if following else [])


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(
    ("raw", "code", "kw"),
    [
        ("", "no_code", {}),
        ("K" * 65, "bad_length", {"length": 6, "got": 65}),
        ("KXR4TZZ", "bad_length", {"length": 6, "got": 7}),
        ("KXR0TZ", "look_alike", {"chars": "0"}),
        ("KXRITO", "look_alike", {"chars": "O, I"}),
    ],
)
def test_a_malformed_class_link_opens_the_page_with_why(
    raw: str, code: str, kw: dict[str, object], lang: str
) -> None:
    at = opened(raw, lang)
    assert_page_as_usual(at)
    assert bad_link(lang, code, **kw) in shown(at)
    assert "class" not in at.query_params  # dropped from the address: the link works otherwise


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_lower_case_code_is_normalised_and_kept(store: classroom.Classes, lang: str) -> None:
    code, _key = store.start_class(page="qkv", values={})
    at = opened(f" {code.lower()[:3]}-{code.lower()[3:]}", lang)
    assert_page_as_usual(at, following=True)
    assert at.query_params["class"] == code
    following = TEXT[lang]["following"].format(code=code)
    assert following in shown(at)
    assert "does not work" not in shown(at) and "ne marche pas" not in shown(at)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_unknown_class_says_so(lang: str) -> None:
    at = opened("KXR4TZ", lang)
    assert_page_as_usual(at)
    text = shown(at)
    assert md_escape(MESSAGES["unknown_class"][lang].format(class_code="KXR4TZ")) in text
    assert TEXT[lang]["following"].format(code="KXR4TZ") not in text
    assert TEXT[lang]["ended"].format(code="KXR4TZ") not in text  # unknown is not ended


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_ended_class_says_so(store: classroom.Classes, lang: str) -> None:
    code, key = store.start_class(page="qkv", values={})
    store.end_class(code, key)
    at = opened(code, lang)
    assert_page_as_usual(at)
    text = shown(at)
    assert TEXT[lang]["ended"].format(code=code) in text
    assert TEXT[lang]["following"].format(code=code) not in text


def test_before_the_browser_reports_nothing_of_the_class_is_drawn(
    store: classroom.Classes,
) -> None:
    code, _key = store.start_class(page="qkv", values={})
    at = opened(code, "en", reported=False)
    assert_page_as_usual(at)
    text = shown(at)
    assert code not in text
    assert store.progress(code, _key).students == 0  # not joined yet


def test_an_answer_after_the_reveal_is_refused_with_a_message(store: classroom.Classes) -> None:
    code, key = store.start_class(page="qkv", values={})
    q = next(q for q in for_page("qkv", {}, "en") if q.answer is not None)
    store.open_question(code, key, q.id, q.setting, q.choices)
    at = opened(code, "en")
    assert not at.exception
    choices = [b for b in at.button if b.key and b.key.startswith("class_choice_")]
    assert [b.label for b in choices] == [md_escape(c) for c in q.choices]
    store.reveal(code, key)
    choices[0].click().run()
    assert not at.exception
    refused = md_escape(MESSAGES["not_open"]["en"])
    assert any(str(w.value) == refused for w in at.warning), [w.value for w in at.warning]
    assert [list(r) for r in store.results(code, key).rounds] == [[0] * len(q.choices)]


def test_a_teacher_s_temperature_between_two_stops_reaches_the_student_as_it_is(
    store: classroom.Classes,
) -> None:
    # τ = 0.37 is no stop of the slider's: the student's slider shows it, a stop of its own
    code, key = store.start_class(page="softmax", values={"temperature": "0.37", "seed": "7"})
    at = AppTest.from_file("../pages/3_softmax.py", default_timeout=30)
    at.query_params["class"] = code
    at.session_state["_class_ask"] = ""
    at.session_state["_class_copy"] = {}
    at.run()
    assert not at.exception
    slider = at.select_slider(key="temperature")
    assert slider.value == 0.37 and "0.37" in slider.options
    assert at.number_input(key="seed").value == 7
    assert TEXT["en"]["following"].format(code=code) in shown(at)
    store.end_class(code, key)


def test_a_run_with_the_controls_from_before_a_change_gets_the_teacher_s_again(
    store: classroom.Classes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run the browser asked for before the change's run reached it comes with the student's
    old seed: the teacher's is set again. A move of the student's own stays, and once a run has
    shown the teacher's values, or HOLD_SECONDS later, so does a move back to the old seed."""
    code, key = store.start_class(page="softmax", values={"seed": "7"})
    at = AppTest.from_file("../pages/3_softmax.py", default_timeout=30)
    at.query_params["class"] = code
    at.session_state["_class_ask"] = ""
    at.session_state["_class_copy"] = {}
    at.run()
    seed = lambda: at.number_input(key="seed").value  # noqa: E731

    def teacher_sets(value: int) -> None:
        store.set_teacher_state(code, key, "softmax", {"seed": str(value)})
        live.followers().forget(code)
        at.run()
        assert seed() == value

    assert seed() == 7
    teacher_sets(8)
    at.number_input(key="seed").set_value(7).run()  # the browser's seed from before
    assert seed() == 8
    at.number_input(key="seed").set_value(3).run()  # the student's own
    assert seed() == 3

    teacher_sets(9)
    at.run()  # the browser shows the teacher's seed: the hold ends
    at.number_input(key="seed").set_value(3).run()
    assert seed() == 3

    teacher_sets(10)
    monkeypatch.setattr(follow, "HOLD_SECONDS", -1.0)  # as if that long had passed
    at.number_input(key="seed").set_value(3).run()
    assert seed() == 3
    assert not at.exception
    store.end_class(code, key)
