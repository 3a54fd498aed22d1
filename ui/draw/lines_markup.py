"""A line chart as markup the server writes: the plots of a ``ui.draw.lines.line_panels`` figure,
each series a band of its colour cut to its line's shape (a CSS ``clip-path`` polygon: ``st.html``
keeps styles and drops SVG), the axes' round numbers and grid lines, the dotted levels, the dashed
mark (the chosen training step), the plots' titles, the axes' titles and the legend.

The figure's own plan is drawn: its size and margins, each plot's place (its axes' domains), its
x range, its series' colours and widths; a figure that stretches to its column is drawn at the
width the caller gives. A line is a polygon around it, ``width / 2`` px each side of every
point along the normal where its two segments meet (a miter, cut at MITER times the half
width), so a steep rise is as thick as a flat stretch. The drawing is ``aria-hidden``: the
figure is named by its text alternative (``ui.draw.describe``). Its values ride along as
``data-z`` (base64 float64, a row a series, NaN where none), as a heatmap table's do, with the
x values (``data-x``, the series share them) and the series' names (``data-names``, JSON).

Shapes: S series (traces) of N points each.
"""

from __future__ import annotations

import base64
import json
import math
import re
from html import escape

import numpy as np

from ui.draw.axis_text import multiples, nice_ticks, tick_text, title_lines
from ui.draw.describe_words import Spec
from ui.draw.markup import Markup
from ui.draw.style import MUTED
from ui.draw.wire import alt_text

PAD = 6  # px a series' band reaches past its plot's box (a line's half width at the edge)
MITER = 2.0  # a corner's offset at most this many half widths
TOP_ROOM = 0.04  # of a linear axis's span over its highest value (plotly draws a line to its top)
MARK_X = "--mark-x"  # where with_moving_mark's lines stand, in % of their plots' width
LINES_CSS = """<style>
.lab-lines { margin: 0; width: fit-content; font-family: "Source Sans", sans-serif;
  line-height: 1.2; color: light-dark(#5f6272, #e6eaf1); }
.ln-paper { position: relative; }
.ln-title { position: absolute; white-space: nowrap; color: light-dark(#2f2d2b, #edebe8); }
.ln-plot { position: absolute; }
.ln-plot .grid { position: absolute; left: 0; right: 0; height: 0;
  border-top: 1px solid rgba(128, 132, 149, 0.3); }
.ln-plot .yt { position: absolute; right: calc(100% + 6px); transform: translateY(50%);
  white-space: nowrap; }
.ln-plot .xt { position: absolute; top: calc(100% + 4px); transform: translateX(-50%);
  white-space: nowrap; }
.ln-plot .level { position: absolute; left: 0; right: 0; height: 0; }
.ln-plot .mark { position: absolute; top: 0; bottom: 0; width: 0; }
.ln-plot .mark.moving { left: var(--mark-x); visibility: var(--mark-shown, hidden); }
.ln-plot .series { position: absolute; inset: -6px; }
.ln-x { position: absolute; text-align: center; white-space: nowrap; }
.ln-y { position: absolute; writing-mode: vertical-rl; transform: rotate(180deg);
  text-align: center; white-space: nowrap; }
.ln-legend { position: absolute; left: 0; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; }
.ln-legend span { white-space: nowrap; }
.ln-legend i { display: inline-block; width: 1.8em; height: 0; margin-right: 0.4em;
  vertical-align: 0.3em; }
</style>"""


