"""Page 9: the readable modules as they are, and their numbers against the engine's."""

import numpy as np
import streamlit as st

import llm.attention
import llm.compare
import llm.nn
from llm.compare import QUANTITIES, agree
from ui.draw.labels import feature_labels
from ui.draw.sections import lazy_tabs, show_code
from ui.draw.tables import matrix_table, number_table, shape_text
from ui.frame.page import frame
from ui.lab.compute import compare_lab
from ui.text import translator
from ui.text.code import TEXT
from ui.turn.panel import your_turn

EPS = llm.LN_EPS  # the chapter's eps; page 7 lets you vary it

s = frame("page_code")
t = translator(TEXT, s.lang)
labels, h = s.lab.labels, s.head
cfg = s.cfg
readable, engine_out, differences = compare_lab(s.setting, EPS)

st.title(t("title"), anchor=False)
st.latex(t("formula"))
st.write(t("intro"))

st.subheader(t("compare"), anchor=False)
st.write(t("compare_intro", eps=f"{EPS:g}"))
number_table(
    np.array([[differences[name]] for name in QUANTITIES]),
    [shape_text(name, np.asarray(engine_out[name])) for name in QUANTITIES],
    [t("largest")],
    lang=s.lang,
    label=t("compare"),
    # two decimals of the mantissa, as the prose writes them (a decimal comma in French)
    kinds={t("largest"): (2, "e")},
)
if agree(differences):
    st.success(t("agree"), icon=":material/check_circle:")
else:
    st.error(t("disagree"), icon=":material/error:")

st.subheader(t("beside"), anchor=False)
features = feature_labels(s.cfg.d_model)
for title, name, mine, theirs, cols in (
    (t("pattern", h=h), "pattern", readable["pattern"][h], engine_out["pattern"][h], labels),
    ("ln_out", "ln_out", readable["ln_out"], engine_out["ln_out"], features),
):
    st.markdown(f"**{title}**")
    # side by side where a table's columns fit half the column (the T × T pattern); d_model
    # columns of six decimals one under the other, so that none is cut or scrolls at 1280 px
    left, right = st.columns(2) if len(cols) <= len(labels) else (st.container(), st.container())
    with left:
        st.caption(t("readable"))
        matrix_table(
            np.asarray(mine), labels, cols, name=name, key=f"{name}_readable", digits=6, lang=s.lang
        )
    with right:
        st.caption(t("engine"))
        matrix_table(theirs, labels, cols, name=name, key=f"{name}_engine", digits=6, lang=s.lang)

st.subheader(t("sources"), anchor=False)
st.write(t("sources_intro"))
sources = (llm.attention, llm.nn, llm.compare)
tabs = lazy_tabs([t("attention_tab"), t("nn_tab"), t("compare_tab")], "code_sources")
for tab, module in zip(tabs, sources, strict=True):
    if tab is not None:  # only the module shown is sent
        with tab:
            show_code(module)

st.write(t("why"))

your_turn(s.lang, s.lab, "attention", s.head, s.causal)
