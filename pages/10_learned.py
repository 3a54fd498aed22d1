"""Page 10: the tiny transformer the lab trained, its heads on a sentence, through training."""

from pathlib import Path

import numpy as np
import streamlit as st

import llm
from llm import behaviour
from llm.checkpoints import MODEL_FILE
from llm.head_scores import ROLE_THRESHOLD, induction_target
from ui.draw.bars_markup import bars_markup
from ui.draw.heatmap_table import figures_box
from ui.draw.lines_markup import LINES_CSS
from ui.draw.markup import show_markup
from ui.draw.sections import folded, folded_when_presenting
from ui.draw.style import Look
from ui.draw.tables import number_table
from ui.frame.controls import in_link, keep_in_link, start_on
from ui.frame.page import frame
from ui.frame.url_values import Choice, IntRange, Refused, Sizes, Value, short
from ui.lessons.learned import checkpoint, model_run, role_text
from ui.lessons.learned_maps import SMALL_CSS, focused_markup, heads_markup
from ui.lessons.learned_training import predictions, step_style, training_markup
from ui.text import md_escape, num, translator
from ui.text.learned import TEXT

DEFAULT_SENTENCE = "the cat sat on the mat . the cat sat on the mat"
# the page's controls rerun their section alone: kept for the session, written to the link
# by in_link (ui.frame.controls)
KEPT = {"persist_state": "session"}


class Sentence(Value):
    """The page's own sentence in the URL: any text; the page itself names the words the model
    cannot read (with the vocabulary) and shows the default sentence instead."""

    def parse(self, raw: str, sizes: Sizes) -> str:
        return raw


class Position(IntRange):
    """The position read, a whole number the model's context holds; anything else (a word, a
    negative number) gets the page's own message, as one out of range does."""

    def parse(self, raw: str, sizes: Sizes) -> int:
        try:
            return super().parse(raw, sizes)
        except Refused as refused:
            if refused.code != "bad_int":
                raise
            raise Refused("bad_range", value=short(raw), **self.fields(sizes)) from None


try:
    final = checkpoint(step=None)
    problem = None
except llm.LabError as err:  # a missing or unreadable file: the page says so, the app goes on
    final, problem = None, err
steps = final.steps if final is not None else (0,)
STEP = Choice("step", steps, default=steps[-1], message=(TEXT, "step_fixed"))
SENTENCE = Sentence("sentence", default=DEFAULT_SENTENCE)
# the position read: any place the model's context holds; past the sentence it means the last
# word (the default, 31, means the last word whatever the sentence)
last_place = (final.max_len if final is not None else 1) - 1
POSITION = Position("position", 0, last_place, default=last_place, message=(TEXT, "position_fixed"))
# the head drawn large, "L1H2" (layer 1, head 2); by default the best induction head at the last
# training step
spec = final.spec if final is not None else None
HEADS = tuple(
    f"L{layer}H{head}"
    for layer in range(spec.n_layers if spec else 1)
    for head in range(spec.n_heads if spec else 1)
)
best = behaviour.best_heads(final.history, steps[-1]) if final is not None else None
FIRST = f"L{int(best['induction_layer'])}H{int(best['induction_head'])}" if best else HEADS[0]
FOCUS = Choice("focus", HEADS, default=FIRST, message=(TEXT, "focus_fixed"))
s = frame("page_learned", values=(SENTENCE, STEP, POSITION, FOCUS), uses=())
t = translator(TEXT, s.lang)


def n(x: float, digits: int = 2) -> str:
    return num(x, digits, s.lang)


def named(best: dict[str, float]) -> dict[str, str | int]:
    """The best previous-token and induction heads' scores and places, as the texts name them."""
    return {
        "prev": n(best["previous"]),
        "pl": int(best["previous_layer"]),
        "ph": int(best["previous_head"]),
        "ind": n(best["induction"]),
        "il": int(best["induction_layer"]),
        "ih": int(best["induction_head"]),
    }


# the small heads' and the lines' style, once a page: the sections below rerun alone
show_markup(SMALL_CSS + LINES_CSS)
st.title(t("title"), anchor=False)
# presenter mode: what the model is and how it was trained fold away, and the step slider
# stands beside the sentence, so that the heads' chart starts on a 1280 × 720 projector's
# first screen
about = st.expander(t("about_model")) if s.present else st.container()
about.info(t("trained"), icon=":material/school:")
if final is None:
    name = Path(str(problem.params.get("path", MODEL_FILE))).name
    st.error(t(f"err_{problem.code}", name=name), icon=":material/error:")
    st.stop()
