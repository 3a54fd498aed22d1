"""Views: matrices to tables and heatmaps, code beside numbers. Arithmetic stays in ``llm``.

Heatmaps follow one convention: row 0 (the first token) at the top, rows = query, cols = key;
colour-blind-safe scales (viridis for probabilities, red-blue around 0 for signed numbers);
numbers printed in the cells when the matrix is small enough to read; exact values on hover.
Token labels are plain text: plotly gets them as category names, tables as pandas labels.
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable, Sequence
from functools import cache, lru_cache, partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pyarrow as pa
import streamlit as st
from plotly.basedatatypes import BaseFigure

MAX_CELL_TEXT = 12  # print numbers inside cells up to this many rows/cols
PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
MASKED_COLOUR = "#a0a0a0"  # opaque mid grey: the × reads on it in light and dark mode
# plotly's named scales as the explicit [position, colour] lists that plotly.js reads
COLOUR_SCALES = {
    name: [list(step) for step in go.Heatmap(colorscale=name).colorscale]
    for name in ("RdBu_r", "Viridis")
}
Spec = dict[str, Any]  # a figure as plotly.js reads it: {"data": [trace, ...], "layout": {...}}


def fast_figure(data: list[dict], layout: dict) -> Spec:
    """A figure as plain dicts written by this module: ``{"data": data, "layout": layout}``.

    No plotly object is built. plotly's validation, its copies and its JSON clean-up cost
    2-4 ms a figure, most of a rerun on a page of heatmaps; ``show_figure`` sends these
    dicts as the JSON plotly itself would send. The dicts must be what plotly.js reads:
    explicit colour scales, nested titles, no None. Arrays may stay numpy arrays.
    """
    return {"data": data, "layout": layout}


# plotly.js typed arrays: how plotly.py sends a numeric numpy array (base64 of its bytes)
_TYPED_ARRAYS = {
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
    "float32": "f4",
    "float64": "f8",
}
_NOT_TYPED = frozenset({"geojson", "layer", "layers", "range"})  # keys plotly.py sends as lists
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """JSON-ready: numpy arrays and scalars as lists and Python numbers."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _typed_array(v: np.ndarray) -> Any:
    """A numpy array as plotly.py 6 sends it: ``{"dtype", "bdata", "shape"}`` for numbers
    (64-bit integers narrowed when they fit, as plotly does), a list otherwise."""
    if v.size == 0:
        return v.tolist()
    if v.dtype.kind in "iu" and v.dtype.itemsize == 8:
        signed = v.dtype.kind == "i"
        low, high = int(v.min()), int(v.max())
        for bits in (8, 16, 32):
            lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
            if lo <= low and high <= hi:
                v = v.astype(f"{'' if signed else 'u'}int{bits}")
                break
    code = _TYPED_ARRAYS.get(str(v.dtype))
    if code is None:
        return v.tolist()
    out = {"dtype": code, "bdata": base64.b64encode(np.ascontiguousarray(v)).decode("ascii")}
    if v.ndim > 1:
        out["shape"] = str(v.shape)[1:-1]
    return out


