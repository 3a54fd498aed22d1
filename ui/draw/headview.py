"""The head view (bertviz's classic view): who looks at whom, as lines between two token columns.

The sentence stands twice: the queries on the left, the keys on the right, token 0 on top. One
line per pair (i, j) the mask lets through, from query i to key j, its opacity the probability
pattern[i, j] (the exact value rides with the line); one colour per head; masked pairs have no
line at all. It reads the same ``Trace`` as the heatmaps. A followed token's lines are drawn
thicker, and its two labels bold. The view is an SVG drawing made here (``show_head_view`` puts
it on the page): the browser lays it out without running a chart library on each change.

Page 5's figures, the grid of every head's pattern and the head view, are built once per
setting and kept (``ui.draw.wire.keep``): a rerun that changes nothing on them sends them as they
are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from xml.etree import ElementTree

import numpy as np
import streamlit as st

import llm
from ui.draw.describe_words import MANY_LABELS, Words, fitted
from ui.draw.grids import grid_figures
from ui.draw.labels import label_px
from ui.draw.style import MUTED, Look
from ui.draw.wire import Spec, keep
from ui.frame.follow import outline_row
from ui.lab.compute import Setting, compute_lab, shared
from ui.text import num, translator
from ui.text.heads import TEXT

# one colour per head: Tableau 10, told apart with most colour blindness; repeats after ten heads
HEAD_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
ROW_PX = 28  # the height of one token's row
SPAN_PX = 220  # the lines' width, from the query column to the key column
TEXT_PX = 13  # the token labels and the column titles
LINE_WIDTH = 2.0
FOLLOWED_WIDTH = 5.0
# presenter mode: a line's width follows p too, floor + k·p, so the strong pairs read from the
# back of a room where faint lines vanish on a projector (the floor: a screen's own width)
PRESENT_WIDTH_PER_P = 8.0  # px of width for p = 1
LEGEND_PX = 26  # one row of the legend


def head_colour(h: int) -> str:
    """The colour of head h's lines (and of its chip in the picker)."""
    return HEAD_COLOURS[h % len(HEAD_COLOURS)]


def head_view(
    patterns: Sequence[np.ndarray],
    mask: np.ndarray,
    labels: Sequence[str],
    heads: Sequence[int],
    *,
    followed: int | None = None,
    head_names: Sequence[str] = (),
    query_title: str = "query",
    key_title: str = "key",
    scale: float = 1.0,
    present: bool = False,
    lang: str = "en",
) -> str:
    """Lines from each query (left) to the keys it may see (right), opacity = probability, as
    one SVG drawing.

    ``patterns`` are every head's pattern (``[head.pattern for head in trace.heads]``), ``heads``
    the ones drawn, each in ``head_colour(h)`` and named in the legend under the lines by
    ``head_names[h]``. Each line is an SVG ``<line>`` whose stroke opacity is the probability
    pattern[i, j]; it carries its pair and the exact probability as data attributes
    (``lines_of`` reads them back), its head's group its colour and width. The followed
    token's lines come last, on top. Token labels are SVG text, escaped: a token is shown,
    never read as markup. Drawn on the server, the browser only lays it out: no chart library
    to run on each change. ``scale`` enlarges rows and text (a projector); ``present``
    (presenter mode): each line also as wide as its group's width + PRESENT_WIDTH_PER_P · p.
    Its accessible name, in ``lang``, says which heads it draws and its strongest lines
    (``view_label``).
    Shapes: patterns H × [T, T], mask [T, T] (True = may look), labels T -> (len(heads) × pairs)
    lines.
    """
    at = _Places.of(labels, query_title, key_title, scale)
    pairs = np.argwhere(np.asarray(mask, dtype=bool)).tolist()  # (query i, key j) pairs
    groups, on_top = _line_groups(patterns, heads, pairs, at, followed, len(labels), present)
    legend, height = _legend(heads, head_names, at, len(labels), scale)
    titles = [
        f'<text class="hv-title" x="{at.left - 6}" y="{at.font:g}" text-anchor="end">'
        f"{escape(query_title)}</text>",
        f'<text class="hv-title" x="{at.right + 6}" y="{at.font:g}">{escape(key_title)}</text>',
    ]
    columns = _column(labels, at, at.left - 6, "end", followed)
    columns += _column(labels, at, at.right + 6, "start", followed)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="head-view" width="{at.width}" '
        f'height="{height}" viewBox="0 0 {at.width} {height}" font-size="{at.font}" '
        f'fill="{MUTED}" data-top="{at.top}" data-row="{at.row}" data-span="{at.span}" '
        f'role="img" aria-label="{escape(view_label(patterns, mask, labels, heads, lang))}">'
        + "".join(groups + on_top + columns)
        + "".join(titles + legend)
        + "</svg>"
    )


