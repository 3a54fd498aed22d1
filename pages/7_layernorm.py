"""Page 7: the residual connection, then LayerNorm on every row (chapter 9, cells 3 and 4)."""

import numpy as np
import streamlit as st

import llm
from llm.nn import add, layer_norm, residual_layer_norm, row_stats
from ui.draw.labels import feature_labels
from ui.draw.markup import show_markup
from ui.draw.sections import folded, folded_when_presenting, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table, number_table
from ui.frame.controls import in_link, start_on, value_in_words
from ui.frame.page import frame
from ui.frame.url_values import Choice, Refused, Sizes
from ui.lab.compute import layer_norm_agreement
from ui.lessons.layernorm import layernorm_maps
from ui.text import num, translator
from ui.text.layernorm import TEXT
from ui.turn.panel import your_turn

EPS_OPTIONS = [1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]
EPS_DEFAULT = llm.LN_EPS  # the chapter's value


def eps_label(eps: float) -> str:
    """The number as the slider, the URL and the prose write it: 1e-5, 0.001, 1 (``num``'s
    short exponent: a bound slider writes its label into the link)."""
    return num(eps, 6, "en", "g")


class EpsChoice(Choice):
    """eps from a link: the slider's spelling, or any other spelling of an offered number
    (1e-05, the label before exponents lost their padding zero, or 0.00001)."""

    def parse(self, raw: str, sizes: Sizes) -> float:
        try:
            return super().parse(raw, sizes)
        except Refused as refused:
            try:
                value = float(raw.strip())
            except ValueError:
                raise refused from None
            if value not in EPS_OPTIONS:
                raise
            return EPS_OPTIONS[EPS_OPTIONS.index(value)]


EPS = EpsChoice(
    "eps", EPS_OPTIONS, default=EPS_DEFAULT, format=eps_label, message=(TEXT, "bad_eps")
)
s = frame("page_layernorm", values=(EPS,))
t = translator(TEXT, s.lang)
look = Look.of(s)
x, attn_out, labels = s.lab.x, s.lab.trace.attn_out, s.lab.labels
features = feature_labels(s.cfg.d_model)

st.title(t("title"), anchor=False)
st.latex(r"\mathrm{resid} = X + \mathrm{attn\_out}")
st.latex(r"\mathrm{ln\_out}_i = \frac{\mathrm{resid}_i - \mu_i}{\sqrt{\sigma_i^2 + \varepsilon}}")
# presenter mode: why the residual and LayerNorm fold away, so that the four matrices start on a
# 1280 × 720 projector's first screen, as /depth's and /learned's introductions do
with folded_when_presenting(t("why"), s.present):
    # the introduction, its two reasons and the two fixes: one element
    reasons = f"- {t('reason_gradient')}\n- {t('reason_drift')}"
    st.markdown("\n\n".join([t("intro"), reasons, t("residual"), t("layernorm")]))


def eps_slider() -> float:
    """The eps slider, started on the link's number whatever its spelling (eps=1e-05,
    eps=0.00001): the link then takes the slider's own spelling. In French a caption beside it
    writes eps with a decimal comma (beside, not under: the first chart stays on a projector's
    first screen)."""
    start_on(EPS, s.value("eps"))
    box, words = st.columns([3, 2], vertical_alignment="center") if s.lang == "fr" else (st, None)
    eps = box.select_slider(
        t("eps"),
        options=EPS_OPTIONS,
        value=EPS_DEFAULT,
        format_func=eps_label,
        help=t("eps_help"),
        key="eps",
        persist_state="session",  # in the link through in_link: the section reruns alone
    )
    in_link(EPS, eps)
    if words is not None:  # the slider's labels are the link's spelling: the caption says 0,001
        low, high = eps_label(EPS_OPTIONS[0]), eps_label(EPS_OPTIONS[-1])
        words.caption(t("eps_value", eps=num(eps, 6, s.lang, "g"), low=low, high=high))
    return eps


def row_stats_section(stats_box: str, resid: np.ndarray, ln_out: np.ndarray) -> None:
    """Each row's mean and std before and after LayerNorm: two charts (``stats_box``) and their
    table."""
    mean_before, std_before = llm.row_stats(resid)
    mean_after, std_after = llm.row_stats(ln_out)
    st.subheader(t("stats"), anchor=False)
    st.write(t("stats_intro"))
    # side by side where both fit, one under the other where not (a phone, a narrow window)
    show_markup(stats_box)
    st.caption(t("means_after"))
    stats_cols = [t("mean_before"), t("std_before"), t("mean_after"), t("std_after")]
    # six decimals, so a std of 0.99999 does not read as 1; the mean after in scientific notation,
    # so its -2.8e-17 shows what "0 up to floating-point precision" means (an exact 0 reads "0")
    number_table(
        np.column_stack([mean_before, std_before, mean_after, std_after]),
        labels,
        stats_cols,
        lang=s.lang,
        label=t("stats"),
        digits=6,
        kinds={t("mean_after"): (1, "e")},
    )
    st.info(t("std_below"))
    st.caption(t("eps_role"))
    st.write(t("helpers"))
    st.write(t("invariant"))


def folds(eps: float, resid: np.ndarray, ln_out: np.ndarray) -> None:
    """The four matrices as tables and the readable code, each folded until opened."""
    if (box := folded(t("tables"), key="layernorm_tables")) is not None:
        with box:
            matrix_table(x, labels, features, name="X", key="x", lang=s.lang)
            matrix_table(attn_out, labels, features, name="attn_out", key="attn_out", lang=s.lang)
            matrix_table(resid, labels, features, name="resid", key="resid", lang=s.lang)
            matrix_table(ln_out, labels, features, name="ln_out", key="ln_out", lang=s.lang)
    if (box := folded(t("code"), key="layernorm_code")) is not None:
        with box:
            agreement = layer_norm_agreement(s.setting, eps)
            st.caption(t("engine_note", diff=num(max(agreement.values()), 1, s.lang, "e")))
            show_code(add, layer_norm, residual_layer_norm, row_stats)


@st.fragment
def with_eps() -> None:
    """eps and everything it changes, a section that reruns alone: the four matrices, the row
    statistics, the tables and the readable code's agreement."""
    eps = eps_slider()
    resid, ln_out = llm.residual_layer_norm(x, attn_out, eps=eps)
    matrices, stats_box = layernorm_maps(s.setting, look, eps)
    st.subheader(t("matrices"), anchor=False)
    # two a row where the column holds them, else one: never scrolling sideways
    show_markup(matrices)
    row_stats_section(stats_box, resid, ln_out)
    folds(eps, resid, ln_out)


value_in_words("eps", s.lang)  # in French, the slider's labels give way to a caption
with_eps()
# the cell checks on the page's eps: read when Check is pressed, as the slider reruns alone
your_turn(
    s.lang, s.lab, "add_norm", s.head, s.causal, lambda: st.session_state.get("eps", EPS_DEFAULT)
)
