"""A heatmap as an HTML table the server writes: coloured cells with their numbers, the tokens as
row and column headers, the title, the axes' titles, the colour bar, the masked cells and the
followed row of a ``ui.draw.heatmaps`` figure.

The figure's own plan is drawn, nothing decided again: its cells' size and numbers' size, its
colours (the trace's scale and range; each number's ink, black or white, from
``ui.draw.contrast``), its mask (NaN cells, grey with a ×) and its outline
(``ui.frame.follow``). A section that redraws often sends it with ``st.html`` (which keeps HTML
and its styles, and drops SVG): the browser sets the markup as it is, where plotly.js lays out
and draws each chart again. A screen reader reads it as the table it is, each number with its
row's and column's tokens; a cell's exact value is its tooltip where the cells print numbers.
The figure's values ride along as plotly's typed array (``data-z``: base64 float64, NaN where
masked) with its colour bar's range (``data-range``), for the tests and the bench.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from html import escape

import numpy as np

from ui.draw.axis_text import caption_lines, figure_caption, nice_ticks, tick_text, title_lines
from ui.draw.contrast import cell_colours, colour_codes, colour_range, ink_and_number
from ui.draw.describe_words import Spec
from ui.draw.labels import label_px
from ui.draw.markup import Markup

BAR_TICKS_PX = 40  # about one colour-bar number every 40 px, at most MAX_BAR_TICKS
MAX_BAR_TICKS = 8
# the box and its figures. A table's cells 1 px apart (plotly's gaps); the column labels under
# the cells (the header row drawn last); the followed row's frame over its cells; labels and
# titles in the charts' colours in either theme (CHART_CSS); a number keeps its own ink
HEATMAP_CSS = """<style>
.lab-maps { display: flex; flex-wrap: wrap; gap: 1rem 2rem; overflow-x: auto; max-width: 100%;
  align-items: flex-start; }
[data-testid="stColumn"]:has(.lab-held) { min-width: fit-content; }
[data-testid="stElementContainer"]:has(.lab-held) { max-width: none; }
@media (max-width: 640px) {  /* columns stacked: the held box scrolls in its column */
  [data-testid="stColumn"]:has(.lab-held) { min-width: 0; }
  [data-testid="stElementContainer"]:has(.lab-held) { max-width: 100%; } }
