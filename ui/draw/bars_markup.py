"""A bar chart as markup the server writes: the bars of a ``ui.draw.charts.bar_chart`` figure side
by side per category, their numbers, the round numbers of the y axis, the labels, the titles and
the legend, sent with ``st.html`` as /softmax's heatmap tables are (``ui.draw.heatmap_table``).

The figure's own plan is drawn: its plot's width and height (``layout``'s size and margins), its
series' colours and numbers (the traces' ``text``), its labels' angle. A number stands inside
the top of its bar where the bar is tall enough, black or white on the bar's colour
(``ui.draw.contrast``), else above it. The drawing is ``aria-hidden``: the figure is named by
its text alternative, which says every bar (``ui.draw.describe``); a bar's exact value is its
tooltip. The values ride along as ``data-z`` (base64 float64, one row a series), as a heatmap
table's do.

Shapes: S series (traces) of N categories.
"""

from __future__ import annotations

import base64
import math
from html import escape

import numpy as np

from ui.draw.axis_text import figure_caption, multiples, nice_ticks, tick_text, title_lines
from ui.draw.charts import TEXT_PAD
from ui.draw.contrast import CROSSOVER, luminance, rgb
from ui.draw.describe_words import Spec
from ui.draw.labels import label_px
from ui.draw.markup import Markup
from ui.draw.wire import alt_text

BAR_GAP = 0.2  # of a category's width between two categories' bars (plotly's bargap)
# the plot's box: its grid lines, its bars from the bottom, each number where it reads; its
# labels and legend in the charts' colours in either theme (CHART_CSS)
BARS_CSS = """<style>
.lab-bars { flex: none; margin: 0; width: fit-content; font-family: "Source Sans", sans-serif;
  line-height: 1.2;
  color: light-dark(#5f6272, #e6eaf1); }
.lab-bars figcaption { font-weight: 600; color: light-dark(#2f2d2b, #edebe8);
  white-space: nowrap; margin: 0 0 0.6em 4px; }
.bars-row { display: flex; align-items: stretch; }
.bars-y { writing-mode: vertical-rl; transform: rotate(180deg); text-align: center;
  white-space: nowrap; padding-left: 0.4em; }
.bars-ticks { position: relative; flex: none; }
.bars-ticks span { position: absolute; right: 6px; transform: translateY(50%); }
.bars-plot { position: relative; display: flex; flex: none; align-items: flex-end; }
.bars-plot .grid { position: absolute; left: 0; right: 0; height: 0;
  border-top: 1px solid rgba(128, 132, 149, 0.3); }
.bars-group { display: flex; justify-content: center; align-items: flex-end; height: 100%;
  position: relative; }
.bars-group .bar { position: relative; display: flex; justify-content: center; }
.bars-group .bar span { position: absolute; white-space: nowrap; }
.bars-group .bar span.in { top: 3px; }
.bars-group .bar span.out { bottom: calc(100% + 3px); }
.bars-group .bar span.in.mid { top: 50%; transform: translateY(-50%); }
.bars-group .bar span.in.base { top: auto; bottom: 3px; }
.bars-group .bar.neg span.in { top: auto; bottom: 3px; }
.bars-group .bar.neg span.out { bottom: auto; top: calc(100% + 3px); }
.bars-group .bar.neg span.in.base { bottom: auto; top: 3px; }
.bars-plot .line { position: absolute; left: 0; right: 0; height: 0;
  border-top: 2px dashed light-dark(#737687, #a3a8b8); }
.bars-plot .line span { position: absolute; left: calc(100% + 6px); transform: translateY(-50%);
  white-space: nowrap; }
.bars-x { display: flex; }
.bars-x span { text-align: center; white-space: nowrap; padding-top: 6px; flex: none; }
.bars-x.slant span { position: relative; }
.bars-x.slant b { position: absolute; right: 50%; top: 6px; font-weight: normal;
  transform: rotate(var(--angle)); transform-origin: 100% 50%; }
.bars-legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; margin-top: 0.6em; }
.bars-legend i { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em;
  vertical-align: -0.1em; }
</style>"""


