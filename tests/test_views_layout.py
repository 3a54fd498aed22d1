"""Figure layout: margins that hold the labels, and a grid of plots that never overlap.

The browser test ``test_every_chart_is_drawn_once_in_the_margins_it_asks_for`` checks the
margins against what chromium draws; these tests check the arithmetic behind them.
"""

from __future__ import annotations

import itertools
import json
import math
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.test_views_fast import figures
from ui.draw import grid_plan, grids, heatmaps, labels, style

TOKENS = ["the", "cat", "sat", "on", "mat"]


@pytest.mark.parametrize("name", list(figures()))
def test_every_figure_is_valid_for_plotly(name: str) -> None:
    """plotly's own validation accepts every property these dicts use, the chart style's too
    (a typo would raise)."""
    spec = figures()[name]
    go.Figure(data=spec["data"], layout=style.styled(spec["layout"]))


def test_label_width_grows_with_the_text_and_its_letters() -> None:
    assert labels.label_px("") == 0
    assert labels.label_px("mat") < labels.label_px("matter") < labels.label_px("mattering")
    # same length, wider letters: m and W are the widest of the font, i and l the narrowest
    assert labels.label_px("iii") < labels.label_px("aaa") < labels.label_px("mmm")
    assert labels.label_px("猫猫") > labels.label_px("ab")  # full-width characters
    assert labels.label_px("m" * 10) == pytest.approx(110.0)  # 10 px a letter, 10 % spare


def test_margins_hold_the_widest_label() -> None:
    short = labels.axis_margins(TOKENS, ["f0", "f1"], 0)
    long = labels.axis_margins([*TOKENS, "antidisestablishment"], ["f0", "f1"], 0)
    assert long["l"] - short["l"] == pytest.approx(
        labels.label_px("antidisestablishment") - labels.label_px("mat"), abs=1
    )
    # level x labels take one line whatever their length; slanted ones take more as they grow
    assert labels.axis_margins(TOKENS, ["a" * 12], 0)["b"] == short["b"]
    slanted = labels.axis_margins(TOKENS, ["a" * 12], -60)["b"]
    assert slanted > short["b"]
    assert slanted == math.ceil(74 + math.sin(math.radians(60)) * labels.label_px("a" * 12))
    assert labels.axis_margins(TOKENS, TOKENS, 0, colour_bar=True)["r"] > short["r"]


def plot_boxes(spec: dict) -> list[tuple[float, float, float, float]]:
    """Each plot's (x0, x1, y0, y1) in the figure's paper coordinates, trace order."""
    layout = spec["layout"]
    boxes = []
    for trace in spec["data"]:
        x = layout["xaxis" + trace["xaxis"][1:]]["domain"]
        y = layout["yaxis" + trace["yaxis"][1:]]["domain"]
        boxes.append((x[0], x[1], y[0], y[1]))
    return boxes


def test_cells_keep_their_size_at_the_chapters_sizes_and_shrink_beyond() -> None:
    """Square cells of 40 px with 13 px numbers up to 16 rows or columns (28 and 11 on a
    phone, 50 and 16 at a projector's 1.25); beyond, smaller cells without numbers, never under
    the 14 px a 12 px label needs."""
    assert style.Look().cells(5) == (40, 13) and style.Look().cells(16) == (40, 13)
    assert style.Look(phone=True).cells(8) == (28, 11)
    assert style.Look(scale=1.25).cells(8) == (50, 16)
    # presenter mode: projector-sized cells and numbers, 16 px at 1280 × 720
    present = SimpleNamespace(lang="fr", phone=False, present=True)
    assert style.Look.of(present) == style.Look("fr", False, style.PRESENT_SCALE)
    assert style.Look.of(present).cells(8) == (50, 16)
    assert [style.Look().cells(n) for n in (17, 26, 27, 32, 45, 64)] == [
        (24, 0),
        (24, 0),
        (23, 0),  # 640 // 27
        (20, 0),
        (14, 0),
        (14, 0),
    ]


