"""Grids of heatmaps: several matrices as plots of ONE figure, on one colour scale.

The plots keep their cells' size (``Look.cells``): as many stand in a row as fit ROW_PX, the
others in the next rows; a phone has one a row. A grid whose cells carry numbers and that is
wider than the narrowest column a class's screen leaves (WRAP_PX) is drawn to fit it, two plots
a row at slightly smaller cells where they allow, or comes as pieces of as many plots as fit it
(``grid_figures``), side by side where the column holds them and wrapping onto the next row
where it does not. Any other grid wider than its column scrolls sideways in its
own box (``ui.draw.wire.show_figure``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ui.draw.heatmaps import heatmap_cells, mask_shape, scaled_margins, x_label_angle
from ui.draw.labels import axis_margins, fit_lines, label_px
from ui.draw.style import BAR, CELL_AXIS, COLOUR_SCALES, LARGE_SIDE_PX, PLAIN, Look
from ui.draw.wire import Spec, fast_figure, show_pieces

ROW_PX = 820  # a row of plots at most this wide (px): the column of 1280 × 720 with the sidebar
# the narrowest chart box of a class's computer screen (px): 1280 × 720 zoomed to 150 % (521 px;
# 1024 × 768 with the sidebar open gives 564)
WRAP_PX = 516
# the smallest cell (px, at a screen's scale) a grid takes to stand as one figure in WRAP_PX
# rather than in pieces: the browser draws each figure from scratch on a change
COMPACT_CELL_PX = 34
PLOT_GAP = 28  # px between two plots of a row
SUBTITLE_PX = 13  # a plot's title, above it
ROW_ROOM = 26  # px between a row's x labels and the titles of the row under it: room to read


def heatmap_grid(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    key: str,
    **style: Any,
) -> None:
    """Several heatmaps on one colour scale in the figures of ``grid_figures``: ONE figure
    where it fits the narrowest column, else pieces that wrap instead of scrolling (keys
    ``key``, ``key-1``, ...); ``style`` as in ``grid_figures``.

    One figure rather than one per matrix where it can: the browser draws every figure from
    scratch on each change, and most of that cost is per figure, not per cell.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    show_pieces(grid_figures(mats, rows, cols, titles, **style), key)


def grid_figures(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    signed: bool = False,
    zmin: float = 0.0,
    zmax: float = 1.0,
    per_row: int = 4,
    look: Look = PLAIN,
    phone: bool = False,
    **style: Any,
) -> list[Spec]:
    """The grid of ``grid_figure`` as figures that wrap: one figure when it fits WRAP_PX, when
    its cells carry no numbers (large settings: its box scrolls sideways) or on a phone (one
    plot a row already); else one figure of two plots a row or more that fits WRAP_PX with
    cells down to COMPACT_CELL_PX and the colour bar above them (chapter 9's four heads: one
    figure for the browser to draw instead of four); else pieces of as many plots as fit
    WRAP_PX with the colour bar, each a row, all on the one colour scale, the colour bar beside
    the last. ``ui.draw.wire.show_figures``
    stands them side by side, wrapping onto the next row where the column ends, so no column
    of a class's screen scrolls them sideways. ``style``: the rest of ``grid_figure``'s keywords.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N -> pieces.
    """
    if phone:
        look = replace(look, phone=True)
    bound = None
    if signed:  # the largest magnitude of every matrix, for every piece
        bound = max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0
    common = {"signed": signed, "zmin": zmin, "zmax": zmax, "bound": bound, "look": look}
    common |= style
    whole = grid_figure(mats, rows, cols, titles, per_row=per_row, **common)
    n = len(mats)
    _, number_px = _cells(look, rows, cols)
    if look.phone or n == 1 or not number_px or whole["layout"]["width"] <= WRAP_PX:
        return [whole]
    scale_title = str(style.get("scale_title", ""))
    # one figure no wider than WRAP_PX where two plots a row fit it, with cells down to
    # COMPACT_CELL_PX and the colour bar lying above the plots
    smallest = round(COMPACT_CELL_PX * look.scale)
    for cell in range(_cells(look, rows, cols)[0], smallest - 1, -1):
        compact = look.fitted(cell, number_px)
        plan = _plan(rows, cols, titles, compact, scale_title, WRAP_PX, colour_bar=False)
        if plan["fits"] >= 2:
            k = min(per_row, n, plan["fits"])
            fitted = common | {"look": compact}
            return [grid_figure(mats, rows, cols, titles, per_row=k, flat_bar=True, **fitted)]
    fits = _plan(rows, cols, titles, look, scale_title, WRAP_PX, colour_bar=True)["fits"]
    k = max(1, min(per_row, n, fits))
    return [
        grid_figure(
            mats[a : a + k],
            rows,
            cols[a : a + k],
            titles[a : a + k],
            per_row=k,
            colour_bar=a + k >= n,
            upright=True,
            **common,
        )
        for a in range(0, n, k)
    ]


