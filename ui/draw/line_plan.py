"""A figure of line plots planned before it is drawn (``ui.draw.lines.line_panels``): its
plots (``Panel``: a title, series, dotted levels), where each stands, its title wrapped to the
room above it, the legend's rows and the margins, all sized for the narrowest column the figure
is drawn in, and grown with a projector's text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ui.draw.labels import label_px

# The figure stretches to its column, which the server does not know: titles wrap and gaps are
# sized for the narrowest column it is drawn in (px): a 1280 × 720 screen at 150 % with the
# sidebar open, a phone of 390 px.
NARROWEST = {False: 500.0, True: 350.0}
PRESENT_NARROWEST = 800.0
MARGIN = {"l": 72, "r": 16}  # y tick labels of up to four characters and the y axis title
GAP_PX = 72  # between two plots of a row: the right one's y tick labels and axis title
BELOW_PX = 58  # under a row's plots: the x tick labels and the x axis title
TITLE_PX = 17  # one line of a plot's title (13 px, bold)
LEGEND_PX = 24  # one row of the legend


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


def grown(px: int, scale: float) -> int:
    """A size in px for text ``scale`` times larger: itself on a screen, else rounded up."""
    return px if scale == 1.0 else math.ceil(px * scale)


@dataclass(frozen=True)
class Frame:
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


def plan_frame(
    panels: Sequence[Panel],
    mark: tuple[float, str] | None,
    phone: bool,
    height: int,
    ts: float,
    own_px: int | None = None,
) -> Frame:
    """The panels' places and the figure's margins, sized for the narrowest column the figure
    is drawn in (it stretches to its column, which the server does not know) or its ``own_px``
    width: every plot keeps the room of the longest title above it, the first lines level; the
    legend under the last row holds the series, the levels' labels and the mark's (``ts``: the
    text's scale)."""
    margin_lr = {side: grown(px, ts) for side, px in MARGIN.items()}
    below_px, title_px = grown(BELOW_PX, ts), grown(TITLE_PX, ts)
    per_row = 1 if phone else len(panels)
    rows = -(-len(panels) // per_row)
    # presenter mode is a 1280 px projector (its sidebar open: a column of about 800 px), and
    # its rows grow with their text so the plots keep their height under longer titles
    narrowest = NARROWEST[phone] if ts == 1.0 or phone else PRESENT_NARROWEST
    narrowest = float(grown(own_px, ts)) if own_px and not phone else narrowest
    plot_px = narrowest - margin_lr["l"] - margin_lr["r"]  # the narrowest plots drawn
    gap = grown(GAP_PX, ts) / plot_px if per_row > 1 else 0.0
    width = (1.0 - gap * (per_row - 1)) / per_row
    titles = _titles(panels, per_row, width, gap, plot_px, margin_lr["r"], ts)
    lines = max(1, *map(len, titles))
    top_px = grown(34, ts) + title_px * (lines - 1)
    names, entries = _legend_entries(panels, mark)
    legend_px = grown(LEGEND_PX, ts) * legend_rows(entries, narrowest, ts) if entries else 0
    bottom_px = below_px + legend_px + 20
    paper_px = grown(height, ts) * rows - top_px - bottom_px  # the plots, with their gaps
    row_gap = (below_px + top_px) / paper_px if rows > 1 else 0.0
    tall = (1.0 - row_gap * (rows - 1)) / rows
    title_shift = grown(6, ts) + title_px * lines + 2  # px above the plot: the title's top
    margin = margin_lr | {"t": top_px, "b": bottom_px}
    return Frame(
        *(per_row, rows, width, gap, tall, row_gap, titles, title_shift, grown(height, ts)),
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