def test_a_heatmap_is_as_large_as_its_cells_and_their_labels() -> None:
    m = np.zeros((5, 8))
    cols = [f"f{i}" for i in range(8)]
    spec = heatmaps.heatmap(m, TOKENS, cols, title="X", signed=True, x_title="f", y_title="t")
    layout, (trace,) = spec["layout"], spec["data"]
    margin = layout["margin"]
    assert margin == {**labels.axis_margins(TOKENS, cols, 0, colour_bar=True), "t": 40}
    assert layout["width"] == margin["l"] + 8 * 40 + margin["r"] == 87 + 320 + 62
    assert layout["height"] == 40 + 5 * 40 + margin["b"] == 40 + 200 + 76
    assert layout["yaxis"]["domain"] == [0.0, 1.0] and trace["textfont"]["size"] == 13
    phone = heatmaps.heatmap(m, TOKENS, cols, look=style.Look(phone=True))["layout"]
    assert phone["width"] - phone["margin"]["l"] - phone["margin"]["r"] == 8 * 28
    # 32 tokens × 64 features: 14 px cells, upright labels, no numbers
    big = heatmaps.heatmap(
        np.zeros((32, 64)), [f"w{i}" for i in range(32)], [f"f{i}" for i in range(64)]
    )
    assert (
        big["layout"]["width"] - big["layout"]["margin"]["l"] - big["layout"]["margin"]["r"]
        == 64 * 14
    )
    assert big["layout"]["xaxis"]["tickangle"] == -90 and "text" not in big["data"][0]


def test_a_cell_is_as_wide_as_its_widest_number() -> None:
    # −10.59 at 11 px: 0.46 + 4 × 0.495 + 0.31 = 2.75 em = 30.25 px, rounded up, and 3 px room
    assert labels.number_cell(["\u221210.59", "4.44"], 11) == 31 + 3
    assert labels.number_cell(["\u221210.59"], 13) == 36 + 3  # 35.75 px: a desktop's 40 holds it
    assert labels.number_cell(["1,00", "×"], 11) == math.ceil(1.795 * 11) + 3 == 23
    assert labels.number_cell(["\u22121.06"], 11) == 25 + 3  # a phone's 28 holds it
    m = np.array([[15.94, -10.59], [1.59, 0.2]])
    rows = ["the", "cat"]

    def plot_width(look: style.Look) -> int:
        layout = heatmaps.heatmap(m, rows, rows, signed=True, look=look)["layout"]
        return layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]

    assert plot_width(style.Look(phone=True)) == 2 * 34  # not the phone's 28: −10.59 would spill
    assert plot_width(style.Look()) == 2 * 40  # a computer's cells hold it already
    # masked S beside S: the same cells, the masked −10.59 counted (hidden, it sizes them alike)
    hidden = np.array([[False, True], [False, False]])
    masked = heatmaps.heatmap(
        m, rows, rows, signed=True, masked=hidden, look=style.Look(phone=True)
    )
    assert masked["layout"]["width"] - sum(masked["layout"]["margin"][k] for k in "lr") == 2 * 34
    small = heatmaps.heatmap(m / 10, rows, rows, signed=True, look=style.Look(phone=True))
    assert small["layout"]["width"] - sum(small["layout"]["margin"][k] for k in "lr") == 2 * 28


def test_a_grid_s_cells_are_as_wide_as_its_widest_number() -> None:
    big = np.array([[1.5, -12.344], [np.nan, 3.0]])
    ends = heatmaps.extreme_numbers([np.where(np.isnan(big), np.inf, big), np.array([[np.nan]])])
    assert ends == ["\u221212.34", "3.00"]  # an infinite cell and an empty matrix print nothing
    phone, rows = style.Look(phone=True), ["the", "cat"]
    assert grid_plan.grid_cells(phone, rows, [rows]) == (28, 11)
    assert grid_plan.grid_cells(phone, rows, [rows], ["\u221212.34"]) == (31 + 3, 11)

    def width(m: np.ndarray) -> int:
        return grids.grid_figure([m, m], rows, [rows, rows], ["a", "b"], signed=True, look=phone)[
            "layout"
        ]["width"]

    assert width(big) - width(big / 10) == 2 * (34 - 28)  # one plot a row, two cells wide


def test_short_cells_keep_their_size_under_a_taller_colour_bar_and_title() -> None:
    """One token: the plot area is the colour bar's 100 px, the one row of cells 40 px at its
    top; a title wider than the cells takes two lines and the figure its longer line."""
    title = "Scaled scores S / √d_k = S / 1.41 for one token"
    spec = heatmaps.heatmap(np.ones((1, 1)), ["the"], ["the"], title=title)
    layout = spec["layout"]
    assert layout["yaxis"]["domain"] == [pytest.approx(1 - 40 / 100), 1.0]
    assert layout["height"] == layout["margin"]["t"] + 100 + layout["margin"]["b"]
    first, second = layout["title"]["text"].split("<br>")
    assert f"{first} {second}" == title and layout["margin"]["t"] == 40 + 18
    longer = max(labels.label_px(first), labels.label_px(second)) * 14 / 12 * 1.1
    assert layout["width"] >= longer + 12
    assert layout["coloraxis" if "coloraxis" in layout else "width"]  # drawn with its own bar
    assert spec["data"][0]["colorbar"]["len"] == 100


