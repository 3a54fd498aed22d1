"""Bar charts: one colour per series, numbers on the bars, labelled reference lines; two charts
as one figure."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ui.draw.labels import axis_margins, fit_lines, label_px
from ui.draw.style import MUTED, PLAIN, Look
from ui.draw.wire import Spec, fast_figure


def side_by_side(left: Spec, right: Spec) -> Spec:
    """Two figures of ``bar_chart`` as ONE figure: ``left``'s plot, then ``right``'s, each with
    its title above it and its own y axis; one legend (the left's: same series, same colours;
    a click hides a series in both). Each keeps its own width: the figure is as wide as both,
    the left's right margin and the right's left margin between the plots (its y numbers).

    One figure rather than two: the browser draws every figure from scratch on each change.
    """
    lay_l, lay_r = left["layout"], right["layout"]
    margin_l, margin_r = lay_l["margin"], lay_r["margin"]
    total = lay_l["width"] + lay_r["width"]
    inner = total - margin_l["l"] - margin_r["r"]  # the plot area, both plots and the gap
    width_l = (lay_l["width"] - margin_l["l"] - margin_l["r"]) / inner
    start_r = (lay_l["width"] - margin_l["l"] + margin_r["l"]) / inner
    layout = {
        **lay_l,
        "title": {},
        "xaxis": {**lay_l["xaxis"], "domain": [0.0, round(width_l, 6)]},
        "yaxis": {**lay_l["yaxis"], "anchor": "x"},
        "xaxis2": {**lay_r["xaxis"], "domain": [round(start_r, 6), 1.0], "anchor": "y2"},
        "yaxis2": {**lay_r["yaxis"], "anchor": "x2"},
        "width": total,
        "height": max(lay_l["height"], lay_r["height"]),
        "margin": {
            "l": margin_l["l"],
            "r": margin_r["r"],
            "t": max(margin_l["t"], margin_r["t"]),
            "b": max(margin_l["b"], margin_r["b"]),
        },
        "shapes": [*lay_l.get("shapes", []), *_on_right(lay_r.get("shapes", []))],
        "annotations": [
            *_plot_titles(lay_l, lay_r, start_r),
            *lay_l.get("annotations", []),
            *_on_right(lay_r.get("annotations", [])),
        ],
    }
    return fast_figure(_both_traces(left["data"], right["data"]), layout)


def _both_traces(left: list[dict], right: list[dict]) -> list[dict]:
    """The left figure's traces, then the right's on axes x2/y2 and out of the legend; a series
    is one legend group in both."""
    data = [{**trace, "legendgroup": trace.get("name")} for trace in left]
    data += [
        {
            **trace,
            "legendgroup": trace.get("name"),
            "xaxis": "x2",
            "yaxis": "y2",
            "showlegend": False,
        }
        for trace in right
    ]
    return data


_RIGHT = {"x domain": "x2 domain", "x": "x2", "y": "y2", "y domain": "y2 domain"}


def _on_right(items: list[dict]) -> list[dict]:
    """The right figure's shapes or notes, on axes x2/y2."""
    return [
        {**item, **{k: _RIGHT.get(item[k], item[k]) for k in ("xref", "yref") if k in item}}
        for item in items
    ]


def _plot_titles(lay_l: dict, lay_r: dict, start_r: float) -> list[dict]:
    """Each figure's title (bold, at its own size: a presenter's 19) above its plot, which
    starts at ``start_r`` of the plot area for the right one."""
    return [
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
            "font": {"size": lay["title"].get("font", {}).get("size", 14)},
        }
        for lay, x in ((lay_l, 0.0), (lay_r, start_r))
        if lay.get("title", {}).get("text")
    ]


def _bar_text(value: float | None, digits: int, look: Look) -> str:
    """A bar's number as the page writes it, ``digits`` decimals; none for a missing value."""
    if value is None or not np.isfinite(value):
        return ""
    # + 0.0 turns a rounded -0.0 into 0.0: a mean of -1e-17 reads "0.00", not "-0.00"
    return look.number(round(value, digits) + 0.0, digits)


