"""Home page: what the lab is, the sentence as tokens, the steps with their shapes."""

import streamlit as st

from ui.classroom.join import join_box
from ui.draw.markup import show_markup
from ui.draw.tables import html_table, text_table
from ui.frame.navigation import linked
from ui.frame.page import frame
from ui.text import translator
from ui.text.home import TEXT

BEYOND_CSS = """<style>
.st-key-beyond [data-testid="stPageLink-NavLink"] { align-items: flex-start; height: auto; }
.st-key-beyond [data-testid="stPageLink-NavLink"] p { white-space: normal; line-height: 1.5; }
</style>"""

s = frame("home")
t = translator(TEXT, s.lang)
T, d, h, dh = len(s.lab.tokens), s.cfg.d_model, s.cfg.n_heads, s.cfg.d_head

st.title(t("title"), anchor=False)
st.subheader(t("tagline"), anchor=False)
# presenter mode folds the sidebar away: its controls are in the bar at the top
st.write(t("intro", where=t("where_bar" if s.present else "where_sidebar")))
st.info(t("turn"), icon=":material/edit_note:")
join_box(s.lang)  # a student types the code the teacher shows

st.markdown(f"**{t('tokens')}**")
# one row, a column per position
positions = [str(i) for i in range(len(s.lab.labels))]
show_markup(html_table(positions, None, [s.lab.labels], label=t("tokens")))

st.markdown(f"**{t('steps')}**")
steps = [
    ("s_x", "X", f"[{T} × {d}]", "page_qkv"),
    ("s_qkv", "Q = X·W_Q,  K = X·W_K,  V = X·W_V", f"{h} × [{T} × {dh}]", "page_qkv"),
    ("s_scores", "S = Q·Kᵀ", f"{h} × [{T} × {T}]", "page_scores"),
    ("s_softmax", "A = softmax(S/√d_k + M)", f"{h} × [{T} × {T}]", "page_softmax"),
    ("s_mix", "Z = A·V", f"{h} × [{T} × {dh}]", "page_mix"),
    ("s_concat", "[Z₀ | Z₁ | …]", f"[{T} × {d}]", "page_concat"),
    ("s_wo", "attn_out = concat·W_O", f"[{T} × {d}]", "page_concat"),
    ("s_resid", "resid = X + attn_out", f"[{T} × {d}]", "page_layernorm"),
    ("s_ln", "(resid − μ) / √(σ² + ε)", f"[{T} × {d}]", "page_layernorm"),
]
columns = ("col_step", "col_formula", "col_shape", "col_page")
# the page by its number, as the navigation numbers it: the names made the table wider than
# a 150 % zoom's column of 521 px, which cut the last column
rows = [
    (t(step), formula, shape, s.t(page).partition(".")[0]) for step, formula, shape, page in steps
]
# a table of text: its cells wrap in a narrow column, where a dataframe's were cut
text_table([t(name) for name in columns], rows, key="steps")
st.page_link(linked("pages/1_qkv.py"), label=t("start"), icon=":material/play_arrow:")

# beyond the chapters' cells: experiments to run on the same numbers, one line and a link each
st.markdown(f"**{t('beyond')}**")
BEYOND = [
    ("pages/3_softmax.py", "beyond_temperature", ":material/thermostat:"),
    ("pages/3_softmax.py", "beyond_sqrt", ":material/functions:"),
    ("pages/4_mix.py", "beyond_follow", ":material/ads_click:"),
    ("pages/5_heads.py", "beyond_headview", ":material/share:"),
    ("pages/8_depth.py", "beyond_depth", ":material/layers:"),
    ("pages/10_learned.py", "beyond_learned", ":material/school:"),
]
# a link's label stays on one line in Streamlit and was cut at the column's edge: these wrap,
# their icon level with the first line
st.html(BEYOND_CSS)
with st.container(key="beyond"):
    for path, key, icon in BEYOND:
        st.page_link(linked(path), label=t(key), icon=icon)

with st.expander(t("caveat_title")):
    st.write(t("caveat"))
