"""A chart's text alternative, read from its figure: what it shows and its extremes at this setting.

Sentences from the most detailed to the shortest; the first of at most LIMIT characters is said
(``ui.draw.describe_words``). Titles lose plotly's markup (``<b>``, ``<br>``); labels stay as
written (Streamlit escapes alt).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ui.draw.describe_words import (
    GLOSS,
    MANY_BARS,
    MANY_LABELS,
    MANY_PLOTS,
    Spec,
    Words,
    axis_title,
    axis_titles,
    fitted,
    plain,
    plot_titles,
)


def describe(fig: Spec, lang: str) -> str:
    """The text alternative of ``fig`` in ``lang``: what it shows at this setting, at most
    LIMIT characters (``fitted``)."""
    words = Words(lang)
    kinds = {trace.get("type", "scatter") for trace in fig["data"]}
    for kind, options in (("heatmap", _heatmap_options), ("bar", _bar_options)):
        if kind in kinds:
            return fitted(options(fig, words))
    if "scatter" in kinds:
        return fitted(_line_options(fig, words))
    return fitted(
        [words.named(words.t("chart"), plain(fig["layout"].get("title", {}).get("text")))]
    )


@dataclass(frozen=True)
class _Map:
    """One heatmap plot as read from its trace: its title, cells (NaN: masked), labels and axis
    titles (their gloss left out: "query", not "query (who looks)")."""

    title: str
    z: np.ndarray
    rows: list[str]
    cols: list[str]
    y_title: str
    x_title: str

    @property
    def masked(self) -> int:
        return int(np.isnan(self.z).sum())

    def extreme(self, largest: bool) -> tuple[float, str, str] | None:
        """The largest (or smallest) value and its row's and column's labels, the first in
        reading order; None when every cell is masked."""
        finite = np.isfinite(self.z)
        if not finite.any():
            return None
        filled = np.where(finite, self.z, -np.inf if largest else np.inf)
        i, j = divmod(int(filled.argmax() if largest else filled.argmin()), self.z.shape[1])
        return float(self.z[i, j]), self.rows[i], self.cols[j]


def _maps(fig: Spec) -> list[_Map]:
    """The figure's heatmap plots, in order (a colour scale drawn as cells left out)."""
    layout, titles = fig["layout"], plot_titles(fig)
    axes = axis_titles(layout)
    maps = []
    for trace in fig["data"]:
        if trace.get("type") != "heatmap" or trace.get("hoverinfo") == "skip":
            continue
        z = np.atleast_2d(np.asarray(trace["z"], dtype=np.float64))
        rows = [str(v) for v in trace.get("y", range(z.shape[0]))]
        cols = [str(v) for v in trace.get("x", range(z.shape[1]))]
        suffix = str(trace.get("xaxis", "x"))[1:]
        y_title = GLOSS.sub("", axis_title(axes, "y", suffix))
        x_title = GLOSS.sub("", axis_title(axes, "x", suffix))
        maps.append(_Map(titles.get(suffix, ""), z, rows, cols, y_title, x_title))
    return maps


def _shape(words: Words, m: _Map, detail: int, col_labels: bool = True) -> str:
    """The plot's rows × columns, its labels at ``detail`` 2 (the columns' only with
    ``col_labels``), its axis titles from 1."""
    t = words.t

    def side(n: int, one: str, many: str, labels: list[str] | None, title: str) -> str:
        count = t(one) if n == 1 else t(many, n=n)
        listed = detail >= 2 and labels is not None and len(labels) <= MANY_LABELS
        shown = ", ".join(labels) if listed else ""
        gloss = t("named", name=title, body=shown) if title and shown else shown
        gloss = gloss or (title if detail else "")
        return t("listed", name=count, labels=gloss) if gloss else count

    rows = side(len(m.rows), "row_one", "rows", m.rows, m.y_title)
    cols = side(len(m.cols), "col_one", "cols", m.cols if col_labels else None, m.x_title)
    return t("by", rows=rows, cols=cols)


def _extremes(words: Words, plots: list[tuple[_Map, str]], both: bool = True) -> list[str]:
    """Where the largest (and the smallest) value of these plots sits, and in which plot when
    it is named (a grid's summary)."""
    found = []
    for largest in (True, False)[: 2 if both else 1]:
        hits = [(hit, name) for m, name in plots if (hit := m.extreme(largest)) is not None]
        if not hits:
            return [words.t("all_masked")]
        (v, row, col), name = (max if largest else min)(hits, key=lambda h: h[0][0])
        key = ("largest" if largest else "smallest") + ("_in" if name else "")
        found.append(words.t(key, v=words.number(v), row=row, col=col, plot=name))
    return found