def _number_px(text: str) -> float:
    """About how wide plotly draws a bar's number at 12 px (the font's digits are 6.1 px, a
    decimal mark 2.7, a minus sign 4.5): tighter than ``label_px``, so bars stay narrow."""
    return sum(6.2 if ch.isdigit() else 4.6 if ch in "-−" else 3.0 for ch in text)


TEXT_PAD = 3  # px plotly leaves between a bar's end and its number (inside or outside)
LINE_GAP = 6  # px kept between a bar's number and a reference line (plotly draws a digit up to
# its box's edge, and a dashed line is 2 px wide)


def _range(
    series: dict[str, Sequence[float | None]], lines: Sequence[tuple[float, str]]
) -> list[float]:
    """The y range drawn, from zero (or the lowest value) to the highest bar or line, 5 % of
    the span added beyond a bar's or a line's end: set, not left to plotly, so that where a
    number falls against a line is known."""
    ys = [float(v) for vs in series.values() for v in vs if v is not None and np.isfinite(v)]
    ys += [float(y) for y, _ in lines]
    lo, hi = min([0.0, *ys]), max([0.0, *ys])
    pad = 0.05 * ((hi - lo) or 1.0)
    return [lo - pad if lo < 0 else 0.0, hi + pad]


def text_anchor(
    series: dict[str, Sequence[float | None]],
    lines: Sequence[float],
    y_range: Sequence[float],
    plot_px: float,
    text_px: float,
) -> str:
    """Where the numbers sit inside their bars (plotly's ``insidetextanchor``): at the bar's
    end, as usual, unless a reference line would run through one of them (a std of 1.00 under
    the line std = 1), then at the middle, else at the base. A bar too short for its number
    has it outside, past its end, whatever the anchor. Sizes: the plot ``plot_px`` tall, the
    numbers ``text_px`` high."""
    lo, hi = y_range
    to_px = plot_px / (hi - lo)
    line_px = [(y - lo) * to_px for y in lines]
    spans = {"end": [], "middle": [], "start": []}
    for values in series.values():
        for v in values:
            if v is None or not np.isfinite(v) or v == 0:
                continue
            base, tip = -lo * to_px, (v - lo) * to_px
            d = 1.0 if v > 0 else -1.0
            if abs(tip - base) < text_px + 2 * TEXT_PAD:  # outside, past the end
                span = (tip + d * TEXT_PAD, tip + d * (TEXT_PAD + text_px))
                for anchor in spans:
                    spans[anchor].append(span)
                continue
            middle = (base + tip) / 2
            spans["end"].append((tip - d * TEXT_PAD, tip - d * (TEXT_PAD + text_px)))
            spans["middle"].append((middle - text_px / 2, middle + text_px / 2))
            spans["start"].append((base + d * TEXT_PAD, base + d * (TEXT_PAD + text_px)))
    for anchor, boxes in spans.items():
        if not any(
            min(a, b) - LINE_GAP <= y <= max(a, b) + LINE_GAP for a, b in boxes for y in line_px
        ):
            return anchor
    return "middle"


PHONE_PX = 350  # the narrowest column a phone gives a chart (390 px less the page's padding)
BAR_PLOT_PX = 600  # categories grow to hold their labels level up to this plot width
LABEL_GAP = 8  # px between two level category labels


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
    look: Look = PLAIN,
) -> Spec:
    """Bars, one colour per series, with optional labelled horizontal reference lines.

    ``barmode="group"`` puts the series side by side; ``"relative"`` lets series that fill
    different categories (None elsewhere) share one bar width, e.g. one colour per kind of head.
    A fixed width (``_plot_width``, ``_phone_fit``), so that two charts stand side by side only
    where both fit (``ui.draw.wire.show_figures``) and a title never runs past its chart.
    Shapes: series {name: [N]}, categories N labels, lines [(y, label)].
    """
    k = look.text_scale  # presenter mode: the chart's text and its margins grow
    margin = {
        "l": math.ceil(80 * k),
        "r": math.ceil(max(label_px(label) for _, label in lines) * k + 18) if lines else 12,
        "t": math.ceil((36 if title else 12) * k),
    }
    plot_w = _plot_width(series, categories, digits, barmode, look)
    title, plot_w, title_px = _phone_fit(title, plot_w, margin, look)
    xaxis, below = _category_axis(categories, plot_w, k)
    margin["b"] = below + (math.ceil(56 * k) if len(series) > 1 else 0)
    plot_px = height - margin["t"] - margin["b"]  # the plot area's height
    y_title = _y_title(y_title, plot_px, margin, k)
    layout = {
        "xaxis": xaxis,
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "width": max(margin["l"] + plot_w + margin["r"], title_px),
        "height": height,
        "barmode": barmode,
        "separators": look.separators(),
        "showlegend": len(series) > 1,
        # under the x labels, with room for two rows: a chart in half a page wraps two entries
        # (plotly would otherwise grow the margin and draw it again)
        "legend": {"orientation": "h", "x": 0, "xanchor": "left"}
        | {"y": -(below - 6) / plot_px, "yanchor": "top"},
        "margin": margin,
    }
    data = _bars(series, categories, digits, look)
    if lines:
        _reference_lines(layout, data, series, lines, plot_px, look)
    if k != 1:
        _projector_text(layout, look)
    return fast_figure(data, layout)


