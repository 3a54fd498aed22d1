"""The words of a chart's text alternative (``ui.draw.describe``): titles as plain words,
numbers, lists and clauses in each language, a figure's plot and axis titles, and the longest
sentence that a screen reader says whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ui.text import MINUS, num, translator
from ui.text.describe import TEXT

Spec = dict[str, Any]  # a figure as plotly.js reads it: {"data": [trace, ...], "layout": {...}}
LIMIT = 300  # characters: a name a screen reader says whole
MANY_LABELS = 8  # more row or column labels than this: their count, not their names
MANY_PLOTS = 6  # more plots than this in one figure: one summary, not a clause a plot
MANY_BARS = 12  # more bars than this: the largest and the smallest only

_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
GLOSS = re.compile(r"\s*\([^()]*\)$")  # "query (who looks)" -> "query"


def plain(text: Any) -> str:
    """A title of ours as words: plotly's line breaks as spaces, its tags left out."""
    if not text:
        return ""
    return " ".join(_TAG.sub("", _BREAK.sub(" ", str(text or ""))).split())


def figure_lang(fig: Spec) -> str:
    """The language a figure writes its numbers in: French where its decimal mark (plotly's
    ``separators``, ``Look.separators``) is a comma, else English."""
    return "fr" if str(fig["layout"].get("separators", ".")).startswith(",") else "en"


def fitted(options: Sequence[str]) -> str:
    """The first of these sentences (the most detailed first) of at most LIMIT characters with
    its full stop, else the last one cut there."""
    short = next((text for text in options if len(text) < LIMIT), None)
    return f"{short}." if short is not None else options[-1][: LIMIT - 1].rstrip() + "…"


class Words:
    """The words of one language: texts, numbers, quotes, lists of items and of clauses."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.t = translator(TEXT, lang)

    def number(self, x: float) -> str:
        """Two decimals (1.00, 0,05 in French), a very small or large one as 1.2e−5, with the
        cells' minus sign (U+2212, read aloud as "minus")."""
        usual = x == 0 or 0.01 <= abs(x) < 1e5
        return (num(x, 2, self.lang) if usual else num(x, 1, self.lang, "e")).replace("-", MINUS)

    def named(self, kind: str, title: str) -> str:
        """A chart's kind and its title in quotes: Heatmap “A”; the kind alone without one."""
        return f"{kind} {self.t('quoted', text=title)}" if title else kind

    def items(self, items: Sequence[str]) -> str:
        """Items that may hold numbers: "a = 0.5, b = 1.5"; in French "a = 0,5 ; b = 1,5"."""
        return self.t("items").join(items)

    def joined(self, clauses: Sequence[str]) -> str:
        """Clause; clause; ... (in French: clause. Clause. ...), the empty ones left out."""
        sep, parts = self.t("clauses"), [c for c in clauses if c]
        if sep.strip() == "." and parts:  # each clause after a full stop starts a sentence
            parts = [parts[0], *(c[:1].upper() + c[1:] for c in parts[1:])]
        return sep.join(parts)

    def clauses(self, head: str, clauses: Sequence[str]) -> str:
        """``head``: clause; clause; ... (``joined``); ``head`` alone without a clause."""
        body = self.joined(clauses)
        return self.t("named", name=head, body=body) if body else head


def plot_titles(fig: Spec) -> dict[str, str]:
    """Each plot's title by its x axis's suffix ("" for x, "2" for x2, ...): the layout's title
    for a figure of one plot, else the annotation over the plot (a grid's, line panels', two
    bar charts side by side)."""
    layout, data = fig["layout"], fig["data"]
    suffixes = list(dict.fromkeys(str(trace.get("xaxis", "x"))[1:] for trace in data))
    title = plain(layout.get("title", {}).get("text"))
    if title and len(suffixes) == 1:
        return {suffixes[0]: title}
    paper = ("paper", "paper")
    notes = [a for a in layout.get("annotations", ()) if (a.get("xref"), a.get("yref")) == paper]
    out: dict[str, str] = {}
    for suffix in suffixes:
        left, right = layout.get(f"xaxis{suffix}", {}).get("domain", (0.0, 1.0))
        top = layout.get(f"yaxis{suffix}", {}).get("domain", (0.0, 1.0))[1]
        above = [
            (float(a.get("y", 1.0)) - top, k)
            for k, a in enumerate(notes)
            if left - 0.01 <= float(a.get("x", 0.5)) <= right + 0.01
            and float(a.get("y", 1.0)) >= top - 0.01
        ]
        if above:  # the nearest over the plot (a layer's name may stand higher)
            out[suffix] = plain(notes.pop(min(above)[1]).get("text"))
    return out


def axis_titles(layout: dict) -> dict[str, str]:
    """Every titled axis's title by its name ("xaxis2"), and by its letter ("x") the first of
    that letter's: read once a figure (a grid of 16 heads asks for 32)."""
    titles: dict[str, str] = {}
    for key, axis in layout.items():
        title = axis.get("title") if key[1:5] == "axis" and isinstance(axis, dict) else None
        if isinstance(title, dict) and (text := plain(title.get("text"))):
            titles[key] = text
            titles.setdefault(key[0], text)
    return titles


def axis_title(titles: dict[str, str], letter: str, suffix: str) -> str:
    """A plot's axis title among ``axis_titles``: its own axis's, else the figure's first of
    that letter (a grid titles only its edge plots' axes)."""
    return titles.get(f"{letter}axis{suffix}") or titles.get(letter, "")