def bars_markup(fig: Spec, *, key: str) -> Markup:
    """``fig`` (a grouped ``bar_chart``, its reference lines too) as a ``<figure>``: named by
    its text alternative, ``data-key`` ``key``. Shapes: S traces of N categories."""
    data, layout = fig["data"], fig["layout"]
    values = np.array([[np.nan if v is None else v for v in t["y"]] for t in data], dtype=float)
    margin = layout["margin"]
    plot_w = layout["width"] - margin["l"] - margin["r"]
    plot_h = layout["height"] - margin["t"] - margin["b"]
    font = layout.get("font", {}).get("size", 12)
    span, numbers = _y_range(values, plot_h, layout["yaxis"])
    comma = layout.get("separators", ".,")[0] == ","
    ticks = "".join(
        f'<span style="bottom:{_up(v, span):.2f}%">{escape(tick_text(v, comma))}</span>'
        for v in numbers
    )
    grid = "".join(f'<div class="grid" style="bottom:{_up(v, span):.2f}%"></div>' for v in numbers)
    z = base64.b64encode(np.ascontiguousarray(values).tobytes()).decode()
    y_title = layout["yaxis"].get("title", {})
    y_size = y_title.get("font", {}).get("size", 14)
    left = margin["l"] - math.ceil(1.4 * y_size)  # the ticks' column, right of the y title
    group = plot_w / values.shape[1]
    room = f";margin-right:{margin['r']}px" if layout.get("shapes") else ""  # the lines' labels
    bars = _groups(data, values, (span, plot_h), group)
    return Markup(
        f'<figure class="lab-bars" aria-label="{escape(alt_text(fig))}" data-key="{escape(key)}" '
        f'data-z="{z}" data-shape="{values.shape[0]},{values.shape[1]}" '
        f'style="font-size:{font}px">{figure_caption(layout)}<div aria-hidden="true">'
        f'<div class="bars-row"><div class="bars-y" style="font-size:{y_size}px">'
        f"{title_lines(y_title.get('text', ''))}</div>"
        f'<div class="bars-ticks" style="width:{left}px;height:{plot_h}px">{ticks}</div>'
        f'<div class="bars-plot" style="width:{plot_w}px;height:{plot_h}px{room}">'
        f"{grid}{bars}{_lines(layout, span, comma)}</div></div>"
        f"{_labels(layout, data[0]['x'], group, margin['l'])}"
        f"{_legend(data)}</div></figure>"
    )


def _up(v: float, span: tuple[float, float]) -> float:
    """How high ``v`` stands in the plot, in % of its height from the bottom."""
    lo, hi = span
    return (v - lo) / (hi - lo) * 100


