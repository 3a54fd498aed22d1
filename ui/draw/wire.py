"""plotly's wire format: figures as the plain dicts plotly.js reads, sent as plotly.py sends them.

A figure of this app is ``{"data": [trace, ...], "layout": {...}}`` built from plain dicts
(``fast_figure``); ``show_figure`` lays the chart style under its layout and hands it to
``st.plotly_chart`` with every numpy array as plotly's typed array, without plotly building
(and validating, and copying) a figure object. A figure a cache returns is ``kept``: read-only,
its wire form built once and sent as it is on every rerun.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import plotly.io as pio
import streamlit as st
from plotly.basedatatypes import BaseFigure
from plotly.io._json import _safe, _swap_orjson

try:
    import orjson
except ImportError:  # plotly then writes its JSON with the standard library
    orjson = None

from ui.draw.describe import describe
from ui.draw.describe_words import Spec, figure_lang
from ui.draw.style import JSON_CONSTANTS, PLOT_CONFIG, styled


def fast_figure(data: list[dict], layout: dict) -> Spec:
    """A figure as plain dicts, written by a figure builder: ``{"data": data, "layout": layout}``.

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


def _constants(values: Sequence[Any]) -> frozenset[int]:
    """The ids of these never-changed JSON values and of every dict and list nested in them."""
    ids: set[int] = set()
    todo = list(values)
    while todo:
        value = todo.pop()
        if isinstance(value, dict | list | tuple) and id(value) not in ids:
            ids.add(id(value))
            todo.extend(value.values() if isinstance(value, dict) else value)
    return frozenset(ids)


# the chart style's values (module constants, alive as long as the process): sent as they are
_JSON_IDS = _constants(JSON_CONSTANTS)


