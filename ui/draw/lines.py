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
from dataclasses import dataclass, field

import numpy as np

from ui.draw.labels import label_px
from ui.draw.style import MUTED, PLAIN, Look
from ui.draw.wire import Spec, derived_layout, fast_figure

PALETTE = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # bar_chart's, for the same eyes
DECADES = 2.0  # a log axis when the largest positive value is 10² times the smallest or more
WIDTH = {None: 2.0, True: 3.5, False: 1.8}  # a line's width: no series bold, the bold one, others
# The figure stretches to its column, which the server does not know: titles wrap and gaps are
# sized for the narrowest column it is drawn in (px): a 1280 × 720 screen at 150 % with the
# sidebar open, a phone of 390 px.
NARROWEST = {False: 500.0, True: 350.0}
PRESENT_NARROWEST = 800.0
MARGIN = {"l": 72, "r": 16}  # y tick labels of up to four characters and the y axis title
GAP_PX = 72  # between two plots of a row: the right one's y tick labels and axis title
Y_STANDOFF = 12  # px between a plot's y tick labels and its y axis title (the style's 24 put
# the right plot's title against the left plot at a 150 % zoom's column)
BELOW_PX = 58  # under a row's plots: the x tick labels and the x axis title
TITLE_PX = 17  # one line of a plot's title (13 px, bold)
LEGEND_PX = 24  # one row of the legend


def wrap(title: str, length: float, scale: float = 1.0) -> list[str]:
    """A plot's title as lines of at most ``length`` px at 13 px bold (``13 * scale`` px: a
    presenter's 17), a word longer than that staying whole, split at spaces."""
    lines: list[str] = []
    for word in title.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and label_px(joined) * 13 / 12 * 1.1 * scale <= length:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines


def legend_rows(names: Sequence[str], length: float, scale: float = 1.0) -> int:
    """How many rows a horizontal legend of these names takes in ``length`` px (each entry
    its line sample, its name at ``12 * scale`` px and a gap: about 40 px beside the text)."""
    rows, used = 1, 0.0
    for name in names:
        entry = label_px(name) * scale + 40.0
        if used and used + entry > length:
            rows, used = rows + 1, 0.0
        used += entry
    return rows


def spans_decades(series: dict[str, Sequence[float]], decades: float = DECADES) -> bool:
    """Whether the positive values of all the series span ``decades`` orders of magnitude."""
    values = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in series.values()])
    positive = values[np.isfinite(values) & (values > 0.0)]
    return positive.size > 1 and math.log10(positive.max() / positive.min()) >= decades


@dataclass(frozen=True)
class Panel:
    """One plot: its title, its y axis title, its series {name: [N]}, and dotted lines across.

    ``log``: a log y axis (None: when the values span two decades or more); a value <= 0 is then
    left out of its line. ``from_zero``: a linear y axis that starts at 0.
    """

    title: str
    y_title: str
    series: dict[str, Sequence[float]]
    levels: Sequence[tuple[float, str]] = field(default_factory=tuple)  # (y, label)
    log: bool | None = False
    from_zero: bool = True


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
    lines and legend rows grow with it (``_frame``).
    Shapes: x [N]; every series of every panel [N].
    """
    frame = _frame(panels, mark, phone, height, look.text_scale, width)
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
        layout["width"] = _grown(width, look.text_scale)
    if look.text_scale != 1.0:  # the ticks, titles, notes and hover at a projector's sizes
        layout = look.chart_text(layout)
        layout["legend"] = {**layout["legend"], "font": {"size": look.text_px(12)}}
    spec = fast_figure(data, layout)
    return spec if mark is None else marked(spec, *mark, look=look)


def _grown(px: int, scale: float) -> int:
    """A size in px for text ``scale`` times larger: itself on a screen, else rounded up."""
    return px if scale == 1.0 else math.ceil(px * scale)


@dataclass(frozen=True)
class _Frame:
    """Where a figure of panels puts them: ``per_row`` a row in ``rows`` rows, each plot
    ``width`` of the paper wide, ``gap`` between two of a row, ``tall`` high and ``row_gap``
    between rows (paper fractions); each panel's title lines, raised ``title_shift`` px above
    its plot; a row ``height`` px; the margins, the x labels' room ``below_px`` and the plots'
    area ``paper_px`` (px); the series' names and the legend's entries."""

    per_row: int
    rows: int
    width: float
    gap: float
    tall: float
    row_gap: float
    titles: list[list[str]]
    title_shift: int
    height: int
    margin: dict[str, int]
    below_px: int
    paper_px: float
    names: list[str]
    entries: list[str]

    def corner(self, k: int) -> tuple[float, float]:
        """Plot k's left and top, in paper fractions, in reading order."""
        r, c = divmod(k, self.per_row)
        return c * (self.width + self.gap), 1.0 - r * (self.tall + self.row_gap)


