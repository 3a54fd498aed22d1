"""Heatmaps of one matrix: cells sized by what they hold, their numbers, hover text, blocks.

One convention: row 0 (the first token) at the top, rows = query, cols = key; colour-blind-safe
scales (viridis for probabilities, red-blue around 0 for signed numbers); numbers printed in the
cells when the matrix is small enough to read, each black or white to read on its cell at 4.5:1
(``ui.draw.contrast``); exact values on hover. Token labels are plain
text: plotly gets them as category names. A figure's width and height come from its cells
(``Look.cells``) and its labels, never from the room left on the page.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ui.draw.contrast import colour_range, readable_numbers
from ui.draw.labels import (
    axis_margins,
    fit_lines,
    label_px,
    number_cell,
    scaled_margins,
    x_label_angle,
)
from ui.draw.style import BAR, CELL_AXIS, COLOUR_SCALES, MASKED_COLOUR, PLAIN, Look
from ui.draw.wire import Spec, fast_figure
from ui.text import MINUS

TITLE_LINE_PX = 18  # one more line of a 14 px title
BAR_MIN_PX = 100  # a colour bar shorter than this crowds its numbers (a one-token sentence)
BAR_TITLE_PX = 26  # an upright colour bar's title, right of its numbers


def heatmap_spec(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    title: str = "",
    signed: bool = False,
    zmin: float | None = None,
    zmax: float | None = None,
    masked: np.ndarray | None = None,
    masked_label: str = "masked",
    digits: int = 2,
    x_title: str = "",
    y_title: str = "",
    showscale: bool = True,
    scale_title: str = "",
    look: Look = PLAIN,
) -> tuple[dict, dict]:
    """The trace and layout dicts of a plotly heatmap of m with token labels, row 0 on top.

    ``masked`` (bool, True = masked) cells are drawn in a grey of their own (``mask_shape``)
    with a × and say ``masked_label`` on hover, so a masked cell never reads as a low value.
    Colours: ``_colours``. Sizes (px): a cell is ``look.cells(max(R, C))`` square, or as wide
    as its widest number (``number_cell``); the figure is the cells plus the margins that hold
    their labels and titles (``_layout``).
    Shapes: m [R, C], rows R labels, cols C labels.
    """
    n_rows, n_cols = np.shape(m)
    cell, number_px = look.cells(max(n_rows, n_cols))
    cells = {"masked": masked, "masked_label": masked_label, "digits": digits, "look": look}
    trace = heatmap_cells(
        m, rows, cols, number_px=number_px, x_title=x_title, y_title=y_title, **cells
    )
    if number_px:  # as wide as its widest number, a masked one's too (S and masked S alike)
        cell = max(cell, number_cell(extreme_numbers([m], digits), number_px))
    colours = _colours(trace["z"], signed, zmin, zmax)
    trace.update(colours, showscale=showscale)
    lo, hi = colour_range(trace["z"], colours.get("zmin"), colours.get("zmax"), colours.get("zmid"))
    readable_numbers(trace, masked, colours["colorscale"], lo, hi)  # 4.5:1 on every cell
    texts = {"title": title, "x_title": x_title, "y_title": y_title, "scale_title": scale_title}
    layout, bar = _layout(rows, cols, (n_rows, n_cols), cell, texts, showscale, look)
    if showscale:
        trace["colorbar"] = bar
    if masked is not None and (shape := mask_shape(np.asarray(masked, dtype=bool), cell)):
        layout["shapes"] = [shape]
    return trace, look.chart_text(layout)


def _layout(
    rows: Sequence[str],
    cols: Sequence[str],
    shape: tuple[int, int],
    cell: int,
    texts: dict[str, str],
    showscale: bool,
    look: Look,
) -> tuple[dict, dict]:
    """The layout of a heatmap of ``shape`` cells of ``cell`` px, the ``rows`` and ``cols``
    labels and the ``texts`` (its title, axis titles and colour bar's title) in its margins;
    and its colour bar (none without ``showscale``)."""
    grow = look.text_scale  # presenter mode's larger text: its labels and titles take more room
    widest_x = max((label_px(str(c)) for c in cols), default=0.0) * grow
    tickangle = x_label_angle(widest_x, cell)
    plot_h, plot_w = shape[0] * cell, shape[1] * cell
    margin = scaled_margins(axis_margins(rows, cols, tickangle, colour_bar=showscale), grow)
    x_title, y_title, y_px = _axis_titles(texts["x_title"], texts["y_title"], plot_w, plot_h, grow)
    area_h = max(plot_h, BAR_MIN_PX if showscale else 0, math.ceil(y_px) + 8)  # px
    line_px = math.ceil(TITLE_LINE_PX * grow)
    margin["l"] += line_px * y_title.count("<br>")
    margin["b"] += line_px * x_title.count("<br>")
    bar = _colour_bar(area_h, texts["scale_title"], look) if showscale else {}
    margin["r"] += _bar_title_px(bar, grow)
    title, margin = _title(texts["title"], plot_w, margin, look)
    return {
        "xaxis": {**CELL_AXIS, "title": {"text": x_title}, "tickangle": tickangle},
        "yaxis": {
            **CELL_AXIS,
            "title": {"text": y_title},
            "autorange": "reversed",
            # the cells keep their size when the colour bar is taller than they are
            "domain": [1.0 - plot_h / area_h, 1.0],
        },
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "width": margin["l"] + plot_w + margin["r"],
        "height": margin["t"] + area_h + margin["b"],
        "margin": margin,
        "separators": look.separators(),
    }, bar


def _colours(z: np.ndarray, signed: bool, zmin: float | None, zmax: float | None) -> dict:
    """The colour scale of a trace of z: ``signed``, red-blue centred on 0 for scores and raw
    numbers, from -b to b, b the largest |value| (unless zmin and zmax are given); otherwise
    viridis from zmin to zmax (plotly's own range where not given)."""
    if not signed:
        given = {k: v for k, v in (("zmin", zmin), ("zmax", zmax)) if v is not None}
        return {"colorscale": COLOUR_SCALES["Viridis"]} | given
    if zmin is None or zmax is None:
        bound = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        zmin, zmax = -(bound or 1.0), bound or 1.0
    return {"colorscale": COLOUR_SCALES["RdBu_r"], "zmid": 0.0, "zmin": zmin, "zmax": zmax}


def _axis_titles(
    x_title: str, y_title: str, plot_w: int, plot_h: int, grow: float
) -> tuple[str, str, float]:
    """The axis titles, one longer than its side of the cells on two lines, and the y title's
    longer line (px): the plot area is at least as tall, the cells keeping their size at its
    top."""
    y_title = fit_lines(y_title, plot_h / grow) if y_title else ""
    x_title = fit_lines(x_title, max(plot_w, 120) / grow) if x_title else ""
    y_px = max((label_px(line) * 14 / 12 * grow for line in y_title.split("<br>")), default=0.0)
    return x_title, y_title, y_px


def _colour_bar(area_h: int, scale_title: str, look: Look) -> dict:
    """An upright colour bar right of the cells, as tall as the plot area, its title on its
    right (on two lines where longer than the bar)."""
    grow = look.text_scale
    bar: dict[str, object] = {"x": 1.0, "xanchor": "left", "y": 1.0, "yanchor": "top", **BAR}
    bar.update(lenmode="pixels", len=area_h)
    if grow != 1.0:
        bar["tickfont"] = {"size": look.text_px(12)}
    if scale_title:
        bar["title"] = {"text": fit_lines(scale_title, area_h / grow), "side": "right"}
        if grow != 1.0:
            bar["title"]["font"] = {"size": look.text_px(14)}
    return bar


def _bar_title_px(bar: dict, grow: float) -> int:
    """The room (px) a colour bar's title takes right of its numbers: a line's, or none."""
    if "title" not in bar:
        return 0
    return math.ceil(BAR_TITLE_PX * grow) * (1 + bar["title"]["text"].count("<br>"))


def _title(
    title: str, plot_w: int, margin: dict[str, int], look: Look
) -> tuple[str, dict[str, int]]:
    """The title, on two lines where one would pass the figure's width, and the margins with
    its room: the top's, and a wider right where it is longer than the cells."""
    grow = look.text_scale
    if not title:
        return "", margin | {"t": 12}
    width = margin["l"] + plot_w + margin["r"]
    lines = fit_lines(title, (width - 12) / grow, bold=True)
    widest = max(label_px(line) * 14 / 12 * 1.1 * grow for line in lines.split("<br>"))
    right = margin["r"] + max(0, math.ceil(widest + 12 - width))  # a title longer than the cells
    top = math.ceil(40 * grow) + math.ceil(TITLE_LINE_PX * grow) * lines.count("<br>")
    return lines, margin | {"r": right, "t": top}


def heatmap_cells(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    masked: np.ndarray | None = None,
    masked_label: str = "masked",
    digits: int = 2,
    number_px: int = 13,
    x_title: str = "",
    y_title: str = "",
    look: Look = PLAIN,
    masked_hover: bool = True,
) -> dict:
    """A heatmap trace's cells without its colours: z (NaN where masked or not finite), the
    labels, the hover text, and the cell numbers at ``number_px`` (none when 0), written as
    ``look`` writes numbers. ``heatmap_spec`` adds the colour scale. Without ``masked_hover``
    a masked cell has no hover label (a small multiple's), and no cell carries its value as
    text for it. Shapes: m [R, C], rows R labels, cols C labels; masked [R, C] (True = masked)."""
    z = np.array(m, dtype=np.float64)
    hidden = np.zeros(z.shape, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    z = np.where(hidden | ~np.isfinite(z), np.nan, z)
    trace: dict[str, object] = {
        "type": "heatmap",
        "z": z,
        "x": list(cols),
        "y": list(rows),
        "hovertemplate": f"{y_title or 'row'} %{{y}} → {x_title or 'col'} %{{x}}<br>"
        "%{z:.6g}<extra></extra>",
        "xgap": 1 if number_px or max(z.shape) <= 32 else 0,  # a 1 px gap hides tiny cells
        "ygap": 1 if number_px or max(z.shape) <= 32 else 0,
    }
    comma = look.lang == "fr"
    if hidden.any() and not masked_hover:  # masked cells: grey (``mask_shape``), no label
        trace["hoverongaps"] = False
    elif hidden.any():  # masked cells say so on hover instead of showing an empty value
        trace["customdata"] = _cell_texts(z, hidden, "{:.6g}", masked_label, comma)
        trace["hovertemplate"] = trace["hovertemplate"].replace("%{z:.6g}", "%{customdata}")
    if number_px:  # the cell numbers, formatted only when they are drawn
        trace.update(
            text=_cell_texts(z, hidden, f"{{:.{digits}f}}", "×", comma, digits),
            texttemplate="%{text}",
            textfont={"size": number_px},
        )
    return trace


def mask_shape(hidden: np.ndarray, cell: int, xref: str = "x", yref: str = "y") -> dict | None:
    """The masked cells as one grey path under the heatmap (whose masked cells are empty): a
    square a cell, inset by half the 1 px gap, so the gaps stay the page's colour and the
    masked triangle reads as cells, apart from any frame; one rectangle a row of masked cells
    when the cells have no gaps. None when nothing is masked.
    Shapes: hidden [R, C] (True = masked); cell: the cells' side, px."""
    if not hidden.any():
        return None
    hidden = np.asarray(hidden, dtype=bool)
    path = _mask_path(hidden.tobytes(), hidden.shape, cell)
    return {
        "type": "path",
        "path": path,
        "xref": xref,
        "yref": yref,
        "fillcolor": MASKED_COLOUR,
        "line": {"width": 0},
        "layer": "below",
    }


@functools.lru_cache(maxsize=128)  # at most 30 kB a path (32 tokens)
def _mask_path(cells: bytes, shape: tuple[int, int], cell: int) -> str:
    """The masked cells' path: once per mask and cell size (every head of a grid, every step of
    the learned page, shares its causal triangle; 32 tokens write 496 squares)."""
    hidden = np.frombuffer(cells, dtype=bool).reshape(shape)
    inset = 0.5 / cell if cell >= 20 else 0.0  # half a gap, in cells
    parts = []
    for i, row in enumerate(hidden.tolist()):
        top, bottom = i - 0.5 + inset, i + 0.5 - inset
        j, n = 0, len(row)
        while j < n:
            if not row[j]:
                j += 1
                continue
            end = j + 1
            if not inset:  # no gaps: one rectangle for the run of masked cells
                while end < n and row[end]:
                    end += 1
            left, right = j - 0.5 + inset, end - 0.5 - inset
            parts.append(
                f"M{left:.4g},{top:.4g}L{right:.4g},{top:.4g}"
                f"L{right:.4g},{bottom:.4g}L{left:.4g},{bottom:.4g}Z"
            )
            j = end
    return "".join(parts)


def _cell_texts(
    z: np.ndarray,
    hidden: np.ndarray,
    fmt: str,
    masked: str,
    comma: bool = False,
    digits: int | None = None,
) -> list[list[str]]:
    """Every cell of z as text (``fmt``, NaN read as 0; a decimal comma when ``comma``; rounded
    to ``digits`` first, so that -0.001 reads 0.00, not -0.00; with ``digits``, the cells'
    numbers, a true minus sign, U+2212, as type sets it), ``masked`` where hidden; plain lists,
    about 3x faster than numpy's vectorize over the 16 384 cells of 16 heads of 32 tokens.
    Shapes: z [R, C], hidden [R, C] -> R lists of C strings."""
    form = fmt.format
    if digits is not None:
        z = np.round(z, digits) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0
        plain = form
        form = lambda v: plain(v).replace("-", MINUS)  # noqa: E731
    if comma:
        texts = [
            [masked if h else form(v).replace(".", ",") for v, h in zip(row, hrow)]
            for row, hrow in zip(np.nan_to_num(z).tolist(), hidden.tolist())
        ]
    else:
        texts = [
            [masked if h else form(v) for v, h in zip(row, hrow)]
            for row, hrow in zip(np.nan_to_num(z).tolist(), hidden.tolist())
        ]
    return texts


def extreme_numbers(mats: Sequence[np.ndarray], digits: int = 2) -> list[str]:
    """The cell numbers of each matrix's smallest and largest finite value, written as the cells
    write them: the widest numbers a grid of them prints (``ui.draw.labels.number_cell``).
    Shapes: mats N × [R, C] -> at most 2N texts."""
    arrays = (np.asarray(m, dtype=np.float64) for m in mats)
    finite = [a[np.isfinite(a)] for a in arrays]
    ends = [v for f in finite if f.size for v in (f.min(), f.max())]
    if not ends:
        return []
    z = np.array([ends])
    return _cell_texts(z, np.zeros(z.shape, dtype=bool), f"{{:.{digits}f}}", "×", False, digits)[0]


def heatmap(m: np.ndarray, rows: Sequence[str], cols: Sequence[str], **style: Any) -> Spec:
    """A plotly heatmap of m with token labels, row 0 on top; ``style`` as in ``heatmap_spec``."""
    trace, layout = heatmap_spec(m, rows, cols, **style)
    return fast_figure([trace], layout)


def mark_blocks(fig: Spec, size: int, count: int, axis: str = "x") -> Spec:
    """Separator lines between blocks of ``size`` categories (e.g. the heads inside a concat).

    Shapes: an axis of size * count categories gets count - 1 lines, between the blocks.
    """
    line = {"color": "black", "width": 2}
    shapes = []
    for k in range(1, count):
        edge = k * size - 0.5  # categories sit at 0, 1, ...: the line goes between two of them
        if axis == "x":
            ends = {"x0": edge, "x1": edge, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
        else:
            ends = {"x0": 0, "x1": 1, "xref": "x domain", "y0": edge, "y1": edge, "yref": "y"}
        shapes.append({"type": "line", "line": line, **ends})
    if shapes:
        layout = fig["layout"]
        layout["shapes"] = [*layout.get("shapes", ()), *shapes]
    return fig


def label_blocks(fig: Spec, size: int, names: Sequence[str]) -> Spec:
    """A name above each block of ``size`` x categories (e.g. z₀ over head 0's columns of a
    concat), in a band added at the top of the chart. Blocks narrower than their names: every
    second (or k-th) block is named, so that the names never run into each other.
    Shapes: an x axis of size * len(names) categories -> len(names) blocks.
    """
    if len(names) < 2:
        return fig
    layout = fig["layout"]
    margin = layout["margin"]
    n_cols = len(fig["data"][0]["x"])
    cell = (layout["width"] - margin["l"] - margin["r"]) / n_cols  # the figure's cells, px
    grow = layout.get("font", {}).get("size", 12) / 12  # presenter mode's larger text
    room = max(label_px(str(name)) * 14 / 12 * grow for name in names) + 10  # a name, a space
    step = max(1, math.ceil(room / (size * cell)))
    layout["annotations"] = [
        *layout.get("annotations", ()),
        *(
            {
                "text": name,
                "x": k * size + (size - 1) / 2,  # the middle of the block's categories
                "xref": "x",
                "y": 1.0,
                "yref": "y domain",
                "yanchor": "bottom",
                "yshift": 3,
                "showarrow": False,
                "font": {"size": round(14 * grow)},
            }
            for k, name in enumerate(names)
            if k % step == 0
        ),
    ]
    band = math.ceil(22 * grow)  # px: the names' line, between the title and the plot
    layout["margin"] = {**margin, "t": margin.get("t", 12) + band}
    layout["height"] = layout["height"] + band
    return fig