def lines_markup(fig: Spec, *, key: str, width: int | None = None) -> Markup:
    """``fig`` (a ``line_panels`` figure, perhaps ``marked``) as a ``<figure>``: named by its
    text alternative, ``data-key`` ``key``; ``width`` (px) where the figure stretches to its
    column. Shapes: S traces of N points."""
    data, layout = fig["data"], fig["layout"]
    full_w = layout.get("width") or width
    margin = layout["margin"]
    paper = (full_w - margin["l"] - margin["r"], layout["height"] - margin["t"] - margin["b"])
    comma = layout.get("separators", ".,")[0] == ","
    suffixes = sorted((k[5:] for k in layout if k.startswith("xaxis")), key=lambda s: int(s or 1))
    plots = "".join(_plot(fig, suffix, paper, comma) for suffix in suffixes)
    titles = "".join(_title(note, margin, paper) for note in layout.get("annotations") or ())
    values = np.array([[np.nan if v is None else v for v in t["y"]] for t in data], dtype=float)
    z = base64.b64encode(np.ascontiguousarray(values).tobytes()).decode()
    xs = np.asarray(data[0]["x"] if data else [], dtype=np.float64)
    x = base64.b64encode(np.ascontiguousarray(xs).tobytes()).decode()
    names = escape(json.dumps([t["name"] for t in data], ensure_ascii=False))
    font = layout.get("font", {}).get("size", 12)
    return Markup(
        f'<figure class="lab-lines" aria-label="{escape(alt_text(fig))}" data-key="{escape(key)}" '
        f'data-z="{z}" data-shape="{values.shape[0]},{values.shape[1]}" data-x="{x}" '
        f'data-names="{names}" '
        f'style="font-size:{font}px"><div class="ln-paper" aria-hidden="true" '
        f'style="width:{full_w:g}px;height:{layout["height"]:g}px">{titles}{plots}'
        f"{_legend(fig, margin, paper)}</div></figure>"
    )


def _plot(fig: Spec, suffix: str, paper: tuple[float, float], comma: bool) -> str:
    """One plot at its place: its grid lines and round numbers, its levels and mark, its series'
    lines, its axes' titles."""
    layout, margin = fig["layout"], fig["layout"]["margin"]
    x_axis, y_axis = layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"]
    (x0, x1), (y0, y1) = x_axis["domain"], y_axis["domain"]
    left, top = margin["l"] + x0 * paper[0], margin["t"] + (1 - y1) * paper[1]
    size = ((x1 - x0) * paper[0], (y1 - y0) * paper[1])
    traces = [t for t in fig["data"] if t.get("xaxis", "x") == f"x{suffix}"]
    shapes = [s for s in layout.get("shapes") or () if s["xref"].split(" ")[0] == f"x{suffix}"]
    log = y_axis.get("type") == "log"
    y_span = _y_span(traces, shapes, log, y_axis.get("rangemode") == "tozero")
    x_span = tuple(float(v) for v in x_axis["range"])
    axes = _ticks(x_span, y_span, size, log, comma)
    lines = "".join(_line(t, x_span, y_span, size, log) for t in traces)
    marks = "".join(_shape(s, x_span, y_span, log) for s in shapes)
    return (
        f'<div class="ln-plot" style="left:{left:g}px;top:{top:g}px;width:{size[0]:g}px;'
        f'height:{size[1]:g}px">{axes}{marks}{lines}</div>'
        f"{_axis_titles(x_axis, y_axis, (left, top), size)}"
    )


def _y_span(traces: list[dict], shapes: list[dict], log: bool, from_zero: bool) -> tuple:
    """The y axis's span (in log10 units on a log axis): the values and the levels, from 0
    where the axis starts there, TOP_ROOM over the highest on a linear axis."""
    ys = [v for t in traces for v in t["y"] if v is not None]
    ys += [s["y0"] for s in shapes if s["yref"].startswith("y") and " " not in s["yref"]]
    if log:
        logs = [math.log10(v) for v in ys if v > 0] or [0.0]
        lo, hi = min(logs), max(logs)
        return (lo - 0.05, hi + 0.05) if hi > lo else (lo - 0.5, hi + 0.5)
    lo, hi = min(ys, default=0.0), max(ys, default=1.0)
    lo = min(0.0, lo) if from_zero else lo
    hi = hi if hi > lo else lo + 1.0
    return lo, hi + TOP_ROOM * (hi - lo)


def _up(v: float, span: tuple[float, float]) -> float:
    """How far along ``span`` ``v`` stands, 0 to 1."""
    return (v - span[0]) / (span[1] - span[0])


