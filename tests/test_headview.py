"""The head view's lines are the pattern, and the followed token's outline sits on its row."""

from __future__ import annotations

from xml.etree import ElementTree

import numpy as np
import pytest

import llm
from ui.draw.headview import (
    FOLLOWED_WIDTH,
    LINE_WIDTH,
    PRESENT_WIDTH_PER_P,
    head_colour,
    head_view,
    lines_of,
)
from ui.draw.heatmaps import heatmap
from ui.frame.follow import followed_rows, outline_row


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
        assert line["head"] == h
        assert line["opacity"] == trace.heads[h].pattern[i, j]  # exactly, not rounded
        # drawn at the probability, to four decimals
        assert line["drawn"] == pytest.approx(line["opacity"], abs=5e-5)
        seen.add((h, i, j))
    assert len(seen) == len(lines)  # no pair drawn twice
    # every head's lines from query i carry its whole row: opacities sum to 1
    for h in heads:
        for i in range(t):
            colour = head_colour(h)
            row = [ln["opacity"] for ln in lines if ln["y0"] == i and ln["line"]["color"] == colour]
            assert sum(row) == pytest.approx(1.0, abs=1e-12)


SVG = "{http://www.w3.org/2000/svg}"


def _texts(view: str) -> list[str]:
    return ["".join(e.itertext()) for e in ElementTree.fromstring(view).iter(f"{SVG}text")]


def test_followed_token_lines_are_thicker_and_labels_stay_text() -> None:
    trace, labels = _trace(True, "a < b & c")
    assert labels == ["a", "<", "b", "&", "c"]
    view = head_view([h.pattern for h in trace.heads], trace.mask, labels, [2], followed=3)
    lines = lines_of(view)
    for line in lines:
        assert line["line"]["width"] == (FOLLOWED_WIDTH if line["y0"] == 3 else LINE_WIDTH)
    # the followed token's lines come last: drawn over the others
    assert [ln["y0"] == 3 for ln in lines] == sorted(ln["y0"] == 3 for ln in lines)
    assert "&lt;" in view and "&amp;" in view and "<b" not in view  # shown, not markup
    root = ElementTree.fromstring(view)  # well-formed: the tokens did not break it
    texts = _texts(view)
    assert texts[:10] == labels + labels  # the query column, then the key column
    bold = [e for e in root.iter(f"{SVG}text") if e.get("font-weight") == "700"]
    assert ["".join(e.itertext()) for e in bold] == ["&", "&"]
    assert texts[-1] == "h2"  # one legend entry per head drawn, after the two column titles
    assert texts[-3:-1] == ["query", "key"]


def test_markup_in_a_token_is_text_in_the_drawing() -> None:
    """Whatever a sentence holds, the drawing stays one SVG whose texts are the tokens."""
    labels = ['<script>alert("x")</script>', "a'b", '"q"']
    mask = np.tril(np.ones((3, 3), dtype=bool))
    pattern = np.where(mask, 1.0, 0.0) / mask.sum(axis=1, keepdims=True)
    view = head_view([pattern], mask, labels, [0], head_names=["<i>h</i>"])
    root = ElementTree.fromstring(view)
    assert [e.tag for e in root.iter()].count(f"{SVG}script") == 0
    assert "<script" not in view and "<i>" not in view
    assert _texts(view)[:3] == labels and _texts(view)[-1] == "<i>h</i>"


def test_rows_and_width_grow_with_the_scale_and_the_legend_wraps() -> None:
    trace, labels = _trace(False, "the cat sat on the mat and the dog lay by the door")
    patterns = [h.pattern for h in trace.heads]
    small = ElementTree.fromstring(head_view(patterns, trace.mask, labels, [0]))
    large = ElementTree.fromstring(head_view(patterns, trace.mask, labels, [0], scale=1.25))
    assert float(large.get("data-row")) == pytest.approx(1.25 * float(small.get("data-row")), 0.05)
    assert int(large.get("width")) > int(small.get("width"))
    assert int(large.get("font-size")) == 16 and int(small.get("font-size")) == 13
    # sixteen heads' legend entries wrap into rows no wider than the drawing
    cfg = llm.AttentionConfig(d_model=16, n_heads=16, seed=1)
    many = llm.multi_head_attention(
        llm.embed(llm.tokenize("a b c"), cfg), llm.init_params(cfg), True
    )
    names = [f"head {h}" for h in range(16)]
    view = head_view(
        [h.pattern for h in many.heads], many.mask, ["a", "b", "c"], range(16), head_names=names
    )
    root = ElementTree.fromstring(view)
    width = int(root.get("width"))
    swatches = [e for e in root.iter(f"{SVG}line") if e.get("data-p") is None]
    assert len(swatches) == 16
    assert len({e.get("y1") for e in swatches}) > 1  # more than one row
    assert all(0 <= float(e.get("x1")) < float(e.get("x2")) <= width for e in swatches)
    assert len(lines_of(view)) == 16 * 6


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