def plot_px(spec: dict) -> list[tuple[float, float, float, float]]:
    """Each plot's (left, right, top, bottom) in px from the figure's top left, trace order."""
    layout = spec["layout"]
    margin = layout["margin"]
    inner_w = layout["width"] - margin["l"] - margin["r"]
    inner_h = layout["height"] - margin["t"] - margin["b"]
    out = []
    for trace in spec["data"]:
        x = layout["xaxis" + trace["xaxis"][1:]]["domain"]
        y = layout["yaxis" + trace["yaxis"][1:]]["domain"]
        out.append(
            (
                margin["l"] + x[0] * inner_w,
                margin["l"] + x[1] * inner_w,
                margin["t"] + (1 - y[1]) * inner_h,
                margin["t"] + (1 - y[0]) * inner_h,
            )
        )
    return out


@pytest.mark.parametrize("n, per_row", [(1, 4), (3, 4), (4, 4), (4, 2), (6, 4), (16, 4), (5, 1)])
def test_grid_places_every_plot_apart_in_reading_order(n: int, per_row: int) -> None:
    mats = [np.full((5, 5), k, dtype=np.float64) for k in range(n)]
    spec = grids.grid_figure(
        mats,
        TOKENS,
        [TOKENS] * n,
        [f"m{k}" for k in range(n)],
        per_row=per_row,
        signed=True,
        row_px=2000,  # room for every plot of a row
    )
    boxes = plot_px(spec)
    assert len(boxes) == n
    for left, right, top, bottom in boxes:  # 5 × 5 cells of 40 px each
        assert right - left == pytest.approx(200, abs=0.01) and bottom - top == pytest.approx(
            200, abs=0.01
        )
    for a, b in itertools.combinations(boxes, 2):  # no two plots share any area
        assert a[1] <= b[0] or b[1] <= a[0] or a[3] <= b[2] or b[3] <= a[2]
    # reading order: left to right, 28 px apart, then the next row lower down
    for k, (a, b) in enumerate(itertools.pairwise(boxes), start=1):
        if k % min(per_row, n):
            assert b[0] - a[1] == pytest.approx(grids.PLOT_GAP, abs=0.01) and a[2:] == b[2:]
        else:
            assert b[2] > a[3]
    # each title right above its plot
    inner_w = (
        spec["layout"]["width"] - spec["layout"]["margin"]["l"] - spec["layout"]["margin"]["r"]
    )
    for (left, right, _, _), note in zip(boxes, spec["layout"]["annotations"]):
        centre = spec["layout"]["margin"]["l"] + note["x"] * inner_w
        assert centre == pytest.approx((left + right) / 2, abs=0.01)
    # token labels once a row, on the first plot
    layout = spec["layout"]
    shown = [layout["yaxis" + t["yaxis"][1:]]["showticklabels"] for t in spec["data"]]
    assert shown == [k % min(per_row, n) == 0 for k in range(n)]


def test_a_row_of_plots_holds_as_many_as_fit_its_width() -> None:
    """Four heads of 5 tokens: 200 px plots, 28 px apart, between the token labels (87 px) and
    the colour bar (62 px): three fit 820 px (87 + 3 × 200 + 2 × 28 + 62 = 805), four do not."""
    mats = [np.zeros((5, 5))] * 4
    spec = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"))
    assert spec["layout"]["width"] == 805 <= grids.ROW_PX
    assert [t["yaxis"] for t in spec["data"]] == ["y", "y2", "y3", "y4"]
    shown = [spec["layout"][f"yaxis{k}"]["showticklabels"] for k in ("", "2", "3", "4")]
    assert shown == [True, False, False, True]  # the second row starts with the labels
    wide = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), row_px=1033)
    assert wide["layout"]["width"] == 87 + 4 * 200 + 3 * 28 + 62
    phone = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), look=style.Look(phone=True))
    assert phone["layout"]["width"] == 87 + 5 * 28 + 16  # one a row, the colour bar above


