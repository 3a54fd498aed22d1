"""The head view (bertviz's classic view): who looks at whom, as lines between two token columns.

The sentence stands twice: the queries on the left, the keys on the right, token 0 on top. One
line per pair (i, j) the mask lets through, from query i to key j, its opacity the probability
pattern[i, j] (drawn to the nearest tenth; the exact value rides with the line); one colour per
head; masked pairs have no line at all. It reads the same ``Trace`` as the heatmaps. A followed
token's lines are drawn thicker, and its two labels bold.

Page 5's figures, the grid of every head's pattern and the head view, are built once per
setting and kept (``ui.wire.keep``): a rerun that changes nothing on them sends them as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

import llm
from ui.compute import compute_lab
from ui.follow import outline_row
from ui.grids import grid_figures
from ui.labels import label_px
from ui.style import MUTED, Look
from ui.text import num, translator
from ui.text.heads import TEXT
from ui.wire import Spec, fast_figure, keep

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
LINE_WIDTH = 2.0
FOLLOWED_WIDTH = 5.0
LEVELS = 10  # a line is drawn at its probability rounded to a tenth: 0, 0.1, ..., 1


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
) -> Spec:
    """Lines from each query (left) to the keys it may see (right), opacity = probability.

    ``patterns`` are every head's pattern (``[head.pattern for head in trace.heads]``), ``heads``
    the ones drawn, each in ``head_colour(h)`` and named in the legend by ``head_names[h]``.
    The lines of one head, one width and one opacity (the probability to the nearest tenth,
    LEVELS) are one line trace of segments apart by None: a few traces a head, which plotly
    draws faster than a layout shape per line (chromium, one head of 32 tokens 149 → 94 ms,
    sixteen heads 4.0 → 1.0 s). Each segment's two points carry (query i, key j, exact probability)
    as customdata (``lines_of`` reads them back); a head's traces share its legend group, so its
    legend entry shows or hides them. The token labels are two text traces, so they stay plain
    text. ``scale`` enlarges rows and text (a projector).
    Shapes: patterns H × [T, T], mask [T, T] (True = may look), labels T -> (len(heads) × pairs)
    lines.
    """
    t = len(labels)
    rows = np.arange(t, dtype=np.float64)  # y of token i; the axis is reversed: token 0 on top
    pairs = np.argwhere(np.asarray(mask, dtype=bool)).tolist()  # (query i, key j) pairs
    lines = []
    for h in heads:
        pattern = np.asarray(patterns[h]).tolist()
        groups: dict[tuple[bool, int], tuple[list, list, list]] = {}
        for i, j in pairs:
            p = pattern[i][j]
            x, y, data = groups.setdefault((i == followed, round(p * LEVELS)), ([], [], []))
            x += (0, 1, None)
            y += (i, j, None)
            data += ([i, j, p], [i, j, p], None)
        for (thick, level), (x, y, data) in sorted(groups.items()):
            lines.append(
                {"type": "scatter", "mode": "lines", "x": x, "y": y, "customdata": data}
                | {"opacity": level / LEVELS, "legendgroup": str(h), "showlegend": False}
                | {
                    "line": {
                        "color": head_colour(h),
                        "width": FOLLOWED_WIDTH if thick else LINE_WIDTH,
                    }
                }
                | {"hoverinfo": "skip"}
            )

    def column(x: float, side: str, title: str) -> dict:
        bold = [f"<b>{_plain(s)}</b>" if n == followed else _plain(s) for n, s in enumerate(labels)]
        return {
            "type": "scatter",
            "mode": "text",
            "x": [x] * t,
            "y": rows.tolist(),  # a list: a typed array is drawn twice
            "text": bold,
            "textposition": f"middle {side}",
            "textfont": {"size": round(13 * scale)},
            "hovertemplate": f"{title} %{{y}}<extra></extra>",
            "showlegend": False,
            "cliponaxis": False,
        }

    widest = max((label_px(str(s)) for s in labels), default=0.0) * scale
    margin = {"l": int(widest) + 24, "r": int(widest) + 24, "t": round(36 * scale), "b": 40}
    layout = {
        "xaxis": {"range": [-0.02, 1.02], "visible": False, "fixedrange": True},
        "yaxis": {
            "range": [t - 0.5, -0.5],  # reversed: token 0 on top
            "visible": False,
            "fixedrange": True,
        },
        "annotations": [
            {"text": query_title, "x": 0, "xanchor": "right", "xref": "x"}
            | {"y": 1, "yref": "paper", "yanchor": "bottom", "showarrow": False}
            | {"font": {"color": MUTED, "size": round(13 * scale)}},
            {"text": key_title, "x": 1, "xanchor": "left", "xref": "x"}
            | {"y": 1, "yref": "paper", "yanchor": "bottom", "showarrow": False}
            | {"font": {"color": MUTED, "size": round(13 * scale)}},
        ],
        "height": round(ROW_PX * scale) * t + margin["t"] + margin["b"] + 8,
        "margin": margin,
        "showlegend": True,
        "legend": {"orientation": "h", "x": 0.5, "xanchor": "center", "y": 0, "yanchor": "top"}
        | ({"font": {"size": Look(scale=scale).text_px(12)}} if scale > 1 else {}),
        "hovermode": "closest",
    }
    data = [column(0.0, "left", query_title), column(1.0, "right", key_title)]
    for h in heads:  # the legend: one entry per head drawn, in its colour (no points of its own)
        name = head_names[h] if h < len(head_names) else f"h{h}"
        data.append(
            {"type": "scatter", "mode": "lines", "x": [None], "y": [None], "name": name}
            | {"line": {"color": head_colour(h), "width": 3}, "hoverinfo": "skip"}
            | {"legendgroup": str(h)}
        )
    return fast_figure(lines + data, layout)


_MARKUP = str.maketrans({"<": "&lt;", ">": "&gt;", "&": "&amp;"})


def _plain(label: str) -> str:
    """A token label as plotly's text shows it: its own characters, never markup."""
    return str(label).translate(_MARKUP)


