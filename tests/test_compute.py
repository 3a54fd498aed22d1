"""The app's one cache of computed labs: shared between reruns, and read-only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import llm
from llm.compare import QUANTITIES, engine_run
from ui.compute import compare_lab, compute_lab, frozen


def test_a_setting_is_computed_once_and_shared_read_only() -> None:
    first = compute_lab("the cat sat on mat", 8, 4, 7, True, "seeded")
    again = compute_lab("the cat sat on mat", 8, 4, 7, True, "seeded")
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
    assert compute_lab("the cat sat on mat", 8, 4, 8, True, "seeded") is not first


def test_page_8_comparison_is_shared_read_only() -> None:
    readable, engine_out, differences = compare_lab("a b c", 4, 2, 1, True, "seeded", 1e-5)
    assert compare_lab("a b c", 4, 2, 1, True, "seeded", 1e-5)[1] is engine_out
    assert not engine_out["pattern"].flags.writeable
    assert max(differences.values()) < 1e-12
    assert isinstance(readable["ln_out"], list)


@pytest.mark.parametrize("causal", [True, False])
def test_page_8_engine_side_is_the_labs_own_trace(causal: bool) -> None:
    lab = compute_lab("the cat sat on the mat", 8, 2, 5, causal, "seeded")
    _, engine_out, _ = compare_lab("the cat sat on the mat", 8, 2, 5, causal, "seeded", 1e-3)
    assert engine_out["concat"] is lab.trace.concat  # not a second run of the engine
    fresh = engine_run(np.array(lab.x), lab.params, causal, 1e-3)
    for name in QUANTITIES:  # the very numbers a separate engine run gives, eps included
        np.testing.assert_array_equal(engine_out[name], fresh[name], err_msg=name)


def test_frozen_reaches_arrays_inside_containers() -> None:
    @dataclasses.dataclass
    class Box:
        inside: tuple

    a, b, c = np.zeros(2), np.ones(3), np.eye(2)
    value = Box(inside=(a, (b,), {"c": c}))
    assert frozen(value) is value
    assert not any(m.flags.writeable for m in (a, b, c))