def test_a_grid_wider_than_the_narrowest_column_comes_in_pieces_that_wrap() -> None:
    """Four 5 × 8 matrices with numbers (chapter 9's on /layernorm): 320 px plots, two a row make
    a figure wider than the narrowest column a class's screen leaves; as pieces, each fits it,
    all on one colour scale with the colour bar beside the last, the plots and titles in order."""
    rng = np.random.default_rng(3)
    mats = [rng.normal(size=(5, 8)) * (k + 1) for k in range(4)]
    cols = [[f"f{i}" for i in range(8)]] * 4
    style_ = {"signed": True, "x_title": "feature", "y_title": "token", "per_row": 2}
    whole = grids.grid_figure(mats, TOKENS, cols, list("abcd"), **style_)
    assert whole["layout"]["width"] > grids.WRAP_PX
    pieces = grids.grid_figures(mats, TOKENS, cols, list("abcd"), **style_)
    assert len(pieces) == 4  # one plot fits the narrowest column, two do not
    b = max(np.abs(m).max() for m in mats)
    for k, piece in enumerate(pieces):
        layout = piece["layout"]
        assert layout["width"] <= grids.WRAP_PX
        assert (layout["coloraxis"]["cmin"], layout["coloraxis"]["cmax"]) == (-b, b)
        assert layout.get("coloraxis", {}).get("showscale", True) == (k == 3)
        assert [a["text"] for a in layout["annotations"]] == ["abcd"[k]]
        np.testing.assert_array_equal(piece["data"][0]["z"], mats[k])
        assert layout["yaxis"]["showticklabels"] and layout["xaxis"]["title"]["text"] == "feature"
    (box,) = plot_px(pieces[0])
    assert box[1] - box[0] == pytest.approx(320, abs=0.01)  # the cells keep their 40 px
    # one figure when it fits, on a phone (one a row already), or when the cells carry no numbers
    small = [np.zeros((2, 2))] * 2
    assert len(grids.grid_figures(small, ["a", "b"], [["a", "b"]] * 2, list("ab"))) == 1
    assert len(grids.grid_figures(mats, TOKENS, cols, list("abcd"), phone=True, **style_)) == 1
    large = [np.zeros((32, 32))] * 4
    names = [f"t{i}" for i in range(32)]
    assert len(grids.grid_figures(large, names, [names] * 4, list("abcd"))) == 1


def test_a_grid_that_fits_two_a_row_at_slightly_smaller_cells_stays_one_figure() -> None:
    """Chapter 9's four 5 × 5 patterns: two a row at 40 px cells and the bar beside them are
    wider than the narrowest column; at 34-40 px cells with the colour bar lying above, two a
    row fit it, so the grid stays one figure (one for the browser to draw, not four)."""
    mats = [np.full((5, 5), k / 4) for k in range(4)]
    titles = [f"head {k} · mixed · mean H = 0.4{k}" for k in range(4)]
    style_ = {"x_title": "key", "y_title": "query", "scale_title": "probability"}
    whole = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, titles, **style_)
    assert whole["layout"]["width"] > grids.WRAP_PX
    (one,) = grids.grid_figures(mats, TOKENS, [TOKENS] * 4, titles, **style_)
    layout = one["layout"]
    assert layout["width"] <= grids.WRAP_PX
    assert layout["coloraxis"]["colorbar"]["orientation"] == "h"  # above: it takes no width
    boxes = plot_px(one)
    sides = {round((right - left) / 5, 6) for left, right, _, _ in boxes}
    assert len(sides) == 1 and grid_plan.COMPACT_CELL_PX <= sides.pop() < 40
    assert len({top for _, _, top, _ in boxes}) == 2  # two rows of two
    # one x title, centred under the last row, none on the axes
    assert all(layout[f"xaxis{s}"]["title"]["text"] == "" for s in ("", "2", "3", "4"))
    assert [a["text"] for a in layout["annotations"]][-1] == "key"
    assert layout["annotations"][-1]["x"] == pytest.approx(0.5)
    for k, m in enumerate(mats):
        np.testing.assert_array_equal(one["data"][k]["z"], m)


def test_a_grid_stays_whole_exactly_when_its_whole_figure_fits_the_narrowest_column() -> None:
    """``grid_figures`` decides from the grid's sizes alone (``grid_sizes``), before any cell is
    built, whether it stays whole: it returns the very figure ``grid_figure`` draws when that
    figure fits WRAP_PX (or on a phone), and others (compact, or pieces) where it does not, with
    and without axis and bar titles, in a narrower row, at a screen's, a phone's and a
    projector's sizes; on a projector, a whole figure of more than one row comes in pieces too."""
    rng = np.random.default_rng(5)
    looks = (style.Look(), style.Look(phone=True), style.Look(lang="fr", scale=1.25))
    texts = ({}, {"x_title": "feature", "scale_title": "a probability, from 0 to 1"})
    rows_px = ({}, {"row_px": 400})
    shapes = ((5, 8, 4), (5, 5, 4), (3, 2, 2), (2, 3, 3), (5, 4, 2))
    kept = wrapped = 0
    for (t, c, n), look, text, row_px in itertools.product(shapes, looks, texts, rows_px):
        mats = [rng.normal(size=(t, c)) for _ in range(n)]
        rows, cols, names = TOKENS[:t], [[f"f{i}" for i in range(c)]] * n, list("abcd")[:n]
        shown = {"signed": True, "per_row": 2, "look": look, **text, **row_px}
        whole = grids.grid_figure(mats, rows, cols, names, **shown)
        figures = grids.grid_figures(mats, rows, cols, names, **shown)
        one_row = len({top for *_, top, _ in plot_px(whole)}) == 1
        if look.phone or (
            whole["layout"]["width"] <= grids.WRAP_PX and (one_row or look.scale == 1)
        ):
            assert _text(figures) == _text([whole])
            kept += 1
        else:
            assert _text(figures) != _text([whole])  # compact, or in pieces
            wrapped += 1
    assert kept >= 10 and wrapped >= 10  # both ways taken


