"""A benchmark's cache miss moves what the page shows: the seed where the page shows it, the
training step on /learned, whose sidebar keeps the seed hidden (it reads its own model)."""

from __future__ import annotations

import llm
from bench.common import has_control
from bench.pages import miss_values, move_miss
from tests.apptest_pages import open_link


def test_a_hidden_seed_is_no_control_of_the_page_and_a_miss_moves_the_step() -> None:
    learned = open_link("../pages/10_learned.py")
    assert [w.key for w in learned.number_input] == ["seed"]  # drawn, hidden by the page's style
    assert not has_control(learned, "seed")
    steps = llm.load_model().steps
    assert miss_values("learned", 3, seed=77) == {"step": steps[3]}
    move_miss(learned, "learned", 3, seed=77)
    learned.run()
    assert learned.select_slider(key="step").value == steps[3]
    assert learned.number_input(key="seed").value == 0

    qkv = open_link("../pages/1_qkv.py")
    assert has_control(qkv, "seed")
    assert miss_values("qkv", 3, seed=77) == {"seed": 77}
    move_miss(qkv, "qkv", 3, seed=77)
    qkv.run()
    assert qkv.number_input(key="seed").value == 77


def test_pages_measured_in_turns_each_get_their_hits_and_misses() -> None:
    """``bench.pages`` reruns the pages in turns, in blocks: every page gets its count of each
    mode, a hit computes no sublayer, each miss (a new seed) one."""
    from pathlib import Path

    from bench.pages import _apptest_turns, timed_apptest

    pages = Path(__file__).resolve().parents[1] / "pages"
    runs = [(pages / "2_scores.py", "chapter9", 7_000), (pages / "1_qkv.py", "chapter9", 8_000)]
    with timed_apptest() as runner:
        rows = _apptest_turns(runs, 5, runner, rounds=2)
    assert [r["page"] for r in rows] == ["scores", "qkv"]
    for row in rows:
        assert row["errors"] == []
        assert row["hit"]["script_ms"]["n"] == row["miss"]["script_ms"]["n"] == 5
        assert row["hit"]["sublayers_computed"] == 0
        assert row["miss"]["sublayers_computed"] == 5