.lab-maps:focus-visible { outline: 2px solid light-dark(#1f5fa8, #79b0f0); outline-offset: 2px; }
.lab-heatmap { flex: none; margin: 0; width: fit-content; font-family: "Source Sans", sans-serif;
  color: light-dark(#5f6272, #e6eaf1); line-height: 1.2; }
.lab-heatmap figcaption { font-weight: 600; color: light-dark(#2f2d2b, #edebe8);
  white-space: nowrap; margin: 0 0 0.6em 4px; }
.lab-heatmap figcaption.parts { font-weight: normal; }
.lab-heatmap figcaption.parts b { font-weight: 600; }
.hm-plot { display: flex; align-items: flex-start; }
.hm-y { writing-mode: vertical-rl; transform: rotate(180deg); text-align: center;
  align-self: stretch; padding-left: 0.4em; white-space: nowrap; }
.lab-heatmap table { border-collapse: separate; border-spacing: 1px; margin: 0; width: auto; }
.lab-heatmap thead { display: table-footer-group; }
.lab-heatmap td { width: var(--cell); height: var(--cell); min-width: var(--cell); padding: 0;
  text-align: center; vertical-align: middle; font-variant-numeric: tabular-nums;
  font-size: var(--number); position: relative; }
.lab-heatmap tbody th { font-weight: normal; text-align: right; padding: 0 8px 0 0;
  white-space: nowrap; }
.lab-heatmap thead th { font-weight: normal; padding: 8px 0 0; height: var(--labels);
  vertical-align: top; white-space: nowrap; }
.lab-heatmap thead th span { display: inline-block; }
.lab-heatmap thead th.slant { position: relative; max-width: var(--cell); }
.lab-heatmap thead th.slant span { position: absolute; right: 50%; top: 8px;
  transform: rotate(var(--angle)); transform-origin: 100% 50%; }
.lab-heatmap td.masked { background: #c5c8d2; color: #000; }
.lab-heatmap .followed { position: absolute; left: -1px; top: -1px; pointer-events: none;
  height: calc(100% + 2px); box-sizing: border-box; }
.hm-x { text-align: center; margin-top: 0.2em; white-space: nowrap; }
.hm-bar { position: relative; margin-left: 10px; }
.hm-bar .scale { width: 14px; }
.hm-bar span { position: absolute; left: 18px; transform: translateY(-50%); white-space: nowrap; }
.hm-lying { margin: 0 0 0.8em auto; }
.hm-lying .scale { height: 12px; }
.hm-lying .numbers { position: relative; height: 1.4em; }
.hm-lying .numbers span { position: absolute; top: 2px; transform: translateX(-50%);
  white-space: nowrap; }
.hm-lying .bar-title { text-align: center; margin-bottom: 0.3em; }
.hm-bar .bar-title { writing-mode: vertical-rl; position: absolute; top: 50%; transform:
  translateY(-50%); }
</style>"""


def heatmap_table(fig: Spec, *, key: str, alt: str) -> str:
    """``fig`` (a one-heatmap figure of ``ui.draw.heatmaps.heatmap``, perhaps outlined) as a
    ``<figure>`` holding its table: named ``alt``, ``data-key`` ``key``. Shapes: z [R, C]."""
    trace, layout = _own_scale(fig["data"][0], fig["layout"]), fig["layout"]
    z = np.asarray(trace["z"], dtype=np.float64)
    margin = layout["margin"]
    cell = (layout["width"] - margin["l"] - margin["r"]) / z.shape[1]
    z_bytes = base64.b64encode(np.ascontiguousarray(z).tobytes()).decode()
    font = layout.get("font", {}).get("size", 12)
    lo, hi = colour_range(z, trace.get("zmin"), trace.get("zmax"), trace.get("zmid"))
    caption = figure_caption(layout) or _grid_caption(layout)
    plot = _table(trace, layout, z, cell, (lo, hi))
    lying = trace.get("colorbar", {}).get("orientation") == "h"
    if trace.get("showscale") and lying:  # over the cells, before the title (grid_plan's place)
        caption = _lying_bar(trace, layout, z.shape[1] * cell, (lo, hi)) + caption
    elif trace.get("showscale"):
        plot += _colour_bar(trace, layout, z, cell, (lo, hi))
    return (
        f'<figure class="lab-heatmap" aria-label="{escape(alt)}" data-key="{escape(key)}" '
        f'data-z="{z_bytes}" data-shape="{z.shape[0]},{z.shape[1]}" data-range="{lo!r},{hi!r}" '
        f'style="font-size:{font}px">'
        f'{caption}<div class="hm-plot">{_axis_title(layout, "yaxis", "hm-y")}{plot}</div>'
        f"{_axis_title(layout, 'xaxis', 'hm-x')}</figure>"
    )


def _own_scale(trace: dict, layout: dict) -> dict:
    """A trace on a shared colour axis (a piece of ``ui.draw.grids.grid_figures``) as one with a
    scale of its own: the axis's colours, range and bar (shown unless the axis hides it)."""
    if "coloraxis" not in trace:
        return trace
    axis = layout[trace["coloraxis"]]
    shared = {"colorscale": axis["colorscale"], "zmin": axis.get("cmin"), "zmax": axis.get("cmax")}
    shared |= {"showscale": axis.get("showscale", True), "colorbar": axis.get("colorbar", {})}
    return trace | shared


def _grid_caption(layout: dict) -> str:
    """A grid piece's title, the annotation over its plot, as its ``<figcaption>``."""
    notes = layout.get("annotations") or ()
    if not notes:
        return ""
    size = notes[0].get("font", {}).get("size", 14)
    # a line in bold and the others not (/learned's head, its role under it); else all bold
    kind = ' class="parts"' if "<b>" in notes[0]["text"] else ""
    shown = caption_lines(notes[0]["text"])
    return f'<figcaption{kind} style="font-size:{size}px">{shown}</figcaption>'


def _axis_title(layout: dict, axis: str, kind: str) -> str:
    """An axis's title, on the lines the figure gave it (empty without one)."""
    title = layout[axis].get("title", {})
    if not title.get("text"):
        return ""
    size = title.get("font", {}).get("size", 14)
    return f'<div class="{kind}" style="font-size:{size}px">{title_lines(title["text"])}</div>'


def _table(trace: dict, layout: dict, z: np.ndarray, cell: float, span: tuple[float, float]) -> str:
    """The cells as a table: a row header a row, then the row's cells, each in its colour (on
    the scale from ``span``'s low to its high) with its number in its ink; the column headers
    under them; the followed row framed."""
    lo, hi = span
    codes = colour_codes(cell_colours(np.nan_to_num(z), trace["colorscale"], lo, hi))
    texts = trace.get("text")
    ink = trace.get("textfont", {}).get("color", "#000")
    comma = layout.get("separators", ".,")[0] == ","
    # a cell's exact value as its tooltip where the cells print numbers (at most 16 × 16): on
    # 32 tokens' 1 024 cells the tooltips would weigh about 200 kB a heatmap
    tips = _tips(trace, z, comma) if texts else None
    followed = _followed(layout.get("shapes", ()), len(trace["x"]))
    body = []
    for i, (row, colours) in enumerate(zip(z.tolist(), codes)):
        inks, numbers = _numbers(texts[i], ink) if texts else ([""] * len(row), [""] * len(row))
        titles = [f' title="{tip}"' for tip in tips[i]] if tips else [""] * len(row)
        numbers[0] = followed.get(i, "") + numbers[0]
        cells = [f'<th scope="row">{escape(str(trace["y"][i]))}</th>']
        cells += map(_cell, row, colours, inks, titles, numbers)
        body.append("<tr>" + "".join(cells) + "</tr>")
    number_px = trace.get("textfont", {}).get("size", 0) if texts else 0
    style = f"--cell:{cell - 1:g}px;--number:{number_px}px;{_labels_style(trace, layout)}"
    return (
        f'<table style="{style}"><thead>{_column_headers(trace, layout)}</thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _numbers(texts: Sequence[str], ink: str) -> tuple[list[str], list[str]]:
    """A row's numbers, escaped, and each one's ink (none for a cell without a number): the
    trace's ``ink``, or the colour ``ui.draw.contrast.readable_numbers`` gave it."""
    inks, numbers = [], []
    for text in texts:
        colour, number = ink_and_number(text, ink)
        inks.append(colour if number else "")
        numbers.append(escape(number) if number else "")
    return inks, numbers


def _cell(v: float, code: int, ink: str, tip: str, inside: str) -> str:
    """One cell: in its colour (``code``, 0xrrggbb), its number in ``ink`` (none without a
    number), or, a NaN (masked, or not a number), grey with its ×."""
    if v != v:
        return f'<td class="masked"{tip}>{inside}</td>'
    colour = f";color:{ink}" if ink else ""
    return f'<td style="background:#{code:06x}{colour}"{tip}>{inside}</td>'


def _followed(shapes: Sequence[dict], cols: int) -> dict[int, str]:
    """The frame each outlined row's first cell carries over the row's cells, by row."""
    frames = {}
    for shape in shapes:
        if shape.get("name") != "followed":
            continue
        row = round((shape["y0"] + shape["y1"]) / 2)
        line = shape["line"]
        frames[row] = (  # as wide as the row's cells and their gaps, whatever their width
            f'<span class="followed" data-row="{row}" '
            f'style="width:calc({cols} * 100% + {cols + 1}px);'
            f'border:{line["width"]}px solid {line["color"]}"></span>'
        )
    return frames


def _labels_style(trace: dict, layout: dict) -> str:
    """The column labels' angle and the height of their row (px): level, or slanted as the x
    axis says, their row as tall as the longest slanted label."""
    angle = layout["xaxis"].get("tickangle", 0)
    size = layout.get("font", {}).get("size", 12)
    if not angle:
        return f"--labels:{size * 1.2:g}px;--angle:0deg"
    widest = max((label_px(str(c)) for c in trace["x"]), default=0.0) * size / 12
    height = math.ceil(widest * abs(math.sin(math.radians(angle))) + size)
    return f"--labels:{height}px;--angle:{angle}deg"


def _column_headers(trace: dict, layout: dict) -> str:
    """The header row: the columns' labels, level or slanted (drawn under the cells)."""
    slant = ' class="slant"' if layout["xaxis"].get("tickangle", 0) else ""
    labels = "".join(
        f'<th scope="col"{slant}><span>{escape(str(c))}</span></th>' for c in trace["x"]
    )
    return f"<tr><td></td>{labels}</tr>"


def _tips(trace: dict, z: np.ndarray, comma: bool) -> list[list[str]]:
    """Each cell's tooltip, escaped for an attribute: the trace's hover text, "query the → key
    cat", then its value to six significant digits as the colour bar writes numbers, or what a
    masked cell says (the trace's ``customdata``). Each label is escaped once, not a cell."""
    template = trace["hovertemplate"].replace("<extra></extra>", "").replace("<br>", "\n")
    template = escape(template.replace("%{customdata}", "%{z:.6g}"))
    custom = trace.get("customdata")
    xs = [escape(str(x)) for x in trace["x"]]
    out = []
    for i, row in enumerate(z.tolist()):
        line = template.replace("%{y}", escape(str(trace["y"][i])))
        out.append(
            [
                line.replace("%{x}", xs[j]).replace(
                    "%{z:.6g}",
                    tick_text(v, comma) if v == v or custom is None else escape(str(custom[i][j])),
                )
                for j, v in enumerate(row)
            ]
        )
    return out


def _colour_bar(
    trace: dict, layout: dict, z: np.ndarray, cell: float, span: tuple[float, float]
) -> str:
    """The colour bar right of the cells, as tall as the trace's bar says: the scale from its
    top (``span``'s high end) down, a few round numbers right of it, its title beside them."""
    bar = trace.get("colorbar", {})
    lo, hi = span
    length = bar.get("len", z.shape[0] * cell)
    gradient = _scale_gradient(trace, span, "to top")
    comma = layout.get("separators", ".,")[0] == ","
    count = min(MAX_BAR_TICKS, max(2, int(length // BAR_TICKS_PX)))
    numbers = [(v, tick_text(v, comma)) for v in nice_ticks(lo, hi, count)]
    ticks = "".join(
        f'<span style="top:{(hi - v) / (hi - lo) * 100:.2f}%">{escape(text)}</span>'
        for v, text in numbers
    )
    # the bar's box holds its numbers and title: they stand in it, not out of the figure
    font = layout.get("font", {}).get("size", 12)
    width = 18 + max(label_px(text) for _, text in numbers) * font / 12 + 4
    title = bar.get("title", {}).get("text", "")
    if title:
        size = bar["title"].get("font", {}).get("size", 14)
        ticks += (
            f'<span class="bar-title" style="left:{width + 2:g}px;font-size:{size}px">'
            f"{title_lines(title)}</span>"
        )
        width += 2 + 1.3 * size * (1 + title.count("<br>"))
    return (
        f'<div class="hm-bar" style="height:{length:g}px;width:{math.ceil(width)}px" '
        'aria-hidden="true">'
        f'<div class="scale" style="height:100%;background:{gradient}">'
        f"</div>{ticks}</div>"
    )


def _scale_gradient(trace: dict, span: tuple[float, float], direction: str) -> str:
    """The trace's colour scale from ``span``'s low to its high as a CSS gradient towards
    ``direction`` ("to top" for an upright bar, "to right" for a lying one), nine stops."""
    lo, hi = span
    steps = np.linspace(0.0, 1.0, 9)
    colours = cell_colours(lo + (hi - lo) * steps, trace["colorscale"], lo, hi).astype(int)
    stops = ", ".join(
        f"rgb({r},{g},{b}) {100 * s:g}%" for (r, g, b), s in zip(colours.tolist(), steps)
    )
    return f"linear-gradient({direction}, {stops})"


def _lying_bar(trace: dict, layout: dict, width: float, span: tuple[float, float]) -> str:
    """The colour bar lying over the cells, as wide as they are: its title over it, the scale
    from ``span``'s low (left) to its high, a few round numbers under it."""
    lo, hi = span
    comma = layout.get("separators", ".,")[0] == ","
    count = min(MAX_BAR_TICKS, max(2, int(width // (2 * BAR_TICKS_PX))))
    ticks = "".join(
        f'<span style="left:{(v - lo) / (hi - lo) * 100:.2f}%">{escape(tick_text(v, comma))}</span>'
        for v in nice_ticks(lo, hi, count)
    )
    title = trace.get("colorbar", {}).get("title", {}).get("text", "")
    named = f'<div class="bar-title">{title_lines(title)}</div>' if title else ""
    return (
        f'<div class="hm-lying" aria-hidden="true" style="width:{width:g}px">{named}'
        f'<div class="scale" style="background:{_scale_gradient(trace, span, "to right")}"></div>'
        f'<div class="numbers">{ticks}</div></div>'
    )


def figures_box(parts: Sequence[str], *, label: str) -> Markup:
    """Figures of markup (``heatmap_table``'s, ``ui.draw.bars_markup``'s) side by side in one
    box, wrapping onto the next row where the row is full, as ``ui.draw.wire.show_figures`` lays
    charts out: a region named ``label`` that scrolls sideways where one is wider than the
    column, and that the keyboard reaches (HEATMAP_CSS)."""
    return Markup(
        f'<div class="lab-maps" role="region" tabindex="0" aria-label="{escape(label)}">'
        f"{''.join(parts)}</div>"
    )