def test_a_projector_s_grid_of_one_plot_a_row_comes_in_pieces_that_stand_side_by_side() -> None:
    """Two heads of six tokens in presenter mode: at 50 px cells one plot fills a row of
    ROW_PX, so the whole figure (444 px, within WRAP_PX) would stand them one under the other in
    a projector's 1 200 px column; as two pieces, the colour bar upright beside the second,
    they stand side by side where the column holds them. A screen's look keeps its pieces."""
    tokens = [*TOKENS, "mat"]
    mats = [np.tril(np.full((6, 6), (k + 1) / 6)) for k in range(2)]
    titles = ["head 0 · mixed · mean H = 0.73", "head 1 · mixed · mean H = 0.51"]
    style_ = {"x_title": "key", "y_title": "query", "scale_title": "probability"}
    projector = style.Look(scale=style.PRESENT_SCALE)
    whole = grids.grid_figure(mats, tokens, [tokens] * 2, titles, look=projector, **style_)
    assert whole["layout"]["width"] <= grids.WRAP_PX
    assert len({top for *_, top, _ in plot_px(whole)}) == 2  # one plot a row
    pieces = grids.grid_figures(mats, tokens, [tokens] * 2, titles, look=projector, **style_)
    assert len(pieces) == 2
    for k, piece in enumerate(pieces):
        layout = piece["layout"]
        assert layout["coloraxis"].get("showscale", True) == (k == 1)
        assert [a["text"] for a in layout["annotations"]][0] == titles[k]
        np.testing.assert_array_equal(piece["data"][0]["z"], mats[k])
        (box,) = plot_px(piece)
        assert box[1] - box[0] == pytest.approx(6 * 50, abs=0.01)  # the projector's 50 px cells
    assert sum(p["layout"]["width"] for p in pieces) + 20 <= 1200  # side by side at 1280 × 720
    screen = grids.grid_figures(mats, tokens, [tokens] * 2, titles, **style_)
    assert len(screen) == 2 and all(p["layout"]["width"] <= grids.WRAP_PX for p in screen)


def test_a_projector_s_q_k_and_v_come_in_pieces_that_fit_one_row() -> None:
    """Page 1's Q, K and V of one head at chapter 9 (5 × 2 each) in presenter mode: one figure
    fitted to WRAP_PX stood two a row and V under them, in a 1 200 px column; as three pieces
    of one plot at the projector's 50 px cells they fit one row of it. On a screen they stay
    one figure that fits the narrowest column (one for the browser to draw)."""
    rng = np.random.default_rng(7)
    mats = [rng.normal(size=(5, 2)) for _ in range(3)]
    cols = [[f"{name}{i}" for i in range(2)] for name in "qkv"]
    titles = [f"{name} = X·W_{name} (head 0)" for name in "QKV"]
    style_ = {"signed": True, "per_row": 3, "x_title": "feature", "y_title": "token"}
    projector = style.Look(scale=style.PRESENT_SCALE)
    pieces = grids.grid_figures(mats, TOKENS, cols, titles, look=projector, **style_)
    assert len(pieces) == 3
    assert sum(p["layout"]["width"] for p in pieces) + 2 * 20 <= 1200
    for k, piece in enumerate(pieces):
        np.testing.assert_array_equal(piece["data"][0]["z"], mats[k])
        (box,) = plot_px(piece)
        assert box[1] - box[0] == pytest.approx(2 * 50, abs=0.01)
    (one,) = grids.grid_figures(mats, TOKENS, cols, titles, **style_)
    assert one["layout"]["width"] <= grids.WRAP_PX


def _text(figures: list) -> str:
    """Figures as JSON text, arrays as lists: two equal texts are the same figures."""
    return json.dumps(figures, sort_keys=True, default=lambda a: np.asarray(a).tolist())