history = final.history
about.write(
    t(
        "intro",
        n_layers=spec.n_layers,
        n_heads=spec.n_heads,
        d_head=spec.d_head,
        d_model=spec.d_model,
        n_vocab=len(final.vocab),
        steps=steps[-1],
    )
)


def sentence_and_step() -> tuple[list[int], list[str], list[str], int]:
    """The sentence (a text the model cannot read said why and replaced by the default one)
    and the training step, the loss and the best heads there under it: (ids, words, labels,
    step)."""
    sentence_box, step_box = st.columns([3, 2], gap="large") if s.present else (st, st)
    # the frame reads a missing sentence as "" (any text is a sentence): the default, then
    linked = "sentence" in st.query_params or "sentence" in st.session_state
    start_on(SENTENCE, s.value("sentence") if linked else DEFAULT_SENTENCE)
    start_on(STEP, s.value("step"))
    text = sentence_box.text_input(
        t("sentence"),
        value=DEFAULT_SENTENCE,
        max_chars=llm.MAX_CHARS,
        help=t("sentence_help", max_len=final.max_len),
        key="sentence",
        **KEPT,
    )
    in_link(SENTENCE, text)
    sentence_box.caption(t("vocab", n=len(final.vocab), words=md_escape(" ".join(final.vocab))))
    try:
        ids = final.encode(text)
    except llm.LabError as err:
        fields = dict(err.params)
        if err.code == "unknown_words":
            fields = {"words": ", ".join(f"“{md_escape(w)}”" for w in err.params["words"])}
        st.warning(t(f"err_{err.code}", n=len(final.vocab), **fields), icon=":material/warning:")
        ids = final.encode(DEFAULT_SENTENCE)
    words = [final.vocab[i] for i in ids]
    step = step_box.select_slider(
        t("step"),
        options=list(steps),
        value=s.value("step"),
        help=t("step_help", count=len(steps), last=steps[-1]),
        key="step",
        **KEPT,
    )
    in_link(STEP, step)
    loss = n(behaviour.loss_at(history, np.array([step]))[0])
    step_box.write(t("now", step=step, loss=loss, **named(behaviour.best_heads(history, step))))
    return ids, words, llm.token_labels(words), step


def position_slider(last: int) -> int:
    """The position whose next word is read; one past the sentence's last word reads that word.
    The link leaves out the last word's position, as it means the last word."""
    ss = st.session_state
    asked = ss.get("position", s.value("position"))  # the session's, or the link's on a first visit
    if (
        asked > last
    ):  # past the sentence's last word: that word (a shorter sentence, or the default)
        if asked != POSITION.default:
            st.info(t("position_past", value=asked, last=last), icon=":material/info:")
        asked = last
    ss["position"] = asked
    position = 0
    if last > 0:
        position = st.slider(
            t("position"), 0, last, value=last, help=t("position_help"), key="position", **KEPT
        )
    keep_in_link("position", str(position), str(last))
    return position


@st.fragment
def next_word(step: int, ids: tuple[int, ...], words: list[str], labels: list[str]) -> None:
    """What comes next, a section that reruns alone: the position read and the model's top
    five next words there, at ``step``."""
    position = position_slider(len(ids) - 1)
    st.write(t("predictions_intro", word=md_escape(labels[position]), i=position))
    look = Look.of(s)
    chart = predictions(
        step=step, ids=ids, position=position, lang=s.lang, phone=look.phone, scale=look.scale
    )
    show_markup(figures_box([bars_markup(chart, key="predictions")], label=t("predictions")))
    target = induction_target(list(ids), position)
    if target is not None:
        st.caption(
            t("repeat_note", word=md_escape(words[position]), after=md_escape(words[target]))
        )


def training() -> None:
    """What training did: when the induction head formed, and the loss around it; the
    training charts under it mark the step chosen above (``step_style``, in its section)."""
    st.subheader(t("training"), anchor=False)
    n_vocab = len(final.vocab)
    st.write(t("training_intro", n_vocab=n_vocab, ln_v=n(float(np.log(n_vocab)))))
    formed = behaviour.formation(history)
    if formed is None:
        st.write(t("not_formed"))
        return
    at, layer, head = formed
    before, after = max(0, at - 100), min(steps[-1], at + 100)
    around = behaviour.loss_at(history, np.array([before, after]))
    fields = {"before": n(around[0]), "after": n(around[1])}
    fields |= {"step_before": before, "step_after": after}
    st.write(t("formed", layer=layer, head=head, step=at, **fields))


