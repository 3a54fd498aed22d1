"""Views: matrices to tables and heatmaps, code beside numbers. Arithmetic stays in ``llm``.

Heatmaps follow one convention: row 0 (the first token) at the top, rows = query, cols = key;
colour-blind-safe scales (viridis for probabilities, red-blue around 0 for signed numbers);
numbers printed in the cells when the matrix is small enough to read; exact values on hover.
Token labels are plain text: plotly gets them as category names, tables as pandas labels.
"""

from __future__ import annotations

import base64
import inspect
import json
import math
import zlib
from collections.abc import Callable, Sequence
from functools import cache, lru_cache, partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa
import streamlit as st
from plotly.basedatatypes import BaseFigure
from streamlit.delta_generator import DeltaGenerator

MAX_CELL_TEXT = 12  # print numbers inside cells up to this many rows/cols
# the chart's tool bar: save as PNG, zoom, pan, reset (and Streamlit's full screen); the + and -
# and autoscale buttons only repeat zoom and reset, and crowd a title on a phone
PLOT_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"],
}
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


# The charts' own style. Streamlit's plotly theme restyles a figure in the browser after drawing
# it, which makes plotly.js draw every chart twice on each change. So figures are sent with
# ``theme=None`` and carry Streamlit's look themselves: its fonts, sizes and spacing, on a
# transparent background. Light or dark: the text colours below read on both, and CHART_CSS gives
# each theme its own (the browser switches them with the theme, with no rerun).
MUTED = "#808495"  # Streamlit's chart label grey: 3.7:1 on its light background, 4.9:1 on dark
FAINT = "rgba(128, 132, 149, 0.3)"  # grid and zero lines, the tool bar's icons
CLEAR = "rgba(0, 0, 0, 0)"
FONT = {"family": '"Source Sans", sans-serif', "size": 12, "color": MUTED}
_AXIS = {
    "tickfont": FONT,
    "title": {"font": {**FONT, "size": 14}},
    "ticklabelposition": "outside",
    "gridcolor": FAINT,
    "zerolinecolor": FAINT,
    "automargin": True,
}
_AXES = {
    "x": {
        **_AXIS,
        "title": {**_AXIS["title"], "standoff": 20},
        "showgrid": False,
        "zeroline": False,
    },
    "y": {**_AXIS, "title": {**_AXIS["title"], "standoff": 24}},
}
# a heatmap's axes: one category a row or column; its ticks only keep the labels off the cells
_CELL_AXIS = {"type": "category", "showgrid": False, "tickcolor": CLEAR}
_COLOUR_BAR = {
    "tickfont": FONT,
    "title": {"font": {**FONT, "size": 14}},
    "ticklabelposition": "outside",
    "outlinecolor": CLEAR,
    "outlinewidth": 8,
}
_LAYOUT = {
    # no dragging: on a phone a finger that starts on a chart scrolls the page instead of
    # zooming the chart (a tap still shows a cell's value; the zoom button turns dragging on)
    "dragmode": False,
    "font": FONT,
    "paper_bgcolor": CLEAR,
    "plot_bgcolor": CLEAR,
    "hoverlabel": {"bgcolor": "#FFFFFF", "bordercolor": FAINT, "font": FONT},
    "modebar": {"bgcolor": CLEAR, "color": FAINT, "activecolor": MUTED},
    "legend": {"font": FONT, "bordercolor": CLEAR, "borderwidth": 0, "valign": "top"},
}
_TITLE = {"font": {**FONT, "size": 14}, "x": 0, "xanchor": "left", "pad": {"l": 4}}
# Each theme's colours, as Streamlit's theme gives them: light-dark() follows the colour scheme
# that Streamlit sets on the app (chromium 123, firefox 120, safari 17.5; older browsers keep the
# MUTED grey above). Cell numbers are not touched: plotly picks them to read on their cell. A
# bold annotation is a plot's title in a figure of several (``side_by_side``): a title's colour.
CHART_CSS = """<style>
.stPlotlyChart .infolayer text, .stPlotlyChart .xaxislayer-above text,
.stPlotlyChart .yaxislayer-above text, .stPlotlyChart text.bartext-outside {
  fill: light-dark(#808495, #e6eaf1) !important;
}
.stPlotlyChart .g-gtitle text, .stPlotlyChart .annotation-text tspan[style*="bold"] {
  fill: light-dark(#2f2d2b, #edebe8) !important;
}
.stPlotlyChart .infolayer .legendtext { fill: light-dark(#262730, #fafafa) !important; }
.stPlotlyChart .hoverlayer .hovertext path {
  fill: light-dark(#ffffff, #171614) !important;
  stroke: light-dark(rgba(47, 45, 43, 0.2), rgba(237, 235, 232, 0.2)) !important;
}
.stPlotlyChart .hoverlayer .hovertext text { fill: light-dark(#808495, #e6eaf1) !important; }
</style>"""