def test_a_row_s_tick_labels_keep_room_from_the_next_row_s_titles() -> None:
    """Two rows of plots (one a row on a phone): between the first row's cells and the second
    row's cells stand the x labels (22 px level, more slanted), ROW_ROOM px, then the titles."""
    mats = [np.zeros((5, 5))] * 2
    for look in (style.Look(), style.Look(phone=True)):
        spec = grids.grid_figure(mats, TOKENS, [TOKENS] * 2, ["a", "b"], per_row=1, look=look)
        (_, _, _, low), (_, _, top, _) = plot_px(spec)
        angle = abs(math.radians(spec["layout"]["xaxis"]["tickangle"]))
        x_labels = 22 + math.sin(angle) * max(labels.label_px(t) for t in TOKENS)
        assert top - low == pytest.approx(x_labels + 8 + 17 + grid_plan.ROW_ROOM, abs=0.5)
        assert grid_plan.ROW_ROOM >= 24


def test_a_title_longer_than_its_plot_widens_the_slot_or_takes_two_lines() -> None:
    mats = [np.zeros((2, 2))] * 2
    titles = ["head 0 · sharp · H = 0.12", "head 1 · diffuse · H = 0.69 of the largest 0.69"]
    spec = grids.grid_figure(mats, ["a", "b"], [["a", "b"]] * 2, titles, row_px=2000)
    first, second = spec["layout"]["annotations"][1]["text"].split("<br>")
    assert f"{first} {second}" == titles[1]
    (a, b) = plot_px(spec)
    shown = [line for note in spec["layout"]["annotations"] for line in note["text"].split("<br>")]
    widest = max(labels.label_px(line) for line in shown) * 13 / 12
    assert b[0] - a[0] >= widest + 8 + grids.PLOT_GAP - 1  # titles never reach the next one


def test_a_title_breaks_after_the_dot_between_its_parts_never_before_it() -> None:
    head = "head 0 · mixed · mean H = 0.46"
    # 150 px holds neither the whole title nor "head 0 · mixed · mean" on one line
    assert labels.label_px(head) * 14 / 12 > 150
    assert labels.fit_lines(head, 150) == "head 0 · mixed ·<br>mean H = 0.46"
    assert labels.fit_lines("tête 0 · mixte · H moyen = 0,46", 150) == (
        "tête 0 · mixte ·<br>H moyen = 0,46"
    )
    # the parts are too long for a break at a dot: the space nearest the middle, not before a dot
    long = "the first part of it · and the second part of the same title here"
    first, second = labels.fit_lines(long, 240).split("<br>")
    assert not second.startswith("·") and f"{first} {second}" == long
    assert labels.fit_lines("title without separators here", 80) == (
        "title without<br>separators here"
    )
    assert labels.fit_lines(head, 1000) == head  # one line where it fits
    # a lone "·" is a product: the space nearest the middle, never before the "·"
    assert labels.fit_lines("attn_out = concat · W_O", 150) == "attn_out =<br>concat · W_O"


def test_grid_shares_one_colour_scale_of_the_largest_magnitude() -> None:
    mats = [np.array([[0.5, -2.0]]), np.array([[1.5, 0.25]])]
    spec = grids.grid_figure(mats, ["t"], [["a", "b"]] * 2, ["x", "y"], signed=True)
    axis = spec["layout"]["coloraxis"]
    assert (axis["cmin"], axis["cmax"]) == (-2.0, 2.0)
    assert all(t["coloraxis"] == "coloraxis" and "zmin" not in t for t in spec["data"])
    probs = grids.grid_figure(mats, ["t"], [["a", "b"]] * 2, ["x", "y"], zmin=0, zmax=1)
    assert (probs["layout"]["coloraxis"]["cmin"], probs["layout"]["coloraxis"]["cmax"]) == (0, 1)


def test_grid_slants_x_labels_only_when_they_do_not_fit_a_cell() -> None:
    mats = [np.zeros((5, 5))] * 4
    level = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"))
    assert level["layout"]["xaxis"]["tickangle"] == 0
    crowded = grids.grid_figure(mats, TOKENS, [["encyclopaedia"] * 5] * 4, list("abcd"))
    assert crowded["layout"]["xaxis"]["tickangle"] == -60
    assert crowded["layout"]["margin"]["b"] > level["layout"]["margin"]["b"]


def test_one_plot_a_row_titles_the_x_axis_under_the_last_plot() -> None:
    """With the colour bar lying flat above the plots, plotly would lift an x axis title into
    the tick labels: the title is an annotation under the last plot instead."""
    mats = [np.zeros((5, 5))] * 3
    spec = grids.grid_figure(mats, TOKENS, [TOKENS] * 3, list("abc"), per_row=1, x_title="key")
    layout = spec["layout"]
    assert layout["coloraxis"]["colorbar"]["orientation"] == "h"
    assert all(layout[k]["title"]["text"] == "" for k in ("xaxis", "xaxis2", "xaxis3"))
    (note,) = [a for a in layout["annotations"] if a["text"] == "key"]
    assert note["y"] == layout["yaxis3"]["domain"][0] and note["yanchor"] == "top"
    assert note["yshift"] < -20  # below the tick labels
    upright = grids.grid_figure(
        mats, TOKENS, [TOKENS] * 3, list("abc"), per_row=3, x_title="key", row_px=2000
    )
    assert [k for k in upright["layout"] if k.startswith("xaxis")] == ["xaxis", "xaxis2", "xaxis3"]
    assert upright["layout"]["xaxis2"]["title"]["text"] == "key"
    assert "orientation" not in upright["layout"]["coloraxis"]["colorbar"]