def view_label(
    patterns: Sequence[np.ndarray],
    mask: np.ndarray,
    labels: Sequence[str],
    heads: Sequence[int],
    lang: str = "en",
) -> str:
    """The drawing's accessible name in ``lang``: the heads drawn and each query's strongest
    line over them (the strongest pair of all beyond MANY_LABELS queries or LIMIT characters,
    ``ui.draw.describe.fitted``); plain text, for the caller to escape.
    Shapes: patterns H × [T, T], mask [T, T] (True = may look), labels T."""
    words, heads = Words(lang), list(heads)
    t = words.t
    if len(heads) == 1:
        drawn = t("head", h=heads[0])
    elif len(heads) <= MANY_LABELS:
        drawn = t("heads", hs=", ".join(map(str, heads)))
    else:
        drawn = t("heads_many", n=len(heads))
    intro = t("headview", heads=drawn)
    if not heads or not len(labels):
        return fitted([intro])
    allowed = np.asarray(mask, dtype=bool)
    seen = np.stack([np.where(allowed, np.asarray(patterns[h]), -np.inf) for h in heads])
    best = []  # (p, query, key, head) of each query's strongest line
    for i in range(len(labels)):
        k, j = divmod(int(seen[:, i, :].argmax()), len(labels))
        best.append((float(seen[k, i, j]), i, j, heads[k]))

    def pair(p: float, i: int, j: int, h: int) -> str:
        name = "pair_head" if len(heads) > 1 else "pair"
        return t(name, q=labels[i], k=labels[j], p=words.number(p), h=h)

    strongest = words.joined([intro, t("strongest", pair=pair(*max(best, key=lambda b: b[0])))])
    if len(labels) > MANY_LABELS:
        return fitted([strongest])
    each = t("strongest_each", pairs=words.items([pair(*b) for b in best]))
    return fitted([words.joined([intro, each]), strongest])


@dataclass(frozen=True)
class _Places:
    """Where a head view's parts stand (px): a token's ``row`` height and the ``font`` size,
    the lines' ``span`` from the query column at ``left`` to the key column at ``right``, the
    drawing's ``width`` and the ``top`` of its first row, under the column titles."""

    row: int
    font: int
    span: int
    left: int
    right: int
    width: int
    top: int

    @classmethod
    def of(cls, labels: Sequence[str], query_title: str, key_title: str, scale: float) -> _Places:
        """The places for these token labels and column titles at ``scale``: each column as
        wide as its widest label or title."""
        row, font = round(ROW_PX * scale), round(TEXT_PX * scale)
        span = round(SPAN_PX * scale)
        widest = max((label_px(str(s)) for s in labels), default=0.0)
        left = math.ceil(max(widest, label_px(query_title)) * font / 12) + 12
        width = left + span + math.ceil(max(widest, label_px(key_title)) * font / 12) + 12
        return cls(row, font, span, left, left + span, width, font + 14)

    def y(self, i: int) -> float:
        """The middle of token i's row."""
        return self.top + self.row * (i + 0.5)