def _hand_made() -> tuple[list[np.ndarray], np.ndarray]:
    """Three heads' patterns over four tokens, causal: row i of head 0 is 1..i+1 over their sum."""
    mask = np.tril(np.ones((4, 4), dtype=bool))
    base = np.tril(np.arange(1, 17, dtype=float).reshape(4, 4))
    pattern = base / base.sum(axis=1, keepdims=True)
    return [pattern, pattern[:, ::-1] * mask, pattern], mask


def test_outside_presenter_mode_a_line_has_only_its_groups_width() -> None:
    """On a screen the width is the group's (2 px, the followed token's 5 px): no line carries
    its own, whatever is followed, named or scaled."""
    patterns, mask = _hand_made()
    options = [{}, {"followed": 2}, {"followed": 1, "head_names": ["a", "b", "c"], "scale": 1.25}]
    for kw in options:
        view = head_view(patterns, mask, ["a", "b", "c", "d"], [0, 2], **kw)
        root = ElementTree.fromstring(view)
        svg = "{http://www.w3.org/2000/svg}"
        heads = [g for g in root.iter(f"{svg}g") if g.get("data-head") is not None]
        drawn = [e for g in heads for e in g.iter(f"{svg}line")]
        assert len(drawn) == 2 * 10 and all(e.get("stroke-width") is None for e in drawn)
        widths = {ln["query"]: ln["line"]["width"] for ln in lines_of(view)}
        floor = {q: FOLLOWED_WIDTH if q == kw.get("followed") else LINE_WIDTH for q in widths}
        assert widths == floor


def test_in_presenter_mode_a_lines_width_follows_its_probability_above_a_floor() -> None:
    patterns, mask = _hand_made()
    view = head_view(patterns, mask, list("abcd"), [0, 1], followed=2, scale=1.25, present=True)
    lines = lines_of(view)
    assert len(lines) == 2 * 10  # every pair the mask lets through, each head
    for line in lines:
        floor = FOLLOWED_WIDTH if line["query"] == 2 else LINE_WIDTH
        assert line["line"]["width"] >= floor
        # floor + k·p, to the two decimals it is written with
        expected = floor + PRESENT_WIDTH_PER_P * line["opacity"]
        assert line["line"]["width"] == pytest.approx(expected, abs=0.005)
        assert line["drawn"] == pytest.approx(line["opacity"], abs=5e-5)  # opacity still p
    plain = [ln for ln in lines if ln["query"] != 2]
    strongest = max(plain, key=lambda ln: ln["opacity"])
    weakest = min(plain, key=lambda ln: ln["opacity"])
    # row 0 sees only itself (p = 1): 2 + 8 = 10 px; head 1's reversed rows put p = 0 on some
    # pairs the mask lets through: drawn at the floor, 2 px, never thinner
    assert strongest["line"]["width"] == pytest.approx(10.0)
    assert weakest["opacity"] == 0.0 and weakest["line"]["width"] == LINE_WIDTH
    assert min(ln["line"]["width"] for ln in lines) >= LINE_WIDTH


def test_the_drawing_is_an_image_named_by_its_strongest_lines() -> None:
    """Its accessible name: the heads drawn and each query's strongest line over them, written
    in the page's language, escaped where a token holds markup."""
    patterns, mask = _hand_made()
    root = ElementTree.fromstring(head_view(patterns, mask, list("abcd"), [0, 2]))
    assert root.get("role") == "img"
    # heads 0 and 2 share their pattern: each row's largest probability is its last key's
    assert root.get("aria-label") == (
        "Head view, heads 0, 2: each query's lines to the keys it may see, as opaque as their "
        "probability; each query's strongest line: a → a (1.00, head 0), b → b (0.55, head 0), "
        "c → c (0.37, head 0), d → d (0.28, head 0)."
    )
    fr = ElementTree.fromstring(head_view(patterns, mask, list("abcd"), [1], lang="fr"))
    assert fr.get("aria-label").endswith("b → a (0,00) ; c → b (0,37) ; d → a (0,28).")
    labels = ['<script>alert("x")</script>', "a'b", '"q"']
    one = np.tril(np.ones((3, 3), dtype=bool))
    view = head_view([one / one.sum(axis=1, keepdims=True)], one, labels, [0])
    assert "<script" not in view
    label = ElementTree.fromstring(view).get("aria-label")
    assert f"{labels[0]} → {labels[0]} (1.00)" in label  # the token as written, once parsed
