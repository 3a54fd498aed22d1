"""The app's one cache of computed labs: shared between reruns, and read-only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm
from llm import engine
from llm.compare import HEAD_QUANTITIES, QUANTITIES, head_differences, run
from ui.lab.compute import (
    Setting,
    compare_lab,
    compute_lab,
    frozen,
    head_agreement,
    layer_norm_agreement,
)


def test_a_setting_is_computed_once_and_shared_read_only() -> None:
    first = compute_lab(Setting("the cat sat on mat", 8, 4, 7, True, "seeded"))
    again = compute_lab(Setting("the cat sat on mat", 8, 4, 7, True, "seeded"))
    assert again is first  # the same object: no copy per rerun
    arrays = [first.x, first.params.W_Q, first.params.W_O, first.trace.concat, first.trace.mask]
    arrays += [getattr(first.trace.heads[2], f.name) for f in dataclasses.fields(llm.HeadTrace)]
    for array in arrays:
        assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        first.trace.heads[0].pattern[0, 0] = 0.5
    # the numbers are the engine's on the same setting
    cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=7)
    x = llm.embed(llm.tokenize("the cat sat on mat"), cfg)
    trace = llm.multi_head_attention(x, llm.init_params(cfg))
    np.testing.assert_array_equal(first.trace.attn_out, trace.attn_out)
    assert compute_lab(Setting("the cat sat on mat", 8, 4, 8, True, "seeded")) is not first
    # the defaults spelled out or left out: one setting, one lab
    assert compute_lab(Setting("the cat sat on mat", 8, 4, 7, True, "seeded"), 1.0, True) is first
    assert (
        compute_lab(Setting("the cat sat on mat", 8, 4, 7, True, "seeded"), temperature=1) is first
    )
    cold = compute_lab(Setting("the cat sat on mat", 8, 4, 7, True, "seeded"), 0.5)
    assert cold is not first and cold.trace.temperature == 0.5


def test_page_8_comparison_is_shared_read_only() -> None:
    readable, engine_out, differences = compare_lab(Setting("a b c", 4, 2, 1, True, "seeded"), 1e-5)
    assert compare_lab(Setting("a b c", 4, 2, 1, True, "seeded"), 1e-5)[1] is engine_out
    assert not any(pattern.flags.writeable for pattern in engine_out["pattern"])
    assert not engine_out["ln_out"].flags.writeable
    assert max(differences.values()) < 1e-12
    assert set(readable) == {"pattern", "ln_out"}  # what the page prints, not the whole run
    assert isinstance(readable["ln_out"], list)
    assert isinstance(readable["ln_out"][0][0], float)  # plain Python numbers, not numpy's


@pytest.mark.parametrize("causal", [True, False])
def test_page_8_engine_side_is_the_labs_own_trace(causal: bool) -> None:
    lab = compute_lab(Setting("the cat sat on the mat", 8, 2, 5, causal, "seeded"))
    _, engine_out, _ = compare_lab(
        Setting("the cat sat on the mat", 8, 2, 5, causal, "seeded"), 1e-3
    )
    assert engine_out["concat"] is lab.trace.concat  # not a second run of the engine
    fresh = run(engine, np.array(lab.x), lab.params, causal, 1e-3)
    for name in QUANTITIES:  # the very numbers a separate engine run gives, eps included
        np.testing.assert_array_equal(engine_out[name], fresh[name], err_msg=name)


@pytest.mark.parametrize("causal", [True, False])
def test_pages_agreement_is_the_readable_code_against_the_labs_numbers(causal: bool) -> None:
    setting = Setting("the cat sat on the mat", 8, 4, 5, causal, "seeded")
    lab = compute_lab(setting)
    _, _, page_8 = compare_lab(setting, 1e-3)
    for h in range(4):
        one_head = head_agreement(setting, h)
        assert list(one_head) == list(HEAD_QUANTITIES)
        assert 0.0 <= max(one_head.values()) < 1e-12
    # a planted difference in the engine's numbers is what the pages would report
    planted = dataclasses.replace(lab.trace.heads[1], pattern=lab.trace.heads[1].pattern + 1e-9)
    trace = dataclasses.replace(lab.trace, heads=(lab.trace.heads[0], planted))
    off = head_differences(lab.x, lab.params, trace, 1)
    assert off["pattern"] == pytest.approx(1e-9, rel=1e-3) and off["z"] < 1e-12
    ln = layer_norm_agreement(setting, 1e-3)
    assert list(ln) == ["resid", "ln_out"] and max(ln.values()) < 1e-12
    assert ln["resid"] == 0.0  # x + attn_out: one addition per entry, the same in both
    assert page_8["resid"] <= 1e-12


def test_frozen_reaches_arrays_inside_containers() -> None:
    @dataclasses.dataclass
    class Box:
        inside: tuple

    a, b, c = np.zeros(2), np.ones(3), np.eye(2)
    value = Box(inside=(a, (b,), {"c": c}))
    assert frozen(value) is value
    assert not any(m.flags.writeable for m in (a, b, c))


def test_cache_keys_are_the_frozen_dataclasses_and_every_field_reaches_them() -> None:
    """KEYS keys a cache by a dataclass's repr: only frozen dataclasses (a key that cannot
    change after it was taken), and every field reaches the key."""
    from ui.draw.style import FittedLook, Look
    from ui.lab.compute import KEYS

    assert set(KEYS) == {Setting, Look, FittedLook}
    for cls in KEYS:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls
    base = Setting("the cat sat on mat", 8, 4, 7, True, "seeded")
    moved = [
        dataclasses.replace(base, **{f.name: v})
        for f, v in zip(
            dataclasses.fields(Setting), ("the cat", 16, 2, 8, False, "sinusoidal"), strict=True
        )
    ]
    assert len({repr(s) for s in [base, *moved]}) == 1 + len(moved)
    looks = [Look(), Look("fr"), Look(phone=True), Look(scale=1.5), FittedLook(cell_px=20)]
    assert len({repr(look) for look in looks}) == len(looks)
