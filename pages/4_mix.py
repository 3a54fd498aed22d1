"""Page 4: mix the values, output = A·V, and follow one token (chapter 8, cell 4)."""

import numpy as np
import streamlit as st

import llm
from llm.attention import causal_attention, mix_values
from ui.draw.labels import feature_labels
from ui.draw.sections import folded, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table, number_table
from ui.draw.wire import show_figures
from ui.frame.follow import TOKEN, outline_row, token_chips
from ui.frame.page import frame
from ui.lab.compute import head_agreement
from ui.lessons.mix import mix_figures
from ui.text import md_escape, num, translator
from ui.text.mix import TEXT
from ui.turn.panel import your_turn

# TOKEN: the followed token's position (?token=2), shared with pages 3 and 5
s = frame("page_mix", values=(TOKEN,))
t = translator(TEXT, s.lang)
head, labels, d_head = s.lab.trace.heads[s.head], s.lab.labels, s.cfg.d_head
v_cols, z_cols = feature_labels(d_head, "v"), feature_labels(d_head, "z")

st.title(t("title"), anchor=False)
st.latex(r"Z = A\,V,\qquad z_i = \sum_{j} A_{ij}\, v_j")
st.write(t("intro"))
st.write(t("whole"))


def mix_maps(i: int) -> None:
    """A, V and Z side by side, row ``i`` outlined in each, and V and Z as tables."""
    # A, V and Z, built once per setting, head and look (ui.lessons.mix)
    figures = mix_figures(s.setting, Look.of(s), s.head)
    # side by side, each at its cells' own size, wrapping where the row is full
    show_figures([(outline_row(fig, i), key) for key, fig in figures.items()], key="mix_maps")
    left, right = st.columns(2)
    with left:
        matrix_table(head.v, labels, v_cols, name="V", key=f"v_h{s.head}", lang=s.lang)
    with right:
        matrix_table(head.z, labels, z_cols, name="Z", key=f"z_h{s.head}", lang=s.lang)


def token_output(i: int) -> None:
    """Token ``i``'s output row built from its pattern row times each value row, and their sum
    checked against Z's row."""
    st.subheader(t("follow_head"), anchor=False)
    st.markdown(t("picked", label=md_escape(labels[i]), i=i))
    st.caption(t("token_help"))
    contributions = llm.value_contributions(head.pattern, head.v, i)  # [T, d_head]
    rows = [
        f"{num(float(p), 3, s.lang)} × v({label})"
        for p, label in zip(head.pattern[i], labels, strict=True)
    ]
    st.markdown(f"**{t('contrib_head', i=i)}**")
    st.caption(t("contrib_caption", i=i))
    name, key = f"A[{i}][j] × v_j", f"contrib_h{s.head}_t{i}"
    matrix_table(contributions, rows, v_cols, name=name, key=key, lang=s.lang)
    if s.causal and i < len(labels) - 1:
        st.caption(t("masked_note", i=i))
    st.markdown(f"**{t('sum_head')}**")
    total = llm.column_sums(contributions)  # [d_head]
    sum_rows = [t("sum_row", i=i), t("z_row", i=i)]
    table = np.stack([total, head.z[i]])
    number_table(table, sum_rows, z_cols, lang=s.lang, label=t("sum_head"), digits=6)
    diff = num(llm.max_abs_diff(total, head.z[i]), 1, s.lang, "e")
    st.metric(t("check", i=i), diff, help=t("check_help"))


@st.fragment
def followed() -> None:
    """The followed token, a section that reruns alone: its chips, its row outlined in the three
    heatmaps, and its output rebuilt."""
    i = token_chips(labels, s.lang, s.value("token"))
    mix_maps(i)
    token_output(i)


followed()

with st.expander(t("why")):
    st.markdown(t("why_body"))
    st.caption(t("why_note"))

if (box := folded(t("code"), key="mix_code")) is not None:
    with box:
        cfg = s.cfg
        agreement = head_agreement(s.setting, s.head)
        st.caption(t("engine_note", diff=num(agreement["z"], 1, s.lang, "e")))
        show_code(mix_values, causal_attention)

your_turn(s.lang, s.lab, "mix", s.head, s.causal)
