"""The head view's lines are the pattern, and the followed token's outline sits on its row."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

import llm
from ui import wire
from ui.follow import followed_rows, outline_row
from ui.headview import FOLLOWED_WIDTH, LEVELS, LINE_WIDTH, head_colour, head_view, lines_of
from ui.heatmaps import heatmap


def _trace(causal: bool, text: str = "the cat sat on the mat", n_heads: int = 4) -> tuple:
    cfg = llm.AttentionConfig(d_model=8, n_heads=n_heads, seed=3)
    tokens = llm.tokenize(text)
    trace = llm.multi_head_attention(llm.embed(tokens, cfg), llm.init_params(cfg), causal)
    return trace, llm.token_labels(tokens)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("heads", [[0], [1, 3], [0, 1, 2, 3]])
def test_one_line_per_unmasked_pair_its_opacity_the_probability(causal: bool, heads) -> None:
    trace, labels = _trace(causal)
    patterns = [head.pattern for head in trace.heads]
    lines = lines_of(head_view(patterns, trace.mask, labels, heads))
    t = len(labels)
    pairs = t * (t + 1) // 2 if causal else t * t
    assert len(lines) == pairs * len(heads)
    seen = set()
    for line in lines:
        i, j = int(line["y0"]), int(line["y1"])
        assert (line["x0"], line["x1"]) == (0, 1)  # query on the left, key on the right
        assert (line["query"], line["key"]) == (i, j)  # the pair it carries is the one drawn
        assert trace.mask[i, j], "a masked pair has no line"
        (h,) = [h for h in heads if line["line"]["color"] == head_colour(h)]
        assert line["opacity"] == trace.heads[h].pattern[i, j]  # exactly, not rounded
        # drawn at the probability to the nearest tenth
        assert line["drawn"] == round(trace.heads[h].pattern[i, j] * LEVELS) / LEVELS
        assert abs(line["drawn"] - line["opacity"]) <= 0.5 / LEVELS + 1e-12
        seen.add((h, i, j))
    assert len(seen) == len(lines)  # no pair drawn twice
    # every head's lines from query i carry its whole row: opacities sum to 1
    for h in heads:
        for i in range(t):
            colour = head_colour(h)
            row = [ln["opacity"] for ln in lines if ln["y0"] == i and ln["line"]["color"] == colour]
            assert sum(row) == pytest.approx(1.0, abs=1e-12)


def test_followed_token_lines_are_thicker_and_labels_stay_text() -> None:
    trace, labels = _trace(True, "a < b & c")
    assert labels == ["a", "<", "b", "&", "c"]
    fig = head_view([h.pattern for h in trace.heads], trace.mask, labels, [2], followed=3)
    for line in lines_of(fig):
        assert line["line"]["width"] == (FOLLOWED_WIDTH if line["y0"] == 3 else LINE_WIDTH)
    left, right = [d for d in fig["data"] if d["mode"] == "text"]
    assert left["text"][1] == "&lt;" and left["text"][3] == "<b>&amp;</b>"  # shown, not markup
    assert right["text"] == left["text"]
    legend = [d for d in fig["data"] if d.get("showlegend", True)]
    assert [d["name"] for d in legend] == ["h2"]  # one legend entry per head drawn
    # the entry shows or hides the head's lines: one legend group
    assert {d["legendgroup"] for d in fig["data"] if d["mode"] == "lines"} == {"2"}


def test_lines_are_a_few_traces_per_head_and_read_back_from_the_sent_json() -> None:
    """One line trace per head, width and drawn opacity (at most 2 × 11 a head), not a shape
    per pair; the lines read back from the JSON a browser gets are the same."""
    trace, labels = _trace(False, "the cat sat on the mat and the dog lay by the door")
    patterns = [h.pattern for h in trace.heads]
    fig = head_view(patterns, trace.mask, labels, [0, 2], followed=4)
    line_traces = [d for d in fig["data"] if d["mode"] == "lines" and d.get("customdata")]
    assert 2 <= len(line_traces) <= 2 * 2 * (LEVELS + 1)
    assert "shapes" not in fig["layout"]
    sent = json.loads(pio.to_json(wire._Sendable(fig).to_dict(), validate=False))
    assert lines_of(sent) == lines_of(fig)
    assert len(lines_of(fig)) == 2 * len(labels) ** 2


def test_one_token_and_distinct_colours() -> None:
    trace, labels = _trace(True, "cat", n_heads=1)
    (line,) = lines_of(head_view([trace.heads[0].pattern], trace.mask, labels, [0]))
    assert line["opacity"] == 1.0
    assert len({head_colour(h) for h in range(10)}) == 10


@pytest.mark.parametrize("plots", [1, 4])
def test_outline_sits_on_the_followed_row_of_every_plot(plots: int) -> None:
    trace, labels = _trace(True)
    base = heatmap(trace.heads[0].pattern, labels, labels)
    fig = outline_row(base, 2, plots=plots)
    assert followed_rows(base) == []  # the figure it starts from is left as it was
    assert fig["data"] is base["data"]  # the same traces, not a copy
    rows = followed_rows(fig)
    assert rows == [("y" if k == 0 else f"y{k + 1}", 2.0) for k in range(plots)]
    assert np.array_equal(
        fig["data"][0]["z"][np.tril_indices(6)], trace.heads[0].pattern[np.tril_indices(6)]
    )
