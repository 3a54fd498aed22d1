"""Views: matrices to tables and heatmaps, code beside numbers. Arithmetic stays in ``llm``.

Heatmaps follow one convention: row 0 (the first token) at the top, rows = query, cols = key;
colour-blind-safe scales (viridis for probabilities, red-blue around 0 for signed numbers);
numbers printed in the cells when the matrix is small enough to read; exact values on hover.
Token labels are plain text: plotly gets them as category names, tables as pandas labels.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

MAX_CELL_TEXT = 12  # print numbers inside cells up to this many rows/cols
PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
MASKED_COLOUR = "#a0a0a0"  # opaque mid grey: the × reads on it in light and dark mode
# plotly's named scales as the explicit [position, colour] lists that plotly.js reads
COLOUR_SCALES = {
    name: [list(step) for step in go.Heatmap(colorscale=name).colorscale]
    for name in ("RdBu_r", "Viridis")
}


def fast_figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure from plain dicts written by this module, without plotly's property-by-property
    validation, which costs about 10 ms a figure: most of a rerun on a page of heatmaps.
    The dicts must be what plotly.js reads: explicit colour scales, nested titles, no None."""
    return go.Figure(data=data, layout=layout, _validate=False)


def feature_labels(n: int, prefix: str = "f") -> list[str]:
    """Column names for n features: f0, f1, ..."""
    return [f"{prefix}{i}" for i in range(n)]


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


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
    z = np.array(m, dtype=np.float64)
    hidden = np.zeros(z.shape, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    z = np.where(hidden | ~np.isfinite(z), np.nan, z)
    show_text = max(z.shape) <= MAX_CELL_TEXT
    trace: dict[str, object] = {
        "type": "heatmap",
        "z": z,
        "x": list(cols),
        "y": list(rows),
        "hovertemplate": f"{y_title or 'row'} %{{y}} → {x_title or 'col'} %{{x}}<br>"
        "%{z:.6g}<extra></extra>",
        "xgap": 1,
        "ygap": 1,
        "showscale": showscale,
    }
    if hidden.any():  # masked cells say so on hover instead of showing an empty value
        shown = np.vectorize(lambda v: f"{v:.6g}")(np.nan_to_num(z))
        trace["customdata"] = np.where(hidden, masked_label, shown)
        trace["hovertemplate"] = trace["hovertemplate"].replace("%{z:.6g}", "%{customdata}")
    if show_text:  # the cell numbers, formatted only when they are drawn
        text = np.where(hidden, "×", np.vectorize(lambda v: f"{v:.{digits}f}")(np.nan_to_num(z)))
        trace.update(text=text, texttemplate="%{text}")
    if signed:
        bound = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        trace.update(colorscale=COLOUR_SCALES["RdBu_r"], zmid=0.0, zmin=-bound, zmax=bound)
    else:
        trace["colorscale"] = COLOUR_SCALES["Viridis"]
        trace.update({k: v for k, v in (("zmin", zmin), ("zmax", zmax)) if v is not None})
    layout: dict[str, object] = {
        "xaxis": {
            "type": "category",
            "showgrid": False,
            "title": {"text": x_title},
            "tickangle": 0 if len(cols) <= 10 else -60,
        },
        "yaxis": {
            "type": "category",
            "showgrid": False,
            "title": {"text": y_title},
            "autorange": "reversed",
        },
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "height": height or max(240, (34 if len(rows) <= MAX_CELL_TEXT else 20) * len(rows) + 130),
        "margin": {"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        "plot_bgcolor": MASKED_COLOUR,
    }
    return trace, layout


def heatmap(m: np.ndarray, rows: Sequence[str], cols: Sequence[str], **style: Any) -> go.Figure:
    """A plotly heatmap of m with token labels, row 0 on top; ``style`` as in ``heatmap_spec``."""
    return fast_figure(*heatmap_spec(m, rows, cols, **style))


def show_figure(fig: go.Figure, key: str) -> None:
    """Draw a figure at the container's width."""
    st.plotly_chart(fig, key=key, config=PLOT_CONFIG, width="stretch")


def frame_of(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> pd.DataFrame:
    """A matrix as a tidy table with labelled rows and columns."""
    return pd.DataFrame(np.asarray(m), index=list(rows), columns=list(cols))


def matrix_table(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    name: str,
    key: str,
    digits: int = 3,
    download_label: str | None = None,
) -> None:
    """A matrix as a table, its shape under it, and a CSV download of the full-precision values."""
    df = frame_of(m, rows, cols)
    st.dataframe(df.round(digits), width="stretch", key=f"{key}_table")
    st.caption(shape_text(name, np.asarray(m)))
    st.download_button(
        download_label or f"{name} · CSV",
        # written when clicked, not on every rerun: 5-9 ms for a 64-column table
        data=partial(df.to_csv, float_format="%.17g"),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon=":material/download:",
        type="tertiary",
    )


def show_code(*functions: Callable[..., object]) -> None:
    """The real source of the functions that computed what the page shows."""
    st.code("\n\n".join(inspect.getsource(fn) for fn in functions), language="python")


def head_feature_labels(n_heads: int, d_head: int) -> list[str]:
    """Column names of the concatenated heads: h0·0, h0·1, h1·0, ... (head · feature)."""
    return [f"h{h}·{i}" for h in range(n_heads) for i in range(d_head)]


def mark_blocks(fig: go.Figure, size: int, count: int, axis: str = "x") -> go.Figure:
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
    if shapes:  # one layout update: plotly's add_vline costs ~10 ms a line
        fig.update_layout(shapes=[*fig.layout.shapes, *shapes])
    return fig


def colour_scale(
    zmin: float, zmax: float, *, title: str = "", signed: bool = False, height: int = 100
) -> go.Figure:
    """One horizontal colour bar, alone: the shared scale of a grid of heatmaps."""
    ticks = np.linspace(zmin, zmax, 101)
    trace = {
        "type": "heatmap",
        "z": [ticks.tolist()],
        "x": ticks,
        "colorscale": COLOUR_SCALES["RdBu_r" if signed else "Viridis"],
        "zmin": zmin,
        "zmax": zmax,
        "showscale": False,
        "hoverinfo": "skip",
    }
    # the bottom margin leaves room for the tick numbers and the title under the bar
    layout = {
        "xaxis": {"title": {"text": title}, "fixedrange": True},
        "yaxis": {"visible": False, "fixedrange": True},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 5, "b": 50},
    }
    fig = fast_figure([trace], layout)
    return fig


def heatmap_grid(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    key: str,
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
) -> None:
    """Several heatmaps side by side on ONE colour scale, drawn once as a bar above the grid.

    Viridis from zmin to zmax, or (``signed``) red-blue from -b to b with b the largest |value|
    of all the matrices. Cell numbers only when they fit the grid's narrow figures; the exact
    values stay on hover. Up to ``per_row`` figures a row (a phone stacks them).
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if signed:
        zmax = max((float(np.nanmax(np.abs(m))) for m in mats), default=1.0) or 1.0
        zmin = -zmax
    per_row = max(1, min(per_row, len(mats)))
    show_text = max(len(rows), max(len(c) for c in cols)) * per_row <= 32
    height = max(200, min(34 * len(rows) + 110, 360)) if per_row > 1 else None
    show_figure(colour_scale(zmin, zmax, title=scale_title, signed=signed), key=f"{key}_scale")
    for start in range(0, len(mats), per_row):
        slots = st.columns(per_row)
        for slot, n in zip(slots, range(start, min(start + per_row, len(mats)))):
            trace, layout = heatmap_spec(
                mats[n],
                rows,
                cols[n],
                title=titles[n],
                signed=signed,
                zmin=zmin,
                zmax=zmax,
                masked=masked,
                masked_label=masked_label,
                digits=digits,
                height=height,
                x_title=x_title,
                y_title=y_title,
                showscale=False,
            )
            # edits on the dicts, not plotly's update_*: those cost milliseconds a figure
            trace.update(zmin=zmin, zmax=zmax)  # one scale for all, not each matrix's own
            if not show_text:
                trace.pop("text", None)
                trace.pop("texttemplate", None)
            if len(rows) > MAX_CELL_TEXT:
                trace.update(xgap=0, ygap=0)  # tiny cells: a 1 px gap would hide a third
            layout["xaxis"]["title"]["text"] = layout["yaxis"]["title"]["text"] = ""
            with slot:
                show_figure(fast_figure([trace], layout), key=f"{key}_{n}")


def _bar_text(value: float | None, digits: int) -> str:
    if value is None or not np.isfinite(value):
        return ""
    # + 0.0 turns a rounded -0.0 into 0.0: a mean of -1e-17 reads "0.00", not "-0.00"
    return f"{round(value, digits) + 0.0:.{digits}f}"


def bar_chart(
    series: dict[str, Sequence[float | None]],
    categories: Sequence[str],
    *,
    title: str = "",
    y_title: str = "",
    lines: Sequence[tuple[float, str]] = (),
    digits: int = 2,
    height: int = 340,
    barmode: str = "group",
) -> go.Figure:
    """Bars, one colour per series, with optional labelled horizontal reference lines.

    ``barmode="group"`` puts the series side by side; ``"relative"`` lets series that fill
    different categories (None elsewhere) share one bar width, e.g. one colour per kind of head.
    Shapes: series {name: [N]}, categories N labels, lines [(y, label)].
    """
    palette = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # distinguishable with colour blindness
    data = []
    for n, (name, values) in enumerate(series.items()):
        trace = {
            "type": "bar",
            "x": list(categories),
            "y": np.array([np.nan if v is None else v for v in values], dtype=np.float64),
            "name": name,
            "marker": {"color": palette[n % len(palette)]},
            "textposition": "auto",  # inside a tall bar, so it never sits on a reference line
            "cliponaxis": False,
            "hovertemplate": f"%{{x}}<br>{name}: %{{y:.6g}}<extra></extra>",
        }
        if len(categories) <= 16:
            trace["text"] = [_bar_text(v, digits) for v in values]
        data.append(trace)
    # dashed reference lines across the plot, each labelled at its right end
    dash = {"color": "#555555", "dash": "dash"}
    across = {"x0": 0, "x1": 1, "xref": "x domain", "yref": "y"}
    shapes = [{"type": "line", "line": dash, "y0": y, "y1": y, **across} for y, _ in lines]
    notes = [
        {"text": label, "showarrow": False, "x": 1, "xanchor": "right", "xref": "x domain"}
        | {"y": y, "yanchor": "bottom", "yref": "y"}
        for y, label in lines
    ]
    # many categories: let plotly turn the labels so they never overlap on a phone
    xaxis = {"type": "category"} | ({"tickangle": 0} if len(categories) <= 8 else {})
    layout = {
        "xaxis": xaxis,
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "height": height,
        "barmode": barmode,
        "showlegend": len(series) > 1,
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        "margin": {"l": 10, "r": 10, "t": 60 if title else 30, "b": 10},
    }
    if lines:
        layout.update(shapes=shapes, annotations=notes)
    return fast_figure(data, layout)