def test_a_colour_bar_title_longer_than_the_bar_takes_two_lines() -> None:
    mats = [np.zeros((5, 5))] * 4
    long = "probabilité (une seule échelle pour toutes les têtes)"
    one_row = {"row_px": 2000}  # a bar as tall as one row of plots, 200 px
    spec = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), scale_title=long, **one_row)
    text = spec["layout"]["coloraxis"]["colorbar"]["title"]["text"]
    first, second = text.split("<br>")
    assert f"{first} {second}" == long and abs(len(first) - len(second)) < 12
    short = grids.grid_figure(
        mats, TOKENS, [TOKENS] * 4, list("abcd"), scale_title="value", **one_row
    )
    assert short["layout"]["coloraxis"]["colorbar"]["title"]["text"] == "value"
    assert spec["layout"]["margin"]["r"] == short["layout"]["margin"]["r"] + 18


def test_the_tool_bar_is_off_and_hover_text_large_enough() -> None:
    """plotly's tool bar covered titles and added Tab stops; hover text at 14 px."""
    assert style.PLOT_CONFIG["displayModeBar"] is False
    layout = style.styled(heatmaps.heatmap(np.zeros((2, 2)), ["a", "b"], ["a", "b"])["layout"])
    assert layout["hoverlabel"]["font"]["size"] >= 13


def test_bar_labels_stand_level_where_they_fit_else_wrap_then_turn() -> None:
    from ui.draw.charts import BAR_PLOT_PX, bar_chart
    from ui.draw.style import Look

    heads = [f"tête {h}" for h in range(8)]  # wider than a 48 px bar: the categories grow
    spec = bar_chart({"H": [1.0] * 8}, heads, barmode="relative", look=Look("fr"))
    layout = spec["layout"]
    assert layout["xaxis"]["tickangle"] == 0 and "ticktext" not in layout["xaxis"]
    plot = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    assert plot / 8 >= labels.label_px("tête 7") + 6 and plot <= BAR_PLOT_PX
    # each bar as wide as its number, which stands level in it
    pair = bar_chart({"H": [0.5] * 5, "ln": [1.61] * 5}, TOKENS, look=Look("fr"))
    assert all(trace["textangle"] == 0 for trace in pair["data"])
    pair_plot = pair["layout"]["width"] - 80 - pair["layout"]["margin"]["r"]
    assert pair_plot / 5 >= 12 + 2 * (3 * 6.1 + 2.7 + 4)  # "1,61" at 12 px and its padding
    # too many to grow: a label with a space takes two lines, the bars keep their names
    words = [f"mot {i:02d}" for i in range(24)]
    wrapped = bar_chart({"H": [1.0] * 24}, words, barmode="relative")["layout"]
    assert wrapped["xaxis"]["tickangle"] == 0
    assert wrapped["xaxis"]["ticktext"][0] == "mot<br>00"
    assert wrapped["xaxis"]["tickvals"] == words
    # one word each, too many to grow: turned, with the margin that holds them
    tokens = [f"token{i}" for i in range(32)]
    turned = bar_chart({"H": [1.0] * 32}, tokens)["layout"]
    assert turned["xaxis"]["tickangle"] == -60
    assert turned["margin"]["b"] > wrapped["margin"]["b"] - 16


