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

from ui.draw.contrast import readable_numbers
from ui.draw.grid_plan import (
    PLOT_GAP,
    SUBTITLE_PX,
    WRAP_PX,
    GridSizes,
    Placement,
    Plan,
    grid_sizes,
    wrapping,
)
from ui.draw.heatmaps import extreme_numbers, heatmap_cells, mask_shape
from ui.draw.style import CELL_AXIS, COLOUR_SCALES, PLAIN, Look
from ui.draw.wire import Spec, fast_figure, show_pieces

ROW_PX = 820  # a row of plots at most this wide (px): the column of 1280 × 720 with the sidebar
DIGITS = 2  # the decimals printed in a cell


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
    the last (``ui.draw.grid_plan.wrapping``); in presenter mode, pieces of one plot unless one
    figure holds the grid in one row (``_one_plot_a_piece``). ``ui.draw.wire.show_figures`` stands
    them side by side, wrapping onto the next row where the column ends, so no column of a
    class's screen scrolls them sideways. ``style``: the rest of ``grid_figure``'s keywords.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N -> pieces.
    """
    if phone:
        look = replace(look, phone=True)
    bound = _largest(mats) if signed else None  # the one colour scale of every piece
    common = {"signed": signed, "zmin": zmin, "zmax": zmax, "bound": bound, "look": look}
    common |= style
    if look.phone or len(mats) == 1:
        return [grid_figure(mats, rows, cols, titles, per_row=per_row, **common)]
    scale_title = str(style.get("scale_title", ""))
    widest = extreme_numbers(mats, style.get("digits", DIGITS))
    # the whole grid's width from its sizes alone: its cells are built only where it is drawn
    texts = {"scale_title": scale_title, "x_title": str(style.get("x_title", ""))}
    row_px = style.get("row_px", ROW_PX)
    whole = grid_sizes(len(mats), rows, cols, titles, widest, look, per_row, row_px, **texts)
    if _one_plot_a_piece(whole, look):
        return _pieces(mats, rows, cols, titles, 1, common)
    wrap = None
    if whole.width > WRAP_PX:
        wrap = wrapping(rows, cols, titles, look, scale_title, len(mats), per_row, widest)
    if wrap is None:
        return [grid_figure(mats, rows, cols, titles, per_row=per_row, **common)]
    fitted, k, compact = wrap
    if compact:
        return [
            grid_figure(
                mats, rows, cols, titles, per_row=k, flat_bar=True, **common | {"look": fitted}
            )
        ]
    return _pieces(mats, rows, cols, titles, k, common)


def _one_plot_a_piece(whole: GridSizes, look: Look) -> bool:
    """Whether presenter mode draws the grid as pieces of one plot each: its cells carry numbers
    and, as one figure, it would stand in more than one row or be wider than WRAP_PX (its large
    cells leave fewer plots in ROW_PX, or none would fit). A projector's column, the sidebar
    closed, is 1 200 px at 1280 × 720 and about 770 at 150 %: the pieces stand side by side
    where it holds them (page 5's two heads, page 1's Q, K and V, the LayerNorm page's four
    matrices two a row) and one under the other where it does not; one figure left the
    column empty beside a second row."""
    if look.text_scale == 1.0 or not whole.plan.number_px:
        return False
    return whole.grid.n_rows > 1 or whole.width > WRAP_PX


def _largest(mats: Sequence[np.ndarray]) -> float:
    """The largest magnitude of all the matrices (1 when there is none, or it is 0): where a
    signed colour scale ends."""
    return max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0


def _pieces(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    k: int,
    common: dict[str, Any],
) -> list[Spec]:
    """The grid as pieces of ``k`` plots, a row each, the colour bar upright beside the last
    one's plots (``common``: the keywords of every piece, its colour scale's ``bound``
    among them)."""
    n = len(mats)
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
    digits: int = DIGITS,
    look: Look = PLAIN,
    phone: bool = False,
    row_px: float = ROW_PX,
    colour_bar: bool = True,
    upright: bool = False,
    bound: float | None = None,
    flat_bar: bool = False,
) -> Spec:
    """The heatmaps of ``mats`` as a grid of plots, at most ``per_row`` a row, in one figure, on
    one colour axis (``_colour_axis``; its bar: ``ui.draw.grid_plan.colour_bar_of``). Trace n
    sits on axes x{n+1}/y{n+1} (plotly's x, x2, ...), its title in an annotation above it; the
    token labels stand once, left of each row of plots; exact values on hover. Sizes:
    ``ui.draw.grid_plan.grid_sizes``, cells as wide as their widest numbers; ``row_px``: how wide
    a row may be; ``phone``: one plot a row.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if phone:
        look = replace(look, phone=True)
    widest = extreme_numbers(mats, digits)
    texts = {"scale_title": scale_title, "x_title": x_title}
    at = {"colour_bar": colour_bar, "upright": upright, "flat_bar": flat_bar}  # the bar's place
    sizes = grid_sizes(len(mats), rows, cols, titles, widest, look, per_row, row_px, **texts, **at)
    plan, grid, lying, margin = sizes.plan, sizes.grid, sizes.lying, sizes.margin
    cells = {"masked": masked, "masked_label": masked_label, "digits": digits, "look": look}
    data, axes, notes, shapes = _plots(
        mats, rows, cols, plan, grid, lying=lying, x_title=x_title, y_title=y_title, **cells
    )
    axis = _colour_axis(mats, signed, zmin, zmax, bound, None)
    for trace in data:  # every number 4.5:1 on its cell, on the shared colour axis
        readable_numbers(trace, masked, axis["colorscale"], axis["cmin"], axis["cmax"])
    if lying and x_title:
        notes.append(_x_title_below(axes, len(mats), grid, x_title, plan, look.text_scale))
    bar = sizes.bar if colour_bar else None
    layout = axes | {
        "coloraxis": _colour_axis(mats, signed, zmin, zmax, bound, bar),
        "annotations": notes,
        "width": sizes.width,
        "height": math.ceil(grid.inner_h + margin["t"] + margin["b"]),
        "margin": margin,
        "separators": look.separators(),
    }
    return fast_figure(data, look.chart_text(layout | ({"shapes": shapes} if shapes else {})))


def _plots(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    plan: Plan,
    grid: Placement,
    *,
    lying: bool,
    masked: np.ndarray | None,
    x_title: str,
    y_title: str,
    **cells: Any,
) -> tuple[list[dict], dict[str, dict], list[dict], list[dict]]:
    """Every plot's cells on the shared colour axis, its axes, its title and its masked cells'
    shape: the traces, the axes by name, the titles, the shapes; its x axis untitled under a
    ``lying`` colour bar (``_x_title_below``). ``cells``: ``heatmap_cells``' masked label,
    digits and look."""
    data, axes, notes, shapes = [], {}, [], []
    hidden = None if masked is None else np.asarray(masked, dtype=bool)
    for k, m in enumerate(mats):
        trace = heatmap_cells(
            m,
            rows,
            cols[k],
            masked=masked,
            number_px=plan.number_px,
            x_title=x_title,
            y_title=y_title,
            **cells,
        )
        suffix = _axis_suffix(k)
        trace.update(xaxis=f"x{suffix}", yaxis=f"y{suffix}", coloraxis="coloraxis")
        data.append(trace)
        axis_title = "" if lying else x_title
        xaxis, yaxis, note = _placed(k, len(cols[k]), plan, grid, axis_title, y_title)
        axes |= {f"xaxis{suffix}": xaxis, f"yaxis{suffix}": yaxis}
        notes.append(note)
        if hidden is not None and (
            shape := mask_shape(hidden, plan.cell, f"x{suffix}", f"y{suffix}")
        ):
            shapes.append(shape)
    return data, axes, notes, shapes


def _placed(
    k: int, n_cols: int, plan: Plan, grid: Placement, x_title: str, y_title: str
) -> tuple[dict, dict, dict]:
    """Plot k's x and y axes, in reading order, centred in its slot, the y labels left of a
    row's first plot only, the x title under the last row's; and its title above it."""
    r, c = divmod(k, grid.per_row)
    suffix = _axis_suffix(k)
    left_px = c * (plan.slot + PLOT_GAP) + (plan.slot - n_cols * plan.cell) / 2
    left, right = left_px / grid.inner_w, (left_px + n_cols * plan.cell) / grid.inner_w
    top = 1.0 - r * (grid.plot_h + grid.gap) / grid.inner_h
    bottom = max(0.0, top - grid.plot_h / grid.inner_h)
    xaxis = {
        **CELL_AXIS,
        "tickangle": plan.tickangle,
        "domain": [round(left, 6), round(min(1.0, right), 6)],
        "anchor": f"y{suffix}",
        "title": {"text": x_title if r == grid.n_rows - 1 else ""},
    }
    yaxis = {
        **CELL_AXIS,
        "autorange": "reversed",
        "domain": [round(bottom, 6), round(top, 6)],
        "anchor": f"x{suffix}",
        "showticklabels": c == 0,
        "title": {"text": y_title if c == 0 else ""},
    }
    note = {"text": plan.titles[k], "x": (left + right) / 2, "y": top} | _TITLE_NOTE
    return xaxis, yaxis, note | {"font": {"size": SUBTITLE_PX}}


# a plot's title above it, after its text and place
_TITLE_NOTE = {
    "xref": "paper",
    "yref": "paper",
    "xanchor": "center",
    "yanchor": "bottom",
    "yshift": 4,
    "showarrow": False,
}


def _colour_axis(
    mats: Sequence[np.ndarray],
    signed: bool,
    zmin: float,
    zmax: float,
    bound: float | None,
    bar: dict | None,
) -> dict:
    """The plots' one colour axis: Viridis from zmin to zmax, or (``signed``) red-blue from -b
    to b, b = ``bound`` or the largest |value| of all the matrices (the pieces of
    ``grid_figures`` share it); ``bar`` its colour bar (None: a piece whose bar another holds)."""
    if signed:
        zmax = bound or _largest(mats)
        zmin = -zmax
    scale = {"colorscale": COLOUR_SCALES["RdBu_r" if signed else "Viridis"], "cmin": zmin}
    if bar is None:
        return scale | {"cmax": zmax, "showscale": False}
    return scale | {"cmax": zmax, "colorbar": bar}


def _x_title_below(
    axes: dict[str, dict], n: int, grid: Placement, x_title: str, plan: Plan, grow: float
) -> dict:
    """The x title as an annotation centred under the last row's plots: plotly lifts an x axis
    title into its tick labels when the colour bar lies flat."""
    last = _axis_suffix(n - 1)
    first = _axis_suffix((grid.n_rows - 1) * grid.per_row)  # the last row's first plot
    row_from, row_to = axes[f"xaxis{first}"]["domain"][0], axes[f"xaxis{last}"]["domain"][1]
    return {
        "text": x_title,
        "x": (row_from + row_to) / 2,
        "y": axes[f"yaxis{last}"]["domain"][0],
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "top",
        "yshift": -math.ceil(plan.x_labels + 16 * grow),  # the labels start 14 px down
        "showarrow": False,
        "font": {"size": 14},
    }


def _axis_suffix(k: int) -> str:
    """plotly's name for the axes of plot k: x/y for the first, then x2/y2, x3/y3, ..."""
    return "" if k == 0 else str(k + 1)
