"""Bar charts: one colour per series, numbers on the bars, labelled reference lines; two charts
as one figure."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ui.labels import axis_margins, fit_lines, label_px
from ui.style import MUTED, PLAIN, Look
from ui.wire import Spec, fast_figure


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
        for lay, x in ((lay_l, 0.0), (lay_r, start_r))
        if lay.get("title", {}).get("text")
    ]
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
        "shapes": [*lay_l.get("shapes", []), *moved(lay_r.get("shapes", []))],
        "annotations": [
            *titles,
            *lay_l.get("annotations", []),
            *moved(lay_r.get("annotations", [])),
        ],
    }
    return fast_figure(data, layout)


def _bar_text(value: float | None, digits: int, look: Look) -> str:
    if value is None or not np.isfinite(value):
        return ""
    # + 0.0 turns a rounded -0.0 into 0.0: a mean of -1e-17 reads "0.00", not "-0.00"
    return look.number(round(value, digits) + 0.0, digits)


PHONE_PX = 350  # the narrowest column a phone gives a chart (390 px less the page's padding)


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
    Sizes (px): a category is 12 + 24 per series wide (48 for ``"relative"``), the plot at
    least 200 and the figure at least its title: a fixed width, so that two charts stand side
    by side only where both fit (``ui.wire.show_figures``) and a title never runs past its chart.
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
            trace["text"] = [_bar_text(v, digits, look) for v in values]
            trace["textfont"] = {"size": round(12 * look.scale)}
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
        "b": below + (56 if legend else 0),
    }
    per_category = 48 if barmode == "relative" else 12 + 24 * len(series)
    plot_w = max(200, len(categories) * per_category)
    title_px = math.ceil(label_px(title) * 14 / 12 * 1.1) + 16
    if look.phone and max(margin["l"] + plot_w + margin["r"], title_px) > PHONE_PX:
        # a phone's column: the plot gives way (down to 120 px) and the title takes two lines
        plot_w = max(120, PHONE_PX - margin["l"] - margin["r"])
        if title_px > PHONE_PX:
            title = fit_lines(title, PHONE_PX - 16)
            margin["t"] += 18 if "<br>" in title else 0
            title_px = PHONE_PX
    width = max(margin["l"] + plot_w + margin["r"], title_px)
    plot_px = height - margin["t"] - margin["b"]  # the plot area's height
    layout = {
        "xaxis": xaxis,
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "width": width,
        "height": height,
        "barmode": barmode,
        "separators": look.separators(),
        "showlegend": legend,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left"}
        | {"y": -(below - 6) / plot_px, "yanchor": "top"},
        "margin": margin,
    }
    if lines:
        layout.update(shapes=shapes, annotations=notes)
    return fast_figure(data, layout)
