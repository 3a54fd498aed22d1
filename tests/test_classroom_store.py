"""The class store on SQLite and on a real PostgreSQL: schema, keys, limits, expiry, outages."""

from __future__ import annotations

import logging
import socket
import sqlite3
import time

import pytest
import sqlalchemy as sa

from classroom import ClassError, Classes, Limits, Rate, codes, config, schema
from classroom.store import Store

HOUR = 3600.0

pytest_plugins = ["tests.postgres"]  # postgres, store_url (both stores), clock


@pytest.fixture
def room(store_url, clock):
    store = Store(store_url, clock=clock)
    yield Classes(store, clock=clock)
    store.dispose()


def refused(call, *args) -> str:
    with pytest.raises(ClassError) as caught:
        call(*args)
    return caught.value.code


def rows(room: Classes, table: sa.Table, code: str | None = None) -> list:
    query = sa.select(table)
    if code is not None:
        query = query.where(table.c.code == code)
    with room.store.read() as conn:
        return list(conn.execute(query))


def sid(n: int) -> str:
    return f"student-{n:05d}"


def test_the_schema_is_made_on_first_use_with_its_version(room, clock):
    code, _ = room.start_class()
    assert [(r.id, r.version) for r in rows(room, schema.schema_version)] == [(1, 1)]
    again = Classes(Store(room.store.url, clock=clock), clock=clock)  # another process
    assert again.teacher_state(code).version == 1
    assert len(rows(room, schema.schema_version)) == 1
    again.store.dispose()


def test_the_migrate_hook_moves_an_old_store_and_a_newer_one_is_refused(room, clock, monkeypatch):
    room.start_class()
    ran = []
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(schema.MIGRATIONS, 1, lambda conn: ran.append(conn.dialect.name))
    later = Classes(Store(room.store.url, clock=clock), clock=clock)
    later.start_class()
    assert ran == [room.store.backend] and rows(room, schema.schema_version)[0].version == 2
    later.store.dispose()
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 1)
    older = Classes(Store(room.store.url, clock=clock), clock=clock)
    assert refused(older.start_class) == "unavailable"  # a store written by a later lab
    older.store.dispose()


def test_the_teacher_key_is_stored_only_as_its_sha256(room):
    code, key = room.start_class()
    (row,) = rows(room, schema.classes, code)
    assert row.key_hash == codes.hash_key(key) and len(key) >= 22  # 128 bits in base64
    every_value = [
        str(v) for table in schema.metadata.sorted_tables for r in rows(room, table) for v in r
    ]
    assert not any(key in value for value in every_value)


def teacher_calls(room: Classes, code: str, key):
    return [
        (room.end_class, (code, key)),
        (room.check_teacher, (code, key)),
        (room.set_teacher_state, (code, key, "softmax", {"seed": "7"})),
        (room.progress, (code, key)),
        (room.open_question, (code, key, "q", {}, ["a", "b"])),
        (room.reveal, (code, key)),
        (room.ask_again, (code, key)),
        (room.results, (code, key)),
    ]


def test_a_forged_or_missing_key_changes_nothing_and_is_logged_without_the_key(room, caplog):
    code, key = room.start_class()
    _, other_key = room.start_class()
    changed = key[:-1] + ("A" if key[-1] != "A" else "B")
    caplog.set_level(logging.WARNING)
    for bad in (None, "", other_key, changed, codes.hash_key(key)):
        for call, args in teacher_calls(room, code, bad):
            assert refused(call, *args) == "bad_key", call.__name__
    state = room.teacher_state(code)
    assert (state.page, state.values, state.version) == ("", {}, 1)
    assert room.results(code, key) is None  # no question was opened
    assert f"class {code}: wrong or missing key" in caplog.text
    assert other_key not in caplog.text and changed not in caplog.text


def test_the_301st_student_is_refused_and_the_300_stay(room):
    code, key = room.start_class()
    for n in range(300):
        room.join(code, sid(n))
    err = pytest.raises(ClassError, room.join, code, sid(300)).value
    assert err.code == "full" and "300" in err.message
    room.join(code, sid(7))  # one already in joins again
    assert room.progress(code, key).students == 300


def test_the_51st_class_is_refused_until_one_ends(room):
    started = [room.start_class() for _ in range(50)]
    err = pytest.raises(ClassError, room.start_class).value
    assert err.code == "too_many_classes" and err.fields["limit"] == 50
    room.end_class(*started[0])
    code, _ = room.start_class()
    assert code not in {c for c, _ in started}


def test_1000_joins_at_once_from_one_browser_take_the_burst(room):
    code, _ = room.start_class()
    outcomes = []
    for _ in range(1000):
        try:
            room.join(code, sid(1))
            outcomes.append("ok")
        except ClassError as err:
            outcomes.append(err.code)
    assert outcomes == ["ok"] * config.JOINS.burst + ["rate_limited"] * (1000 - config.JOINS.burst)
    room.join(code, sid(2))  # another browser is not held up


