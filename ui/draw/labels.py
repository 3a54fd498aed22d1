"""Axis labels: feature and head names, their angle under cells, the room they take (margins)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

# Margins. plotly.js draws a figure, measures its tick labels and axis titles, and when they do
# not fit the layout's margins it grows them and draws the whole figure again ("automargin").
# That second pass is about a third of a chart's drawing time in the browser, paid by every chart
# on every change. So each figure asks for margins that already hold its labels: estimated from
# the labels' text at the 12 px tick font of Streamlit's theme, with room to spare. automargin
# stays on, so a label wider than its estimate is never cut off, only drawn twice.
_NARROW = frozenset(" !'(),.:;I[]fijlrt|·")
_WIDE = frozenset("MWmw@%")
TICK_GAP = 60  # tick length, standoffs and the axis title beside the labels (px, measured)


@lru_cache(maxsize=4096)  # the same token and feature labels come back on every rerun
def label_px(label: str) -> float:
    """About how wide a tick label is drawn, in px at 12 px, rounded up (a little over)."""
    width = 0.0
    for ch in label:
        if ch in _NARROW:
            width += 4.0
        elif ch in _WIDE:
            width += 10.0
        elif ch.isupper() or ch.isdigit() or ch in "−-+#&_~":
            width += 7.5
        elif ord(ch) < 0x2E80:
            width += 6.5 if ch.isascii() else 8.0
        else:  # CJK and other full-width characters: a square em
            width += 12.5
    return 1.1 * width


# a cell's number (Source Sans, measured in chromium): a digit 0.495 em, a minus sign 0.46 em,
# a decimal point or comma 0.31 em; and the room it keeps from its cell's edges (px, both sides)
DIGIT_EM, NUMBER_EMS, NUMBER_ROOM = 0.495, {"\u2212": 0.46, "-": 0.46, ".": 0.31, ",": 0.31}, 3


def number_cell(texts: Sequence[str], size: int) -> int:
    """The side (px) of a cell that holds the widest of ``texts`` drawn at ``size`` px, with
    NUMBER_ROOM beside it: "−10.59" at 11 px is about 30 px wide and wants 34 px."""
    ems = max((sum(NUMBER_EMS.get(ch, DIGIT_EM) for ch in text) for text in texts), default=0.0)
    return math.ceil(ems * size) + NUMBER_ROOM


def axis_margins(
    rows: Sequence[str], cols: Sequence[str], tickangle: float, *, colour_bar: bool = False
) -> dict[str, int]:
    """Left and bottom margins (px) that hold these y and x tick labels and the axis titles;
    right leaves room for a vertical colour bar (about 50-58 px with its numbers). Measured in
    chromium: left = 60 + the widest y label; bottom = 72 for level x labels, about
    67 + 0.87 × the widest label at -60°."""
    widest_x = max((label_px(str(c)) for c in cols), default=0.0)
    widest_y = max((label_px(str(r)) for r in rows), default=0.0)
    slant = abs(math.sin(math.radians(tickangle)))
    # a slanted first x label reaches left of the plot, past the y labels when it is long
    first_x = label_px(str(cols[0])) * abs(math.cos(math.radians(tickangle))) if slant else 0.0
    return {
        "l": math.ceil(max(TICK_GAP + widest_y + 4, first_x + 20)),
        "b": math.ceil(max(76.0, 70 + slant * widest_x + 4)),
        "r": 62 if colour_bar else 16,
    }


def x_label_angle(widest_px: float, cell: float) -> int:
    """The x labels' angle (degrees) under cells of ``cell`` px whose widest label is
    ``widest_px`` (``label_px``'s estimate, a tenth over what the browser draws): level when it
    fits its cell with 6 px between two labels ("mat·2" in a 40 px cell), -60° when it does
    not, upright when slanted ones would touch (cells under 20 px)."""
    if widest_px / 1.1 + 6 <= cell:
        return 0
    return -60 if cell >= 20 else -90


def scaled_margins(margin: dict[str, int], grow: float) -> dict[str, int]:
    """``axis_margins``'s margins (measured at 12 px labels) for labels ``grow``
    times larger: each side grows with the text it holds."""
    if grow == 1.0:
        return margin
    return {k: math.ceil(v * grow) for k, v in margin.items()}


def feature_labels(n: int, prefix: str = "f") -> list[str]:
    """Column names for n features: f0, f1, ..."""
    return [f"{prefix}{i}" for i in range(n)]


def head_feature_labels(n_heads: int, d_head: int) -> list[str]:
    """Column names of the concatenated heads: h0·0, h0·1, h1·0, ... (head · feature)."""
    return [f"h{h}·{i}" for h in range(n_heads) for i in range(d_head)]


def fit_lines(title: str, length: float, *, bold: bool = False) -> str:
    """A title of ours on two lines when one line at 14 px (``bold``: a tenth wider) would be
    longer than ``length`` px; plotly cuts what passes the figure's edge. In a title of three
    parts or more ("head 0 · mixed · mean H = 0.46") the line breaks after a " · " between them,
    as after a comma, where both lines then fit ("head 0 · mixed ·" over "mean H = 0.46"); else
    (a lone "·" is a product: "concat · W_O") at the space nearest the middle; never before a
    "·"."""
    grow = 14 / 12 * (1.1 if bold else 1.0)
    if label_px(title) * grow <= length or " " not in title:
        return title
    spaces = [i for i, ch in enumerate(title) if ch == " "]
    cuts = [i for i in spaces if title[i + 1 : i + 2] != "·"] or spaces

    def both_fit(i: int) -> bool:
        return max(label_px(title[:i]), label_px(title[i + 1 :])) * grow <= length

    parts = title.count(" · ") >= 2
    after_parts = [i for i in cuts if parts and title[i - 1] == "·" and both_fit(i)]
    middle = len(title) / 2
    cut = min(after_parts or cuts, key=lambda i: abs(i - middle))
    return f"{title[:cut]}<br>{title[cut + 1 :]}"