def _wire(value: Any) -> Any:
    """A copy of a figure's dicts with every array as plotly.py would send it."""
    if isinstance(value, dict):
        return {
            k: _plain(v)
            if k in _NOT_TYPED
            else _typed_array(v)
            if isinstance(v, np.ndarray)
            else _wire(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        if _JSON_SCALARS.issuperset(map(type, value)):
            return value  # already what JSON holds: sent as it is, not copied
        return [_wire(v) if isinstance(v, dict | list | tuple) else _plain(v) for v in value]
    return _plain(value)


@cache
def _template(name: str | None) -> dict | None:
    """The layout template plotly adds to every figure (Streamlit's, once Streamlit is loaded)."""
    return go.Figure().to_dict()["layout"].get("template") if name else None


class _Sendable(BaseFigure):
    """A finished figure for ``st.plotly_chart``, which reads a plotly figure through
    ``to_dict()``: the dict is the one plotly would build, without plotly building it."""

    def __init__(self, spec: Spec) -> None:  # no BaseFigure.__init__: nothing to validate
        layout = _wire(spec["layout"])
        template = _template(pio.templates.default)
        if template is not None and "template" not in layout:
            layout["template"] = template
        self._sent = {"data": _wire(spec["data"]), "layout": layout}

    def to_dict(self) -> dict:
        return self._sent

    def __repr__(self) -> str:
        return f"_Sendable({len(self._sent['data'])} traces)"


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
        trace["customdata"] = _cell_texts(z, hidden, "{:.6g}", masked_label)
        trace["hovertemplate"] = trace["hovertemplate"].replace("%{z:.6g}", "%{customdata}")
    if show_text:  # the cell numbers, formatted only when they are drawn
        trace.update(text=_cell_texts(z, hidden, f"{{:.{digits}f}}", "×"), texttemplate="%{text}")
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


def show_figure(fig: Spec | go.Figure, key: str) -> None:
    """Draw a figure (a dict from this module, or a plotly figure) at the container's width."""
    sent = fig if isinstance(fig, BaseFigure) else _Sendable(fig)
    st.plotly_chart(sent, key=key, config=PLOT_CONFIG, width="stretch")


def frame_of(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> pd.DataFrame:
    """A matrix as a tidy table with labelled rows and columns."""
    return pd.DataFrame(np.asarray(m), index=list(rows), columns=list(cols))


@lru_cache(maxsize=256)
def _table_schema(cols: tuple[str, ...]) -> pa.Schema:
    """The Arrow schema, pandas' metadata included, that ``pa.Table.from_pandas`` gives a table
    of floats with these column names and an index of text labels (rows do not enter it)."""
    probe = pd.DataFrame(np.zeros((1, len(cols))), index=["row"], columns=list(cols))
    return pa.Schema.from_pandas(probe)


def _arrow_table(
    m: np.ndarray, rows: Sequence[str], cols: Sequence[str], digits: int
) -> pa.Table | None:
    """What ``st.dataframe(frame_of(m, rows, cols).round(digits))`` sends, built straight from
    the array: pandas' own conversion costs 1-2 ms a table. None when m is not a matrix of
    floats with text labels (then pandas converts it). Shapes: m [R, C] -> R rows, C columns."""
    a = np.asarray(m)
    labels_ok = all(isinstance(r, str) for r in rows) and all(isinstance(c, str) for c in cols)
    if a.ndim != 2 or a.dtype != np.float64 or not labels_ok or len(set(cols)) != len(cols):
        return None
    columns = np.round(a, digits).T.copy()  # one contiguous row per table column
    arrays = [pa.array(c, from_pandas=True) for c in columns]  # NaN -> null, as pandas sends it
    return pa.Table.from_arrays(
        [*arrays, pa.array(list(rows), pa.string())], schema=_table_schema(tuple(cols))
    )


def _csv(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> str:
    return frame_of(m, rows, cols).to_csv(float_format="%.17g")


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
    table = _arrow_table(m, rows, cols, digits)
    if table is None:
        table = frame_of(m, rows, cols).round(digits)
    st.dataframe(table, width="stretch", key=f"{key}_table")
    st.caption(shape_text(name, np.asarray(m)))
    st.download_button(
        download_label or f"{name} · CSV",
        # written when clicked, not on every rerun: 5-9 ms for a 64-column table
        data=partial(_csv, m, list(rows), list(cols)),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon=":material/download:",
        type="tertiary",
    )


@cache
def _source(fn: Callable[..., object]) -> str:
    # read once per process: inspect tokenizes the whole file to find a function's end
    return inspect.getsource(fn)


def show_code(*functions: Callable[..., object]) -> None:
    """The real source of the functions that computed what the page shows."""
    st.code("\n\n".join(_source(fn) for fn in functions), language="python")


def head_feature_labels(n_heads: int, d_head: int) -> list[str]:
    """Column names of the concatenated heads: h0·0, h0·1, h1·0, ... (head · feature)."""
    return [f"h{h}·{i}" for h in range(n_heads) for i in range(d_head)]


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


def colour_scale(
    zmin: float, zmax: float, *, title: str = "", signed: bool = False, height: int = 100
) -> Spec:
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
    return fast_figure([trace], layout)


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
) -> Spec:
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