def _line_groups(
    patterns: Sequence[np.ndarray],
    heads: Sequence[int],
    pairs: list[list[int]],
    at: _Places,
    followed: int | None,
    t: int,
    present: bool = False,
) -> tuple[list[str], list[str]]:
    """One group a head, and one a head for the followed token's lines, drawn last, on top:
    the colour, the width and the query column's x are the group's, so a line carries only its
    rows, its opacity and its pair (the data attributes ``lines_of`` reads); ``t`` tokens.
    ``present``: each line's own width too, the group's (its floor) + PRESENT_WIDTH_PER_P · p."""
    ys = [f"{at.y(i):g}" for i in range(t)]
    # a pair's text around its probability, the same for every head: written once
    around = [
        (
            i,
            j,
            f'<line y1="{ys[i]}" x2="{at.span}" y2="{ys[j]}" stroke-opacity="',
            f'" data-q="{i}" data-k="{j}" data-p="',
        )
        for i, j in pairs
    ]
    groups, on_top = [], []
    for h in heads:
        pattern = np.asarray(patterns[h]).tolist()
        lines: dict[bool, list[str]] = {False: [], True: []}
        for i, j, before, between in around:
            p = pattern[i][j]
            if present:
                floor = FOLLOWED_WIDTH if i == followed else LINE_WIDTH
                width = f'" stroke-width="{floor + PRESENT_WIDTH_PER_P * p:.2f}'
                lines[i == followed].append(f'{before}{p:.4f}{width}{between}{p!r}"/>')
            else:
                lines[i == followed].append(f'{before}{p:.4f}{between}{p!r}"/>')
        for thick, out in ((False, groups), (True, on_top)):
            if lines[thick]:
                out.append(
                    f'<g data-head="{h}" stroke="{head_colour(h)}" '
                    f'stroke-width="{FOLLOWED_WIDTH if thick else LINE_WIDTH:g}" '
                    f'transform="translate({at.left} 0)">' + "".join(lines[thick]) + "</g>"
                )
    return groups, on_top


def _column(
    labels: Sequence[str], at: _Places, x: int, anchor: str, followed: int | None
) -> list[str]:
    """A column of token labels at ``x``, escaped text, the followed token's bold."""
    return [
        f'<text x="{x}" y="{at.y(n):g}" text-anchor="{anchor}" dominant-baseline="central"'
        + (' font-weight="700"' if n == followed else "")
        + f">{escape(str(s))}</text>"
        for n, s in enumerate(labels)
    ]


def _legend(
    heads: Sequence[int], head_names: Sequence[str], at: _Places, t: int, scale: float
) -> tuple[list[str], int]:
    """The legend under the ``t`` rows: one swatch and name per head drawn, in rows as wide as
    the drawing; and the drawing's height (px) with it."""
    legend, x, legend_y = [], 0, at.top + at.row * t + LEGEND_PX * scale / 2 + 6
    for h in heads:
        name = head_names[h] if h < len(head_names) else f"h{h}"
        item = math.ceil(24 * scale + label_px(name) * at.font / 12 + 18)
        if x and x + item > at.width:
            x, legend_y = 0, legend_y + LEGEND_PX * scale
        legend.append(
            f'<line x1="{x}" y1="{legend_y:g}" x2="{x + round(20 * scale)}" y2="{legend_y:g}" '
            f'stroke="{head_colour(h)}" stroke-width="3"/>'
            f'<text x="{x + round(24 * scale)}" y="{legend_y:g}" dominant-baseline="central">'
            f"{escape(name)}</text>"
        )
        x += item
    return legend, math.ceil(legend_y + LEGEND_PX * scale / 2 + 10)


