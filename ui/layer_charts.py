"""Per-layer line charts: one line per series over the layers, log axis when values span decades."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ui.style import PLAIN, Look
from ui.wire import Spec, fast_figure

PALETTE = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # the bar charts' colours, in their order
DECADES = 2.0  # a log axis when the largest positive value is 10² times the smallest or more


def spans_decades(series: dict[str, Sequence[float]], decades: float = DECADES) -> bool:
    """Whether the positive values of all the series span ``decades`` orders of magnitude."""
    values = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in series.values()])
    positive = values[np.isfinite(values) & (values > 0.0)]
    return positive.size > 1 and math.log10(positive.max() / positive.min()) >= decades


def layer_chart(
    series: dict[str, Sequence[float]],
    x: Sequence[float],
    *,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    log: bool | None = None,
    bold: str | None = None,
    height: int = 340,
    look: Look = PLAIN,
) -> Spec:
    """One line (with markers) per series, one colour each, the legend under the plot.

    ``log``: a log y axis (None: when the values span two decades or more; a value <= 0 is then
    left out of its line). ``bold``: the series drawn thicker, the one the page is about.
    ``look``: the page's language for the numbers on the axes and in the hover (0,5 in French).
    Shapes: series {name: [N]}, x [N]. The layout has ``bar_chart``'s keys, so two of these go
    side by side with ``ui.charts.side_by_side``.
    """
    log = spans_decades(series) if log is None else log
    data = []
    for n, (name, values) in enumerate(series.items()):
        ys = [float(v) if np.isfinite(v) and (v > 0.0 or not log) else None for v in values]
        colour = PALETTE[n % len(PALETTE)]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": [float(v) for v in x],
                # lists, not arrays: plotly.js reads a typed 1-D array as new data after
                # Streamlit's JSON round trip and draws the chart a second time
                "y": ys,
                "name": name,
                "line": {"color": colour, "width": 3.5 if name == bold else 1.8},
                "marker": {"color": colour, "size": 6 if name == bold else 4},
                "hovertemplate": f"{x_title} %{{x}}<br>{name}: %{{y:.3g}}<extra></extra>",
            }
        )
    yaxis: dict = {"title": {"text": y_title}}
    if log:
        yaxis.update(type="log", exponentformat="power")
    below = 72  # the x numbers and the x title, then the legend with room for two rows
    margin = {"l": 80, "r": 16, "t": 36 if title else 12, "b": below + 52}
    plot_px = height - margin["t"] - margin["b"]
    layout = {
        "xaxis": {"title": {"text": x_title}, "rangemode": "tozero"},
        "yaxis": yaxis,
        "title": {"text": title, "font": {"size": 14}} if title else {},
        "height": height,
        "showlegend": len(series) > 1,
        "legend": {"orientation": "h", "x": 0, "xanchor": "left"}
        | {"y": -(below - 6) / plot_px, "yanchor": "top"},
        "margin": margin,
        "separators": look.separators(),
    }
    return fast_figure(data, layout)


def layer_pair(left: Spec, right: Spec, gap: float = 0.12) -> Spec:
    """Two ``layer_chart`` figures as ONE figure, each plot with its title and its own y axis
    (linear or log); one legend, the left's: the same series in the same colours.

    ``gap``: the share of the width between the plots, for the right plot's y numbers.
    """
    width = (1.0 - gap) / 2
    lay_l, lay_r = left["layout"], right["layout"]
    data = [{**trace, "legendgroup": trace["name"]} for trace in left["data"]]
    data += [
        {**trace, "legendgroup": trace["name"], "xaxis": "x2", "yaxis": "y2", "showlegend": False}
        for trace in right["data"]
    ]
    titles = [
        {"text": f"<b>{lay['title']['text']}</b>", "x": x, "xref": "paper", "xanchor": "left"}
        | {"y": 1.0, "yref": "paper", "yanchor": "bottom", "yshift": 10, "showarrow": False}
        | {"font": {"size": 14}}
        for lay, x in ((lay_l, 0.0), (lay_r, 1.0 - width))
        if lay.get("title", {}).get("text")
    ]
    layout = {
        **lay_l,
        "title": {},
        "xaxis": {**lay_l["xaxis"], "domain": [0.0, width]},
        "xaxis2": {**lay_r["xaxis"], "domain": [1.0 - width, 1.0], "anchor": "y2"},
        "yaxis": {**lay_l["yaxis"], "anchor": "x"},
        "yaxis2": {**lay_r["yaxis"], "anchor": "x2"},
        "annotations": titles,
    }
    return fast_figure(data, layout)