def test_the_bucket_refills_at_its_rate_up_to_its_burst(store_url, clock):
    store = Store(store_url, clock=clock)
    room = Classes(store, clock=clock, limits=Limits(rates={"join": Rate(5, 60.0)}))
    code, _ = room.start_class()

    def joins(n: int, every: float = 0.0) -> int:
        accepted = 0
        for _ in range(n):
            try:
                room.join(code, sid(1))
                accepted += 1
            except ClassError as err:
                assert err.code == "rate_limited"
            clock.advance(every)
        return accepted

    assert joins(50) == 5  # the burst
    clock.advance(2.0)
    assert joins(50) == 2  # one a second
    clock.advance(3600.0)
    assert joins(50) == 5  # never more than the burst
    # 960 joins in a minute, one every 1/16 s (exact in binary) from an empty bucket: one a
    # second gets through, at t = 1, 2, ..., 59 s
    assert joins(960, every=1 / 16) == 59
    store.dispose()


def test_a_report_must_name_a_real_cell_and_its_own_mistakes(room):
    code, key = room.start_class()
    for args, why in [
        (("no_such_cell", False, None), "no_such_cell"),
        (("SOFTMAX", False, None), "no_such_cell"),
        ((None, True, None), "no_such_cell"),
        (("softmax", False, "no_w_o"), "no_such_mistake"),  # a mistake of another cell
        (("softmax", False, "made_up"), "no_such_mistake"),
        (("softmax", True, "no_scale"), "no_such_mistake"),  # a pass has no mistake
        (("softmax", "yes", None), "bad_value"),
    ]:
        assert refused(room.report, code, sid(1), *args) == why, args
    assert rows(room, schema.reports) == []
    room.report(code, sid(1), "combine", False, "no_w_o")
    assert room.progress(code, key).cells["combine"].mistakes == (("no_w_o", 1),)


def test_unknown_ended_and_malformed_classes_are_refused(room):
    code, key = room.start_class()
    assert refused(room.join, "KXR4TZ" if code != "KXR4TZ" else "KXR4TY", sid(1)) == (
        "unknown_class"
    )
    assert refused(room.join, "", sid(1)) == "no_code"
    assert refused(room.join, "KX0OTZ", sid(1)) == "look_alike"
    room.join(code.lower(), sid(1))  # lower case is the same class
    room.end_class(code, key)
    for call, args in [
        (room.join, (code, sid(2))),
        (room.teacher_state, (code,)),
        (room.current_question, (code,)),
        (room.end_class, (code, key)),
    ]:
        assert refused(call, *args) == "ended"


def test_ending_deletes_every_row_of_the_class_and_only_its_rows(room, clock):
    code, key = room.start_class()
    other, other_key = room.start_class()
    for c, k in ((code, key), (other, other_key)):
        room.set_teacher_state(c, k, "softmax", {"seed": "7"})
        room.join(c, sid(1))
        room.report(c, sid(1), "softmax", False, "no_scale")
        room.open_question(c, k, "q", {"seed": "7"}, ["a", "b"])
        room.answer(c, sid(1), 0)
        room.reveal(c, k)
        room.ask_again(c, k)
        room.answer(c, sid(1), 1)
    room.end_class(code, key)
    for table in schema.CLASS_TABLES:
        assert rows(room, table, code) == [], table.name
        assert len(rows(room, table, other)) == 1, table.name
    (tomb,) = rows(room, schema.classes, code)
    assert (tomb.key_hash, tomb.end_reason) == ("", "teacher")
    clock.advance(24 * HOUR + 1)
    room.sweep(force=True)
    assert rows(room, schema.classes, code) == []
    assert refused(room.teacher_state, code) == "unknown_class"


def test_a_class_ends_after_4_hours_without_the_teacher(room, clock):
    code, key = room.start_class()
    room.join(code, sid(1))
    clock.advance(3 * HOUR)
    room.progress(code, key)  # the teacher's panel: the teacher is there
    clock.advance(4 * HOUR - 1)
    room.join(code, sid(2))  # students alone do not keep the class open
    assert room.teacher_state(code).version == 1
    clock.advance(2)
    assert refused(room.teacher_state, code) == "ended"
    assert refused(room.check_teacher, code, key) == "ended"
    assert len(rows(room, schema.students, code)) == 2  # not swept yet
    assert room.sweep(force=True) == [code]
    assert rows(room, schema.students, code) == []
    assert rows(room, schema.classes, code)[0].end_reason == "expired"


def test_reads_sweep_at_most_once_a_minute(room, clock):
    old, _ = room.start_class()
    room.join(old, sid(1))
    clock.advance(4 * HOUR - 10)
    current, _ = room.start_class()  # a start sweeps: the old class is still open
    clock.advance(20)  # the old class has expired, the last sweep was 20 s ago
    assert room.teacher_state(current).version == 1
    assert len(rows(room, schema.students, old)) == 1  # not swept yet
    clock.advance(60)
    assert room.teacher_state(current).version == 1  # this read sweeps
    assert rows(room, schema.students, old) == []
    assert rows(room, schema.classes, old)[0].end_reason == "expired"


