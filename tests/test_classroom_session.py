"""The class as the teacher and the students use it, on SQLite and PostgreSQL: the followed
state, the progress on the cells, and questions asked, answered, revealed and asked again."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

import exercises
from classroom import CellProgress, ClassError, Classes, schema
from classroom.store import Store

A, B, C = "student-aaaaa", "student-bbbbb", "student-ccccc"
CHOICES = ["the", "cat", "sat"]

pytest_plugins = ["tests.postgres"]  # postgres, store_url (both stores), clock


@pytest.fixture
def room(store_url, clock):
    store = Store(store_url, clock=clock)
    yield Classes(store, clock=clock)
    store.dispose()


@pytest.fixture
def started(room):
    return room.start_class()


def refused(call, *args) -> str:
    with pytest.raises(ClassError) as caught:
        call(*args)
    return caught.value.code


def test_the_teacher_state_changes_its_version_only_when_it_changes(room, started):
    code, key = started
    assert room.set_teacher_state(code, key, "softmax", {"seed": "7", "temperature": "0.5"}) == 2
    assert room.set_teacher_state(code, key, "softmax", {"temperature": "0.5", "seed": "7"}) == 2
    state = room.teacher_state(code)
    assert (state.page, state.values, state.version) == (
        "softmax",
        {"seed": "7", "temperature": "0.5"},
        2,
    )
    assert room.set_teacher_state(code, key, "softmax", {"seed": "3"}) == 3
    assert room.set_teacher_state(code, key, "", {"seed": "3"}) == 4  # home
    assert room.teacher_state(code.lower()).page == ""


@pytest.mark.parametrize(
    "page, values",
    [
        ("../etc", {}),
        ("Softmax", {}),
        ("softmax", {"seed": 7}),
        ("softmax", {"": "7"}),
        ("softmax", {"text": "x" * 501}),
        ("softmax", {f"v{i}": "1" for i in range(41)}),
        ("softmax", ["seed", "7"]),
    ],
)
def test_a_malformed_teacher_state_is_refused(room, started, page, values):
    code, key = started
    assert refused(room.set_teacher_state, code, key, page, values) == "bad_value"
    assert room.teacher_state(code).version == 1


def test_progress_counts_each_student_once_per_cell_and_mistake(room, started, clock):
    code, key = started
    room.join(code, A)
    room.join(code, B)
    room.report(code, A, "softmax", True)
    room.report(code, B, "softmax", False, "no_scale")
    room.report(code, B, "softmax", False, "no_scale")  # the same mistake twice: one student
    seen = room.progress(code, key)
    assert (seen.connected, seen.students) == (2, 2)
    assert seen.cells["softmax"] == CellProgress(tried=2, passed=1, mistakes=(("no_scale", 1),))
    assert list(seen.cells) == [cell.id for cell in exercises.CELLS]
    assert all(p == CellProgress() for cell, p in seen.cells.items() if cell != "softmax")
    room.report(code, A, "softmax", True)  # passing again changes nothing
    room.report(code, B, "softmax", True)
    room.report(code, B, "mix", False)  # a failure the checker did not recognise
    seen = room.progress(code, key)
    assert seen.cells["softmax"] == CellProgress(2, 2, (("no_scale", 1),))
    assert seen.cells["mix"] == CellProgress(1, 0, ())
    clock.advance(61)
    room.heartbeat(code, A)
    assert room.progress(code, key).connected == 1  # B not seen in the last minute


def test_the_three_most_frequent_mistakes_of_a_cell(room, started):
    code, key = started
    made = {"softmax_columns": 3, "no_mask": 2, "no_scale": 2, "scale_by_dk": 1}
    n = 0
    for mistake, students in made.items():
        for _ in range(students):
            room.report(code, f"student-{n:05d}", "softmax", False, mistake)
            n += 1
    cell = room.progress(code, key).cells["softmax"]
    assert (cell.tried, cell.passed) == (8, 0)
    assert cell.mistakes == (("softmax_columns", 3), ("no_mask", 2), ("no_scale", 2))


def test_reports_are_rate_limited_per_browser(room, started):
    code, _ = started
    codes_seen = []
    for _ in range(100):
        try:
            room.report(code, A, "softmax", False, "no_scale")
            codes_seen.append("ok")
        except ClassError as err:
            codes_seen.append(err.code)
    assert codes_seen == ["ok"] * 60 + ["rate_limited"] * 40
    room.report(code, B, "softmax", True)


def test_a_question_counts_each_student_once_and_hides_the_counts_until_the_reveal(room, started):
    code, key = started
    for s in (A, B, C):
        room.join(code, s)
    asked = room.open_question(code, key, "softmax.sat_attends", {"seed": "7"}, CHOICES)
    assert (asked.round, asked.revealed, asked.answered, asked.rounds) == (1, False, 0, ())
    room.answer(code, A, 1)
    room.answer(code, A, 1)  # twice: counted once
    room.answer(code, B, 1)
    room.answer(code, C, 2)
    room.answer(code, C, 0)  # changed before the reveal
    shown = room.results(code, key)
    assert (shown.answered, shown.rounds) == (3, ())  # how many, nothing of the distribution
    assert room.current_question(code, C).mine == 0
    assert room.current_question(code).mine is None
    revealed = room.reveal(code, key)
    assert (revealed.revealed, revealed.answered, revealed.rounds) == (True, 3, ((1, 2, 0),))
    assert revealed.setting == {"seed": "7"} and revealed.choices == tuple(CHOICES)
    assert refused(room.answer, code, A, 2) == "not_open"  # after the reveal
    assert refused(room.reveal, code, key) == "not_open"


def test_the_reveal_keeps_counts_and_forgets_who_answered_what(room, started):
    code, key = started
    room.open_question(code, key, "q", {}, CHOICES)
    room.answer(code, A, 2)
    with room.store.read() as conn:
        assert len(list(conn.execute(sa.select(schema.answers)))) == 1
    room.reveal(code, key)
    with room.store.read() as conn:
        assert list(conn.execute(sa.select(schema.answers))) == []
        (kept,) = conn.execute(sa.select(schema.rounds)).all()
    assert (kept.round, kept.counts) == (1, [0, 0, 1])


def test_ask_again_opens_round_2_and_keeps_round_1(room, started):
    code, key = started
    room.open_question(code, key, "q", {"seed": "7"}, CHOICES)
    assert refused(room.ask_again, code, key) == "not_revealed"
    room.answer(code, A, 0)
    room.answer(code, B, 0)
    room.reveal(code, key)
    again = room.ask_again(code, key)
    assert (again.round, again.revealed, again.answered, again.rounds) == (
        2,
        False,
        0,
        ((2, 0, 0),),
    )
    room.answer(code, A, 1)
    room.answer(code, B, 0)
    room.answer(code, C, 1)
    done = room.reveal(code, key)
    assert done.rounds == ((2, 0, 0), (1, 2, 0))  # before and after, side by side


def test_answers_that_do_not_fit_are_refused(room, started):
    code, key = started
    assert refused(room.answer, code, A, 0) == "not_open"  # nothing asked yet
    assert room.current_question(code) is None
    room.open_question(code, key, "q", {}, CHOICES)
    for bad in (3, -1, True, "1", None, 1.0):
        assert refused(room.answer, code, A, bad) == "no_such_choice", bad
    assert room.results(code, key).answered == 0


@pytest.mark.parametrize(
    "question_id, setting, choices",
    [
        ("", {}, CHOICES),
        ("q", {}, ["only one"]),
        ("q", {}, ["a", "a"]),
        ("q", {}, ["a", "b", "c", "d", "e", "f", "g"]),
        ("q", {}, "ab"),
        ("q", {}, ["a", ""]),
        ("q", {"seed": 7}, CHOICES),
    ],
)
def test_a_malformed_question_is_refused(room, started, question_id, setting, choices):
    code, key = started
    assert refused(room.open_question, code, key, question_id, setting, choices) == "bad_value"
    assert room.current_question(code) is None


def test_a_new_question_replaces_the_open_one(room, started):
    code, key = started
    room.open_question(code, key, "first", {}, CHOICES)
    room.answer(code, A, 0)
    second = room.open_question(code, key, "second", {"seed": "3"}, ["yes", "no"])
    assert (second.question_id, second.answered, second.rounds) == ("second", 0, ())
    assert room.current_question(code, A).question_id == "second"
    assert room.current_question(code, A).mine is None


def test_a_process_writes_a_students_heartbeat_at_most_every_15_s(room, started, clock):
    code, _ = started
    room.join(code, A)

    def seen() -> float:
        with room.store.read() as conn:
            return conn.execute(sa.select(schema.students.c.seen_at)).scalar_one()

    joined = seen()
    clock.advance(10)
    room.heartbeat(code, A)  # the first heartbeat of this process is written
    assert seen() == joined + 10
    clock.advance(10)
    room.heartbeat(code, A)  # 10 s later: not written
    assert seen() == joined + 10
    clock.advance(5)
    room.heartbeat(code, A)
    assert seen() == joined + 25
