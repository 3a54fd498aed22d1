"""Page 6: the heads side by side, then one projection W_O to mix them (chapter 9, cell 1)."""

import streamlit as st

from llm.attention import matmul
from llm.nn import combine_heads, concat_heads
from ui.draw.labels import feature_labels, head_feature_labels
from ui.draw.sections import folded, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure
from ui.frame.page import frame
from ui.lessons.concat import concat_figures, indexed
from ui.text import translator
from ui.text.concat import TEXT
from ui.turn.panel import your_turn

s = frame("page_concat")
t = translator(TEXT, s.lang)
look = Look.of(s)
trace, labels, cfg, params = s.lab.trace, s.lab.labels, s.cfg, s.lab.params
n_tokens, n_heads, d_head, d_model = len(labels), cfg.n_heads, cfg.d_head, cfg.d_model
concat_cols = head_feature_labels(n_heads, d_head)  # h0·0, h0·1, h1·0, ...
out_cols = feature_labels(d_model)
# concat, W_O and attn_out, built once per setting and look (ui.lessons.concat)
figures = concat_figures(s.setting, look)
names = [indexed(t("head_name"), h) for h in range(n_heads)]
row = ", ".join(names if n_heads <= 4 else [*names[:2], "…", names[-1]])  # head₀, head₁, …, head₁₅

st.title(t("title"), anchor=False)
st.latex(r"\mathrm{concat} = [\, z_0 \mid z_1 \mid \cdots \mid z_{H-1} \,]")
st.latex(r"\mathrm{attn\_out} = \mathrm{concat} \cdot W_O")
st.write(t("intro"))
st.write(t("step1", row=row, n_heads=n_heads, d_head=d_head, d_model=d_model))
st.write(t("step2", d_model=d_model))
st.info(t("why"))
if n_heads == 1:
    st.caption(t("one_head"))

st.subheader(t("concat_title"), anchor=False)
st.write(t("concat_intro"))
show_figure(figures["concat"], key="concat")
st.caption(t("concat_caption"))

st.subheader(t("wo_title"), anchor=False)
show_figure(figures["w_o"], key="w_o")
st.caption(t("wo_caption"))

st.subheader(t("out_title"), anchor=False)
show_figure(figures["attn_out"], key="attn_out")
st.write(t("out_caption", n_heads=n_heads) if n_heads > 1 else t("out_caption_one"))

if (box := folded(t("tables"), key="concat_tables")) is not None:
    with box:
        matrix_table(trace.concat, labels, concat_cols, name="concat", key="concat", lang=s.lang)
        matrix_table(params.W_O, concat_cols, out_cols, name="W_O", key="w_o", lang=s.lang)
        matrix_table(trace.attn_out, labels, out_cols, name="attn_out", key="attn_out", lang=s.lang)

if (box := folded(t("code"), key="concat_code")) is not None:
    with box:
        show_code(concat_heads, combine_heads, matmul)

your_turn(s.lang, s.lab, "combine", s.head, s.causal)