def _masked(words: Words, n: int, each: bool = False) -> str:
    """How many cells are masked (of each plot), nothing when none is."""
    key = ("masked_each" if each else "masked") + ("_one" if n == 1 else "")
    return words.t(key, n=n) if n else ""


def _heatmap_options(fig: Spec, words: Words) -> list[str]:
    """A heatmap's sentences (or a grid's, or a colour scale's), the most detailed first; the
    followed row outlined (``ui.frame.follow.outline_row``) said."""
    maps = _maps(fig)
    if not maps:
        return [_colour_scale(fig, words)]
    if len(maps) > 1:
        return _grid_options(maps, words)
    m, outlined = maps[0], ""
    for shape in fig["layout"].get("shapes", ()):
        if shape.get("name") == "followed" and 0 <= (i := round(shape["y0"] + 0.5)) < len(m.rows):
            outlined = words.t("outlined", row=m.rows[i])
    head, masked = words.named(words.t("heatmap"), m.title), _masked(words, m.masked)
    ends = _extremes(words, [(m, "")])
    return [
        words.clauses(head, [_shape(words, m, 2), masked, *ends, outlined]),
        words.clauses(head, [_shape(words, m, 1), masked, *ends, outlined]),
        words.clauses(head, [_shape(words, m, 0), masked, *ends]),
        words.clauses(head, [_shape(words, m, 0), ends[0]]),
    ]


def _grid_options(maps: list[_Map], words: Words) -> list[str]:
    """A grid's sentences: a clause a plot (MANY_PLOTS at most), else its plots' titles and
    where the largest and the smallest of all sit; the plots' shape once when they share it."""
    first, t = maps[0], words.t
    same = all(m.rows == first.rows and m.z.shape == first.z.shape for m in maps)
    same_cols = all(m.cols == first.cols for m in maps)
    counts = {m.masked for m in maps}
    masked = _masked(words, counts.pop(), each=True) if len(counts) == 1 else ""
    names = [t("quoted", text=m.title or t("plot", k=k + 1)) for k, m in enumerate(maps)]

    def head(detail: int) -> str:
        count = t("heatmaps", n=len(maps))
        return f"{count}, {_shape(words, first, detail, same_cols)}" if same else count

    def each(both: bool, detail: int) -> list[str]:
        return [
            words.clauses(
                name if same else f"{name}, {_shape(words, m, detail)}",
                [words.items(_extremes(words, [(m, "")], both))],
            )
            for name, m in zip(names, maps)
        ]

    listed = words.items(names)
    ends = _extremes(words, list(zip(maps, names)))
    summary = words.clauses(head(0), [masked, *ends])
    if len(maps) > MANY_PLOTS:
        return [summary]
    return [
        words.clauses(head(2), [masked, *each(True, 2)]),
        words.clauses(head(1), [masked, *each(True, 1)]),
        words.clauses(head(0), [masked, *each(False, 0)]),
        words.clauses(head(0), [masked, listed, *ends]),
        words.clauses(head(0), [masked, listed, ends[0]]),
        summary,
    ]


def _colour_scale(fig: Spec, words: Words) -> str:
    """A colour scale drawn as a strip of cells (``ui.lessons.learned``): its title, its range."""
    layout, z = fig["layout"], np.asarray(fig["data"][0]["z"], dtype=np.float64)
    axis = layout.get("coloraxis", {})
    low, high = (float(axis.get(k, f(z))) for k, f in (("cmin", np.nanmin), ("cmax", np.nanmax)))
    titles = [plain(note.get("text")) for note in layout.get("annotations", ())]
    head = words.named(words.t("colour_scale"), next((t for t in titles if t), ""))
    return words.clauses(head, [words.t("range", low=words.number(low), high=words.number(high))])


Bar = tuple[str, float, str]  # a bar: its category, its value, its series


def _drawn(values: Any) -> np.ndarray:
    """Which of ``values`` a chart draws, a mask: the numbers, not None (NaN here), NaN or
    infinite; one numpy pass (a line of a thousand points is read in microseconds)."""
    return np.isfinite(np.asarray(values, dtype=np.float64))


def _by_plot(fig: Spec, kind: str) -> dict[str, list[dict]]:
    """The figure's traces of ``kind`` by their plot's x axis suffix ("", "2", ...)."""
    plots: dict[str, list[dict]] = {}
    for trace in fig["data"]:
        if trace.get("type", "scatter") == kind:
            plots.setdefault(str(trace.get("xaxis", "x"))[1:], []).append(trace)
    return plots


def _bars(traces: list[dict]) -> list[Bar]:
    """A plot's bars in the order of their categories, the empty ones (None: a series that
    does not fill this category) left out."""
    order = {str(x): k for trace in traces[::-1] for k, x in enumerate(trace.get("x", ()))}
    bars = [
        (str(x), float(y), str(trace.get("name", "")))
        for trace in traces
        for x, y, drawn in zip(trace.get("x", ()), trace.get("y", ()), _drawn(trace.get("y", ())))
        if drawn
    ]
    return sorted(bars, key=lambda b: order[b[0]])


