"""A grid of heatmaps' plan (``ui.draw.grids``): its cells' and titles' sizes, its margins, how
many plots stand in a row, where its rows stand, its colour bar, the figure's width, and how a
grid too wide for a class's column wraps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ui.draw.labels import (
    axis_margins,
    fit_lines,
    label_px,
    number_cell,
    scaled_margins,
    x_label_angle,
)
from ui.draw.style import BAR, LARGE_SIDE_PX, Look

# the narrowest chart box of a class's computer screen (px): 1280 × 720 zoomed to 150 % (521 px;
# 1024 × 768 with the sidebar open gives 564)
WRAP_PX = 516
# the smallest cell (px, at a screen's scale) a grid takes to stand as one figure in WRAP_PX
# rather than in pieces: the browser draws each figure from scratch on a change
COMPACT_CELL_PX = 34
PLOT_GAP = 28  # px between two plots of a row
SUBTITLE_PX = 13  # a plot's title, above it
ROW_ROOM = 26  # px between a row's x labels and the titles of the row under it: room to read


def grid_cells(
    look: Look, rows: Sequence[str], cols: Sequence[Sequence[str]], widest: Sequence[str] = ()
) -> tuple[int, int]:
    """The cells' side and their numbers' size (px) of a grid: several plots of a large setting
    get half the side of a lone one; a cell at least as wide as the ``widest`` numbers it
    prints (``number_cell``)."""
    side = LARGE_SIDE_PX // (1 if len(cols) == 1 else 2)
    cell, number_px = look.cells(max(len(rows), max(len(c) for c in cols)), side)
    if number_px and widest:
        cell = max(cell, number_cell(widest, number_px))
    return cell, number_px


@dataclass(frozen=True)
class Plan:
    """A grid's sizes (px), whatever the number of its plots (``plan_grid``)."""

    cell: int  # a cell's side
    number_px: int  # its number's size, 0: none
    tickangle: int  # the x labels' angle (degrees)
    x_labels: float  # the x labels' height under a plot
    titles: list[str]  # the plots' titles, on two lines (<br>) where longer than their plot
    title_px: int  # a plot's title lines above it
    slot: int  # a plot's slot: as wide as its cells or its title
    margin: dict[str, int]  # the left, bottom and right margins
    bar_r: int  # the right margin with the room of an upright colour bar
    fits: int  # how many slots fit the row


def plan_grid(
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    look: Look,
    scale_title: str,
    row_px: float,
    widest: Sequence[str] = (),
    *,
    colour_bar: bool,
) -> Plan:
    """A grid's sizes (px): its cells, their numbers, the x labels' angle and height, the
    titles and their height, a plot's slot, the margins, and how many slots fit ``row_px``.
    Every cell is ``look.cells(max(R, most C))`` square, or as wide as the ``widest`` numbers
    (``grid_cells``)."""
    cell, number_px = grid_cells(look, rows, cols, widest)
    grow = look.text_scale  # presenter mode's larger text: its labels and titles take more room
    all_cols = [c for group in cols for c in group]
    tickangle, x_labels = _x_labels(all_cols, cell, grow)
    titles, lines, slot = _titles(titles, max(len(c) for c in cols) * cell, grow)
    margin = scaled_margins(axis_margins(rows, all_cols, tickangle, colour_bar=colour_bar), grow)
    # room for an upright bar and its title; none beside a piece without the bar
    bar_r = (
        margin["r"] + (math.ceil(28 * grow) if scale_title else 0) if colour_bar else margin["r"]
    )
    fits = int(row_px - margin["l"] - bar_r + PLOT_GAP) // (slot + PLOT_GAP)
    title_px = 8 + math.ceil(17 * grow) * lines  # a plot's title lines above it
    return Plan(cell, number_px, tickangle, x_labels, titles, title_px, slot, margin, bar_r, fits)


def _x_labels(labels: Sequence[str], cell: int, grow: float) -> tuple[int, float]:
    """The x labels' angle under cells of ``cell`` px, and the height (px) they and their gap
    take under a plot."""
    widest_px = max(label_px(str(c)) for c in labels) * grow
    tickangle = x_label_angle(widest_px, cell)
    return tickangle, 22 * grow + abs(math.sin(math.radians(tickangle))) * widest_px


def _titles(titles: Sequence[str], plot_w: int, grow: float) -> tuple[list[str], int, int]:
    """The plots' titles, a title longer than its plot ``plot_w`` px wide on two lines; how many
    lines the longest takes; and a plot's slot (px): its cells, or its longest title line."""
    titles = [fit_lines(t, max(plot_w, 150) * 14 / SUBTITLE_PX / grow) for t in titles]  # 13 px
    lines = max(t.count("<br>") + 1 for t in titles)
    widest_title = max(
        label_px(line) * SUBTITLE_PX / 12 * grow for t in titles for line in t.split("<br>")
    )
    return titles, lines, max(plot_w, math.ceil(widest_title + 8))


@dataclass(frozen=True)
class Placement:
    """Where a grid's plots stand (px): ``per_row`` a row in ``n_rows`` rows, each ``plot_h``
    tall, ``gap`` from one row's bottom to the next row's top, in a plot area
    ``inner_w`` × ``inner_h``."""

    per_row: int
    n_rows: int
    plot_h: int
    gap: float
    inner_w: float
    inner_h: float


