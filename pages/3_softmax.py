"""Page 3: scale by sqrt(d_k), hide the future, softmax each row (chapter 8, cell 3)."""

import math

import streamlit as st

import llm
from llm.attention import scale_mask_softmax, softmax
from ui.compute import head_agreement
from ui.exercise import your_turn
from ui.frame import frame
from ui.heatmaps import heatmap
from ui.sections import folded, show_code
from ui.tables import matrix_table
from ui.text import translator
from ui.text.softmax import TEXT
from ui.wire import show_figure

s = frame("page_softmax")
t = translator(TEXT, s.lang)
head = s.lab.trace.heads[s.head]
labels, d_k = s.lab.labels, s.cfg.d_head

st.title(t("title"), anchor=False)
st.latex(
    r"A = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right),\quad "
    r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
)
st.write(t("intro"))
st.info(t("mask") if s.causal else t("no_mask"))

axes = {"x_title": t("key"), "y_title": t("query"), "masked_label": t("masked_cell")}
hidden = ~s.lab.trace.mask  # True where a query may not look: j > i under the mask
figures = [
    (
        "scaled",
        head.scaled,
        {"title": t("scaled", d_k=d_k, sqrt_dk=math.sqrt(d_k)), "signed": True},
    ),
    ("masked", head.scaled, {"title": t("masked"), "signed": True, "masked": hidden}),
    ("pattern", head.pattern, {"title": t("pattern"), "zmin": 0.0, "zmax": 1.0, "masked": hidden}),
]
if not s.causal:  # nothing is hidden: the masked matrix would repeat the scaled one
    figures.pop(1)
for column, (key, matrix, style) in zip(st.columns(len(figures)), figures, strict=True):
    with column:
        show_figure(heatmap(matrix, labels, labels, **style, **axes), key=key)

pattern_tab, scaled_tab = st.tabs(["A", "S / √d_k"])
with pattern_tab:
    matrix_table(head.pattern, labels, labels, name="A", key=f"pattern_h{s.head}")
with scaled_tab:
    matrix_table(head.scaled, labels, labels, name="S / √d_k", key=f"scaled_h{s.head}")
st.caption(t("row_sums") + ": " + ", ".join(f"{v:.6f}" for v in llm.row_sums(head.pattern)))

if (box := folded(t("code"), key="softmax_code")) is not None:
    with box:
        cfg = s.cfg
        agreement = head_agreement(
            s.text, cfg.d_model, cfg.n_heads, cfg.seed, s.causal, cfg.embeddings, s.head
        )
        st.caption(t("engine_note", diff=f"{agreement['pattern']:.1e}"))
        show_code(softmax, scale_mask_softmax)

your_turn(s.lang, s.lab, "softmax", s.head, s.causal)
