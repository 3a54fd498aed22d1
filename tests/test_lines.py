"""Tests of ui.draw.lines' axes: a log y axis labels its decades only; a linear one starts at
zero."""

from __future__ import annotations

from ui.draw.lines import Panel, line_panels


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


def _panels() -> list[Panel]:
    # page 3's "why √d_k": titles of one and two lines, a dotted level in the middle plot
    two = {"without": [1.0, 2.0, 3.0], "with": [1.0, 1.1, 1.2]}
    return [
        Panel("Spread of the scores q·k as d_k grows", "std", two),
        Panel("Mean row entropy", "nats", two, levels=[(1.6, "ln(keys)")]),
        Panel("Mean largest probability", "p", two),
    ]


def test_every_plot_keeps_the_longest_titles_room_and_the_titles_start_level() -> None:
    layout = line_panels([1, 2, 3], _panels(), x_title="d_k", mark=(2.0, "this lab"))["layout"]
    titles = layout["annotations"]
    assert len(titles) == 3 and {t["yanchor"] for t in titles} == {"top"}
    assert max(t["text"].count("<br>") for t in titles) == 1  # the first title takes two lines
    # one height for every title's top: two lines of 17 px and 6 px above the plots
    assert {t["yshift"] for t in titles} == {6 + 2 * 17 + 2}
    assert {t["y"] for t in titles} == {layout["yaxis"]["domain"][1]}
    assert layout["margin"]["t"] >= 6 + 2 * 17 + 2  # inside the figure
    tops = {layout[f"yaxis{s}"]["domain"][1] for s in ("", "2", "3")}
    assert len(tops) == 1


def test_the_levels_and_the_mark_are_legend_entries_not_notes_on_the_lines() -> None:
    spec = line_panels([1, 2, 3], _panels(), x_title="d_k", mark=(2.0, "this lab"))
    layout = spec["layout"]
    # the notes sat on their line, the top gridline or a curve: only the titles are notes
    assert [a["text"].replace("</b><br><b>", " ") for a in layout["annotations"]] == [
        f"<b>{panel.title}</b>" for panel in _panels()
    ]
    entries = [s for s in layout["shapes"] if s.get("showlegend")]
    assert [(s["name"], s["line"]["dash"]) for s in entries] == [
        ("ln(keys)", "dot"),
        ("this lab", "dash"),
    ]
    # the mark's line in every plot, one legend group, shown once
    marks = [s for s in layout["shapes"] if s.get("legendgroup") == "this lab"]
    assert [s["xref"] for s in marks] == ["x", "x2", "x3"] and sum(
        bool(s["showlegend"]) for s in marks
    ) == 1
    assert layout["showlegend"] is True
    assert [t["name"] for t in spec["data"] if t["showlegend"]] == ["without", "with"]


def test_one_series_has_no_legend_entry_but_its_level_has() -> None:
    alone = Panel("Loss", "loss", {"loss": [3.0, 2.0, 1.0]})
    assert line_panels([1, 2, 3], [alone])["layout"]["showlegend"] is False
    chance = Panel("Loss", "loss", {"loss": [3.0, 2.0, 1.0]}, levels=[(2.5, "ln 20: guessing")])
    spec = line_panels([1, 2, 3], [chance])
    assert spec["layout"]["showlegend"] is True
    assert [t["showlegend"] for t in spec["data"]] == [False]
    assert [s["name"] for s in spec["layout"]["shapes"] if s.get("showlegend")] == [
        "ln 20: guessing"
    ]


def test_the_y_titles_stand_close_to_their_ticks_so_the_right_plot_clears_the_left() -> None:
    # the style's 24 px standoff put the right plot's y title against the left plot at 150 %
    layout = line_panels([1, 2, 3], _panels())["layout"]
    assert {layout[f"yaxis{s}"]["title"]["standoff"] for s in ("", "2", "3")} == {12}
