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
    fig.update_xaxes(type="category", title_text=x_title, tickangle=0)
    fig.update_yaxes(type="category", title_text=y_title, autorange="reversed")
    fig.update_layout(
        title={"text": title, "font": {"size": 14}} if title else None,
        height=height or max(240, 34 * len(rows) + 110),
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
    download_label: str = "CSV",
) -> None:
    """A matrix as a table, its shape under it, and a CSV download of the full-precision values."""
    df = frame_of(m, rows, cols)
    st.dataframe(df.round(digits), width="stretch", key=f"{key}_table")
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.caption(shape_text(name, np.asarray(m)))
    right.download_button(
        download_label,
        data=df.to_csv(float_format="%.17g"),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon="⬇️",
    )


def show_code(*functions: Callable[..., object]) -> None:
    """The real source of the functions that computed what the page shows."""
    st.code("\n\n".join(inspect.getsource(fn) for fn in functions), language="python")
