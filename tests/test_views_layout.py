"""Figure layout: margins that hold the labels, and a grid of plots that never overlap.

The browser test ``test_every_chart_is_drawn_once_in_the_margins_it_asks_for`` checks the
margins against what chromium draws; these tests check the arithmetic behind them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.test_views_fast import figures
from ui import grids, labels, style

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


@pytest.mark.parametrize("n, per_row", [(1, 4), (3, 4), (4, 4), (4, 2), (6, 4), (16, 4), (5, 1)])
def test_grid_places_every_plot_apart_in_reading_order(n: int, per_row: int) -> None:
    mats = [np.full((5, 5), k, dtype=np.float64) for k in range(n)]
    spec = grids.grid_figure(
        mats, TOKENS, [TOKENS] * n, [f"m{k}" for k in range(n)], per_row=per_row, signed=True
    )
    boxes = plot_boxes(spec)
    assert len(boxes) == n
    for x0, x1, y0, y1 in boxes:
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    for a, b in itertools.combinations(boxes, 2):  # no two plots share any area
        assert a[1] <= b[0] or b[1] <= a[0] or a[3] <= b[2] or b[3] <= a[2]
    # reading order: left to right, then the next row lower down
    for k, (a, b) in enumerate(itertools.pairwise(boxes), start=1):
        if k % min(per_row, n):
            assert a[1] < b[0] and a[2:] == b[2:]
        else:
            assert b[3] < a[2]
    # every plot as tall as the others, and each title right above its plot
    assert len({round(y1 - y0, 9) for _, _, y0, y1 in boxes}) == 1
    for box, note in zip(boxes, spec["layout"]["annotations"]):
        assert note["x"] == pytest.approx((box[0] + box[1]) / 2) and note["y"] == box[3]
    # token labels once a row, on the first plot
    layout = spec["layout"]
    shown = [layout["yaxis" + t["yaxis"][1:]]["showticklabels"] for t in spec["data"]]
    assert shown == [k % min(per_row, n) == 0 for k in range(n)]


def test_grid_shares_one_colour_scale_of_the_largest_magnitude() -> None:
    mats = [np.array([[0.5, -2.0]]), np.array([[1.5, 0.25]])]
    spec = grids.grid_figure(mats, ["t"], [["a", "b"]] * 2, ["x", "y"], signed=True)
    axis = spec["layout"]["coloraxis"]
    assert (axis["cmin"], axis["cmax"]) == (-2.0, 2.0)
    assert all(t["coloraxis"] == "coloraxis" and "zmin" not in t for t in spec["data"])
    probs = grids.grid_figure(mats, ["t"], [["a", "b"]] * 2, ["x", "y"], zmin=0, zmax=1)
    assert (probs["layout"]["coloraxis"]["cmin"], probs["layout"]["coloraxis"]["cmax"]) == (0, 1)


def test_grid_slants_x_labels_only_when_they_do_not_fit() -> None:
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
    upright = grids.grid_figure(mats, TOKENS, [TOKENS] * 3, list("abc"), per_row=3, x_title="key")
    assert [k for k in upright["layout"] if k.startswith("xaxis")] == ["xaxis", "xaxis2", "xaxis3"]
    assert upright["layout"]["xaxis2"]["title"]["text"] == "key"
    assert "orientation" not in upright["layout"]["coloraxis"]["colorbar"]


def test_a_colour_bar_title_longer_than_the_bar_takes_two_lines() -> None:
    mats = [np.zeros((5, 5))] * 4
    long = "probabilité (une seule échelle pour toutes les têtes)"
    spec = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), scale_title=long)
    text = spec["layout"]["coloraxis"]["colorbar"]["title"]["text"]
    first, second = text.split("<br>")
    assert f"{first} {second}" == long and abs(len(first) - len(second)) < 12
    short = grids.grid_figure(mats, TOKENS, [TOKENS] * 4, list("abcd"), scale_title="value")
    assert short["layout"]["coloraxis"]["colorbar"]["title"]["text"] == "value"
    assert spec["layout"]["margin"]["r"] == short["layout"]["margin"]["r"] + 18
