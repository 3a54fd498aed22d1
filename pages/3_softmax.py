"""Page 3: scale by sqrt(d_k), hide the future, softmax each row (chapter 8, cell 3), and what
changes with a temperature or without √d_k."""

from contextlib import nullcontext

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import llm
from llm.attention import scale_mask_softmax, softmax
from ui.draw.markup import show_markup
from ui.draw.sections import folded, lazy_tabs, show_code
from ui.draw.style import Look
from ui.draw.tables import matrix_table
from ui.draw.wire import show_figure
from ui.frame.controls import in_link, start_on, value_in_words
from ui.frame.follow import TOKEN, following, token_chips
from ui.frame.page import frame
from ui.frame.url_values import Flag, FloatRange
from ui.lab.compute import compute_lab, head_agreement, scaling_lab
from ui.lessons.softmax import softmax_maps, why_sqrt_figure
from ui.text import num, translator
from ui.text.softmax import TEXT
from ui.turn.panel import your_turn

TEMPERATURE = FloatRange("temperature", llm.MIN_TEMPERATURE, llm.MAX_TEMPERATURE, default=1.0)
# the slider's stops, about evenly spaced on a log scale: τ and 1/τ mirror each other around the
# chapter's τ = 1, which stands in the middle of the track (on a track from 0.05 to 20 in steps
# of 0.05 it stood at 5 % of it, and a drag never came back to it exactly)
TAU_BELOW_ONE = (0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7)
TAU_ABOVE_ONE = (1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0)  # each near 1/τ of its mirror below
TAU_STOPS = (*TAU_BELOW_ONE, 1.0, *TAU_ABOVE_ONE)
SCALE = Flag("scale", default=True)
# the chapter's formula and its mask
FORMULA = r"A = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right)"
MASK = r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
s = frame("page_softmax", values=(TEMPERATURE, SCALE, TOKEN))
t = translator(TEXT, s.lang)
labels = s.lab.labels
n_tokens = len(labels)


def formulas(*parts: str) -> str:
    """LaTeX for formulas side by side, or on a phone one under the other: side by side, the
    chapter's formula and its mask (or τ) are wider than a phone's screen."""
    if s.phone:
        return r"\begin{gathered}" + r" \\ ".join(parts) + r"\end{gathered}"
    return r",\quad ".join(parts)


st.title(t("title"), anchor=False)
st.latex(formulas(FORMULA, MASK))
st.write(t("intro"))
st.info(t("mask") if s.causal else t("no_mask"))


def tau_stops(current: float) -> tuple[float, ...]:
    """The slider's stops, with ``current`` among them: a link's or the teacher's τ between two
    stops (0.37) is shown as it is, a stop of its own, not moved to the nearest."""
    return tuple(sorted({*TAU_STOPS, float(current)}))


def what_if_controls() -> tuple[float, bool, DeltaGenerator | None]:
    """The temperature and the √d_k switch, side by side: (τ, with √d_k, the token chips'
    column in presenter mode, else None)."""
    # presenter mode: the token chips share the controls' row, so that the charts start on the
    # projector's first screen
    if s.present:
        tau_col, scale_col, chips_col = st.columns([3, 2, 4], vertical_alignment="bottom")
    else:
        tau_col, scale_col = st.columns([3, 2], vertical_alignment="bottom")
        chips_col = None  # under the what-if's note and formula
    start_on(TEMPERATURE, s.value("temperature"))
    start_on(SCALE, s.value("scale"))
    tau = tau_col.select_slider(
        t("temperature"),
        options=tau_stops(st.session_state["temperature"]),
        value=1.0,
        format_func=TEMPERATURE.label,  # the link's spelling, in every language (see below)
        help=t("temperature_help"),
        key="temperature",
        persist_state="session",  # in the link through in_link: the section reruns alone
    )
    in_link(TEMPERATURE, tau)
    if s.lang == "fr":
        # the slider's own labels are the link's spelling (0.5) in every language: the browser
        # sends a stop back by its label, and a label that changed with the language would not
        # be found again; in French they give way to a caption that writes the decimal comma
        # (value_in_words, outside the section)
        low, high = num(llm.MIN_TEMPERATURE, 2, s.lang), num(llm.MAX_TEMPERATURE, 0, s.lang)
        tau_col.caption(t("temperature_value", tau=num(tau, 2, s.lang), low=low, high=high))
    scale = scale_col.toggle(
        t("scale"),
        value=True,
        help=t("scale_help"),
        key="scale",
        persist_state="session",
    )
    in_link(SCALE, scale)
    return tau, scale, chips_col


