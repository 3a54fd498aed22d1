"""Views: matrices to tables and heatmaps, code beside numbers. Arithmetic stays in ``llm``.

Heatmaps follow one convention: row 0 (the first token) at the top, rows = query, cols = key;
colour-blind-safe scales (viridis for probabilities, red-blue around 0 for signed numbers);
numbers printed in the cells when the matrix is small enough to read; exact values on hover.
Token labels are plain text: plotly gets them as category names, tables as pandas labels.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

MAX_CELL_TEXT = 12  # print numbers inside cells up to this many rows/cols
PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
MASKED_COLOUR = "rgba(128, 128, 128, 0.25)"


def feature_labels(n: int, prefix: str = "f") -> list[str]:
    """Column names for n features: f0, f1, ..."""
    return [f"{prefix}{i}" for i in range(n)]


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


def heatmap(
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
) -> go.Figure:
    """A plotly heatmap of m with token labels, row 0 on top.

    ``masked`` (bool, True = masked) cells are drawn grey with a × and say ``masked_label`` on
    hover, so a masked cell never reads as a low value. ``signed`` picks a red-blue scale centred
    on 0 for scores and raw numbers; otherwise viridis.
    Shapes: m [R, C], rows R labels, cols C labels.
    """
    z = np.array(m, dtype=np.float64)
    hidden = np.zeros(z.shape, dtype=bool) if masked is None else np.asarray(masked, dtype=bool)
    z = np.where(hidden | ~np.isfinite(z), np.nan, z)
    show_text = max(z.shape) <= MAX_CELL_TEXT
    text = np.where(hidden, "×", np.vectorize(lambda v: f"{v:.{digits}f}")(np.nan_to_num(z)))
    hover = np.where(hidden, masked_label, np.vectorize(lambda v: f"{v:.6g}")(np.nan_to_num(z)))
    if signed:
        bound = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        scale = {"colorscale": "RdBu_r", "zmid": 0.0, "zmin": -bound, "zmax": bound}
    else:
        scale = {"colorscale": "Viridis", "zmin": zmin, "zmax": zmax}
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.array(cols, dtype=object),
            y=np.array(rows, dtype=object),
            text=text if show_text else None,
            texttemplate="%{text}" if show_text else None,
            customdata=hover,
            hovertemplate=f"{y_title or 'row'} %{{y}} → {x_title or 'col'} %{{x}}<br>"
            "%{customdata}<extra></extra>",
            xgap=1,
            ygap=1,
            showscale=showscale,
            **scale,
        )
    )
    fig.update_xaxes(type="category", title_text=x_title, tickangle=0 if len(cols) <= 10 else -60)
    fig.update_yaxes(type="category", title_text=y_title, autorange="reversed")
    fig.update_layout(
        title={"text": title, "font": {"size": 14}} if title else None,
        height=height or max(240, (34 if len(rows) <= MAX_CELL_TEXT else 20) * len(rows) + 130),
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        plot_bgcolor=MASKED_COLOUR,
    )
    return fig


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
        data=df.to_csv(float_format="%.17g"),
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
    for k in range(1, count):
        edge = k * size - 0.5  # categories sit at 0, 1, ...: the line goes between two of them
        line = {"line_width": 2, "line_color": "black"}
        if axis == "x":
            fig.add_vline(x=edge, **line)
        else:
            fig.add_hline(y=edge, **line)
    return fig


def colour_scale(
    zmin: float, zmax: float, *, title: str = "", signed: bool = False, height: int = 100
) -> go.Figure:
    """One horizontal colour bar, alone: the shared scale of a grid of heatmaps."""
    ticks = np.linspace(zmin, zmax, 101)
    fig = go.Figure(
        go.Heatmap(
            z=[ticks],
            x=ticks,
            colorscale="RdBu_r" if signed else "Viridis",
            zmin=zmin,
            zmax=zmax,
            showscale=False,
            hoverinfo="skip",
        )
    )
    fig.update_yaxes(visible=False, fixedrange=True)
    fig.update_xaxes(title_text=title, fixedrange=True)
    # the bottom margin leaves room for the tick numbers and the title under the bar
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 5, "b": 50})
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
            fig = heatmap(
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
            # one scale for all: the signed bound above, not each matrix's own
            fig.update_traces(zmin=zmin, zmax=zmax)
            if not show_text:
                fig.update_traces(text=None, texttemplate=None)
            fig.update_xaxes(title_text="")
            fig.update_yaxes(title_text="")
            with slot:
                show_figure(fig, key=f"{key}_{n}")


def bar_chart(
    series: dict[str, Sequence[float]],
    categories: Sequence[str],
    *,
    title: str = "",
    y_title: str = "",
    lines: Sequence[tuple[float, str]] = (),
    digits: int = 2,
    height: int = 340,
) -> go.Figure:
    """Grouped bars, one colour per series, with optional labelled horizontal reference lines.

    Shapes: series {name: [N]}, categories N labels, lines [(y, label)].
    """
    palette = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # distinguishable with colour blindness
    fig = go.Figure(
        [
            go.Bar(
                x=np.array(categories, dtype=object),
                y=np.asarray(values, dtype=np.float64),
                name=name,
                marker_color=palette[n % len(palette)],
                # + 0.0 turns a rounded -0.0 into 0.0: a mean of -1e-17 reads "0.00", not "-0.00"
                text=[f"{round(v, digits) + 0.0:.{digits}f}" for v in values]
                if len(categories) <= 16
                else None,
                textposition="auto",  # inside a tall bar, so it never sits on a reference line
                cliponaxis=False,
                hovertemplate=f"%{{x}}<br>{name}: %{{y:.6g}}<extra></extra>",
            )
            for n, (name, values) in enumerate(series.items())
        ]
    )
    for y, label in lines:
        fig.add_hline(
            y=y,
            line_dash="dash",
            line_color="#555555",
            annotation_text=label,
            annotation_position="top right",
        )
    fig.update_xaxes(type="category", tickangle=0)
    fig.update_yaxes(title_text=y_title, rangemode="tozero")
    fig.update_layout(
        title={"text": title, "font": {"size": 14}} if title else None,
        height=height,
        barmode="group",
        showlegend=len(series) > 1,
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 60 if title else 30, "b": 10},
    )
    return fig
