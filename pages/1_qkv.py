"""Page 1: project X into queries, keys and values (chapter 8, cell 1)."""

import streamlit as st

import llm
from llm.attention import dot, matmul
from ui.draw.grids import heatmap_grid
from ui.draw.heatmaps import heatmap
from ui.draw.labels import feature_labels
from ui.draw.sections import folded, lazy_tabs, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure
from ui.frame.page import frame
from ui.text import md_escape, pick, translator
from ui.text.qkv import FEATURES, TEXT
from ui.turn.panel import your_turn

s = frame("page_qkv")
t = translator(TEXT, s.lang)
look = Look.of(s)
h, cfg = s.head, s.cfg
head, params, labels = s.lab.trace.heads[h], s.lab.params, s.lab.labels
handmade = cfg.embeddings == "handmade"
features = (
    [pick(FEATURES, s.lang, name) for name in llm.HANDMADE_FEATURES]
    if handmade
    else feature_labels(cfg.d_model)
)

st.title(t("title"), anchor=False)
st.latex(r"Q = X W_Q,\quad K = X W_K,\quad V = X W_V")
st.write(t("intro"))
st.markdown(f"**{t('intuition')}**")
for column, name in zip(st.columns(3), ("queries", "keys", "values"), strict=True):
    column.markdown(t(name))

st.subheader(t("x_head"), anchor=False)
st.caption(
    t("x_handmade", features=", ".join(features))
    if handmade
    else t("x_seeded", d_model=cfg.d_model)
)
unknown = llm.unknown_handmade(s.lab.tokens) if handmade else []
if unknown:
    st.info(
        s.t("unknown_words", words=", ".join(md_escape(word) for word in unknown)),
        icon=":material/info:",
    )
axes = {"x_title": t("feature"), "y_title": t("token"), "look": look}
left, right = st.columns(2)
with left:
    show_figure(
        heatmap(
            s.lab.x,
            labels,
            features,
            title=t("x_map", t=len(labels), d_model=cfg.d_model),
            signed=True,
            **axes,
        ),
        key="x_map",
    )
with right:
    matrix_table(s.lab.x, labels, features, name="X", key="x", lang=s.lang)

st.subheader(t("w_head", head=h), anchor=False)
st.caption(t("w_caption", d_model=cfg.d_model, d_head=cfg.d_head))
weights = {"W_Q": params.W_Q[h], "W_K": params.W_K[h], "W_V": params.W_V[h]}
for tab, (name, w) in zip(lazy_tabs(list(weights), "qkv_weights"), weights.items(), strict=True):
    if tab is not None:  # only the tab shown is built
        prefix = name[-1].lower()
        with tab:
            matrix_table(
                w,
                features,
                feature_labels(cfg.d_head, prefix),
                name=name,
                key=f"w{prefix}_h{h}",
                lang=s.lang,
            )

st.subheader(t("qkv_head"), anchor=False)
st.caption(t("qkv_caption"))
projected = {"Q": head.q, "K": head.k, "V": head.v}
heatmap_grid(  # one figure where it fits the column: the browser draws each from scratch
    list(projected.values()),
    labels,
    [feature_labels(cfg.d_head, name.lower()) for name in projected],
    [t(f"{name.lower()}_map") for name in projected],
    key="qkv_map",  # wider than a narrow column: in pieces that wrap, never scrolling sideways
    look=look,
    signed=True,
    per_row=3,
    x_title=t("feature"),
    y_title=t("token"),
    scale_title=t("scale"),
)
tabs = lazy_tabs(list(projected), "qkv_projections")
for tab, (name, m) in zip(tabs, projected.items(), strict=True):
    if tab is not None:
        prefix = name.lower()
        with tab:
            matrix_table(
                m,
                labels,
                feature_labels(cfg.d_head, prefix),
                name=name,
                key=f"{prefix}_h{h}",
                lang=s.lang,
            )

if (box := folded(t("code"), key="qkv_code")) is not None:
    with box:
        show_code(dot, matmul)

your_turn(s.lang, s.lab, "qkv", s.head, s.causal)