def _bar_plot(words: Words, title: str, bars: list[Bar], refs: list[str], detail: int) -> str:
    """One bar chart's sentence: every bar (at ``detail`` 2 and more, up to MANY_BARS), else
    their count, the largest and (from ``detail`` 1) the smallest; its reference lines at 3."""
    t, series = words.t, list(dict.fromkeys(name for _, _, name in bars))

    def bar(label: str, v: float, name: str, tagged: bool = True) -> str:
        tag = {"series": name} if tagged and len(series) > 1 else {}
        return t("bar_of" if tag else "bar", label=label, v=words.number(v), **tag)

    head = words.named(t("bars"), title)
    lines = [t("references", lines=words.items(refs))] if refs and detail >= 3 else []
    if detail >= 2 and len(bars) <= MANY_BARS:
        if len(series) == 1 or len({label for label, _, _ in bars}) == len(bars):
            return words.clauses(head, [words.items([bar(*b) for b in bars]), *lines])
        by_series = [
            t("named", name=name, body=words.items([bar(*b, False) for b in bars if b[2] == name]))
            for name in series
        ]
        return words.clauses(head, [*by_series, *lines])
    ends = [t("bar_largest", bar=bar(*max(bars, key=lambda b: b[1])))]
    if detail >= 1:
        ends.append(t("bar_smallest", bar=bar(*min(bars, key=lambda b: b[1]))))
    return words.clauses(head, [t("bar_count", n=len(bars)), *ends, *lines])


def _bar_options(fig: Spec, words: Words) -> list[str]:
    """A figure of bar charts' sentences (one, or two side by side), the most detailed first;
    a plot's reference lines are the notes across its x domain (``ui.draw.charts``)."""
    titles, refs = plot_titles(fig), {}
    for note in fig["layout"].get("annotations", ()):
        ref = str(note.get("xref", ""))
        if ref.startswith("x") and ref.endswith(" domain") and note.get("text"):
            refs.setdefault(ref.split()[0][1:], []).append(plain(note["text"]))
    plots = {s: bars for s, traces in _by_plot(fig, "bar").items() if (bars := _bars(traces))}
    return [
        words.joined(
            [_bar_plot(words, titles.get(s, ""), b, refs.get(s, []), d) for s, b in plots.items()]
        )
        or words.t("bars")
        for d in (3, 2, 1, 0)
    ]


def _series(words: Words, trace: dict, values: bool) -> str:
    """A line's name, and (``values``) its first and last drawn values."""
    y = np.asarray(trace.get("y", ()), dtype=np.float64)
    name, ys = plain(trace.get("name")), y[_drawn(y)].tolist()
    if not values or not ys:
        return name
    return words.t("series", name=name, first=words.number(ys[0]), last=words.number(ys[-1]))


def _line_options(fig: Spec, words: Words) -> list[str]:
    """Line panels' sentences: the x axis's range, then each plot's lines with their first and
    last values, and what a dashed line marks (its legend name); the most detailed first."""
    layout, titles, t, panels = fig["layout"], plot_titles(fig), words.t, _by_plot(fig, "scatter")
    suffix, traces = next(iter(panels.items()))
    x = np.asarray(traces[0].get("x", ()), dtype=np.float64)  # a layer, a step, a d_k
    xs = x[_drawn(x)].tolist()
    ends = [str(int(x)) if x.is_integer() else words.number(x) for x in xs[:1] + xs[-1:]]
    x_title = axis_title(axis_titles(layout), "x", suffix)
    span = t("series", name=x_title, first=ends[0], last=ends[-1]) if x_title and xs else ""
    marks = [
        plain(shape["name"])
        for shape in layout.get("shapes", ())
        if shape.get("showlegend") and shape.get("name") and shape.get("x0") == shape.get("x1")
    ]
    marked = t("marked", names=words.items(marks)) if marks else ""
    one = len(panels) == 1
    head = (
        words.named(t("lines"), titles.get(suffix, "")) if one else t("line_plots", n=len(panels))
    )

    def plots(values: bool) -> list[str]:
        said = [words.items([_series(words, tr, values) for tr in trs]) for trs in panels.values()]
        names = [
            t("quoted", text=titles.get(s) or t("plot", k=k + 1)) for k, s in enumerate(panels)
        ]
        return said if one else [t("named", name=n, body=b) for n, b in zip(names, said)]

    with_values = plots(True)
    return [
        words.clauses(head, [span, *with_values, marked]),
        words.clauses(head, [span, *with_values]),
        words.clauses(head, [span, *plots(False)]),
        head,
    ]
