"""Page 5: every head's pattern side by side, and how sharp each one is (chapter 9, cell 2)."""

import numpy as np
import streamlit as st

import llm
from llm import analysis
from llm.nn import attention_head, head_entropy, row_entropy
from ui.draw.charts import bar_chart
from ui.draw.headview import head_view_drawing, patterns_figures, show_head_view
from ui.draw.sections import folded, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure, show_pieces
from ui.frame.follow import TOKEN, following, token_chips
from ui.frame.page import frame
from ui.text import num, translator
from ui.text.heads import TEXT
from ui.turn.panel import your_turn

s = frame("page_heads", values=(TOKEN,))
t = translator(TEXT, s.lang)
trace, labels, cfg = s.lab.trace, s.lab.labels, s.cfg
n_tokens = len(labels)

entropies = [llm.head_entropy(head.pattern) for head in trace.heads]
kinds = [llm.classify_head(head.pattern, s.causal) for head in trace.heads]
full_max = llm.max_head_entropy(n_tokens, causal=False)  # ln T
reachable = llm.max_head_entropy(n_tokens, s.causal)

st.title(t("title"), anchor=False)
st.latex(r"H(A_i) = -\sum_j A_{ij} \ln A_{ij}")
st.latex(r"\bar H_h = \frac{1}{T} \sum_{i} H(A^{(h)}_i) \;\le\; \ln T")
st.write(t("intro"))
st.write(
    t(
        "setup",
        d_model=cfg.d_model,
        n_heads=cfg.n_heads,
        d_head=cfg.d_head,
        heads_word=t("head_one" if cfg.n_heads == 1 else "head_many"),
    )
)

if cfg.n_heads == 1:
    st.subheader(t("pattern_one"), anchor=False)
    st.info(t("one_head"))
else:
    st.subheader(t("patterns", n_heads=cfg.n_heads), anchor=False)
st.write(t("patterns_intro"))


@st.fragment
def head_view(look: Look, i: int) -> None:
    """The head view and its head picker, a section that reruns alone: a line per query-key pair
    of each head picked, token ``i`` followed."""
    view_col, pick_col = st.columns([3, 2])
    with pick_col:
        drawn = st.pills(
            t("headview_pick"),
            list(range(cfg.n_heads)),
            selection_mode="multi",
            default=[s.head],
            format_func=lambda h: t("bar_label", h=h),
            help=t("headview_help"),
            wrap=True,  # in a column the chips would stay on one row, cut where the column ends
            key=f"headview_heads_{cfg.n_heads}",  # another head count, another set of chips
        )
    with view_col:
        if drawn:
            view = head_view_drawing(s.setting, look, heads=tuple(sorted(drawn)), token=i)
            show_head_view(view, key="headview")
        else:
            st.info(t("headview_none"), icon=":material/info:")
    if drawn:
        pairs = int(trace.mask.sum())
        heads_word = t("head_one" if len(drawn) == 1 else "head_many")
        pick_col.caption(
            t(
                "headview_lines",
                lines=pairs * len(drawn),  # one line per unmasked pair and head drawn
                pairs=pairs,
                heads=f"{len(drawn)} {heads_word}",
            )
        )


@st.fragment
def followed() -> None:
    """The followed token, a section that reruns alone: its chips, its row outlined in every
    head's pattern, and the head view (itself a section of its own for the head picker)."""
    i = token_chips(labels, s.lang, s.value("token"))
    st.caption(following(labels, i, s.lang))
    look = Look.of(s)
    # page 5's figures are built once for each setting and look (ui.draw.headview)
    pieces = patterns_figures(s.setting, look, token=i)
    # the grid's pieces side by side, wrapping onto the next row where the column ends
    show_pieces(pieces, key="patterns")
    st.subheader(t("headview"), anchor=False)
    st.write(t("headview_intro"))
    head_view(look, i)


followed()
look = Look.of(s)

st.subheader(t("entropy"), anchor=False)
one = n_tokens == 1  # "1 token", never "1 tokens"
tokens = t("tokens_one") if one else t("tokens_many", t=n_tokens)
all_tokens = t("all_one") if one else t("all_many", t=n_tokens)
st.write(t("entropy_intro", t=n_tokens, tokens=tokens, max=num(full_max, 2, s.lang)))
lines = [(full_max, t("line_max", t=n_tokens, value=num(full_max, 2, s.lang)))]
if s.causal:
    if n_tokens > 1:  # one token: both maxima are 0, and two labels would overlap
        lines.append((reachable, t("line_causal", value=num(reachable, 2, s.lang))))
    st.info(
        t(
            "causal_max",
            t=n_tokens,
            max=num(full_max, 2, s.lang),
            causal_max=num(reachable, 2, s.lang),
        )
    )
else:
    st.info(t("full_max", t=n_tokens, all_tokens=all_tokens, max=num(full_max, 2, s.lang)))
# one series per kind of head, so the colour (and the legend) says sharp, mixed or diffuse
by_kind = {
    t(kind): [e if k == kind else None for e, k in zip(entropies, kinds)]
    for kind in ("sharp", "mixed", "diffuse")
}
show_figure(
    bar_chart(
        by_kind,
        [t("bar_label", h=h) for h in range(cfg.n_heads)],
        title=t("bars"),
        y_title=t("bars_y"),
        lines=lines,
        barmode="relative",
        look=look,
    ),
    key="entropy_bars",
)

st.markdown(f"**{t('rows')}**")
row_table = np.column_stack(
    [
        *(llm.row_entropy(head.pattern) for head in trace.heads),
        llm.max_row_entropy(n_tokens, s.causal),
    ]
)
matrix_table(
    row_table,
    labels,
    [t("bar_label", h=h) for h in range(cfg.n_heads)] + [t("row_max")],
    name="H",
    key="row_entropy",
    lang=s.lang,
)
st.caption(t("rows_caption"))

st.write(t("found_one" if cfg.n_heads == 1 else "found"))
st.caption(t("random"))
st.warning(t("caveat"), icon=":material/info:")

if (box := folded(t("code"), key="heads_code")) is not None:
    with box:
        show_code(attention_head, row_entropy, head_entropy)
        show_code(
            analysis.max_row_entropy,
            analysis.max_head_entropy,
            analysis.head_sharpness,
            analysis.classify_head,
        )

your_turn(s.lang, s.lab, "entropy", s.head, s.causal)
