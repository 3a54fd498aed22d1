"""Line charts: a few series over one numeric axis, several small plots side by side in ONE figure.

Each series keeps its colour (and one legend entry) across the plots, so "with √d_k" reads the
same in every plot; an optional dashed vertical line marks one x (the lab's own d_k).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ui.style import MUTED
from ui.wire import Spec, fast_figure

PALETTE = ("#1f5fa8", "#e08a1e", "#2a9d8f", "#8e5ea2")  # bar_chart's, for the same eyes


@dataclass(frozen=True)
class Panel:
    """One plot: its title, its y axis title, its series {name: [N]}, and dotted lines across."""

    title: str
    y_title: str
    series: dict[str, Sequence[float]]
    levels: Sequence[tuple[float, str]] = field(default_factory=tuple)  # (y, label)


def line_panels(
    x: Sequence[float],
    panels: Sequence[Panel],
    *,
    x_title: str = "",
    mark: tuple[float, str] | None = None,
    phone: bool = False,
    height: int = 300,
) -> Spec:
    """The panels side by side (one under the other on a phone), each on axes x{k+1}/y{k+1}.

    Shapes: x [N]; every series of every panel [N].
    """
    n = len(panels)
    per_row = 1 if phone else n
    gap = 0.08 if per_row > 1 else 0.0
    width = (1.0 - gap * (per_row - 1)) / per_row
    rows = -(-n // per_row)
    row_gap = 0.16 if rows > 1 else 0.0
    tall = (1.0 - row_gap * (rows - 1)) / rows
    colours: dict[str, str] = {}
    data, shapes, notes = [], [], []
    layout: dict[str, object] = {}
    xs = [float(v) for v in x]
    for k, panel in enumerate(panels):
        r, c = divmod(k, per_row)
        suffix = "" if k == 0 else str(k + 1)
        left, top = c * (width + gap), 1.0 - r * (tall + row_gap)
        layout[f"xaxis{suffix}"] = {
            "domain": [left, left + width],
            "anchor": f"y{suffix}",
            "title": {"text": x_title},
            "range": [xs[0] - 1, xs[-1] + 1],
        }
        layout[f"yaxis{suffix}"] = {
            "domain": [top - tall, top],
            "anchor": f"x{suffix}",
            "title": {"text": panel.y_title},
            "rangemode": "tozero",
        }
        notes.append(
            {"text": f"<b>{panel.title}</b>", "x": left, "xanchor": "left", "xref": "paper"}
            | {"y": top, "yanchor": "bottom", "yref": "paper", "showarrow": False, "yshift": 6}
            | {"font": {"size": 13}}
        )
        for name, values in panel.series.items():
            first = name not in colours
            colour = colours.setdefault(name, PALETTE[len(colours) % len(PALETTE)])
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": xs,
                    "y": [None if not np.isfinite(v) else float(v) for v in values],
                    "name": name,
                    "legendgroup": name,
                    "showlegend": first,
                    "line": {"color": colour, "width": 2},
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "hovertemplate": f"{x_title} %{{x}}<br>{name}: %{{y:.4g}}<extra></extra>",
                }
            )
        for y, label in panel.levels:
            shapes.append(
                {"type": "line", "line": {"color": MUTED, "dash": "dot", "width": 1}}
                | {"xref": f"x{suffix} domain", "x0": 0, "x1": 1}
                | {"yref": f"y{suffix}", "y0": y, "y1": y}
            )
            notes.append(
                {"text": label, "x": 1, "xanchor": "right", "xref": f"x{suffix} domain"}
                | {"y": y, "yanchor": "bottom", "yref": f"y{suffix}", "showarrow": False}
                | {"font": {"color": MUTED, "size": 11}}
            )
        if mark is not None:
            shapes.append(
                {"type": "line", "line": {"color": MUTED, "dash": "dash", "width": 1}}
                | {"xref": f"x{suffix}", "x0": mark[0], "x1": mark[0]}
                | {"yref": f"y{suffix} domain", "y0": 0, "y1": 1}
            )
            if k > 0:  # named once, in the first plot: the same x in all of them
                continue
            notes.append(
                {"text": mark[1], "x": mark[0], "xanchor": "left", "xref": f"x{suffix}"}
                | {"y": 1, "yanchor": "top", "yref": f"y{suffix} domain", "showarrow": False}
                | {"font": {"color": MUTED, "size": 11}, "xshift": 3}
            )
    layout.update(
        shapes=shapes,
        annotations=notes,
        height=height * rows,
        margin={"l": 60, "r": 16, "t": 34, "b": 96},
        showlegend=True,
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.3 / rows, "yanchor": "top"},
        hovermode="closest",
    )
    return fast_figure(data, layout)
