"""Page 1: project X into queries, keys and values (chapter 8, cell 1)."""

import streamlit as st

import llm
from llm.attention import dot, matmul
from ui.draw.labels import feature_labels
from ui.draw.sections import folded, lazy_tabs, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure, show_pieces
from ui.frame.page import frame
from ui.lessons.qkv import features_of, qkv_figures
from ui.text import md_escape, translator
from ui.text.qkv import TEXT
from ui.turn.panel import your_turn

s = frame("page_qkv")
t = translator(TEXT, s.lang)
look = Look.of(s)
h, cfg = s.head, s.cfg
head, params, labels = s.lab.trace.heads[h], s.lab.params, s.lab.labels
handmade = cfg.embeddings == "handmade"
features = features_of(s.setting, s.lang)
# X and the head's Q, K, V, built once per setting and look (ui.lessons.qkv)
x_map, qkv_pieces = qkv_figures(s.setting, look, h)

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
left, right = st.columns(2)
with left:
    show_figure(x_map, key="x_map")
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
projected = {"Q": head.q, "K": head.k, "V": head.v}  # their tables, under the figures
# one figure where it fits the column, else pieces that wrap, never scrolling sideways
show_pieces(qkv_pieces, key="qkv_map")
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