def lines_of(fig: Spec) -> list[dict]:
    """The figure's lines, one per drawn pair, what a test or a reader can check: each as
    ``{"x0": 0, "x1": 1, "y0": i, "y1": j, "query": i, "key": j, "opacity": exact probability,
    "drawn": the opacity it is drawn at, "line": {"color", "width"}}`` (y0, y1: where it is
    drawn; query, key: the pair its customdata names). Reads a figure as built or as sent."""
    out = []
    for trace in fig["data"]:
        if trace.get("mode") != "lines" or not trace.get("customdata"):
            continue
        for k in range(0, len(trace["customdata"]), 3):
            i, j, p = trace["customdata"][k]
            out.append(
                {
                    "x0": trace["x"][k],
                    "x1": trace["x"][k + 1],
                    "y0": trace["y"][k],
                    "y1": trace["y"][k + 1],
                }
                | {"query": i, "key": j, "opacity": p}
                | {"drawn": trace["opacity"], "line": dict(trace["line"])}
            )
    return out


# --- page 5's figures, once per setting ----------------------------------------------------------


@st.cache_resource(max_entries=16, show_spinner=False)
def _patterns(
    *,
    text: str,
    d_model: int,
    n_heads: int,
    seed: int,
    causal: bool,
    embeddings: str,
    lang: str,
    phone: bool,
    scale: float,
) -> tuple[Spec, ...]:
    """Every head's pattern in one grid, titled by its kind and mean entropy, in the pieces that
    wrap (``ui.grids.grid_figures``; kept, shared)."""
    t = translator(TEXT, lang)
    lab = compute_lab(text, d_model, n_heads, seed, causal, embeddings)
    trace, labels = lab.trace, lab.labels
    titles = [
        t(
            "head_title",
            h=h,
            label=t(llm.classify_head(head.pattern, causal)),
            entropy=num(llm.head_entropy(head.pattern), 2, lang),
        )
        for h, head in enumerate(trace.heads)
    ]
    pieces = grid_figures(
        [head.pattern for head in trace.heads],
        labels,
        [labels] * n_heads,
        titles,
        zmin=0.0,
        zmax=1.0,
        masked=~trace.mask,
        masked_label=t("masked_cell"),
        x_title=t("key"),
        y_title=t("query"),
        scale_title=t("scale"),
        look=Look(lang, phone, scale),
    )
    return tuple(keep(piece) for piece in pieces)


@st.cache_resource(max_entries=64, show_spinner=False)
def patterns_figures(*, token: int, **setting: object) -> tuple[Spec, ...]:
    """Page 5's grid of every head's pattern with row ``token`` outlined in each, in pieces
    (kept, shared; a piece's traces are one list for every token). ``setting``: the lab's text,
    d_model, n_heads, seed, causal and embeddings, and the look's lang, phone and scale."""
    return tuple(
        keep(outline_row(piece, token, plots=len(piece["data"]))) for piece in _patterns(**setting)
    )


@st.cache_resource(max_entries=64, show_spinner=False)
def head_view_figure(
    *,
    heads: tuple[int, ...],
    token: int,
    text: str,
    d_model: int,
    n_heads: int,
    seed: int,
    causal: bool,
    embeddings: str,
    lang: str,
    scale: float,
) -> Spec:
    """Page 5's head view of ``heads`` with ``token`` followed (kept, shared)."""
    t = translator(TEXT, lang)
    lab = compute_lab(text, d_model, n_heads, seed, causal, embeddings)
    view = head_view(
        [head.pattern for head in lab.trace.heads],
        lab.trace.mask,
        lab.labels,
        sorted(heads),
        followed=token,
        head_names=[t("bar_label", h=h) for h in range(n_heads)],
        query_title=t("headview_query"),
        key_title=t("headview_key"),
        scale=scale,
    )
    return keep(view)
