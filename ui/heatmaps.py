"""Heatmaps of one matrix: cells, their numbers and hover text, block lines and block names.

One convention: row 0 (the first token) at the top, rows = query, cols = key; colour-blind-safe
scales (viridis for probabilities, red-blue around 0 for signed numbers); numbers printed in the
cells when the matrix is small enough to read; exact values on hover. Token labels are plain
text: plotly gets them as category names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ui.labels import axis_margins
from ui.style import BAR, CELL_AXIS, COLOUR_SCALES, MASKED_COLOUR
from ui.wire import Spec, fast_figure

MAX_CELL_TEXT = 12  # print numbers inside cells up to this many rows/cols


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
    height: int | None = None,
    x_title: str = "",
    y_title: str = "",
    showscale: bool = True,
) -> tuple[dict, dict]:
    """The trace and layout dicts of a plotly heatmap of m with token labels, row 0 on top.

    ``masked`` (bool, True = masked) cells are drawn grey with a × and say ``masked_label`` on
    hover, so a masked cell never reads as a low value. ``signed`` picks a red-blue scale centred
    on 0 for scores and raw numbers; otherwise viridis.
    Shapes: m [R, C], rows R labels, cols C labels.
    """
    tickangle = 0 if len(cols) <= 10 else -60
    trace = heatmap_cells(
        m,
        rows,
        cols,
        masked=masked,
        masked_label=masked_label,
        digits=digits,
        numbers=max(np.shape(m)) <= MAX_CELL_TEXT,
        x_title=x_title,
        y_title=y_title,
    )
    z = trace["z"]
    trace.update(showscale=showscale, colorbar={"x": 1.0, "xanchor": "left", **BAR})
    if signed:
        bound = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        trace.update(colorscale=COLOUR_SCALES["RdBu_r"], zmid=0.0, zmin=-bound, zmax=bound)
    else:
        trace["colorscale"] = COLOUR_SCALES["Viridis"]
        trace.update({k: v for k, v in (("zmin", zmin), ("zmax", zmax)) if v is not None})
    layout: dict[str, object] = {
        "xaxis": {
            **CELL_AXIS,
            "title": {"text": x_title},
            "tickangle": tickangle,
        },
        "yaxis": {
            **CELL_AXIS,
            "title": {"text": y_title},
            "autorange": "reversed",
        },
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "height": height or max(240, (34 if len(rows) <= MAX_CELL_TEXT else 20) * len(rows) + 130),
        "margin": {
            **axis_margins(rows, cols, tickangle, colour_bar=showscale),
            "t": 40 if title else 10,
        },
        "plot_bgcolor": MASKED_COLOUR,
    }
    return trace, layout


def heatmap_cells(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    masked: np.ndarray | None = None,
    masked_label: str = "masked",
    digits: int = 2,
    numbers: bool = True,
    x_title: str = "",
    y_title: str = "",
) -> dict:
    """A heatmap trace's cells without its colours: z (NaN where masked or not finite), the
    labels, the hover text, and the cell numbers when ``numbers``. ``heatmap_spec`` adds a colour
    scale of its own; ``grid_figure`` a shared colour axis.
    Shapes: m [R, C], rows R labels, cols C labels; masked [R, C] (True = masked)."""
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
        "xgap": 1,
        "ygap": 1,
    }
    if hidden.any():  # masked cells say so on hover instead of showing an empty value
        trace["customdata"] = _cell_texts(z, hidden, "{:.6g}", masked_label)
        trace["hovertemplate"] = trace["hovertemplate"].replace("%{z:.6g}", "%{customdata}")
    if numbers:  # the cell numbers, formatted only when they are drawn
        trace.update(text=_cell_texts(z, hidden, f"{{:.{digits}f}}", "×"), texttemplate="%{text}")
    return trace


def _cell_texts(z: np.ndarray, hidden: np.ndarray, fmt: str, masked: str) -> list[list[str]]:
    """Every cell of z as text (``fmt``, NaN read as 0), ``masked`` where hidden; plain lists,
    about 3x faster than numpy's vectorize over the 16 384 cells of 16 heads of 32 tokens.
    Shapes: z [R, C], hidden [R, C] -> R lists of C strings."""
    form = fmt.format
    return [
        [masked if h else form(v) for v, h in zip(row, hrow)]
        for row, hrow in zip(np.nan_to_num(z).tolist(), hidden.tolist())
    ]


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


def label_blocks(fig: Spec, size: int, names: Sequence[str], *, phone: bool = False) -> Spec:
    """A name above each block of ``size`` x categories (e.g. z₀ over head 0's columns of a
    concat), in a band added at the top of the chart. Many blocks on a narrow chart: every
    second (or k-th) block is named, so that the names never run into each other; ``phone``:
    the chart is a phone's width, with room for 4 names instead of 8.
    Shapes: an x axis of size * len(names) categories -> len(names) blocks.
    """
    if len(names) < 2:
        return fig
    step = -(-len(names) // (4 if phone else 8))
    layout = fig["layout"]
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
                "font": {"size": 14},
            }
            for k, name in enumerate(names)
            if k % step == 0
        ),
    ]
    band = 20  # px: the names' line, between the title and the plot
    layout["margin"] = {
        **layout.get("margin", {}),
        "t": layout.get("margin", {}).get("t", 10) + band,
    }
    layout["height"] = layout.get("height", 240) + band
    return fig
