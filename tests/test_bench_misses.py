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
