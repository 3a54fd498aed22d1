"""A line chart of markup (``ui.draw.lines_markup``) shows what its figure holds: every series at
its values, a line as thick on a steep rise as on a flat stretch, round numbers on the axes
(decades on a log axis), the dotted levels and the dashed mark where they stand, the legend's
names as typed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_pages import lines_shown
from ui.draw.line_plan import Panel
from ui.draw.lines import line_panels, marked
from ui.draw.lines_markup import _band, lines_markup, mark_style, with_moving_mark
from ui.draw.style import Look

STEPS = [0, 10, 20, 30, 40]
PREVIOUS = {"head 0": [0.1, 0.1, 0.9, 1.0, 1.0], "<b>head</b> 1": [0.2, 0.15, 0.1, 0.1, 0.05]}


def _figure(lang: str = "en", **panel: object) -> dict:
    levels = [(0.5, "target 0.5")]
    plot = Panel("previous-token score", "score", PREVIOUS, levels=levels, **panel)
    return line_panels(STEPS, [plot], x_title="step", look=Look(lang), width=520)


def _plot_box(markup: str) -> tuple[float, float]:
    width, height = re.search(
        r'class="ln-plot" style="[^"]*width:([\d.]+)px;height:([\d.]+)px', markup
    ).groups()
    return float(width), float(height)


def test_the_figure_carries_its_series_names_values_titles_and_levels() -> None:
    shown = lines_shown(lines_markup(_figure(), key="scores"))
    assert [t["name"] for t in shown["data"]] == list(PREVIOUS)
    for trace, values in zip(shown["data"], PREVIOUS.values(), strict=True):
        assert trace["x"] == STEPS and trace["y"] == values
    assert shown["layout"]["annotations"] == [{"text": "<b>previous-token score</b>"}]
    assert {"type": "line", "name": "target 0.5"} in shown["layout"]["shapes"]
    assert shown["alt"].startswith("Line chart")
    markup = lines_markup(_figure(), key="scores")
    assert "&lt;b&gt;head&lt;/b&gt; 1" in markup and "<b>head</b> 1" not in markup


def test_a_line_is_as_thick_on_a_steep_rise_as_on_a_flat_stretch() -> None:
    # a rise of 100 px over 10 px, then flat: the band is 2 px wide across the line everywhere
    points = np.array([[0.0, 100.0], [10.0, 0.0], [60.0, 0.0]])
    band = _band(points, 1.0)
    upper, lower = band[:3], band[3:][::-1]
    np.testing.assert_allclose(np.hypot(*(upper[0] - lower[0])), 2.0)  # the ends: square
    np.testing.assert_allclose(np.hypot(*(upper[2] - lower[2])), 2.0)
    # the steep segment's two sides 1 px from its line: distance of each side's ends to it
    direction = (points[1] - points[0]) / np.hypot(*(points[1] - points[0]))
    normal = np.array([-direction[1], direction[0]])
    assert np.dot(upper[0] - points[0], normal) == pytest.approx(1.0)
    assert np.dot(upper[1] - points[0], normal) == pytest.approx(1.0)
    assert np.dot(lower[0] - points[0], normal) == pytest.approx(-1.0)


def test_each_series_stands_at_its_values_on_round_numbers() -> None:
    markup = lines_markup(_figure(), key="scores")
    width, height = _plot_box(markup)
    ticks = [float(t) for t in re.findall(r'class="yt" style="bottom:[\d.]+%">([^<]+)<', markup)]
    assert ticks[0] == 0 and ticks[-1] == 1  # 0 to the highest value, in round steps
    assert all(round(t / (ticks[1] - ticks[0]), 9).is_integer() for t in ticks)
    # the first series' first point: its band's two sides around (0 + 1 step margin, 0.1)
    polygon = re.search(r"clip-path:polygon\(([^)]*)\)", markup)[1]
    first = [float(v) for v in re.findall(r"([\d.]+)px", polygon)[:2]]
    x_span = (STEPS[0] - 1, STEPS[-1] + 1)
    want_x = (0 - x_span[0]) / (x_span[1] - x_span[0]) * width + 6
    top = 1.0 + 0.04 * 1.0  # the highest value, and 4 % of the span over it
    want_y = (1 - 0.1 / top) * height + 6
    assert abs(first[0] - want_x) <= 2.1 and abs(first[1] - want_y) <= 2.1
    # the level at 0.5: dotted, at its height
    (level,) = re.findall(r'class="level" style="bottom:([\d.]+)%;border-top:1px dotted', markup)
    assert float(level) == pytest.approx(100 * 0.5 / top, abs=0.006)


def _divs(markup: str, without: str) -> list[str]:
    """The markup's ``<div>`` tags, sorted, those whose class is ``without`` left out."""
    return sorted(d for d in re.findall(r"<div[^>]*>", markup) if f'class="{without}"' not in d)


def test_a_marked_figure_draws_its_mark_at_its_x_and_nothing_else_moves() -> None:
    base = _figure()
    drawn = lines_markup(marked(base, 20.0), key="k")
    assert _divs(drawn, "mark") == _divs(lines_markup(base, key="k"), "mark")
    assert [s["x0"] for s in lines_shown(drawn)["layout"]["shapes"] if "x0" in s] == [20.0]
    (at,) = re.findall(r'class="mark" data-x="20.0" style="left:([\d.]+)%', drawn)
    assert float(at) == pytest.approx(100 * 21 / 42, abs=0.006)  # x from -1 to 41


def test_a_log_axis_writes_its_decades_and_breaks_a_line_at_a_value_it_cannot_draw() -> None:
    series = {"rms": [0.01, 0.1, 0.0, 10.0, 100.0]}  # 0 has no place on a log axis
    fig = line_panels(STEPS, [Panel("activations", "rms", series, log=True)], width=520)
    markup = lines_markup(fig, key="rms")
    ticks = re.findall(r'class="yt" style="bottom:[\d.]+%">([^<]+)<', markup)
    assert ticks == ["10⁻²", "10⁻¹", "10⁰", "10¹", "10²"]
    assert markup.count('class="series"') == 2  # the line before the 0, and after it


def test_french_numbers_and_a_stretching_figure_drawn_at_the_width_given() -> None:
    fr = lines_markup(_figure("fr"), key="k")
    assert re.search(r'class="yt" style="bottom:[\d.]+%">0,\d+<', fr)  # a decimal comma
    plot = Panel("p", "y", {"a": [1.0, 2.0, 3.0, 4.0, 5.0]})
    stretching = line_panels(STEPS, [plot])  # no width of its own: its column's
    assert stretching["layout"].get("width") is None
    markup = lines_markup(stretching, key="k", width=350)
    assert 'class="ln-paper" aria-hidden="true" style="width:350px' in markup


def test_a_moving_mark_stands_where_the_marked_figure_puts_it() -> None:
    # /learned's training charts are drawn once; a step's style moves their dashed line
    base = _figure()
    moving = with_moving_mark(lines_markup(base, key="k"))
    assert moving.count('class="mark moving"') == moving.count('class="ln-plot"') == 1
    assert _divs(moving, "mark moving") == _divs(lines_markup(base, key="k"), "mark moving")
    (fixed,) = re.findall(
        r'class="mark" data-x="30.0" style="left:([\d.]+)%',
        lines_markup(marked(base, 30.0), key="k"),
    )
    (placed,) = re.findall(r"--mark-x: ([\d.]+)%;", mark_style(base, 30.0))
    assert float(placed) == pytest.approx(float(fixed), abs=0.006)