def _y_range(
    values: np.ndarray, plot_h: float, axis: dict
) -> tuple[tuple[float, float], list[float]]:
    """The y axis's span and its round numbers, where its ticks and grid lines stand: the
    figure's own range where it sets one (``bar_chart`` with reference lines: where a number
    falls against a line is known), its own step too where it sets one; else from 0 (or a
    round number under the lowest bar) to a round number at or above the highest."""
    count = max(2, min(6, int(plot_h // 40)))
    if (drawn := axis.get("range")) is not None:
        span = (float(drawn[0]), float(drawn[1]))
        step = axis.get("dtick")
        return span, multiples(*span, float(step)) if step else nice_ticks(*span, count)
    finite = values[np.isfinite(values)]
    low = min(0.0, float(finite.min())) if finite.size else 0.0
    high = max(0.0, float(finite.max())) if finite.size else 1.0
    high = high if high > low else 1.0
    numbers = nice_ticks(low, high, count)
    step = numbers[1] - numbers[0] if len(numbers) > 1 else high - low
    bottom = numbers[0] if numbers[0] <= low else numbers[0] - step
    top = numbers[-1] if numbers[-1] >= high else numbers[-1] + step
    return (bottom, top), sorted({bottom, *numbers, top})


def _groups(
    data: list[dict], values: np.ndarray, plot: tuple[tuple[float, float], float], group: float
) -> str:
    """A category's bars side by side, each from 0 to its value (up, or down for a negative
    one), its number in or past its end. ``plot``: the y span and the plot's height (px)."""
    span, plot_h = plot
    width = group * (1 - BAR_GAP) / len(data)
    zero = _up(0.0, span)
    out = []
    for j in range(values.shape[1]):
        bars = []
        for n, trace in enumerate(data):
            v = values[n, j]
            if v != v:  # no value: no bar (its slot stays)
                bars.append(f'<div class="bar" style="width:{width:g}px;height:0"></div>')
                continue
            colour = trace["marker"]["color"]
            tip = f"{trace['x'][j]} · {trace['name']}: {tick_text(float(v), False)}"
            tall = abs(_up(v, span) - zero)
            base = zero - tall if v < 0 else zero
            px = tall / 100 * plot_h
            bars.append(
                f'<div class="bar{" neg" if v < 0 else ""}" style="width:{width:g}px;'
                f'height:{tall:.2f}%;bottom:{base:.2f}%;background:{colour}" '
                f'title="{escape(tip)}">{_number(trace, j, v, px)}</div>'
            )
        out.append(f'<div class="bars-group" style="width:{group:g}px">{"".join(bars)}</div>')
    return "".join(out)


def _lines(layout: dict, span: tuple[float, float], comma: bool) -> str:
    """The figure's dashed reference lines across the plot, each labelled right of it, level
    with it (``bar_chart``'s ``lines``)."""
    labels = {note["y"]: note["text"] for note in layout.get("annotations") or ()}
    out = []
    for shape in layout.get("shapes") or ():
        y = shape["y0"]
        label = labels.get(y, tick_text(y, comma))
        out.append(
            f'<div class="line" data-y="{y!r}" style="bottom:{_up(y, span):.2f}%">'
            f"<span>{title_lines(label)}</span></div>"
        )
    return "".join(out)


def _number(trace: dict, j: int, v: float, px: float) -> str:
    """A bar's number (the bar ``px`` tall): inside its end where the number fits with
    TEXT_PAD each side, as plotly puts it, in black or white on its colour, at the middle or
    the base where the figure says (a reference line runs through the ends); else past its
    end, in the chart's colour. None where the chart prints no numbers."""
    texts = trace.get("text")
    if not texts:
        return ""
    size = trace.get("textfont", {}).get("size", 12)
    if px < size + 2 * TEXT_PAD:
        return f'<span class="out" style="font-size:{size}px">{escape(texts[j])}</span>'
    ink = "#fff" if luminance(np.array(rgb(trace["marker"]["color"]))) < CROSSOVER else "#000"
    place = {"middle": " mid", "start": " base"}.get(trace.get("insidetextanchor", "end"), "")
    return (
        f'<span class="in{place}" style="font-size:{size}px;color:{ink}">{escape(texts[j])}</span>'
    )


def _labels(layout: dict, categories: list[str], group: float, left: int) -> str:
    """The categories' labels under their bars, each as wide as its category: level (on two
    lines where the figure wrapped them), or slanted at the x axis's angle."""
    axis = layout["xaxis"]
    angle = axis.get("tickangle", 0)
    if not angle:
        shown = axis.get("ticktext") or [str(c) for c in categories]
        spans = "".join(f'<span style="width:{group:g}px">{title_lines(t)}</span>' for t in shown)
        return f'<div class="bars-x" style="margin-left:{left}px">{spans}</div>'
    size = layout.get("font", {}).get("size", 12)
    widest = max(label_px(str(c)) for c in categories) * size / 12
    height = math.ceil(widest * abs(math.sin(math.radians(angle))) + size) + 6
    spans = "".join(
        f'<span style="width:{group:g}px"><b>{escape(str(c))}</b></span>' for c in categories
    )
    return (
        f'<div class="bars-x slant" style="margin-left:{left}px;height:{height}px;'
        f'--angle:{angle}deg">{spans}</div>'
    )


def _legend(data: list[dict]) -> str:
    """A swatch and the name of each series, under the labels (none for one series)."""
    if len(data) < 2:
        return ""
    keys = "".join(
        f'<span><i style="background:{t["marker"]["color"]}"></i>{escape(t["name"])}</span>'
        for t in data
    )
    return f'<div class="bars-legend">{keys}</div>'