def _wire(value: Any) -> Any:
    """A copy of a figure's dicts with every array as plotly.py would send it (the chart
    style's own values, already JSON, as they are)."""
    if id(value) in _JSON_IDS:
        return value
    if isinstance(value, dict):
        return {
            k: v
            if type(v) in _JSON_SCALARS  # a word or a number: most of a figure's values
            else _plain(v)
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


def _read_only(self: Any, *args: Any, **kwargs: Any) -> None:
    raise TypeError("a kept figure is read-only (it may be shared): build a new one")


class _KeptTraces(list):
    """A kept figure's traces, read-only, with their wire form once built: (traces, digest),
    and the length of its JSON text (what a cache weighs, ``ui.lab.shared_cache.weight``)."""

    __slots__ = ("wired", "wired_bytes")

    def __init__(self, traces: Sequence[dict]) -> None:
        super().__init__(traces)
        self.wired: tuple[list, int] | None = None
        self.wired_bytes = 0

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __reduce__(self) -> tuple:  # a copy (copy.deepcopy, pickle) is a plain, mutable list
        return list, (list(self),)


class _KeptLayout(dict):
    """A kept figure's layout, read-only, with its styled wire form once built, and the length
    of its JSON text (what a cache weighs); ``base``: the kept layout it was derived from
    (``derived_layout``), whose wire form it shares for the values it did not replace;
    ``alt``: the figure's text alternative once written, with the traces it describes."""

    __slots__ = ("alt", "base", "wired", "wired_bytes")

    def __init__(self, layout: dict) -> None:
        super().__init__(layout)
        base = getattr(layout, "base", None)
        self.base: _KeptLayout | None = base if isinstance(base, _KeptLayout) else None
        self.wired: dict | None = None
        self.wired_bytes = 0
        self.alt: tuple[list, str] | None = None

    __setitem__ = __delitem__ = __ior__ = _read_only
    update = pop = popitem = setdefault = clear = _read_only

    def __reduce__(self) -> tuple:  # a copy (copy.deepcopy, pickle) is a plain, mutable dict
        return dict, (dict(self),)


class _Derived(dict):
    """A layout made from another with some values replaced (``derived_layout``)."""

    __slots__ = ("base",)


def derived_layout(layout: dict, **changes: Any) -> dict:
    """``layout`` with ``changes`` laid over it, a new dict (``layout`` is left as it was).
    Kept (``keep``), it shares the wire form of a kept ``layout`` for every value it did not
    replace: a row outline on a kept heatmap writes its shapes, not the whole style again."""
    out = _Derived({**layout, **changes})
    out.base = layout
    return out


def keep(fig: Spec, *, wire: bool = True) -> Spec:
    """``fig`` as a figure that never changes again, for a cache to return: its traces and its
    layout read-only (a change raises), their wire form built now, once, and sent as it is on
    every rerun (walking a 16-head grid's 16 000 cells each time cost more than the rest of its
    rerun); built here, not at the first send, so that the cache that keeps the figure weighs
    it whole. A figure built from a kept one that shares its traces list
    (``ui.frame.follow.outline_row``: the same traces, a new layout) reuses their wire form.
    ``wire=False``: a figure a page draws as markup (``ui.draw.heatmap_table`` and its kin),
    never sent as plotly's JSON: read-only, its text alternative written once, no wire form."""
    data, layout = fig["data"], fig["layout"]
    kept = {
        "data": data if isinstance(data, _KeptTraces) else _KeptTraces(data),
        "layout": layout if isinstance(layout, _KeptLayout) else _KeptLayout(layout),
    }
    if wire:
        _wired_traces(kept["data"])
        _wired_layout(kept["layout"])
    return kept


def _wired_traces(traces: Sequence[dict]) -> tuple[list, int]:
    """The traces as plotly sends them, each value written as the JSON text plotly writes for it
    (``_written``), and their digest; a kept figure's built once."""
    if isinstance(traces, _KeptTraces) and traces.wired is not None:
        return traces.wired
    written = [_written_values(trace) for trace in _wire(traces)]
    text = _json_text(written)  # each value written once: the digest reads the written texts
    wired = written, zlib.crc32(text)
    if isinstance(traces, _KeptTraces):
        traces.wired, traces.wired_bytes = wired, len(text)
    return wired


def _json_text(value: Any) -> bytes:
    """``value``'s JSON text, from which a figure's digest is taken and by whose length a cache
    weighs it: orjson's, where the values ``_written`` keeps are copied as they are, else the
    standard library's."""
    if orjson is not None:
        options = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
        return orjson.dumps(value, default=str, option=options)
    return json.dumps(value, separators=(",", ":"), default=str).encode()


def _written(value: Any) -> Any:
    """A trace's value as the JSON text plotly writes for it (orjson, then its escapes of
    < > / and two line separators), to be sent as it is: plotly's orjson copies such a text
    into the figure's JSON, so a kept grid's 16 000 cells are neither written nor searched for
    those characters again on every rerun. The value itself when plotly writes JSON with the
    standard library, which takes no written text."""
    if orjson is None or pio.json.config.default_engine not in ("auto", "orjson"):
        return value
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    return orjson.Fragment(_safe(text.decode("utf8"), _swap_orjson))


def _written_values(spec: dict) -> dict:
    """A trace's or a layout's top level, each dict, list or tuple in it written (``_written``);
    numbers and words stay as they are, for plotly to write as it writes any figure's."""
    return {k: _written(v) if isinstance(v, dict | list | tuple) else v for k, v in spec.items()}


def _wired_layout(layout: dict) -> dict:
    """The layout in the chart style, as plotly sends it (a kept figure's: built once, each
    value that is a dict or a list kept as its JSON text, ``_written``: the style's thousand
    small dicts a figure, held as text)."""
    if isinstance(layout, _KeptLayout) and layout.wired is not None:
        return layout.wired
    base = layout.base if isinstance(layout, _KeptLayout) else None
    if base is not None and base.wired is not None:
        return _wired_from(layout, base)
    wired = _wire(styled(layout))
    if isinstance(layout, _KeptLayout):
        layout.wired_bytes = len(_json_text(wired))
        layout.wired = _written_values(wired)
        return layout.wired
    return wired


_ABSENT = object()


def _wired_from(layout: _KeptLayout, base: _KeptLayout) -> dict:
    """A derived layout's wire form: the base's written value for every key whose value is the
    base's own (or absent from both), the others wired and written here. ``styled`` gives each
    key a value from that key's value alone, so a value the base shares is styled alike."""
    wired, extra = {}, 0
    for k, v in styled(layout).items():
        if k in base.wired and layout.get(k, _ABSENT) is base.get(k, _ABSENT):
            wired[k] = base.wired[k]
            continue
        value = _wire({k: v})  # the same rules as for a whole layout (keys plotly lists)
        extra += len(_json_text(value[k]))
        wired[k] = _written_values(value)[k]
    layout.wired, layout.wired_bytes = wired, base.wired_bytes + extra
    return wired


class _Sendable(BaseFigure):
    """A finished figure for ``st.plotly_chart``, which reads a plotly figure through
    ``to_dict()``: the dict is the one plotly would build, without plotly building it.

    No template: the layout holds the whole style (``styled``). ``datarevision`` is a digest of
    the traces, so plotly.js compares it instead of every array when Streamlit hands it the same
    figure a second time, and draws the chart once."""

    def __init__(self, spec: Spec) -> None:  # no BaseFigure.__init__: nothing to validate
        data, revision = _wired_traces(spec["data"])
        # a copy of the layout's top level: a kept figure's wire form stays as it was built
        layout = {**_wired_layout(spec["layout"]), "datarevision": revision}
        self._sent = {"data": data, "layout": layout}

    def to_dict(self) -> dict:
        return self._sent

    def __repr__(self) -> str:
        return f"_Sendable({len(self._sent['data'])} traces)"


def show_figure(fig: Spec, key: str, on_select: Callable[[], None] | None = None) -> None:
    """Draw a figure of ``fast_figure`` in the chart style (``styled``), in a box of its own: at
    its own ``width`` (px) when it has one, scrolling sideways inside the box when the column is
    narrower, or else at the column's width. ``on_select``: called when a cell is clicked (the
    chart's state, under ``key`` in the session, holds the point). The page shows CHART_CSS
    once (``ui.frame.page`` does): the box's scrolling and the dark theme's colours."""
    show_figures([(fig, key)], key=key, on_select=on_select)


def show_pieces(pieces: Sequence[Spec], key: str) -> None:
    """A figure's pieces (``ui.draw.grids.grid_figures``, or a head a figure) side by side,
    wrapping (``show_figures``): keys ``key``, ``key-1``, ``key-2``, ..., in box ``key``."""
    show_figures([(fig, f"{key}-{k}" if k else key) for k, fig in enumerate(pieces)], key=key)


def alt_text(fig: Spec) -> str:
    """The figure's text alternative (``ui.draw.describe``): a kept figure's written once, on
    its layout, for the traces it was written for."""
    layout, data = fig["layout"], fig["data"]
    if isinstance(layout, _KeptLayout) and layout.alt is not None and layout.alt[0] is data:
        return layout.alt[1]
    text = describe(fig, figure_lang(fig))
    if isinstance(layout, _KeptLayout) and isinstance(data, _KeptTraces):
        layout.alt = (data, text)
    return text


def show_figures(
    figs: Sequence[tuple[Spec, str]], key: str, on_select: Callable[[], None] | None = None
) -> None:
    """Figures side by side in one box, each at its own width (``show_figure``), wrapping onto
    the next row when the row is full, 16 px apart (each figure's margins already hold its
    labels: with 32 px, page 5's two heads did not fit a 1280 px projector's column together);
    ``key`` names the box, each figure's key the figure.
    Each chart's accessible name (its ``alt``) says what it shows, in the language of its
    numbers (``ui.draw.describe``)."""
    selecting = {"on_select": on_select, "selection_mode": "points"} if on_select else {}
    with st.container(horizontal=True, gap="small", key=f"figs-{key}"):
        for fig, fig_key in figs:
            width = fig["layout"].get("width")
            st.plotly_chart(
                _Sendable(fig),
                key=fig_key,
                config=PLOT_CONFIG,
                width=int(width) if width else "stretch",
                theme=None,
                alt=alt_text(fig),
                **selecting,
            )
