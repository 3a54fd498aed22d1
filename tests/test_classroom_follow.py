"""ClassCache: every session's poll of a process served by one store read per code per interval."""

from __future__ import annotations

import threading

import pytest

from classroom import ClassCache, ClassError, Classes
from classroom.store import Store

pytest_plugins = ["tests.postgres"]  # postgres, store_url (both stores), clock


@pytest.fixture
def room(store_url):
    store = Store(store_url)
    yield Classes(store)
    store.dispose()


def poll_from_threads(cache: ClassCache, code: str, n: int = 100) -> list:
    results: list = []
    lock = threading.Lock()
    go = threading.Barrier(n)

    def poll() -> None:
        go.wait()
        try:
            outcome = cache.state(code).version
        except ClassError as err:
            outcome = err.code
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=poll) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_100_polls_from_threads_read_the_store_once_per_interval(room, clock):
    code, key = room.start_class()
    cache = ClassCache(room.teacher_state, interval=1.0, clock=clock)
    assert poll_from_threads(cache, code) == [1] * 100
    assert cache.count_reads == 1
    room.set_teacher_state(code, key, "softmax", {"seed": "7"})
    clock.advance(0.5)
    assert poll_from_threads(cache, code) == [1] * 100  # within the interval: from memory
    assert cache.count_reads == 1
    clock.advance(0.5)
    assert poll_from_threads(cache, code) == [2] * 100  # the change, read once
    assert cache.count_reads == 2
    assert cache.state(code.lower()).values == {"seed": "7"}


def test_a_refusal_is_cached_too(room, clock):
    code, key = room.start_class()
    cache = ClassCache(room.teacher_state, interval=1.0, clock=clock)
    room.end_class(code, key)
    assert poll_from_threads(cache, code, 20) == ["ended"] * 20
    assert cache.count_reads == 1
    with pytest.raises(ClassError) as caught:
        cache.state("KX0OTZ")  # malformed: refused before any read
    assert caught.value.code == "look_alike" and cache.count_reads == 1


def test_the_cache_keeps_at_most_max_codes(room, clock):
    started = [room.start_class()[0] for _ in range(5)]
    cache = ClassCache(room.teacher_state, interval=1.0, max_codes=3, clock=clock)
    for code in started:
        cache.state(code)
    assert len(cache) == 3 and cache.count_reads == 5
    cache.state(started[-1])  # kept: no read
    assert cache.count_reads == 5
    cache.state(started[0])  # dropped first: read again
    assert cache.count_reads == 6 and len(cache) == 3


def test_without_a_server_the_watcher_has_no_session_to_wake() -> None:
    # a poll run by AppTest registers its session with the process's watcher; a later change
    # then finds no Streamlit runtime: nothing to wake, and nothing raised in the watcher
    from streamlit.runtime import Runtime

    from ui.classroom import push

    assert not Runtime.exists()
    assert push._wake("ABCDEF", {"a-session"}) is None


def test_a_screen_change_wakes_only_the_students_that_follow_it(monkeypatch) -> None:
    # (the teacher's screen, the rest): "a" follows the screen, "b" explores on their own
    from ui.classroom import push

    def woken(now: push.Shown) -> set[str]:
        monkeypatch.setattr(push, "_sessions", {})
        for session, screen in (("a", True), ("b", False)):
            push.register("ABCDEF", session, push.Follower(screen, (3, (None, None))))
        return push.look(lambda code: now).get("ABCDEF", set())

    assert woken((4, (None, None))) == {"a"}
    # a question opened, or the class ended: every student sees it, the explorer too
    assert woken((3, (None, (1, 1, False)))) == {"a", "b"}
    assert woken((None, ("ended", None))) == {"a", "b"}
    assert woken((3, (None, None))) == set()


def test_a_student_whose_run_read_the_screen_before_it_changed_is_woken(monkeypatch) -> None:
    """The class's first student read screen 3; the teacher's screen is 4 at the watcher's first
    look: the student is woken (once) for it, and a student who joins at 4 is not."""
    from ui.classroom import push

    monkeypatch.setattr(push, "_sessions", {})
    screen = [4]
    shown = lambda code: (screen[0], (None, None))  # noqa: E731
    push.register("ABCDEF", "early", push.Follower(True, (3, (None, None))))
    push.register("ABCDEF", "late", push.Follower(True, (4, (None, None))))
    assert push.look(shown) == {"ABCDEF": {"early"}}
    assert push.look(shown) == {}  # woken for 4: not again while its run shows it
    screen[0] = 5
    assert push.look(shown) == {"ABCDEF": {"early", "late"}}
    # a store that fails to answer for one class leaves the others watched
    push.register("GHJKLM", "other", push.Follower(True, (1, (None, None))))
    failing = lambda code: shown(code) if code == "ABCDEF" else 1 / 0  # noqa: E731
    screen[0] = 6
    assert push.look(failing) == {"ABCDEF": {"early", "late"}}