def moved_note(tau: float, scale: bool) -> None:
    """What the what-ifs changed, and the formula they compute."""
    # presenter mode: the note and its formula side by side, one line for both
    note_box, tex_box = st.columns(2, vertical_alignment="center") if s.present else (st, st)
    note_box.info(
        t("moved", tau=num(tau, 2, s.lang), no_scale="" if scale else t("no_scale_part")),
        icon=":material/science:",
    )
    divided = r"\tau\sqrt{d_k}" if scale else r"\tau"
    formula = rf"A = \mathrm{{softmax}}\!\left(\frac{{Q K^\top}}{{{divided}}} + M\right)"
    tau_tex = f"{tau:g}".replace(".", "{,}") if s.lang == "fr" else f"{tau:g}"
    tex_box.latex(formulas(formula, rf"\tau = {tau_tex}"))


def maps(tau: float, scale: bool, token: int, head: llm.HeadTrace) -> None:
    """S, the mask and A side by side, the row entropies and what they reach."""
    # side by side, each at its own size, wrapping onto the next row where the row is full:
    # markup the server writes, which the browser sets as it is on every temperature
    show_markup(softmax_maps(s.setting, Look.of(s), s.head, tau, scale, token))
    entropy = llm.row_entropy(head.pattern)
    ceiling = llm.max_row_entropy(n_tokens, s.causal)
    st.caption(
        t(
            "entropy_caption",
            mean=num(float(entropy.mean()), 3, s.lang),
            top=num(float(ceiling.mean()), 3, s.lang),
            keys_rule=t("keys_causal")
            if s.causal
            else (t("keys_all", t=n_tokens) if n_tokens > 1 else t("keys_one")),
        )
    )


def tables(head: llm.HeadTrace) -> None:
    """A and S/√d_k as tables (built when their tab opens), and A's row sums."""
    pattern_tab, scaled_tab = lazy_tabs(["A", "S / √d_k"], key="softmax_tables")
    if pattern_tab is not None:
        with pattern_tab:
            matrix_table(
                head.pattern, labels, labels, name="A", key=f"pattern_h{s.head}", lang=s.lang
            )
    if scaled_tab is not None:
        with scaled_tab:
            matrix_table(
                head.scaled, labels, labels, name="S / √d_k", key=f"scaled_h{s.head}", lang=s.lang
            )
    sums = ("\u00a0; " if s.lang == "fr" else ", ").join(
        num(float(v), 6, s.lang) for v in llm.row_sums(head.pattern)
    )
    st.caption(t("row_sums", sums=sums))


def why_sqrt() -> None:
    """Why √d_k: the spread of q·k as d_k grows, on this lab's X and seed."""
    st.subheader(t("why_title"), anchor=False)
    st.write(t("why_intro"))
    show_figure(why_sqrt_figure(setting=s.setting, look=Look.of(s)), key="why_sqrt_dk")
    sweep = scaling_lab(s.setting)
    if sweep.exponent == sweep.exponent:  # NaN for one token: every spread is 0
        st.caption(t("why_caption", p=num(sweep.exponent, 2, s.lang)))
    else:
        st.caption(t("why_one_token"))


def readable_code(tau: float, scale: bool, moved: bool) -> None:
    """The readable code (folded), and how close it comes to the engine at these what-ifs."""
    if (box := folded(t("code"), key="softmax_code")) is not None:
        with box:
            agreement = head_agreement(s.setting, s.head, tau, scale)
            diff = num(agreement["pattern"], 1, s.lang, "e")
            if moved:
                no_scale = "" if scale else t("no_scale_readable")
                st.caption(t("engine_note_whatif", diff=diff, no_scale=no_scale))
            else:
                st.caption(t("engine_note", diff=diff))
            show_code(softmax, scale_mask_softmax)


@st.fragment
def what_ifs() -> None:
    """The what-ifs and everything they change, a section that reruns alone: the temperature,
    the √d_k switch and the token chips, S, the mask, A and its entropies, the tables, the
    readable code's agreement and the note on the exercise. Its heading and introduction, and
    the √d_k measurement, depend on none of them: they stand outside it, and are not sent
    again on a change (each element a section sends costs the browser a render of the page)."""
    tau, scale, chips_col = what_if_controls()
    moved = tau != 1.0 or not scale
    # the chapter's formula (τ = 1, with √d_k) is the frame's own lab, the one every page shows
    lab = compute_lab(s.setting, tau, scale) if moved else s.lab
    head = lab.trace.heads[s.head]
    if moved:
        moved_note(tau, scale)
    with chips_col if chips_col is not None else nullcontext():
        i = token_chips(labels, s.lang, s.value("token"))
        st.caption(following(labels, i, s.lang))
    maps(tau, scale, i, head)
    tables(head)
    readable_code(tau, scale, moved)
    if moved:
        st.info(t("turn_note"), icon=":material/info:")


# --- the what-ifs: a temperature and the √d_k switch (the chapter: τ = 1, with √d_k)
st.subheader(t("whatif"), anchor=False)
st.write(t("whatif_intro"))
value_in_words("temperature", s.lang)  # in French, the slider's labels give way to a caption
what_ifs()
why_sqrt()
your_turn(s.lang, s.lab, "softmax", s.head, s.causal)  # the chapter's lab: τ = 1, with √d_k
