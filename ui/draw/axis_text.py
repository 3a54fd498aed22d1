"""What a figure of markup writes as text: its title (``<figcaption>``), its axis's round numbers
and how it spells a number (six significant digits, the language's decimal mark, a true minus).
Shared by the heatmap tables (``ui.draw.heatmap_table``) and the bars (``ui.draw.bars_markup``).
"""

from __future__ import annotations

import math
import re
from html import escape

from ui.text import MINUS, num


def figure_caption(layout: dict) -> str:
    """A figure's title as its ``<figcaption>``, at the title's size (none without a title)."""
    title = layout.get("title", {})
    if not title.get("text"):
        return ""
    size = title.get("font", {}).get("size", 14)
    return f'<figcaption style="font-size:{size}px">{title_lines(title["text"])}</figcaption>'


def title_lines(text: str) -> str:
    """plotly's title markup as escaped text: ``<br>`` stays a line break, ``<b>`` goes."""
    return "<br>".join(escape(re.sub(r"</?b>", "", line)) for line in text.split("<br>"))


def caption_lines(text: str) -> str:
    """plotly's title markup as escaped text where a line in ``<b>`` stays bold (a title whose
    first line names it, the others say more): ``"<b>head 1</b><br>induction"`` ->
    ``"<b>head 1</b><br>induction"``, every line's text escaped."""
    return "<br>".join(
        f"<b>{title_lines(line)}</b>" if line.startswith("<b>") else title_lines(line)
        for line in text.split("<br>")
    )


def plain(text: str) -> str:
    """plotly's markup as plain text, unescaped: each tag (``<b>``, ``<br>``) a space, spaces
    run together, none at the ends (a name for a screen reader, a width to measure)."""
    return " ".join(re.sub("<[^>]+>", " ", text).split())


def nice_ticks(lo: float, hi: float, count: int) -> list[float]:
    """About ``count`` round numbers from ``lo`` to ``hi``: the smallest step of 1, 2, 2.5 or
    5 times a power of ten that ``count`` steps cover, or a finer one where that leaves fewer
    than three (``nice_ticks(0, 1, 5) == [0, 0.2, 0.4, 0.6, 0.8, 1]``)."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    steps = [k * power for k in (1, 2, 2.5, 5, 10)]
    coarse = multiples(lo, hi, min(s for s in steps if s >= raw * (1 - 1e-9)))
    return coarse if len(coarse) >= 3 else multiples(lo, hi, max(s for s in steps if s <= raw))


def multiples(lo: float, hi: float, step: float) -> list[float]:
    """Every multiple of ``step`` from ``lo`` to ``hi``."""
    first = math.ceil(lo / step - 1e-9)
    return [round(k * step, 12) for k in range(first, math.floor(hi / step + 1e-9) + 1)]


def tick_text(value: float, comma: bool) -> str:
    """A number as a colour bar or a tooltip writes it: six significant digits as the lab spells
    them (``ui.text.num``: no trailing zeros, no sign on a zero, a decimal comma in French), a
    true minus sign."""
    return num(value, 6, "fr" if comma else "en", "g").replace("-", MINUS)
