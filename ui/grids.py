"""Grids of heatmaps: several matrices as plots of ONE figure, on one colour scale."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ui.heatmaps import MAX_CELL_TEXT, heatmap_cells
from ui.labels import axis_margins, fit_lines, label_px
from ui.style import BAR, CELL_AXIS, COLOUR_SCALES, MASKED_COLOUR
from ui.wire import Spec, fast_figure, show_figure


def heatmap_grid(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    key: str,
    phone: bool = False,
    **style: Any,
) -> None:
    """Several heatmaps side by side in ONE figure, on one colour scale with one colour bar;
    ``style`` as in ``grid_figure``; ``phone``: one plot a row.

    One figure rather than one per matrix: the browser draws every figure from scratch on each
    change, and most of that cost is per figure, not per cell.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if phone:  # one plot a row: a phone has no room for several side by side
        style.update(per_row=1, row_px=300)
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
    row_px: float = 700.0,
) -> Spec:
    """The heatmaps of ``mats`` as a grid of plots, ``per_row`` a row, in one figure.

    Viridis from zmin to zmax, or (``signed``) red-blue from -b to b with b the largest |value|
    of all the matrices: one shared ``coloraxis`` and its colour bar on the right. Trace n sits
    on axes x{n+1}/y{n+1} (plotly's names: x, x2, x3, ...), its title in an annotation above it.
    The token labels stand once, left of each row of plots; cell numbers only when they fit the
    narrow plots, exact values on hover. ``row_px``: about how wide a row of plots is drawn
    (px), to choose between level and slanted x labels.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if signed:
        zmax = max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0
        zmin = -zmax
    n = len(mats)
    per_row = max(1, min(per_row, n))
    n_rows = -(-n // per_row)
    most_cols = max(len(c) for c in cols)
    show_text = max(len(rows), most_cols) * per_row <= 32
    tiny = len(rows) > MAX_CELL_TEXT
    all_cols = [c for group in cols for c in group]
    widest_px = max(label_px(str(c)) for c in all_cols)
    # level x labels when the widest fits its cell, ``row_px`` being about the plots' width
    tickangle = 0 if widest_px + 6 <= row_px / per_row / most_cols else -60
    x_labels = 22 + abs(math.sin(math.radians(tickangle))) * widest_px
    title_px = 26  # a plot's title line above it
    # one row of plots may be as tall as a single heatmap; several rows share the height
    plot_h = min(max((20 if tiny else 34) * len(rows), 90), 260 if n_rows > 1 else 640)
    row_gap = x_labels + title_px + 16  # px from the bottom of one row of plots to the next
    margin = axis_margins(rows, all_cols, tickangle, colour_bar=True)
    margin.update(
        t=title_px + 6,
        b=margin["b"] if x_title else math.ceil(x_labels + 8),
        r=margin["r"] + (28 if scale_title else 0),  # room for an upright bar's title
    )
    inner = n_rows * plot_h + (n_rows - 1) * row_gap  # the plot area's height, px
    gap = 0.04 if per_row > 1 else 0.0  # between the plots of a row, a share of the width
    width = (1.0 - gap * (per_row - 1)) / per_row
    data, annotations = [], []
    layout: dict[str, object] = {}
    for k, m in enumerate(mats):
        r, c = divmod(k, per_row)
        trace = heatmap_cells(
            m,
            rows,
            cols[k],
            masked=masked,
            masked_label=masked_label,
            digits=digits,
            numbers=show_text and max(np.shape(m)) <= MAX_CELL_TEXT,
            x_title=x_title,
            y_title=y_title,
        )
        if tiny:
            trace.update(xgap=0, ygap=0)  # tiny cells: a 1 px gap would hide a third of them
        suffix = _axis_suffix(k)
        # the shared colour axis holds the scale
        trace.update(xaxis=f"x{suffix}", yaxis=f"y{suffix}", coloraxis="coloraxis")
        data.append(trace)
        left = c * (width + gap)
        top = 1.0 - r * (plot_h + row_gap) / inner
        bottom = max(0.0, top - plot_h / inner)
        layout[f"xaxis{suffix}"] = {
            **CELL_AXIS,
            "tickangle": tickangle,
            "domain": [left, min(1.0, left + width)],
            "anchor": f"y{suffix}",
            "title": {"text": x_title if r == n_rows - 1 else ""},
        }
        layout[f"yaxis{suffix}"] = {
            **CELL_AXIS,
            "autorange": "reversed",
            "domain": [bottom, top],
            "anchor": f"x{suffix}",
            "showticklabels": c == 0,
            "title": {"text": y_title if c == 0 else ""},
        }
        annotations.append(
            {
                "text": titles[k],
                "x": left + width / 2,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "yshift": 4,
                "showarrow": False,
                "font": {"size": 13},
            }
        )
    if per_row > 1:  # the colour bar upright, right of the grid
        bar: dict[str, object] = {"x": 1.0, "xanchor": "left", "len": 1.0, "y": 0.5, **BAR}
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, inner), "side": "right"}
            if "<br>" in bar["title"]["text"]:
                margin["r"] += 18  # a second line beside the bar
    else:  # one plot a row (a phone): lying above the plots, so they keep the whole width
        bar = {"orientation": "h", "thickness": 12, "len": 1.0, "x": 0.5, "xanchor": "center"}
        bar.update(y=1.0 + (title_px + 8) / inner, yanchor="bottom", ypad=0)
        if scale_title:
            bar["title"] = {"text": scale_title, "side": "top"}
        margin.update(t=margin["t"] + 72 + (30 if scale_title else 0), r=16)  # measured
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
        height=math.ceil(inner + margin["t"] + margin["b"]),
        margin=margin,
        plot_bgcolor=MASKED_COLOUR,
    )
    return fast_figure(data, layout)


def _axis_suffix(k: int) -> str:
    """plotly's name for the axes of plot k: x/y for the first, then x2/y2, x3/y3, ..."""
    return "" if k == 0 else str(k + 1)