def lines_of(view: str) -> list[dict]:
    """The drawing's lines, one per drawn pair, what a test or a reader can check: each as
    ``{"x0": 0, "x1": 1, "y0": i, "y1": j, "query": i, "key": j, "head": h, "opacity": exact
    probability, "drawn": the stroke opacity it is drawn at, "line": {"color", "width"}}``
    (x0, x1: the query and key columns; y0, y1: the rows its two ends are drawn at; query, key:
    the pair its data attributes name; width: the line's own in presenter mode, else its
    group's)."""
    root = ElementTree.fromstring(view)
    top, row = float(root.get("data-top")), float(root.get("data-row"))
    span = float(root.get("data-span"))  # from the query column (x 0 in a group) to the keys

    def token(y: str) -> float:
        """The row a y is drawn at."""
        return (float(y) - top) / row - 0.5

    out = []
    for group in root.iter(f"{_SVG}g"):
        if group.get("data-head") is None:
            continue
        for e in group.iter(f"{_SVG}line"):
            width = e.get("stroke-width", group.get("stroke-width"))  # presenter mode: its own
            style = {"color": group.get("stroke"), "width": float(width)}
            out.append(
                {"x0": float(e.get("x1", 0)) / span, "x1": float(e.get("x2", 0)) / span}
                | {"y0": token(e.get("y1")), "y1": token(e.get("y2"))}
                | {"query": int(e.get("data-q")), "key": int(e.get("data-k"))}
                | {"head": int(group.get("data-head")), "opacity": float(e.get("data-p"))}
                | {"drawn": float(e.get("stroke-opacity")), "line": dict(style)}
            )
    return out


_SVG = "{http://www.w3.org/2000/svg}"


def show_head_view(view: str, key: str) -> None:
    """The head view on the page, at its own size: a narrow column (a phone) scrolls it
    sideways inside its box rather than shrinking its text. Its labels are escaped text
    (``head_view``), so the drawing carries no markup a user typed."""
    with st.container(key=key):
        st.markdown(f'<div class="head-view-box">{view}</div>', unsafe_allow_html=True)


# --- page 5's figures, once per setting ----------------------------------------------------------


@shared(16)
def _patterns(setting: Setting, look: Look) -> tuple[Spec, ...]:
    """Every head's pattern in one grid, titled by its kind and mean entropy, in the pieces that
    wrap (``ui.draw.grids.grid_figures``; kept, shared)."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    trace, labels = lab.trace, lab.labels
    titles = [
        t(
            "head_title",
            h=h,
            label=t(llm.classify_head(head.pattern, setting.causal)),
            entropy=num(llm.head_entropy(head.pattern), 2, look.lang),
        )
        for h, head in enumerate(trace.heads)
    ]
    pieces = grid_figures(
        [head.pattern for head in trace.heads],
        labels,
        [labels] * setting.n_heads,
        titles,
        zmin=0.0,
        zmax=1.0,
        masked=~trace.mask,
        masked_label=t("masked_cell"),
        x_title=t("key"),
        y_title=t("query"),
        scale_title=t("scale"),
        look=look,
    )
    return tuple(keep(piece) for piece in pieces)


@shared(64)
def patterns_figures(setting: Setting, look: Look, token: int) -> tuple[Spec, ...]:
    """Page 5's grid of every head's pattern with row ``token`` outlined in each, in pieces
    (kept, shared; a piece's traces are one list for every token)."""
    return tuple(
        keep(outline_row(piece, token, plots=len(piece["data"])))
        for piece in _patterns(setting, look)
    )


@shared(64)
def head_view_drawing(setting: Setting, look: Look, heads: tuple[int, ...], token: int) -> str:
    """Page 5's head view of ``heads`` with ``token`` followed (kept, shared); a phone's look
    draws it as a computer's does."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    return head_view(
        [head.pattern for head in lab.trace.heads],
        lab.trace.mask,
        lab.labels,
        sorted(heads),
        followed=token,
        head_names=[t("bar_label", h=h) for h in range(setting.n_heads)],
        query_title=t("headview_query"),
        key_title=t("headview_key"),
        scale=look.scale,
        present=look.text_scale > 1.0,
        lang=look.lang,
    )