def place(focus: str) -> tuple[int, int]:
    """The (layer, head) of a head's id: "L1H2" -> (1, 2)."""
    layer, head = focus.removeprefix("L").split("H")
    return int(layer), int(head)


def head_picker(step: int) -> str:
    """The head drawn large, each named with what it does at ``step``: its id, "L1H2"."""
    roles = behaviour.roles_at(history, step)
    start_on(FOCUS, s.value("focus"))
    focus = st.radio(
        t("focus"),
        HEADS,
        format_func=lambda k: t("head_title", layer=place(k)[0], head=place(k)[1]),
        captions=[role_text(*roles[layer][head], s.lang) for layer, head in map(place, HEADS)],
        help=t("focus_help"),
        key="focus",
        **KEPT,
    )
    in_link(FOCUS, focus)
    return focus


def pattern_table(step: int, ids: tuple[int, ...], layer: int, head: int) -> None:
    """The large head's numbers as a table, folded: every cell, where the figure prints them
    only when its cells hold a number."""
    title = t("focus_table", layer=layer, head=head)
    if (box := folded(title, key="learned_pattern_table", icon=":material/table:")) is None:
        return
    pattern = model_run(step=step, ids=ids).layers[layer].heads[head].pattern
    labels = llm.token_labels([checkpoint(step=step).vocab[i] for i in ids])
    with box:  # the masked future is 0, as on the lesson pages' tables
        number_table(pattern, labels, labels, lang=s.lang, label=title, digits=2)


@st.fragment
def heads(step: int, ids: tuple[int, ...]) -> None:
    """Every head at ``step``, a section that reruns alone for its picker: the head picked drawn
    large beside the picker (under it where the column is narrow), the colour scale over its
    cells; every head small under them, the one drawn large outlined."""
    picker_box, head_box = st.columns([1, 2], gap="medium")
    with picker_box:
        focus = head_picker(step)
    layer, head = place(focus)
    look = Look.of(s)
    drawn = {"step": step, "ids": ids, "lang": s.lang, "phone": look.phone, "scale": look.scale}
    with head_box:
        # held: where the column is too narrow for it, the picker stands above it
        show_markup(focused_markup(layer=layer, head=head, **drawn), held=True)
        pattern_table(step, ids, layer, head)
    st.caption(t("overview"))
    show_markup(heads_markup(focus=HEADS.index(focus), **drawn))


@st.fragment
def model_at_step() -> None:
    """The sentence, the step and everything they change, a section that reruns alone: the
    heads (their picker a section of its own), what comes next (its position a section of its
    own) and where the training charts mark the step. What does not change with the step (how
    training went) stands under the section, so that a step does not send it again."""
    ids, words, labels, step = sentence_and_step()
    st.subheader(t("patterns", step=step), anchor=False)
    # presenter mode: how to read the heads folds away, so that they start on the first screen
    with folded_when_presenting(t("read_heads"), s.present):
        st.write(t("patterns_intro", threshold=n(ROLE_THRESHOLD, 1)))
    heads(step, tuple(ids))
    st.write(t("composition"))
    st.subheader(t("predictions"), anchor=False)
    next_word(step, tuple(ids), words, labels)
    # the training charts stand under the section, drawn once: the step moves their dashed line
    look = Look.of(s)
    show_markup(step_style(step=step, lang=s.lang, phone=look.phone, scale=look.scale))


model_at_step()
training()
look = Look.of(s)
show_markup(training_markup(lang=s.lang, phone=look.phone, scale=look.scale))

# --- the shipped model's numbers -------------------------------------------------------------
numbers = history.behaviour
st.subheader(t("behaviour_title"), anchor=False)
st.markdown(
    t(
        "behaviour",
        last=steps[-1],
        **named(numbers),
        acc_rep=n(numbers["accuracy_repeat"]),
        acc_first=n(numbers["accuracy_first_half"]),
        chance=n(numbers["chance"], 3),
        s0p=n(numbers["step0_previous"]),
        s0i=n(numbers["step0_induction"]),
    )
)
st.caption(t("caveat"))