def arrange(plan: Plan, n: int, n_labels: int, per_row: int, look: Look) -> Placement:
    """``n`` plots of ``n_labels`` rows in rows of as many slots as fit (one on a phone; all
    ``per_row`` when the cells are too small for numbers, rather than a page of rows): the
    figure is l + slots and gaps + r wide and t + rows of plots and their labels + b tall."""
    fits = plan.fits if plan.number_px else per_row  # large settings: the box scrolls sideways
    per_row = 1 if look.phone else max(1, min(per_row, n, fits))
    n_rows = -(-n // per_row)
    plot_h = n_labels * plan.cell
    gap = plan.x_labels + plan.title_px + ROW_ROOM  # px from one row of plots to the next
    inner_h = n_rows * plot_h + (n_rows - 1) * gap  # the plot area's height, px
    inner_w = per_row * plan.slot + (per_row - 1) * PLOT_GAP  # and its width
    return Placement(per_row, n_rows, plot_h, gap, inner_w, inner_h)


def wrapping(
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    look: Look,
    scale_title: str,
    n: int,
    per_row: int,
    widest: Sequence[str] = (),
) -> tuple[Look, int, bool] | None:
    """How a grid of ``n`` plots wider than WRAP_PX wraps: None when it stays whole (cells
    without numbers: its box scrolls sideways); ``(fitted look, k, True)`` for ONE figure of k
    plots a row (two or more) at the largest cells down to COMPACT_CELL_PX that fit WRAP_PX
    with the colour bar lying above them; else ``(look, k, False)`` for pieces of k plots,
    each a row that fits WRAP_PX with the bar upright."""
    cell, number_px = grid_cells(look, rows, cols, widest)
    if not number_px:
        return None
    least = max(round(COMPACT_CELL_PX * look.scale), number_cell(widest, number_px))
    for side in range(cell, least - 1, -1):
        compact = look.fitted(side, number_px)
        plan = plan_grid(
            rows, cols, titles, compact, scale_title, WRAP_PX, widest, colour_bar=False
        )
        if plan.fits >= 2:
            return compact, min(per_row, n, plan.fits), True
    plan = plan_grid(rows, cols, titles, look, scale_title, WRAP_PX, widest, colour_bar=True)
    return look, max(1, min(per_row, n, plan.fits)), False


@dataclass(frozen=True)
class GridSizes:
    """A grid figure's sizes (``grid_sizes``): its plan, where its plots stand, whether its colour
    bar lies above them, the bar, and the margins that make room for it (px)."""

    plan: Plan
    grid: Placement
    lying: bool
    bar: dict
    margin: dict[str, int]

    @property
    def width(self) -> int:
        return math.ceil(self.margin["l"] + self.grid.inner_w + self.margin["r"])


def grid_sizes(
    n: int,
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    widest: Sequence[str],
    look: Look,
    per_row: int,
    row_px: float,
    *,
    scale_title: str,
    x_title: str,
    colour_bar: bool = True,
    upright: bool = False,
    flat_bar: bool = False,
) -> GridSizes:
    """The sizes of ``ui.draw.grids.grid_figure``'s figure of ``n`` plots (its keywords), from
    the labels, the titles and the ``widest`` numbers alone: no cell is built."""
    plan = plan_grid(
        rows,
        cols,
        titles,
        look,
        scale_title,
        row_px,
        widest,
        colour_bar=colour_bar and not flat_bar,
    )
    grid = arrange(plan, n, len(rows), per_row, look)
    lying = colour_bar and (flat_bar or (grid.per_row == 1 and not upright))
    b = plan.margin["b"] if x_title else math.ceil(plan.x_labels + 8)
    margin = plan.margin | {"t": plan.title_px + 4, "b": b, "r": plan.bar_r}
    bar, margin = colour_bar_of(colour_bar, lying, plan, grid, scale_title, margin, look.text_scale)
    return GridSizes(plan, grid, lying, bar, margin)


def colour_bar_of(
    shown: bool,
    lying: bool,
    plan: Plan,
    grid: Placement,
    scale_title: str,
    margin: dict[str, int],
    grow: float,
) -> tuple[dict, dict[str, int]]:
    """The shared colour bar and the margins that make room for it: none when not ``shown``;
    ``lying`` above the plots, so they keep their width (one plot a row, or ``grid_figures``'
    compact grid); else upright, right of the grid, as tall as its plots (a second line of its
    title widens the margin)."""
    if not shown:  # a piece of a grid whose bar another piece holds
        return {}, margin
    if not lying:
        bar = {"x": 1.0, "xanchor": "left", "y": 1.0, "yanchor": "top", **BAR}
        bar.update(lenmode="pixels", len=max(grid.inner_h, 100))
        if scale_title:
            bar["title"] = {"text": fit_lines(scale_title, grid.inner_h / grow), "side": "right"}
            if "<br>" in bar["title"]["text"]:
                margin = margin | {"r": margin["r"] + math.ceil(18 * grow)}
        return bar, margin
    bar = {"orientation": "h", "thickness": 12, "len": 1.0, "x": 0.5, "xanchor": "center"}
    bar.update(y=1.0 + (plan.title_px + 8) / grid.inner_h, yanchor="bottom", ypad=0)
    if scale_title:
        bar["title"] = {"text": fit_lines(scale_title, grid.inner_w / grow), "side": "top"}
    bar_lines = bar["title"]["text"].count("<br>") + 1 if scale_title else 0
    return bar, margin | {"t": margin["t"] + math.ceil((72 + 30 * bar_lines) * grow), "r": 16}
