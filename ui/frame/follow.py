"""Following one token through a page: its URL value, its chips, its row outlined in heatmaps.

Pages 3, 4 and 5 share one ``token`` value (the followed token's position, from 0: the last
token by default, as it may read the whole sentence). The chips are keyboard operable (Tab to
them, arrow keys, Enter or Space). A click on a heatmap cannot pick a row: Streamlit's chart
selections return no points for heatmaps (streamlit/streamlit#8760).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ui.draw.wire import Spec, derived_layout
from ui.frame.url_values import IntRange, Sizes
from ui.text import md_escape, translator
from ui.text.follow import TEXT

OUTLINE = "#ff2e88"  # a magenta no colour scale of the app uses: it reads on viridis and red-blue
OUTLINE_WIDTH = 3


def last_token(sizes: Sizes) -> int:
    """The default: the last token, which may read the whole sentence under the mask."""
    return sizes.n_tokens - 1


TOKEN = IntRange("token", 0, last_token, default=last_token, message=(TEXT, "reset"))


def token_chips(labels: Sequence[str], lang: str, picked: int) -> int:
    """One chip per token of the sentence, ``picked`` (the frame's repaired ``token``) chosen:
    returns the chosen position. The chips show the words, as text (a token is never markup);
    the URL holds the position (``?token=2``), written here, as a chip's URL value would be
    the word.
    Shapes: labels T -> a position in 0..T-1.
    """
    t = translator(TEXT, lang)
    ss = st.session_state
    positions = list(range(len(labels)))
    if ss.get("token") not in positions:
        ss["token"] = picked  # a first visit, or a value the frame has just repaired
    chosen = st.pills(
        t("pick"),
        positions,
        format_func=lambda i: md_escape(labels[i]),
        required=True,
        help=t("help"),
        wrap=True,  # in a column (page 3) the chips would stay on one row, cut at its edge
        key="token",
        persist_state="session",
    )
    i = positions[-1] if chosen is None else int(chosen)
    if i == positions[-1]:  # the default: a link without ?token means the last token
        st.query_params.pop("token", None)
    else:
        st.query_params["token"] = str(i)
    return i


def outline_row(fig: Spec, i: int, plots: int = 1) -> Spec:
    """``fig`` with a frame around row ``i`` of each of its ``plots`` heatmaps (a heatmap, or a
    grid of them whose plot k sits on axes x{k+1}/y{k+1}): a new figure sharing ``fig``'s
    traces, so the cells are not touched and ``fig`` itself is left as it was.

    Shapes: row i of an R-row heatmap spans y = i - 0.5 to i + 0.5 on its category axis.
    """
    frames = []
    for k in range(plots):
        suffix = "" if k == 0 else str(k + 1)
        frames.append(
            {
                "type": "rect",
                "xref": f"x{suffix} domain",
                "x0": 0,
                "x1": 1,
                "yref": f"y{suffix}",
                "y0": i - 0.5,
                "y1": i + 0.5,
                "line": {"color": OUTLINE, "width": OUTLINE_WIDTH},
                "layer": "above",
                "name": "followed",
            }
        )
    layout = fig["layout"]
    # a new figure on the same traces: ``fig`` stays as it was (a kept one is shared, read-only)
    shapes = [*layout.get("shapes", ()), *frames]
    return {**fig, "layout": derived_layout(layout, shapes=shapes)}


def followed_rows(fig: Spec) -> list[tuple[str, float]]:
    """The (y axis, row) of every outline in a figure: what a test or a reader can check."""
    return [
        (shape["yref"], (shape["y0"] + shape["y1"]) / 2)
        for shape in fig["layout"].get("shapes", ())
        if shape.get("name") == "followed"
    ]


def following(labels: Sequence[str], i: int, lang: str) -> str:
    """The sentence that says which token is followed (its label as text, never markup)."""
    return translator(TEXT, lang)("following", label=md_escape(labels[i]), i=i)
