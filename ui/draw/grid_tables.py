"""A grid of heatmaps (``ui.draw.grids``) as heatmap tables: every plot of a grid's figures a
``<figure>`` of its own (``ui.draw.heatmap_table``), in reading order, on the grid's one colour
scale, the colour bar where the figure puts it (upright right of the last plot, lying over the
first).

The grid's plan is drawn as it stands: each plot's cells as wide as in its figure, its title
(the annotation over it), its axes' titles where the figure gives them (the y title left of a
row's first plot, the x title under the last row), its masked cells. A figure of one plot (a
piece of ``grid_figures``) is drawn as it is; a figure of several is cut into its plots first
(``plots_of``). In a box of markup (``figures_box``) the plots wrap as the column allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from ui.draw.axis_text import plain
from ui.draw.describe_words import Spec
from ui.draw.heatmap_table import heatmap_table
from ui.draw.wire import alt_text


def grid_tables(pieces: Sequence[Spec], *, key: str) -> list[str]:
    """The plots of ``pieces`` (``grid_figures``' figures) as heatmap tables, keys ``key``,
    ``key-1``, ``key-2``, ... in reading order. A plot is named by its figure's text
    alternative where its figure holds it alone, else by its own title."""
    plots = []
    for piece in pieces:
        if len(piece["data"]) == 1:
            plots.append((piece, alt_text(piece)))
        else:
            plots += [(plot, _plain(plot)) for plot in plots_of(piece)]
    return [
        heatmap_table(plot, key=f"{key}-{k}" if k else key, alt=alt)
        for k, (plot, alt) in enumerate(plots)
    ]


def plots_of(fig: Spec) -> list[Spec]:
    """A grid figure's plots, each as a figure of its own: its trace, its axes, its title, its
    cells' width (the plot's share of the figure's width), the colour axis shown on the plot
    that holds the bar (the last for an upright bar, the first for a lying one); a title under
    the whole grid (``grids._x_title_below``) becomes the last plot's x title."""
    data, layout = fig["data"], fig["layout"]
    margin = layout["margin"]
    inner = layout["width"] - margin["l"] - margin["r"]
    notes = layout.get("annotations") or []
    below = notes[len(data)]["text"] if len(notes) > len(data) else ""
    axis = layout["coloraxis"]
    lying = axis.get("colorbar", {}).get("orientation") == "h"
    holder = 0 if lying else len(data) - 1
    plots = []
    for k, trace in enumerate(data):
        suffix = trace["xaxis"][1:]
        x_axis, y_axis = dict(layout[f"xaxis{suffix}"]), layout[f"yaxis{suffix}"]
        if below and k == len(data) - 1:
            x_axis["title"] = {**x_axis.get("title", {}), "text": below}
        left, right = x_axis["domain"]
        shown = {**axis, "showscale": axis.get("showscale", True) and k == holder}
        if not lying:  # as tall as this plot's cells
            shown["colorbar"] = {
                key: v for key, v in axis.get("colorbar", {}).items() if key != "len"
            }
        plots.append(
            {
                "data": [trace],
                "layout": {
                    **layout,
                    "xaxis": x_axis,
                    "yaxis": y_axis,
                    "annotations": notes[k : k + 1],
                    "coloraxis": shown,
                    "width": (right - left) * inner,
                    "margin": {**margin, "l": 0, "r": 0},
                },
            }
        )
    return plots


def _plain(plot: Spec) -> str:
    """A plot's title as plain text: its name where its figure holds several."""
    notes = plot["layout"]["annotations"]
    return plain(notes[0]["text"]) if notes else ""