def test_postgresql_stopped_mid_class_is_unavailable_then_resumes(postgres, postgres_url, clock):
    store = Store(postgres_url, clock=clock)
    room = Classes(store, clock=clock)
    code, key = room.start_class()
    room.join(code, sid(1))
    postgres.stop()
    try:
        for call, args in [
            (room.teacher_state, (code,)),
            (room.join, (code, sid(2))),
            (room.report, (code, sid(1), "softmax", True)),
            (room.progress, (code, key)),
            (room.start_class, ()),
        ]:
            started = time.monotonic()
            assert refused(call, *args) == "unavailable"
            assert time.monotonic() - started < 10  # a guard against a hang, not a timing
    finally:
        postgres.start()
    room.join(code, sid(2))  # back by itself
    assert room.progress(code, key).students == 2
    store.dispose()


@pytest.mark.slow
def test_a_postgresql_that_never_answers_is_unavailable_after_the_connect_timeout():
    with socket.socket() as silent:  # accepts connections (the kernel does) and says nothing
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        store = Store(f"postgresql+psycopg://lab@127.0.0.1:{port}/classes")
        started = time.monotonic()
        assert refused(Classes(store).start_class) == "unavailable"
        assert time.monotonic() - started < 10  # connect_timeout = 2 s; a guard, not a timing
        store.dispose()


@pytest.mark.slow
def test_sqlite_locked_is_unavailable_for_writes_and_reads_go_on(tmp_path, clock):
    path = tmp_path / "classes.sqlite"
    store = Store(f"sqlite:///{path}", clock=clock)
    room = Classes(store, clock=clock)
    code, _ = room.start_class()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert refused(room.join, code, sid(1)) == "unavailable"  # after the 2 s busy timeout
        assert room.teacher_state(code).version == 1  # WAL: readers do not wait
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    room.join(code, sid(1))
    store.dispose()


def test_an_unusable_store_is_unavailable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for url in (f"sqlite:///{blocker}/classes.sqlite", "mysql://nobody@127.0.0.1/x", "nonsense"):
        room = Classes(Store(url))
        assert refused(room.start_class) == "unavailable", url


def test_the_store_url_comes_from_the_environment_then_secrets_then_sqlite(tmp_path, monkeypatch):
    monkeypatch.delenv(config.STORE_ENV, raising=False)
    monkeypatch.setenv(config.DATA_ENV, str(tmp_path / "data"))
    monkeypatch.setattr(config, "secrets_url", lambda: None)
    assert config.store_url() == f"sqlite:///{tmp_path / 'data' / 'classes.sqlite'}"
    monkeypatch.setenv(config.STORE_ENV, "postgresql+psycopg://lab@db/classes")
    assert config.store_url() == "postgresql+psycopg://lab@db/classes"


def test_secrets_toml_names_the_store_under_connections_classes(tmp_path):
    broken, empty, good = tmp_path / "a.toml", tmp_path / "b.toml", tmp_path / "c.toml"
    broken.write_text("[connections.classes\nurl = ")
    empty.write_text('[connections.other]\nurl = "sqlite:///x"\n')
    good.write_text('[connections.classes]\nurl = "postgresql+psycopg://u:p@h:5432/db"\n')
    assert config.secrets_url([tmp_path / "missing.toml", broken, empty, good]) == (
        "postgresql+psycopg://u:p@h:5432/db"
    )
    assert config.secrets_url([broken, empty]) is None


def test_the_default_store_is_a_wal_sqlite_file_in_a_folder_made_for_it(tmp_path, monkeypatch):
    folder = tmp_path / "nested" / "data"
    monkeypatch.delenv(config.STORE_ENV, raising=False)
    monkeypatch.setenv(config.DATA_ENV, str(folder))
    monkeypatch.setattr(config, "secrets_url", lambda: None)
    store = Store(config.store_url())
    Classes(store).start_class()
    store.dispose()
    with sqlite3.connect(folder / "classes.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT count(*) FROM classes").fetchone() == (1,)


def test_a_limit_from_the_environment_must_be_a_positive_number(monkeypatch, caplog):
    monkeypatch.setenv("ATTENTION_LAB_CLASS_SIZE", "40")
    assert config._env_number("ATTENTION_LAB_CLASS_SIZE", 300) == 40
    for bad in ("-3", "0", "many", "nan"):
        monkeypatch.setenv("ATTENTION_LAB_CLASS_SIZE", bad)
        assert config._env_number("ATTENTION_LAB_CLASS_SIZE", 300) == 300
    assert "ATTENTION_LAB_CLASS_SIZE='many' is not a positive number" in caplog.text