def _cells(look: Look, rows: Sequence[str], cols: Sequence[Sequence[str]]) -> tuple[int, int]:
    """The cells' side and their numbers' size (px) of a grid: several plots of a large setting
    get half the side of a lone one."""
    side = LARGE_SIDE_PX // (1 if len(cols) == 1 else 2)
    return look.cells(max(len(rows), max(len(c) for c in cols)), side)


def _plan(
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    look: Look,
    scale_title: str,
    row_px: float,
    *,
    colour_bar: bool,
) -> dict[str, Any]:
    """A grid's sizes (px): its cells, their numbers, the x labels' angle and height, the
    titles (on two lines where longer than their plot) and their height, a plot's slot, the
    margins, and how many slots fit ``row_px``."""
    cell, number_px = _cells(look, rows, cols)
    grow = look.text_scale  # presenter mode's larger text: its labels and titles take more room
    most_cols = max(len(c) for c in cols)
    all_cols = [c for group in cols for c in group]
    widest_px = max(label_px(str(c)) for c in all_cols) * grow
    tickangle = x_label_angle(widest_px, cell)
    x_labels = 22 * grow + abs(math.sin(math.radians(tickangle))) * widest_px  # px under a plot
    plot_w = most_cols * cell
    # a title longer than its plot takes two lines, and the slot the longer line's width
    titles = [fit_lines(t, max(plot_w, 150) * 14 / SUBTITLE_PX / grow) for t in titles]  # 13 px
    lines = max(t.count("<br>") + 1 for t in titles)
    widest_title = max(
        label_px(line) * SUBTITLE_PX / 12 * grow for t in titles for line in t.split("<br>")
    )
    slot = max(plot_w, math.ceil(widest_title + 8))
    margin = scaled_margins(axis_margins(rows, all_cols, tickangle, colour_bar=colour_bar), grow)
    # room for an upright bar and its title; none beside a piece without the bar
    bar_r = (
        margin["r"] + (math.ceil(28 * grow) if scale_title else 0) if colour_bar else margin["r"]
    )
    fits = int(row_px - margin["l"] - bar_r + PLOT_GAP) // (slot + PLOT_GAP)
    return {
        "cell": cell,
        "number_px": number_px,
        "tickangle": tickangle,
        "x_labels": x_labels,
        "titles": titles,
        "title_px": 8 + math.ceil(17 * grow) * lines,  # a plot's title lines above it
        "slot": slot,
        "margin": margin,
        "bar_r": bar_r,
        "fits": fits,
    }


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
    colour_bar: bool = True,
    upright: bool = False,
    bound: float | None = None,
    flat_bar: bool = False,
) -> Spec:
    """The heatmaps of ``mats`` as a grid of plots, at most ``per_row`` a row, in one figure.

    Viridis from zmin to zmax, or (``signed``) red-blue from -b to b with b the largest |value|
    of all the matrices: one shared ``coloraxis`` and its colour bar on the right (above the
    plots when they stand one a row; none when not ``colour_bar``, for a piece of a grid whose
    bar another piece holds; upright beside a lone plot too when ``upright``, as in a piece of
    ``grid_figures``, whose pieces share ``bound`` as b; lying above the plots when
    ``flat_bar``, so that it takes no width: ``grid_figures``' compact grid, its cells fitted
    smaller, ``Look.fitted``). Trace n sits on axes
    x{n+1}/y{n+1} (plotly's names: x, x2, x3, ...), its title in an annotation above it. The
    token labels stand once, left of each row of plots; exact values on hover.

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
        zmax = bound or max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0
        zmin = -zmax
    n = len(mats)
    plan = _plan(
        rows,
        cols,
        titles,
        look,
        scale_title,
        row_px,
        colour_bar=colour_bar and not flat_bar,
    )
    cell, number_px, tickangle = plan["cell"], plan["number_px"], plan["tickangle"]
    x_labels, titles, title_px = plan["x_labels"], plan["titles"], plan["title_px"]
    slot, margin, bar_r, fits = plan["slot"], plan["margin"], plan["bar_r"], plan["fits"]
    plot_h = len(rows) * cell
    grow = look.text_scale
    if not number_px:  # large settings: every row as the page asks, the box scrolls sideways
        fits = per_row
    per_row = 1 if look.phone else max(1, min(per_row, n, fits))
    n_rows = -(-n // per_row)
    row_gap = x_labels + title_px + ROW_ROOM  # px from the bottom of one row of plots to the next
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
    bar: dict[str, object] = {}
    if not colour_bar:  # a piece of a grid whose bar another piece holds
        pass
    elif (per_row > 1 or upright) and not flat_bar:  # the colour bar upright, right of the grid
        bar = {"x": 1.0, "xanchor": "left", "y": 1.0, "yanchor": "top", **BAR}
        bar.update(lenmode="pixels", len=max(inner_h, 100))
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, inner_h / grow), "side": "right"}
            if "<br>" in bar["title"]["text"]:
                margin["r"] += math.ceil(18 * grow)  # a second line beside the bar
    else:  # one plot a row, or flat_bar: lying above the plots, so they keep their width
        bar = {"orientation": "h", "thickness": 12, "len": 1.0, "x": 0.5, "xanchor": "center"}
        bar.update(y=1.0 + (title_px + 8) / inner_h, yanchor="bottom", ypad=0)
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, inner_w / grow), "side": "top"}
        bar_lines = bar["title"]["text"].count("<br>") + 1 if scale_title else 0
        margin.update(t=margin["t"] + math.ceil((72 + 30 * bar_lines) * grow), r=16)  # measured
        # plotly lifts an x axis title into its tick labels when the colour bar lies flat: the
        # title goes in an annotation under the last row instead, one for the row's plots
        last = _axis_suffix(n - 1)
        for k in range(n):
            layout[f"xaxis{_axis_suffix(k)}"]["title"] = {"text": ""}
        if x_title:
            low = layout[f"yaxis{last}"]["domain"][0]
            first = _axis_suffix((n_rows - 1) * per_row)  # the last row's first plot
            row_from = layout[f"xaxis{first}"]["domain"][0]
            row_to = layout[f"xaxis{last}"]["domain"][1]
            annotations.append(
                {
                    "text": x_title,
                    "x": (row_from + row_to) / 2,  # centred under the last row's plots
                    "y": low,
                    "xref": "paper",
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "top",
                    "yshift": -math.ceil(x_labels + 16 * grow),  # the labels start 14 px down
                    "showarrow": False,
                    "font": {"size": 14},
                }
            )
    scale = {"colorscale": COLOUR_SCALES["RdBu_r" if signed else "Viridis"], "cmin": zmin}
    scale |= {"cmax": zmax, "colorbar": bar} if colour_bar else {"cmax": zmax, "showscale": False}
    layout.update(
        coloraxis=scale,
        annotations=annotations,
        width=math.ceil(margin["l"] + inner_w + margin["r"]),
        height=math.ceil(inner_h + margin["t"] + margin["b"]),
        margin=margin,
        separators=look.separators(),
    )
    if shapes:
        layout["shapes"] = shapes
    return fast_figure(data, look.chart_text(layout))


def _axis_suffix(k: int) -> str:
    """plotly's name for the axes of plot k: x/y for the first, then x2/y2, x3/y3, ..."""
    return "" if k == 0 else str(k + 1)
