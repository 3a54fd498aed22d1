"""Page 2: score every query against every key, S = Q·Kᵀ (chapter 8, cell 2)."""

import streamlit as st

import llm
from llm.attention import attention_scores, dot, transpose
from ui.draw.heatmaps import heatmap
from ui.draw.sections import folded, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure
from ui.frame.page import frame
from ui.text import md_escape, num, translator
from ui.text.scores import TEXT
from ui.turn.panel import your_turn

s = frame("page_scores")
t = translator(TEXT, s.lang)
head, labels = s.lab.trace.heads[s.head], s.lab.labels
scores = head.scores

st.title(t("title"), anchor=False)
st.latex(r"S = Q K^\top,\qquad S_{ij} = q_i \cdot k_j = \sum_{d} Q_{id}\, K_{jd}")
st.write(t("intro"))
st.caption(t("raw"))

show_figure(
    heatmap(
        scores,
        labels,
        labels,
        title=t("scores_map", t=len(labels)),
        signed=True,
        x_title=t("key"),
        y_title=t("query"),
        look=Look.of(s),
    ),
    key="scores_map",
)
matrix_table(scores, labels, labels, name="S", key=f"scores_h{s.head}", lang=s.lang)

st.subheader(t("sym_head"), anchor=False)
st.write(t("sym_why"))
i, j, gap = llm.most_asymmetric_pair(scores)
left, right = st.columns(2)
left.metric(t("asymmetry"), num(float(llm.asymmetry(scores)), 3, s.lang), help=t("asymmetry_help"))
right.metric(t("gap"), num(float(gap), 3, s.lang), help=t("gap_help"))
if len(labels) == 1:
    st.info(t("one_token"))
elif gap == 0.0:
    st.info(t("symmetric"))
else:
    st.info(
        t(
            "pair",
            a=md_escape(labels[i]),
            b=md_escape(labels[j]),
            i=i,
            j=j,
            sij=num(float(scores[i, j]), 3, s.lang),
            sji=num(float(scores[j, i]), 3, s.lang),
        )
    )

if (box := folded(t("code"), key="scores_code")) is not None:
    with box:
        show_code(dot, transpose, attention_scores)

your_turn(s.lang, s.lab, "scores", s.head, s.causal)
