"""The shared store: entries weighed, bounded per function and in bytes, keyed by name."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ui.draw.wire import fast_figure, keep
from ui.lab.compute import Setting, compute_lab
from ui.lab.shared_cache import Store, cached, weight


def test_an_array_weighs_its_bytes_and_a_view_its_base_once() -> None:
    a = np.zeros((100, 100))  # 80 000 bytes
    assert 80_000 <= weight(a) <= 80_200
    # two views of one array: the base once, not the views' bytes
    assert weight((a[:10], a[10:])) - weight(a) < 1_000
    assert weight((a, a)) - weight(a) < 200  # the same object twice counts once
    assert weight((a, a.copy())) >= 160_000


def test_text_and_numbers_weigh_what_python_holds() -> None:
    words = ["word" * 25] * 1 + [f"w{i}" for i in range(1000)]
    assert weight(words) == sys.getsizeof(words) + sum(map(sys.getsizeof, words))
    nested = {"a": [1.5] * 10, "b": ("x" * 1000,)}
    assert weight(nested) >= 1000 + 10 * sys.getsizeof(1.5)


def test_a_kept_figure_weighs_three_times_its_wire_text_and_is_not_walked() -> None:
    z = np.arange(32 * 32, dtype=float).reshape(32, 32)
    text = [[f"{v:.2f}" for v in row] for row in z]
    fig = keep(fast_figure([{"type": "heatmap", "z": z, "text": text}], {"width": 400}))
    wire_text = fig["data"].wired_bytes + fig["layout"].wired_bytes
    assert fig["data"].wired_bytes > 8 * 32 * 32  # z's 8 bytes a cell, in base64, and the text
    assert weight(fig) == sys.getsizeof(fig) + 3 * wire_text


def test_the_store_drops_the_entries_read_longest_ago_past_its_budget() -> None:
    store = Store(budget=250_000)
    blob = lambda: np.zeros(10_000)  # noqa: E731  about 80 kB each
    for i in range(3):
        store.put(("f", i), blob(), limit=10)
    assert store.entries() == 3
    assert store.get(("f", 0))[0]  # read: now the newest
    store.put(("f", 3), blob(), limit=10)  # over budget: ("f", 1) goes, not ("f", 0)
    assert [store.get(("f", i))[0] for i in range(4)] == [True, False, True, True]
    assert store.total <= store.budget
    store.put(("g", 0), np.zeros(100_000), limit=10)  # alone heavier than the budget: it stays
    assert store.entries() == 1 and store.get(("g", 0))[0]
    store.clear()
    assert store.entries() == 0 and store.total == 0


def test_the_store_keeps_at_most_limit_entries_of_one_function() -> None:
    store = Store(budget=10**9)
    for i in range(5):
        store.put(("f", i), i, limit=3)
        store.put(("g", i), i, limit=10)
    assert store.entries("f") == 3 and store.entries("g") == 5
    assert [store.get(("f", i))[0] for i in range(5)] == [False, False, True, True, True]
    store.put(("f", 4), "again", limit=3)  # the same key again replaces, counts once
    assert store.entries("f") == 3 and store.get(("f", 4)) == (True, "again")


def test_a_call_finds_its_entry_whatever_way_it_spells_its_arguments() -> None:
    store = Store(budget=10**9)
    calls = []

    @cached(8, {Setting: repr}, store)
    def f(setting: Setting, scale: float = 1.0, **style: object) -> tuple:
        calls.append(1)
        return (setting.seed, scale, style)

    s = Setting("the cat", 8, 4, 1, True)
    first = f(s)
    assert f(s, 1.0) is first and f(setting=s, scale=1.0) is first
    assert f(Setting("the cat", 8, 4, 1, True)) is first  # an equal setting, another object
    assert len(calls) == 1
    assert f(s, 2.0) is not first and len(calls) == 2
    styled = f(s, digits=2, bar=False)
    assert f(s, bar=False, digits=2) is styled and len(calls) == 3
    assert f(s, digits=3, bar=False) is not styled
    with pytest.raises(TypeError):  # an array is never a key
        f(s, data=np.zeros(3))


def test_the_lab_is_one_object_for_every_caller() -> None:
    s = Setting("the cat sat", 8, 2, 123_457, True)
    assert compute_lab(s) is compute_lab(s, 1.0, True)
    assert compute_lab(s) is not compute_lab(s, 2.0, True)