PALETTE = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # distinguishable with colour blindness


def _bars(
    series: dict[str, Sequence[float | None]], categories: Sequence[str], digits: int, look: Look
) -> list[dict]:
    """A bar trace per series, in PALETTE's colours, with its numbers (up to 16 categories)."""
    data = []
    for n, (name, values) in enumerate(series.items()):
        trace = {
            "type": "bar",
            "x": list(categories),
            # a list: after Streamlit's JSON round trip of the figure, plotly.js reads a typed
            # 1-D array as new data and draws the chart a second time
            "y": [None if v is None or not np.isfinite(v) else float(v) for v in values],
            "name": name,
            "marker": {"color": PALETTE[n % len(PALETTE)]},
            "textposition": "auto",  # inside a tall bar, so it never sits on a reference line
            "cliponaxis": False,
            "hovertemplate": f"%{{x}}<br>{name}: %{{y:.6g}}<extra></extra>",
        }
        if len(categories) <= 16:
            trace["text"] = [_bar_text(v, digits, look) for v in values]
            trace["textfont"] = {"size": look.text_px(12)}
            trace["textangle"] = 0
        data.append(trace)
    return data


def _plot_width(
    series: dict[str, Sequence[float | None]],
    categories: Sequence[str],
    digits: int,
    barmode: str,
    look: Look,
) -> int:
    """The plot's width (px): a category is 12 + a bar per series wide (48 for
    ``"relative"``), a bar at least 24 and as wide as its number (plotly turns a number wider
    than its bar on its side), a category as wide as its label up to a plot of BAR_PLOT_PX;
    the plot at least 200."""
    numbers = [_bar_text(v, digits, look) for values in series.values() for v in values]
    number_px = max((_number_px(n) for n in numbers), default=0.0) * look.text_scale
    bar_px = max(24, math.ceil(number_px) + 4) if len(categories) <= 16 else 24
    per_category = max(48, 12 + bar_px) if barmode == "relative" else 12 + bar_px * len(series)
    widest = max((label_px(str(c)) for c in categories), default=0.0) * look.text_scale
    if widest + LABEL_GAP > per_category and len(categories) * (widest + LABEL_GAP) <= BAR_PLOT_PX:
        per_category = math.ceil(widest + LABEL_GAP)
    return max(200, len(categories) * per_category)


def _phone_fit(title: str, plot_w: int, margin: dict[str, int], look: Look) -> tuple[str, int, int]:
    """The title, the plot's width and the title's width (px), fitted to a phone's column
    (PHONE_PX): the plot gives way (down to 120 px) and the title takes two lines, the top
    margin growing by its second (in ``margin``)."""
    title_px = math.ceil(label_px(title) * 14 / 12 * 1.1 * look.text_scale) + 16
    if look.phone and max(margin["l"] + plot_w + margin["r"], title_px) > PHONE_PX:
        plot_w = max(120, PHONE_PX - margin["l"] - margin["r"])
        if title_px > PHONE_PX:
            title = fit_lines(title, PHONE_PX - 16)
            margin["t"] += 18 if "<br>" in title else 0
            title_px = PHONE_PX
    return title, plot_w, title_px


