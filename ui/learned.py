"""The learned-heads page's calls into llm and its figures, cached on scalars only.

Defined in a module, not in the page script, so the caches' wrappers are built once per process
instead of on every rerun. Their arguments are keywords only: Streamlit names a positional
argument by reading the function's signature on every call, a keyword it reads as given.
A checkpoint, a run and a figure are each one shared, read-only object; the figures are
``kept`` (``ui.wire.keep``), so a rerun that shows them again sends the wire form built on their
first send instead of walking and writing their cells again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import llm
from llm import behaviour
from ui.charts import bar_chart
from ui.grids import grid_figure
from ui.lines import Panel, line_panels, marked
from ui.style import Look
from ui.text import num, translator
from ui.text.learned import TEXT
from ui.wire import Spec, keep

# the lesson pages' cells and numbers: at most two heads a row, as many as the column holds (one
# at 13 tokens beside the sidebar); a phone, one a row, its figure scrolling sideways in its box
PER_ROW = 2
PANEL_PX = {False: 240, True: 320}  # a score plot's height; a phone stacks them, with their axes


@st.cache_resource(max_entries=64, show_spinner=False)
def checkpoint(*, step: int | None) -> llm.TinyModel:
    """One shipped checkpoint, read once and shared read-only between sessions."""
    return llm.load_model(step=step)


@st.cache_resource(max_entries=256, show_spinner=False)
def model_run(*, step: int, ids: tuple[int, ...]) -> llm.ModelRun:
    """The model at ``step`` on one sentence, computed once per (step, sentence)."""
    return llm.run_model(checkpoint(step=step), ids)


@st.cache_resource(max_entries=256, show_spinner=False)
def heads_figure(*, step: int, ids: tuple[int, ...], lang: str, phone: bool, scale: float) -> Spec:
    """Every head's pattern on the sentence, titled by its role at ``step``, its cells as
    ``Look(lang, phone, scale)`` sizes them (read-only, shared)."""
    t = translator(TEXT, lang)
    model, run = checkpoint(step=step), model_run(step=step, ids=ids)
    labels = llm.token_labels([model.vocab[i] for i in ids])
    roles = behaviour.roles_at(model.history, step)
    patterns, titles = [], []
    for layer, trace in enumerate(run.layers):
        for head, head_trace in enumerate(trace.heads):
            role, score = roles[layer][head]
            patterns.append(head_trace.pattern)
            shown = "" if role == "diffuse" else f" ({num(score, 2, lang)})"
            titles.append(
                t("head_title", layer=layer, head=head, role=t(f"role_{role}"), score=shown)
            )
    grid = grid_figure(
        patterns,
        labels,
        [labels] * len(patterns),
        titles,
        look=Look(lang=lang, phone=phone, scale=scale),
        zmin=0.0,
        zmax=1.0,
        masked=~run.layers[0].mask,
        masked_label=t("masked_cell"),
        x_title=t("key"),
        y_title=t("query"),
        scale_title=t("scale"),
        per_row=PER_ROW,
        digits=1,
    )
    return keep(grid)


def _short(values: np.ndarray) -> list[float]:
    # nine significant digits: a measured score or loss, half the bytes of a float's repr
    return [float(f"{v:.9g}") for v in np.asarray(values, dtype=np.float64).tolist()]


@st.cache_resource(max_entries=8, show_spinner=False)
def _training_lines(*, lang: str, phone: bool, scale: float = 1.0) -> tuple[Spec, ...]:
    """The loss, then each layer's two scores of every head, along training (read-only, shared)."""
    t = translator(TEXT, lang)
    model = checkpoint(step=None)
    history, n_vocab = model.history, len(model.vocab)
    measured = history.score_steps
    chance = (float(np.log(n_vocab)), t("chance_line", n_vocab=n_vocab))
    loss = Panel(
        t("loss_title"),
        t("loss_y"),
        {t("loss_title"): _short(behaviour.loss_at(history, measured))},
        levels=[chance],
    )
    look = Look(lang=lang, phone=phone, scale=scale)  # French axes read 0,5
    figures = [line_panels(measured, [loss], x_title=t("step_axis"), height=260, look=look)]
    for layer in range(model.n_layers):  # one figure a layer: its two scores side by side
        panels = [
            Panel(
                t(f"{kind}_panel", layer=layer),
                t("score_y"),
                {
                    t("head_series", head=h): _short(scores[:, layer, h])
                    for h in range(model.n_heads)
                },
                levels=[(goal, t("threshold_line", value=num(goal, 1, lang)))],
            )
            for kind, scores, goal in (
                ("previous", history.previous, behaviour.THRESHOLDS["previous"]),
                ("induction", history.induction, behaviour.THRESHOLDS["induction"]),
            )
        ]
        figures.append(
            line_panels(
                measured,
                panels,
                x_title=t("step_axis"),
                phone=phone,
                height=PANEL_PX[phone],
                look=look,
            )
        )
    # kept: every step's marked copy shares these traces, so their wire form is built once
    return tuple(keep(fig) for fig in figures)


@st.cache_resource(max_entries=128, show_spinner=False)
def training_figures(*, step: int, lang: str, phone: bool, scale: float = 1.0) -> tuple[Spec, ...]:
    """``_training_lines`` with a dashed line at ``step`` in every plot (read-only, shared); the
    text above the charts names the step."""
    lines = _training_lines(lang=lang, phone=phone, scale=scale)
    look = Look(lang=lang, phone=phone, scale=scale)
    return tuple(keep(marked(fig, float(step), look=look)) for fig in lines)


@dataclass(frozen=True)
class View:
    """What the page draws at one (step, sentence, language, screen): every head's pattern and
    the training charts."""

    heads: Spec
    training: tuple[Spec, ...]


@st.cache_resource(max_entries=256, show_spinner=False)
def view(*, step: int, ids: tuple[int, ...], lang: str, phone: bool, scale: float) -> View:
    """The page's figures, one cache look-up a rerun (read-only, shared); ``scale``: the
    cells' (``Look.scale``, larger in presenter mode)."""
    return View(
        heads_figure(step=step, ids=ids, lang=lang, phone=phone, scale=scale),
        training_figures(step=step, lang=lang, phone=phone, scale=scale),
    )


@st.cache_resource(max_entries=512, show_spinner=False)
def predictions(
    *, step: int, ids: tuple[int, ...], position: int, lang: str, scale: float = 1.0
) -> Spec:
    """The bar chart of the five likeliest next words after ``position`` (read-only, shared);
    ``scale``: the look's (``Look.scale``, projector-sized text in presenter mode)."""
    t = translator(TEXT, lang)
    top = llm.top_predictions(checkpoint(step=step), model_run(step=step, ids=ids), position)
    chart = bar_chart(
        {t("prob"): [p for _, p in top]},
        [w for w, _ in top],
        title=t("predictions_title", i=position),
        height=280,
        look=Look(lang=lang, scale=scale),
    )
    return keep(chart)