def _under(defaults: dict, own: dict) -> dict:
    """``own`` laid over ``defaults``, nested dicts merged: the figure's keys win."""
    out = dict(defaults)
    for k, v in own.items():
        out[k] = _under(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def styled(layout: dict) -> dict:
    """A figure's layout with the chart style under it: fonts, colours, spacing, axes."""
    out = _under(_LAYOUT, layout)
    out["margin"] = {"pad": 8, **layout.get("margin", {})}
    for k, v in layout.items():
        if k[:5] in ("xaxis", "yaxis"):
            out[k] = _under(_AXES[k[0]], v)
    for k in ("xaxis", "yaxis"):
        out.setdefault(k, _AXES[k[0]])
    title = layout.get("title")
    if title and title.get("text"):
        out["title"] = _under(_TITLE, {**title, "text": f"<b>{title['text']}</b>"})
    if "coloraxis" in layout:
        out["coloraxis"] = _under({"colorbar": _COLOUR_BAR}, layout["coloraxis"])
    return out


class _Sendable(BaseFigure):
    """A finished figure for ``st.plotly_chart``, which reads a plotly figure through
    ``to_dict()``: the dict is the one plotly would build, without plotly building it.

    No template: the layout holds the whole style (``styled``). ``datarevision`` is a digest of
    the traces, so plotly.js compares it instead of every array when Streamlit hands it the same
    figure a second time, and draws the chart once."""

    def __init__(self, spec: Spec) -> None:  # no BaseFigure.__init__: nothing to validate
        data = _wire(spec["data"])
        layout = _wire(styled(spec["layout"]))
        layout["datarevision"] = zlib.crc32(json.dumps(data, separators=(",", ":")).encode())
        self._sent = {"data": data, "layout": layout}

    def to_dict(self) -> dict:
        return self._sent

    def __repr__(self) -> str:
        return f"_Sendable({len(self._sent['data'])} traces)"


# Margins. plotly.js draws a figure, measures its tick labels and axis titles, and when they do
# not fit the layout's margins it grows them and draws the whole figure again ("automargin").
# That second pass is about a third of a chart's drawing time in the browser, paid by every chart
# on every change. So each figure asks for margins that already hold its labels: estimated from
# the labels' text at the 12 px tick font of Streamlit's theme, with room to spare. automargin
# stays on, so a label wider than its estimate is never cut off, only drawn twice.
_NARROW = frozenset(" !'(),.:;I[]fijlrt|·")
_WIDE = frozenset("MWmw@%")
TICK_GAP = 60  # tick length, standoffs and the axis title beside the labels (px, measured)
BAR = {"thickness": 14, "xpad": 6}  # a colour bar, narrower than plotly's 30 px


@lru_cache(maxsize=4096)  # the same token and feature labels come back on every rerun
def label_px(label: str) -> float:
    """About how wide a tick label is drawn, in px at 12 px, rounded up (a little over)."""
    width = 0.0
    for ch in label:
        if ch in _NARROW:
            width += 4.0
        elif ch in _WIDE:
            width += 10.0
        elif ch.isupper() or ch.isdigit() or ch in "−-+#&_~":
            width += 7.5
        elif ord(ch) < 0x2E80:
            width += 6.5 if ch.isascii() else 8.0
        else:  # CJK and other full-width characters: a square em
            width += 12.5
    return 1.1 * width


def axis_margins(
    rows: Sequence[str], cols: Sequence[str], tickangle: float, *, colour_bar: bool = False
) -> dict[str, int]:
    """Left and bottom margins (px) that hold these y and x tick labels and the axis titles;
    right leaves room for a vertical colour bar (about 50-58 px with its numbers). Measured in
    chromium: left = 60 + the widest y label; bottom = 72 for level x labels, about
    67 + 0.87 × the widest label at -60°."""
    widest_x = max((label_px(str(c)) for c in cols), default=0.0)
    widest_y = max((label_px(str(r)) for r in rows), default=0.0)
    slant = abs(math.sin(math.radians(tickangle)))
    # a slanted first x label reaches left of the plot, past the y labels when it is long
    first_x = label_px(str(cols[0])) * abs(math.cos(math.radians(tickangle))) if slant else 0.0
    return {
        "l": math.ceil(max(TICK_GAP + widest_y + 4, first_x + 20)),
        "b": math.ceil(max(76.0, 70 + slant * widest_x + 4)),
        "r": 62 if colour_bar else 16,
    }


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
            **_CELL_AXIS,
            "title": {"text": x_title},
            "tickangle": tickangle,
        },
        "yaxis": {
            **_CELL_AXIS,
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


def show_figure(fig: Spec, key: str) -> None:
    """Draw a figure of this module at the container's width, in the chart style (``styled``).
    The page shows CHART_CSS once (``ui.frame`` does), for the dark theme's colours."""
    st.plotly_chart(_Sendable(fig), key=key, config=PLOT_CONFIG, width="stretch", theme=None)


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


def folded(label: str, key: str, icon: str | None = None) -> DeltaGenerator | None:
    """A closed expander whose content is built only while it is open: None when closed.

    A closed section then costs one element per rerun instead of its tables; opening it reruns
    the page, which fills it. ``key`` names it in the session (unique across pages).
    """
    box = st.expander(label, key=key, icon=icon, on_change="rerun")
    return box if box.open else None


def lazy_tabs(labels: Sequence[str], key: str) -> list[DeltaGenerator | None]:
    """Tabs that build only the open tab's content: the others come back as None.
    Choosing a tab reruns the page; ``key`` names the choice in the session."""
    tabs = st.tabs(list(labels), key=key, on_change="rerun")
    return [tab if tab.open else None for tab in tabs]


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


def label_blocks(fig: Spec, size: int, names: Sequence[str]) -> Spec:
    """A name above each block of ``size`` x categories (e.g. z₀ over head 0's columns of a
    concat), in a band added at the top of the chart. Many blocks on a narrow chart: every
    second (or k-th) block is named, so that the names never run into each other.
    Shapes: an x axis of size * len(names) categories -> len(names) blocks.
    """
    if len(names) < 2:
        return fig
    step = -(-len(names) // (4 if on_a_phone() else 8))
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


def heatmap_grid(
    mats: Sequence[np.ndarray],
    rows: Sequence[str],
    cols: Sequence[Sequence[str]],
    titles: Sequence[str],
    *,
    key: str,
    **style: Any,
) -> None:
    """Several heatmaps side by side in ONE figure, on one colour scale with one colour bar;
    ``style`` as in ``grid_figure``.

    One figure rather than one per matrix: the browser draws every figure from scratch on each
    change, and most of that cost is per figure, not per cell.
    Shapes: mats N × [R, C]; rows R labels; cols N × C labels; titles N.
    """
    if on_a_phone():  # one plot a row: a phone has no room for several side by side
        style.update(per_row=1, row_px=300)
    show_figure(grid_figure(mats, rows, cols, titles, **style), key=key)


def on_a_phone() -> bool:
    """Whether the browser says it is a phone (``Mobi`` in its user agent, as phones' browsers
    send and tablets' do not). A figure cannot reflow to the screen's width as columns do."""
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # no browser session (a bare script run): not a phone
        return False
    return "Mobi" in agent


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
            **_CELL_AXIS,
            "tickangle": tickangle,
            "domain": [left, min(1.0, left + width)],
            "anchor": f"y{suffix}",
            "title": {"text": x_title if r == n_rows - 1 else ""},
        }
        layout[f"yaxis{suffix}"] = {
            **_CELL_AXIS,
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
            bar["title"] = {"text": _fit_lines(scale_title, inner), "side": "right"}
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


def side_by_side(left: Spec, right: Spec, gap: float = 0.14) -> Spec:
    """Two figures of ``bar_chart`` as ONE figure: ``left``'s plot, then ``right``'s, each with
    its title above it and its own y axis; one legend (the left's: same series, same colours;
    a click hides a series in both). ``gap``: the share of the width between the two plots, for
    the right plot's y numbers and title.

    One figure rather than two: the browser draws every figure from scratch on each change.
    """
    width = (1.0 - gap) / 2
    lay_l, lay_r = left["layout"], right["layout"]
    data = [{**trace, "legendgroup": trace.get("name")} for trace in left["data"]]
    data += [
        {
            **trace,
            "legendgroup": trace.get("name"),
            "xaxis": "x2",
            "yaxis": "y2",
            "showlegend": False,
        }
        for trace in right["data"]
    ]
    refs = {"x domain": "x2 domain", "x": "x2", "y": "y2", "y domain": "y2 domain"}

    def moved(items: list[dict]) -> list[dict]:  # the right figure's shapes and notes, on x2/y2
        return [
            {**item, **{k: refs.get(item[k], item[k]) for k in ("xref", "yref") if k in item}}
            for item in items
        ]

    titles = [
        {
            "text": f"<b>{lay['title']['text']}</b>",
            "x": x,
            "xref": "paper",
            "xanchor": "left",
            "y": 1.0,
            "yref": "paper",
            "yanchor": "bottom",
            "yshift": 10,
            "showarrow": False,
            "font": {"size": 14},
        }
        for lay, x in ((lay_l, 0.0), (lay_r, 1.0 - width))
        if lay.get("title", {}).get("text")
    ]
    margin_l, margin_r = lay_l["margin"], lay_r["margin"]
    layout = {
        **lay_l,
        "title": {},
        "xaxis": {**lay_l["xaxis"], "domain": [0.0, width]},
        "yaxis": {**lay_l["yaxis"], "anchor": "x"},
        "xaxis2": {**lay_r["xaxis"], "domain": [1.0 - width, 1.0], "anchor": "y2"},
        "yaxis2": {**lay_r["yaxis"], "anchor": "x2"},
        "height": max(lay_l["height"], lay_r["height"]),
        "margin": {
            "l": margin_l["l"],
            "r": margin_r["r"],
            "t": max(margin_l["t"], margin_r["t"]),
            "b": max(margin_l["b"], margin_r["b"]),
        },
        "shapes": [*lay_l.get("shapes", []), *moved(lay_r.get("shapes", []))],
        "annotations": [
            *titles,
            *lay_l.get("annotations", []),
            *moved(lay_r.get("annotations", [])),
        ],
    }
    return fast_figure(data, layout)


def _axis_suffix(k: int) -> str:
    """plotly's name for the axes of plot k: x/y for the first, then x2/y2, x3/y3, ..."""
    return "" if k == 0 else str(k + 1)


def _fit_lines(title: str, length: float) -> str:
    """A title of ours on two lines (split at the space nearest its middle) when one line at
    14 px would be longer than ``length`` px; plotly cuts what passes the figure's edge."""
    if label_px(title) * 14 / 12 <= length or " " not in title:
        return title
    middle = len(title) / 2
    cut = min((i for i, ch in enumerate(title) if ch == " "), key=lambda i: abs(i - middle))
    return f"{title[:cut]}<br>{title[cut + 1 :]}"


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
            # a list: after Streamlit's JSON round trip of the figure, plotly.js reads a typed
            # 1-D array as new data and draws the chart a second time
            "y": [None if v is None or not np.isfinite(v) else float(v) for v in values],
            "name": name,
            "marker": {"color": palette[n % len(palette)]},
            "textposition": "auto",  # inside a tall bar, so it never sits on a reference line
            "cliponaxis": False,
            "hovertemplate": f"%{{x}}<br>{name}: %{{y:.6g}}<extra></extra>",
        }
        if len(categories) <= 16:
            trace["text"] = [_bar_text(v, digits) for v in values]
        data.append(trace)
    # dashed reference lines across the plot ...
    dash = {"color": MUTED, "dash": "dash"}
    across = {"x0": 0, "x1": 1, "xref": "x domain", "yref": "y"}
    shapes = [{"type": "line", "line": dash, "y0": y, "y1": y, **across} for y, _ in lines]
    # ... labelled in the right margin, level with the line: inside the plot a label sat on the
    # last bars, which reach the line on most pages (after LayerNorm every row's std is 1)
    notes = [
        {"text": label, "showarrow": False, "x": 1, "xanchor": "left", "xshift": 6}
        | {"xref": "x domain", "y": y, "yanchor": "middle", "yref": "y"}
        for y, label in lines
    ]
    # many categories: let plotly turn the labels so they never overlap on a phone
    tickangle = 0 if len(categories) <= 8 else -60  # set, not left to plotly: margins fit it
    xaxis = {"type": "category", "tickangle": tickangle}
    legend = len(series) > 1
    # the y numbers and title need about 75 px; the x labels as for a heatmap, less its title;
    # the legend under them, with room for two rows: a chart in half a page wraps two entries
    # (plotly would otherwise grow the margin and draw the chart again)
    below = axis_margins((), categories, tickangle)["b"] - 36
    margin = {
        "l": 80,
        "r": math.ceil(max(label_px(label) for _, label in lines) + 18) if lines else 12,
        "t": 36 if title else 12,
        "b": below + (52 if legend else 0),
    }
    plot_px = height - margin["t"] - margin["b"]  # the plot area's height
    layout = {
        "xaxis": xaxis,
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "height": height,
        "barmode": barmode,
        "showlegend": legend,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left"}
        | {"y": -(below - 6) / plot_px, "yanchor": "top"},
        "margin": margin,
    }
    if lines:
        layout.update(shapes=shapes, annotations=notes)
    return fast_figure(data, layout)