def _category_axis(categories: Sequence[str], plot_w: float, k: float) -> tuple[dict, int]:
    """The x axis of the categories and the height (px) its labels take under the plot: level
    where they fit their slot; a label that does not takes two lines (at its middle space), and
    only then are the labels turned (-60°). ``k``: the text's scale."""
    slot = plot_w / max(1, len(categories)) - LABEL_GAP  # px a level label may take
    shown = [str(c) for c in categories]
    if max((label_px(str(c)) for c in categories), default=0.0) * k > slot:
        shown = [fit_lines(c, slot / k * 14 / 12) for c in shown]  # it measures at 14 px
    two_lines = any("<br>" in c for c in shown)
    level = all(label_px(line) * k <= slot for c in shown for line in c.split("<br>"))
    tickangle = 0 if level else -60  # set, not left to plotly: the margins fit it
    if not level:
        shown, two_lines = [str(c) for c in categories], False
    xaxis = {"type": "category", "tickangle": tickangle}
    if two_lines:  # the data keep their names (hover, tests); only the ticks are wrapped
        xaxis |= {"tickmode": "array", "tickvals": list(categories), "ticktext": shown}
    # the x labels as for a heatmap, less its title, and a second line's 16 px
    below = axis_margins((), categories, tickangle)["b"] - 36 + (16 if two_lines else 0)
    return xaxis, math.ceil(below * k)


def _y_title(y_title: str, plot_px: float, margin: dict[str, int], k: float) -> str:
    """The y title, on two lines where longer than the plot (it would run into the chart's
    title), the left margin (in ``margin``) wider by the second line."""
    if label_px(y_title) * 14 / 12 * k > plot_px - 8:
        y_title = fit_lines(y_title, (plot_px - 8) / k)
        margin["l"] += math.ceil(18 * k) if "<br>" in y_title else 0
    return y_title


def _reference_lines(
    layout: dict,
    data: list[dict],
    series: dict[str, Sequence[float | None]],
    lines: Sequence[tuple[float, str]],
    plot_px: float,
    look: Look,
) -> None:
    """Dashed reference lines across the plot, labelled in the right margin level with the line
    (inside the plot a label sat on the last bars, which reach the line on most pages: after
    LayerNorm every row's std is 1); the y range set, and the bars' numbers moved into their
    middle (or base) where a line would run through them at the bars' ends."""
    dash = {"color": MUTED, "dash": "dash"}
    across = {"x0": 0, "x1": 1, "xref": "x domain", "yref": "y"}
    shapes = [{"type": "line", "line": dash, "y0": y, "y1": y, **across} for y, _ in lines]
    notes = [
        {"text": label, "showarrow": False, "x": 1, "xanchor": "left", "xshift": 6}
        | {"xref": "x domain", "y": y, "yanchor": "middle", "yref": "y"}
        for y, label in lines
    ]
    layout.update(shapes=shapes, annotations=notes)
    layout["yaxis"]["range"] = y_range = _range(series, lines)
    text_px = look.text_px(12)
    anchor = text_anchor(series, [y for y, _ in lines], y_range, plot_px, text_px)
    for trace in data:
        trace["insidetextanchor"] = anchor


def _projector_text(layout: dict, look: Look) -> None:
    """The chart's text at a projector's size, as a heatmap's (``Look.text_px``: 12 px ticks
    become 16, 14 px titles 19): ticks, titles, legend, hover and the lines' labels."""
    font = {"size": look.text_px(12)}
    layout["xaxis"]["tickfont"] = font
    layout["yaxis"] |= {
        "tickfont": font,
        "title": {"text": layout["yaxis"]["title"]["text"], "font": {"size": look.text_px(14)}},
    }
    layout["legend"]["font"] = font
    layout["font"] = font
    layout["hoverlabel"] = {"font": {"size": look.text_px(14)}}
    if layout["title"]:
        layout["title"]["font"] = {"size": look.text_px(14)}
    for note in layout.get("annotations", ()):
        note["font"] = font