def test_presenter_mode_draws_chart_text_projector_sized_with_margins_that_hold_it() -> None:
    present = style.Look(scale=style.PRESENT_SCALE)
    assert (present.text_px(12), present.text_px(13), present.text_px(14)) == (16, 17, 19)
    assert style.Look().text_px(12) == 12
    m, cols = np.zeros((5, 8)), [f"f{i}" for i in range(8)]
    style_ = {"title": "X", "signed": True, "x_title": "f", "y_title": "t", "scale_title": "s"}
    screen = heatmaps.heatmap(m, TOKENS, cols, **style_)
    big = heatmaps.heatmap(m, TOKENS, cols, look=present, **style_)
    layout, trace = big["layout"], big["data"][0]
    assert layout["font"]["size"] == 16 and trace["textfont"]["size"] == 16
    assert layout["xaxis"]["tickfont"] == {"size": 16} == layout["yaxis"]["tickfont"]
    assert (
        layout["xaxis"]["title"]["font"] == {"size": 19} and layout["title"]["font"]["size"] == 19
    )
    assert trace["colorbar"]["tickfont"] == {"size": 16}
    assert trace["colorbar"]["title"]["font"] == {"size": 19}
    for side in "lbrt":  # every margin grows with the text it holds
        assert layout["margin"][side] > screen["layout"]["margin"][side], side
    assert "font" not in screen["layout"]  # a screen's charts keep the style's 12 px
    mats = [np.zeros((5, 5))] * 4
    grid = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), look=present)["layout"]
    small = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"))["layout"]
    assert {a["font"]["size"] for a in grid["annotations"]} == {17}
    assert grid["xaxis2"]["tickfont"] == {"size": 16}
    assert grid["coloraxis"]["colorbar"]["tickfont"] == {"size": 16}
    assert grid["margin"]["l"] > small["margin"]["l"] and grid["margin"]["t"] > small["margin"]["t"]


def test_presenter_mode_draws_line_and_bar_chart_text_at_the_heatmaps_sizes() -> None:
    from ui.draw.charts import bar_chart, side_by_side
    from ui.draw.lines import Panel, line_panels

    present = style.Look("fr", scale=style.PRESENT_SCALE)
    panels = [
        Panel(
            "Entropie d'une ligne", "H", {"sans": [1.0, 2.0], "avec": [1.0, 1.5]}, [(2.0, "max")]
        ),
        Panel("Plus grand poids", "p", {"sans": [0.5, 0.9], "avec": [0.5, 0.6]}),
    ]
    screen = line_panels([1, 2], panels, x_title="d_k", mark=(1.0, "ici"))["layout"]
    big = line_panels([1, 2], panels, x_title="d_k", mark=(1.0, "ici"), look=present)["layout"]
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert big[axis]["tickfont"] == {"size": 16}, axis
        assert big[axis]["title"]["font"] == {"size": 19}, axis
    assert big["legend"]["font"] == {"size": 16} and big["hoverlabel"]["font"] == {"size": 19}
    sizes = [a["font"]["size"] for a in big["annotations"]]
    assert sizes == [17, 17]  # plot titles 17; the level's and the mark's labels: the legend
    for side in "lrtb":  # the margins grow with the text they hold
        assert big["margin"][side] > screen["margin"][side], side
    assert "font" not in screen and "tickfont" not in screen["xaxis"]
    assert [a["font"]["size"] for a in screen["annotations"]] == [13, 13]

    series = {"avant": [0.1, -0.2, 0.3], "après": [0.0, 0.0, 0.0]}
    cats = ["le", "chat", "dort"]
    small = bar_chart(series, cats, title="Moyennes", y_title="moyenne", lines=[(0.0, "zéro")])
    bars = bar_chart(
        series, cats, title="Moyennes", y_title="moyenne", lines=[(0.0, "zéro")], look=present
    )
    layout = bars["layout"]
    assert {trace["textfont"]["size"] for trace in bars["data"]} == {16}
    assert layout["xaxis"]["tickfont"] == {"size": 16} == layout["yaxis"]["tickfont"]
    assert layout["yaxis"]["title"]["font"] == {"size": 19}
    assert layout["title"]["font"] == {"size": 19} and layout["hoverlabel"]["font"] == {"size": 19}
    assert layout["legend"]["font"] == {"size": 16}
    assert [a["font"]["size"] for a in layout["annotations"]] == [16]
    for side in "lrtb":
        assert layout["margin"][side] > small["layout"]["margin"][side], side
    assert {trace["textfont"]["size"] for trace in small["data"]} == {12}
    assert "font" not in small["layout"]["title"] or small["layout"]["title"]["font"]["size"] == 14
    pair = side_by_side(bars, bars)["layout"]
    assert [a["font"]["size"] for a in pair["annotations"][:2]] == [19, 19]


def test_x_labels_stay_level_where_they_fit_their_cell() -> None:
    # the learned page's labels: "mat·2" (about 29 px drawn at 12 px) in a 40 px cell
    words = ["the", "cat", "sat", "on", "the·2", "mat·2"]
    fig = heatmaps.heatmap(np.zeros((6, 6)), words, words)
    assert fig["layout"]["xaxis"]["tickangle"] == 0
    grid = grids.grid_figure([np.zeros((6, 6))] * 2, words, [words] * 2, ["a", "b"])
    assert grid["layout"]["xaxis"]["tickangle"] == 0
    assert labels.x_label_angle(labels.label_px("mat·2"), 28) == -60  # a phone's cell
    assert labels.x_label_angle(labels.label_px("encyclopaedia"), 14) == -90