def _ticks(x_span: tuple, y_span: tuple, size: tuple, log: bool, comma: bool) -> str:
    """The grid lines and round numbers of the y axis (decades on a log axis), and the x
    axis's round numbers under the plot."""
    if log:
        ys = [(k, _decade(k)) for k in range(math.ceil(y_span[0]), math.floor(y_span[1]) + 1)]
    else:
        numbers = nice_ticks(y_span[0], y_span[1], max(2, int(size[1] // 35)))
        ys = [(v, tick_text(v, comma)) for v in numbers]
    out = [
        f'<div class="grid" style="bottom:{100 * _up(v, y_span):.2f}%"></div>'
        f'<span class="yt" style="bottom:{100 * _up(v, y_span):.2f}%">{escape(text)}</span>'
        for v, text in ys
    ]
    step = nice_ticks(*x_span, max(2, int(size[0] // 90)))
    xs = multiples(*x_span, step[1] - step[0]) if len(step) > 1 else step
    out += [
        f'<span class="xt" style="left:{100 * _up(v, x_span):.2f}%">'
        f"{escape(tick_text(v, comma))}</span>"
        for v in xs
    ]
    return "".join(out)


def _decade(k: int) -> str:
    """10 to the power ``k``, as a log axis writes it: 10⁻¹, 10⁰, 10¹."""
    return "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _line(trace: dict, x_span: tuple, y_span: tuple, size: tuple, log: bool) -> str:
    """A series: a band of its colour cut to its line, a polygon for each run of values."""
    width, colour = trace["line"]["width"], trace["line"]["color"]
    ys = np.array([np.nan if v is None else v for v in trace["y"]], dtype=float)
    if log:
        ys = np.where(ys > 0, np.log10(np.where(ys > 0, ys, 1.0)), np.nan)
    xs = np.asarray(trace["x"], dtype=float)
    px = np.column_stack(
        [
            (xs - x_span[0]) / (x_span[1] - x_span[0]) * size[0] + PAD,
            (1 - (ys - y_span[0]) / (y_span[1] - y_span[0])) * size[1] + PAD,
        ]
    )
    out = []
    for run in _runs(np.isfinite(ys)):
        band = _band(px[run], width / 2)  # one format for every point: 5 × quicker
        points = ", ".join(["%.1fpx %.1fpx"] * len(band)) % tuple(band.ravel().tolist())
        out.append(
            f'<div class="series" style="background:{colour};clip-path:polygon({points})"></div>'
        )
    return "".join(out)


def _runs(shown: np.ndarray) -> list[slice]:
    """The stretches of consecutive True in ``shown``, as slices."""
    runs, start = [], None
    for i, on in enumerate([*shown.tolist(), False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append(slice(start, i))
            start = None
    return runs


def _band(points: np.ndarray, half: float) -> np.ndarray:
    """The outline of a line ``2 * half`` px wide through ``points``: each point moved
    ``half`` along its corner's normal one way, then back the other way. Shapes: [P, 2] ->
    [2P, 2] (a lone point: a square around it)."""
    if len(points) == 1:
        (x, y), h = points[0], half
        return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
    steps = np.diff(points, axis=0)
    lengths = np.maximum(np.hypot(steps[:, 0], steps[:, 1]), 1e-9)
    normals = np.column_stack([-steps[:, 1], steps[:, 0]]) / lengths[:, None]
    ends = np.vstack([normals[:1], normals[:-1] + normals[1:], normals[-1:]])
    ends /= np.maximum(np.hypot(ends[:, 0], ends[:, 1]), 1e-9)[:, None]
    # a corner's offset grows as 1 / cos(half its angle), up to MITER half widths
    beside = np.vstack([normals[:1], normals, normals[-1:]])
    cos = np.maximum(np.abs(np.sum(ends * beside[1:], axis=1)), 1 / MITER)
    offsets = ends * (half / cos)[:, None]
    return np.vstack([points + offsets, (points - offsets)[::-1]])


def _shape(shape: dict, x_span: tuple, y_span: tuple, log: bool) -> str:
    """A level (dotted, across the plot) or the mark (dashed, at an x), in MUTED."""
    style = "dotted" if shape["line"].get("dash") == "dot" else "dashed"
    border = f"1px {style} {shape['line'].get('color', MUTED)}"
    if shape["xref"].endswith("domain"):  # across: a level at y
        y = math.log10(shape["y0"]) if log else shape["y0"]
        return (
            f'<div class="level" style="bottom:{100 * _up(y, y_span):.2f}%;border-top:{border}">'
            "</div>"
        )
    at = 100 * _up(shape["x0"], x_span)
    return (
        f'<div class="mark" data-x="{shape["x0"]!r}" style="left:{at:.2f}%;border-left:{border}">'
        "</div>"
    )


def _axis_titles(x_axis: dict, y_axis: dict, corner: tuple, size: tuple) -> str:
    """The x axis's title under the plot's numbers, the y axis's left of them."""
    left, top = corner
    out = []
    if text := x_axis.get("title", {}).get("text"):
        out.append(
            f'<div class="ln-x" style="left:{left:g}px;width:{size[0]:g}px;'
            f'top:{top + size[1] + 24:g}px">{title_lines(text)}</div>'
        )
    if text := y_axis.get("title", {}).get("text"):
        out.append(
            f'<div class="ln-y" style="left:{left - 62:g}px;top:{top:g}px;height:{size[1]:g}px">'
            f"{title_lines(text)}</div>"
        )
    return "".join(out)


def _title(note: dict, margin: dict, paper: tuple) -> str:
    """A plot's title where the figure puts it: from its plot's left edge, its top ``yshift``
    px over the plot's top; its lines bold."""
    left = margin["l"] + note["x"] * paper[0]
    top = margin["t"] + (1 - note["y"]) * paper[1] - note.get("yshift", 0)
    size = note.get("font", {}).get("size", 13)
    lines = "<br>".join(f"<b>{title_lines(line)}</b>" for line in note["text"].split("<br>"))
    place = f"left:{left:g}px;top:{top:g}px;font-size:{size}px"
    return f'<div class="ln-title" style="{place}">{lines}</div>'


def _legend(fig: Spec, margin: dict, paper: tuple) -> str:
    """The legend under the plots: each series' line, then each level's and the mark's dotted
    or dashed line, with its name (none where the figure shows none)."""
    layout = fig["layout"]
    if not layout.get("showlegend"):
        return ""
    entries = [
        (t["name"], f"{t['line']['width']:g}px solid {t['line']['color']}")
        for t in fig["data"]
        if t.get("showlegend")
    ]
    for shape in layout.get("shapes") or ():
        if shape.get("showlegend"):
            style = "dotted" if shape["line"].get("dash") == "dot" else "dashed"
            entries.append((shape["name"], f"1px {style} {shape['line'].get('color', MUTED)}"))
    top = margin["t"] + (1 - layout["legend"].get("y", 0)) * paper[1]
    spans = "".join(
        f'<span><i style="border-top:{line}"></i>{escape(name)}</span>' for name, line in entries
    )
    size = layout["legend"].get("font", {}).get("size", 12)
    return (
        f'<div class="ln-legend" style="top:{top:g}px;left:{margin["l"]:g}px;'
        f'font-size:{size}px">{spans}</div>'
    )


def with_moving_mark(markup: str) -> Markup:
    """``lines_markup`` with a dashed line in every plot at the place ``mark_style`` sets for the
    page (the CSS variable MARK_X; none shown before it is set): a new x moves the line without
    the lines being sent again."""
    mark = f'<div class="mark moving" style="border-left:1px dashed {MUTED}"></div>'
    return _into_plots(markup, mark)


def mark_style(fig: Spec, x: float) -> Markup:
    """The style that puts ``with_moving_mark``'s lines at ``x`` of ``fig``'s x axis, where the
    figure ``ui.draw.lines.marked`` draws its dashed line (every plot of the figures drawn with
    it shares that axis's range)."""
    x_span = tuple(float(v) for v in fig["layout"]["xaxis"]["range"])
    at = 100 * _up(float(x), x_span)
    # set on the figures, not the document's root: a new value restyles their lines alone, where
    # a variable of :root is inherited by every element of the page, each restyled with a step
    return Markup(f"<style>.lab-lines {{ {MARK_X}: {at:.4f}%; --mark-shown: visible; }}</style>")


def _into_plots(markup: str, piece: str) -> Markup:
    """``markup`` with ``piece`` first in every plot's box."""
    return Markup(re.sub(r'(<div class="ln-plot" [^>]*>)', lambda m: m.group(1) + piece, markup))