def _frame(
    panels: Sequence[Panel],
    mark: tuple[float, str] | None,
    phone: bool,
    height: int,
    ts: float,
    own_px: int | None = None,
) -> _Frame:
    """The panels' places and the figure's margins, sized for the narrowest column the figure
    is drawn in (it stretches to its column, which the server does not know) or its ``own_px``
    width: every plot keeps the room of the longest title above it, the first lines level; the
    legend under the last row holds the series, the levels' labels and the mark's (``ts``: the
    text's scale)."""
    margin_lr = {side: _grown(px, ts) for side, px in MARGIN.items()}
    below_px, title_px = _grown(BELOW_PX, ts), _grown(TITLE_PX, ts)
    per_row = 1 if phone else len(panels)
    rows = -(-len(panels) // per_row)
    # presenter mode is a 1280 px projector (its sidebar open: a column of about 800 px), and
    # its rows grow with their text so the plots keep their height under longer titles
    narrowest = NARROWEST[phone] if ts == 1.0 or phone else PRESENT_NARROWEST
    narrowest = float(_grown(own_px, ts)) if own_px and not phone else narrowest
    plot_px = narrowest - margin_lr["l"] - margin_lr["r"]  # the narrowest plots drawn
    gap = _grown(GAP_PX, ts) / plot_px if per_row > 1 else 0.0
    width = (1.0 - gap * (per_row - 1)) / per_row
    titles = _titles(panels, per_row, width, gap, plot_px, margin_lr["r"], ts)
    lines = max(1, *map(len, titles))
    top_px = _grown(34, ts) + title_px * (lines - 1)
    names, entries = _legend_entries(panels, mark)
    legend_px = _grown(LEGEND_PX, ts) * legend_rows(entries, narrowest, ts) if entries else 0
    bottom_px = below_px + legend_px + 20
    paper_px = _grown(height, ts) * rows - top_px - bottom_px  # the plots, with their gaps
    row_gap = (below_px + top_px) / paper_px if rows > 1 else 0.0
    tall = (1.0 - row_gap * (rows - 1)) / rows
    title_shift = _grown(6, ts) + title_px * lines + 2  # px above the plot: the title's top
    margin = margin_lr | {"t": top_px, "b": bottom_px}
    return _Frame(
        *(per_row, rows, width, gap, tall, row_gap, titles, title_shift, _grown(height, ts)),
        *(margin, below_px, paper_px, names, entries),
    )


def _titles(
    panels: Sequence[Panel],
    per_row: int,
    width: float,
    gap: float,
    plot_px: float,
    margin_r: int,
    ts: float,
) -> list[list[str]]:
    """Each panel's title as lines (``wrap``): a title may reach over the gap to the next plot
    of its row, or into the right margin."""
    n = len(panels)
    room = [
        (width + gap) * plot_px if j % per_row < per_row - 1 else width * plot_px + margin_r
        for j in range(n)
    ]
    return [wrap(panel.title, room[j], ts) if panel.title else [] for j, panel in enumerate(panels)]


def _legend_entries(
    panels: Sequence[Panel], mark: tuple[float, str] | None
) -> tuple[list[str], list[str]]:
    """The series' names, and the legend's entries: the names where there are several, then
    the dotted levels' labels and the mark's."""
    names = list(dict.fromkeys(name for panel in panels for name in panel.series))
    marks = list(dict.fromkeys(label for panel in panels for _, label in panel.levels if label))
    marks += [mark[1]] if mark is not None and mark[1] else []
    return names, (names if len(names) > 1 else []) + marks


def _panel_axes(
    panel: Panel,
    log: bool,
    suffix: str,
    corner: tuple[float, float],
    frame: _Frame,
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
            **_y_axis(panel, log, _grown(Y_STANDOFF, look.text_scale)),
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
    legend row for it; ``look`` is the legend's); the traces are shared."""
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
    # on a kept figure, the copy shares the wire form of every value but these (``keep``)
    return fast_figure(spec["data"], derived_layout(layout, **changes))
