"""Grids of heatmaps: several matrices as plots of ONE figure, on one colour scale.

The plots keep their cells' size (``Look.cells``): as many stand in a row as fit ROW_PX, the
others in the next rows; a phone has one a row. A grid wider than its column scrolls sideways
in its own box (``ui.wire.show_figure``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ui.heatmaps import heatmap_cells, mask_shape
from ui.labels import axis_margins, fit_lines, label_px
from ui.style import BAR, CELL_AXIS, COLOUR_SCALES, LARGE_SIDE_PX, PLAIN, Look
from ui.wire import Spec, fast_figure, show_figure

ROW_PX = 820  # a row of plots at most this wide (px): the column of 1280 × 720 with the sidebar
PLOT_GAP = 28  # px between two plots of a row
SUBTITLE_PX = 13  # a plot's title, above it


def heatmap_grid(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    key: str,
    **style: Any,
) -> None:
    """Several heatmaps in ONE figure, on one colour scale with one colour bar; ``style`` as in
    ``grid_figure``.

    One figure rather than one per matrix: the browser draws every figure from scratch on each
    change, and most of that cost is per figure, not per cell.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    show_figure(grid_figure(mats, rows, cols, titles, **style), key=key)


def grid_figure(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    signed: bool = False,
    zmin: float = 0.0,
    zmax: float = 1.0,
    masked: np.ndarray | None = None,
    masked_label: str = "masked",
    x_title: str = "",
    y_title: str = "",
    scale_title: str = "",
    per_row: int = 4,
    digits: int = 2,
    look: Look = PLAIN,
    phone: bool = False,
    row_px: float = ROW_PX,
) -> Spec:
    """The heatmaps of ``mats`` as a grid of plots, at most ``per_row`` a row, in one figure.

    Viridis from zmin to zmax, or (``signed``) red-blue from -b to b with b the largest |value|
    of all the matrices: one shared ``coloraxis`` and its colour bar on the right (above the
    plots when they stand one a row). Trace n sits on axes x{n+1}/y{n+1} (plotly's names: x,
    x2, x3, ...), its title in an annotation above it. The token labels stand once, left of
    each row of plots; exact values on hover.

    Sizes (px): every cell is ``look.cells(max(R, most C))`` square; a plot's slot is as wide
    as its cells or its title; a row holds as many slots as fit ROW_PX (one on a phone; all
    ``per_row`` when the cells are too small for numbers, rather than a page of rows); the
    figure is l + slots and gaps + r wide and t + rows of plots and their labels + b tall.
    ``row_px``: how wide a row may be; ``phone`` (or ``look.phone``): one plot a row.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if phone:
        look = replace(look, phone=True)
    if signed:
        zmax = max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0
        zmin = -zmax
    n = len(mats)
    most_cols = max(len(c) for c in cols)
    # several plots of a large setting: half the side of a lone one
    cell, number_px = look.cells(max(len(rows), most_cols), LARGE_SIDE_PX // (1 if n == 1 else 2))
    all_cols = [c for group in cols for c in group]
    widest_px = max(label_px(str(c)) for c in all_cols)
    tickangle = 0 if widest_px + 6 <= cell else (-60 if cell >= 20 else -90)
    x_labels = 22 + abs(math.sin(math.radians(tickangle))) * widest_px  # px under a plot
    plot_w, plot_h = most_cols * cell, len(rows) * cell
    # a title longer than its plot takes two lines, and the slot the longer line's width
    titles = [fit_lines(t, max(plot_w, 150) * 14 / SUBTITLE_PX) for t in titles]  # at 13 px
    lines = max(t.count("<br>") + 1 for t in titles)
    widest_title = max(
        label_px(line) * SUBTITLE_PX / 12 for t in titles for line in t.split("<br>")
    )
    slot = max(plot_w, math.ceil(widest_title + 8))
    title_px = 8 + 17 * lines  # a plot's title lines above it
    margin = axis_margins(rows, all_cols, tickangle, colour_bar=True)
    bar_r = margin["r"] + (28 if scale_title else 0)  # room for an upright bar and its title
    fits = int(row_px - margin["l"] - bar_r + PLOT_GAP) // (slot + PLOT_GAP)
    if not number_px:  # large settings: every row as the page asks, the box scrolls sideways
        fits = per_row
    per_row = 1 if look.phone else max(1, min(per_row, n, fits))
    n_rows = -(-n // per_row)
    row_gap = x_labels + title_px + 14  # px from the bottom of one row of plots to the next
    margin.update(t=title_px + 4, b=margin["b"] if x_title else math.ceil(x_labels + 8), r=bar_r)
    inner_h = n_rows * plot_h + (n_rows - 1) * row_gap  # the plot area's height, px
    inner_w = per_row * slot + (per_row - 1) * PLOT_GAP  # and its width
    data, annotations, shapes = [], [], []
    layout: dict[str, object] = {}
    hidden = None if masked is None else np.asarray(masked, dtype=bool)
    for k, m in enumerate(mats):
        r, c = divmod(k, per_row)
        trace = heatmap_cells(
            m,
            rows,
            cols[k],
            masked=masked,
            masked_label=masked_label,
            digits=digits,
            number_px=number_px,
            x_title=x_title,
            y_title=y_title,
            look=look,
        )
        suffix = _axis_suffix(k)
        # the shared colour axis holds the scale
        trace.update(xaxis=f"x{suffix}", yaxis=f"y{suffix}", coloraxis="coloraxis")
        data.append(trace)
        left_px = c * (slot + PLOT_GAP) + (slot - len(cols[k]) * cell) / 2  # centred in its slot
        left, right = left_px / inner_w, (left_px + len(cols[k]) * cell) / inner_w
        top = 1.0 - r * (plot_h + row_gap) / inner_h
        bottom = max(0.0, top - plot_h / inner_h)
        layout[f"xaxis{suffix}"] = {
            **CELL_AXIS,
            "tickangle": tickangle,
            "domain": [round(left, 6), round(min(1.0, right), 6)],
            "anchor": f"y{suffix}",
            "title": {"text": x_title if r == n_rows - 1 else ""},
        }
        layout[f"yaxis{suffix}"] = {
            **CELL_AXIS,
            "autorange": "reversed",
            "domain": [round(bottom, 6), round(top, 6)],
            "anchor": f"x{suffix}",
            "showticklabels": c == 0,
            "title": {"text": y_title if c == 0 else ""},
        }
        annotations.append(
            {
                "text": titles[k],
                "x": (left + right) / 2,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "yshift": 4,
                "showarrow": False,
                "font": {"size": SUBTITLE_PX},
            }
        )
        if hidden is not None and (shape := mask_shape(hidden, cell, f"x{suffix}", f"y{suffix}")):
            shapes.append(shape)
    if per_row > 1:  # the colour bar upright, right of the grid
        bar: dict[str, object] = {"x": 1.0, "xanchor": "left", "y": 1.0, "yanchor": "top", **BAR}
        bar.update(lenmode="pixels", len=max(inner_h, 100))
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, inner_h), "side": "right"}
            if "<br>" in bar["title"]["text"]:
                margin["r"] += 18  # a second line beside the bar
    else:  # one plot a row: lying above the plots, so they keep the column's width
        bar = {"orientation": "h", "thickness": 12, "len": 1.0, "x": 0.5, "xanchor": "center"}
        bar.update(y=1.0 + (title_px + 8) / inner_h, yanchor="bottom", ypad=0)
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, inner_w), "side": "top"}
        bar_lines = bar["title"]["text"].count("<br>") + 1 if scale_title else 0
        margin.update(t=margin["t"] + 72 + 30 * bar_lines, r=16)  # measured
        # plotly lifts an x axis title into its tick labels when the colour bar lies flat: the
        # title goes in an annotation under the last plot instead
        last = _axis_suffix(n - 1)
        layout[f"xaxis{last}"]["title"] = {"text": ""}
        if x_title:
            low = layout[f"yaxis{last}"]["domain"][0]
            annotations.append(
                {
                    "text": x_title,
                    "x": 0.5,
                    "y": low,
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "top",
                    "yshift": -math.ceil(x_labels + 16),  # the labels start 14 px down
                    "showarrow": False,
                    "font": {"size": 14},
                }
            )
    layout.update(
        coloraxis={
            "colorscale": COLOUR_SCALES["RdBu_r" if signed else "Viridis"],
            "cmin": zmin,
            "cmax": zmax,
            "colorbar": bar,
        },
        annotations=annotations,
        width=math.ceil(margin["l"] + inner_w + margin["r"]),
        height=math.ceil(inner_h + margin["t"] + margin["b"]),
        margin=margin,
        separators=look.separators(),
    )
    if shapes:
        layout["shapes"] = shapes
    return fast_figure(data, layout)


def _axis_suffix(k: int) -> str:
    """plotly's name for the axes of plot k: x/y for the first, then x2/y2, x3/y3, ..."""
    return "" if k == 0 else str(k + 1)
