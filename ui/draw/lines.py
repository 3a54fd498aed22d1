"""Line charts: a few series over one numeric axis, several small plots side by side in ONE figure.

Each series keeps its colour (and one legend entry) across the plots, so "with √d_k" reads the
same in every plot; an optional dashed vertical line marks one x (the lab's own d_k, the chosen
training step). A dotted level's label and the mark's are legend entries, under the plots: a
note beside its line sat on the line, on a gridline or on a curve that reaches it. A plot's y
axis is linear or logarithmic (when its values span decades: the depth page's activations and
gradients), and one series may be drawn thicker, the one the page is about.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ui.draw.line_plan import Frame, Panel, grown, plan_frame
from ui.draw.style import MUTED, PLAIN, Look
from ui.draw.wire import Spec, derived_layout, fast_figure

PALETTE = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # bar_chart's, for the same eyes
DECADES = 2.0  # a log axis when the largest positive value is 10² times the smallest or more
WIDTH = {None: 2.0, True: 3.5, False: 1.8}  # a line's width: no series bold, the bold one, others
Y_STANDOFF = 12  # px between a plot's y tick labels and its y axis title (the style's 24 put
# the right plot's title against the left plot at a 150 % zoom's column)


def spans_decades(series: dict[str, Sequence[float]], decades: float = DECADES) -> bool:
    """Whether the positive values of all the series span ``decades`` orders of magnitude."""
    values = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in series.values()])
    positive = values[np.isfinite(values) & (values > 0.0)]
    return positive.size > 1 and math.log10(positive.max() / positive.min()) >= decades


def _y_axis(panel: Panel, log: bool, standoff: int = Y_STANDOFF) -> dict:
    """A plot's y axis; a log one spanning a decade or more labels its decades only (10⁻¹, 10⁰,
    10¹, ...): plotly's small "2" and "5" between them touch the decades' labels."""
    axis: dict = {"title": {"text": panel.y_title, "standoff": standoff}}
    if log:
        axis.update(type="log", exponentformat="power")
        if spans_decades(panel.series, 1.0):
            axis["dtick"] = 1  # one tick a decade, in log10 units
    elif panel.from_zero:
        axis["rangemode"] = "tozero"
    return axis


def _ys(values: Sequence[float], log: bool) -> list[float | None]:
    """A line's values as a list, None where not finite (or, on a ``log`` axis, not positive).

    Lists, not arrays: plotly.js reads a typed 1-D array as new data after Streamlit's JSON
    round trip and draws the chart a second time."""
    ys = np.asarray(values, dtype=np.float64)
    shown = np.isfinite(ys) & (ys > 0.0) if log else np.isfinite(ys)
    return [y if keep else None for y, keep in zip(ys.tolist(), shown.tolist())]


def _xs(x: Sequence[float]) -> list[float]:
    """The x values as a list, whole numbers (layers, training steps) as ints: shorter on the
    wire, quicker to encode."""
    xs = np.asarray(x)
    return xs.tolist() if xs.dtype.kind in "iu" else xs.astype(np.float64).tolist()


def line_panels(
    x: Sequence[float],
    panels: Sequence[Panel],
    *,
    x_title: str = "",
    mark: tuple[float, str] | None = None,
    phone: bool = False,
    height: int = 300,
    bold: str | None = None,
    markers: bool = False,
    look: Look = PLAIN,
    width: int | None = None,
) -> Spec:
    """The panels side by side (one under the other on a phone), each on axes x{k+1}/y{k+1}.

    ``height``: one row of plots, in px. ``width``: its own width (a narrower column scrolls
    it), else the column's. ``bold``: the series drawn thicker. ``markers``: a dot at every x
    (few x, as the layers of a stack). ``look``: the page's language for the numbers on the
    axes and in the hover (0,5 in French). A legend when there is more than one series.
    In presenter mode (``look.text_scale``) its text is projector-sized as a heatmap's (ticks
    and legend 16 px, plot titles 17, axis titles 19, hover 19) and its margins, gaps, title
    lines and legend rows grow with it (``ui.draw.line_plan.plan_frame``).
    Shapes: x [N]; every series of every panel [N].
    """
    frame = plan_frame(panels, mark, phone, height, look.text_scale, width)
    xs, colours = _xs(x), {}
    data, shapes, notes, layout = [], [], [], {}
    for k, panel in enumerate(panels):
        suffix = "" if k == 0 else str(k + 1)
        log = spans_decades(panel.series) if panel.log is None else panel.log
        left, top = frame.corner(k)
        layout |= _panel_axes(panel, log, suffix, (left, top), frame, xs, x_title, look)
        if panel.title:
            notes.append(_panel_title(frame.titles[k], left, top, frame.title_shift))
        shown = len(frame.names) > 1
        data += _series_lines(panel, log, xs, suffix, colours, shown, bold, markers, x_title)
        for y, label in panel.levels:
            shapes.append(_level_line(y, label, suffix, shapes))
    layout.update(
        shapes=shapes,
        annotations=notes,
        height=frame.height * frame.rows,
        margin=frame.margin,
        showlegend=bool(frame.entries),
        # under the last row's x axis title, where no plot's text reaches
        legend={"orientation": "h", "x": 0, "xanchor": "left", "yanchor": "top"}
        | {"y": -frame.below_px / frame.paper_px},
        hovermode="closest",
        separators=look.separators(),
    )
    if width and not phone:
        layout["width"] = grown(width, look.text_scale)
    if look.text_scale != 1.0:  # the ticks, titles, notes and hover at a projector's sizes
        layout = look.chart_text(layout)
        layout["legend"] = {**layout["legend"], "font": {"size": look.text_px(12)}}
    spec = fast_figure(data, layout)
    return spec if mark is None else marked(spec, *mark, look=look)


def _panel_axes(
    panel: Panel,
    log: bool,
    suffix: str,
    corner: tuple[float, float],
    frame: Frame,
    xs: list[float],
    x_title: str,
    look: Look,
) -> dict[str, dict]:
    """A plot's x and y axes (x``suffix``, y``suffix``), from its ``corner`` (left, top), the
    x axis a step wider than the x on either side."""
    left, top = corner
    return {
        f"xaxis{suffix}": {
            "domain": [left, left + frame.width],
            "anchor": f"y{suffix}",
            "title": {"text": x_title},
            "range": [xs[0] - 1, xs[-1] + 1],
        },
        f"yaxis{suffix}": {
            "domain": [top - frame.tall, top],
            "anchor": f"x{suffix}",
            **_y_axis(panel, log, grown(Y_STANDOFF, look.text_scale)),
        },
    }


def _panel_title(lines: list[str], left: float, top: float, shift: int) -> dict:
    """A plot's title, its lines bold, from the plot's left edge, ``shift`` px above its top."""
    return (
        {
            "text": "<br>".join(f"<b>{line}</b>" for line in lines),
            "x": left,
            "xanchor": "left",
            "xref": "paper",
        }
        | {"y": top, "yanchor": "top", "yref": "paper", "showarrow": False}
        | {"yshift": shift}
        | {"font": {"size": 13}, "align": "left"}
    )


def _series_lines(
    panel: Panel,
    log: bool,
    xs: list[float],
    suffix: str,
    colours: dict[str, str],
    legend: bool,
    bold: str | None,
    markers: bool,
    x_title: str,
) -> list[dict]:
    """A plot's series as lines on axes x``suffix``/y``suffix``, each in the colour it has in
    every plot (``colours``, filled as series first appear), in the ``legend`` once."""
    data = []
    for name, values in panel.series.items():
        first = name not in colours
        colour = colours.setdefault(name, PALETTE[len(colours) % len(PALETTE)])
        thick = None if bold is None else name == bold
        trace = {
            "type": "scatter",
            "mode": "lines+markers" if markers else "lines",
            "x": xs,
            "y": _ys(values, log),
            "name": name,
            "legendgroup": name,
            "showlegend": first and legend,
            "line": {"color": colour, "width": WIDTH[thick]},
            "xaxis": f"x{suffix}",
            "yaxis": f"y{suffix}",
            "hovertemplate": f"{x_title} %{{x}}<br>{name}: %{{y:.4g}}<extra></extra>",
        }
        if markers:
            trace["marker"] = {"color": colour, "size": 6 if thick else 4}
        data.append(trace)
    return data


def _level_line(y: float, label: str, suffix: str, shapes: Sequence[dict]) -> dict:
    """A dotted level across plot ``suffix`` at ``y``, its label a legend entry (``_entry``)."""
    return (
        {"type": "line", "line": {"color": MUTED, "dash": "dot", "width": 1}}
        | {"xref": f"x{suffix} domain", "x0": 0, "x1": 1}
        | {"yref": f"y{suffix}", "y0": y, "y1": y}
        | _entry(label, shapes)
    )


def _entry(label: str, shapes: Sequence[dict]) -> dict:
    """A line shape's legend entry: its label, once in a figure (the lines of one label are a
    legend group, shown and hidden together); nothing for no label."""
    if not label:
        return {}
    first = all(shape.get("legendgroup") != label for shape in shapes)
    return {"name": label, "legendgroup": label, "showlegend": first}


def marked(spec: Spec, x: float, label: str = "", *, look: Look = PLAIN) -> Spec:
    """A copy of a ``line_panels`` figure with a dashed vertical line at ``x`` in every plot
    (the same x in all of them), ``label`` its legend entry (``line_panels(mark=...)`` keeps a
    legend row for it; ``look`` is the legend's); the traces are shared, and so is the wire form
    of every other value of a kept figure (``derived_layout``)."""
    panels = sorted(k[5:] for k in spec["layout"] if k.startswith("xaxis"))
    layout = spec["layout"]
    shapes = list(layout["shapes"])
    for suffix in panels:
        shapes.append(
            {"type": "line", "line": {"color": MUTED, "dash": "dash", "width": 1}}
            | {"xref": f"x{suffix}", "x0": x, "x1": x}
            | {"yref": f"y{suffix} domain", "y0": 0, "y1": 1}
            | _entry(label, shapes)
        )
    changes: dict = {"shapes": shapes}
    if label:
        changes["showlegend"] = True
        if look.text_scale != 1.0 and "font" not in layout.get("legend", {}):
            changes["legend"] = {**layout.get("legend", {}), "font": {"size": look.text_px(12)}}
    return fast_figure(spec["data"], derived_layout(layout, **changes))
