"""Tests of ui.lines' axes: a log y axis labels its decades only; a linear one starts at zero."""

from __future__ import annotations

from ui.lines import Panel, line_panels


def _y(panel: Panel) -> dict:
    return line_panels([1.0, 2.0, 3.0], [panel], x_title="x")["layout"]["yaxis"]


def test_a_log_axis_over_decades_labels_only_its_decades() -> None:
    axis = _y(Panel("rms", "rms", {"a": [0.04, 1.0, 697.0]}, log=None))  # 4.2 decades
    assert (axis["type"], axis["exponentformat"], axis["dtick"]) == ("log", "power", 1)


def test_a_log_axis_under_one_decade_keeps_plotlys_ticks() -> None:
    axis = _y(Panel("collapse", "1 - cos", {"a": [0.2, 0.5, 0.9]}, log=True))  # 0.65 decade
    assert axis["type"] == "log" and "dtick" not in axis


def test_values_within_two_decades_get_a_linear_axis_from_zero() -> None:
    axis = _y(Panel("rms", "rms", {"a": [1.0, 5.0, 99.0]}, log=None))  # 1.996 decades
    assert axis.get("type") != "log" and axis["rangemode"] == "tozero" and "dtick" not in axis
