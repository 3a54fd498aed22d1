"""The learned-heads page's charts of the model as a whole: the loss and every head's two scores
along training, the step shown marked, and the five likeliest next words at a step.

As ``ui.lessons.learned``'s heads: cached on keyword scalars, each figure kept and shared
read-only (``ui.draw.wire.keep``). They reach the page as markup: the training charts drawn
once a look (``ui.draw.lines_markup``), a step moving their mark with a style of its own.
"""

from __future__ import annotations

import math

import numpy as np

import llm
from llm import behaviour
from ui.draw.charts import bar_chart
from ui.draw.heatmap_table import figures_box
from ui.draw.line_plan import NARROWEST
from ui.draw.lines import Panel, line_panels
from ui.draw.lines_markup import lines_markup, mark_style, with_moving_mark
from ui.draw.markup import Markup
from ui.draw.style import Look
from ui.draw.wire import Spec, fast_figure, keep
from ui.lab.compute import shared
from ui.lessons.learned import checkpoint, model_run
from ui.text import num, translator
from ui.text.learned import TEXT

PANEL_PX = {False: 240, True: 320}  # a score plot's height; a phone stacks them, with their axes
BAR_PX = {False: 480, True: 350}  # the predictions' chart: most of a 521 px column, a phone's
PRESENT_BAR_PX = 640
WIDTH_PX = (
    520  # the training charts' width: a 1024 px screen's column holds it (a phone's: its own)
)


def _short(values: np.ndarray) -> list[float]:
    """A measured score or loss to nine significant digits: half the bytes of a float's repr."""
    return [float(f"{v:.9g}") for v in np.asarray(values, dtype=np.float64).tolist()]


@shared(8)
def _training_lines(*, lang: str, phone: bool, scale: float = 1.0) -> tuple[Spec, ...]:
    """The loss, then each layer's two scores of every head, along training (read-only, shared)."""
    t = translator(TEXT, lang)
    model = checkpoint(step=None)
    history, n_vocab = model.history, len(model.vocab)
    measured = history.score_steps
    chance = (float(np.log(n_vocab)), t("chance_line", n_vocab=n_vocab))
    losses = {t("loss_title"): _short(behaviour.loss_at(history, measured))}
    loss = Panel(t("loss_title"), t("loss_y"), losses, levels=[chance])
    look = Look(lang=lang, phone=phone, scale=scale)  # French axes read 0,5
    # every chart at the score charts' own width: the lines are drawn in px (lines_markup)
    loss_sizes = {"height": 260, "look": look, "width": WIDTH_PX}
    figures = [line_panels(measured, [loss], x_title=t("step_axis"), phone=phone, **loss_sizes)]
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
        # two plots at their own width, the column's at 1024 px (narrower, at 320 px, scroll)
        sizes = {"phone": phone, "height": PANEL_PX[phone], "look": look, "width": WIDTH_PX}
        figures.append(line_panels(measured, panels, x_title=t("step_axis"), **sizes))
    # kept read-only, without a wire form: drawn only as markup (training_markup, once a look);
    # a step reads the x axis's range from them (step_style) and moves a style, not the lines
    return tuple(keep(fig, wire=False) for fig in figures)


@shared(8)
def training_markup(*, lang: str, phone: bool, scale: float = 1.0) -> Markup:
    """The training charts (``_training_lines``) as markup (``ui.draw.lines_markup``) in one box
    (it wraps them, and scrolls sideways in a column narrower than one), each plot with the
    dashed line that ``step_style`` places: drawn once a look, read-only, shared. A new step
    sends its style, not the charts."""
    lines = _training_lines(lang=lang, phone=phone, scale=scale)
    keys = ["loss"] + [f"scores{layer}" for layer in range(len(lines) - 1)]
    charts = [
        with_moving_mark(lines_markup(fig, key=key, width=NARROWEST[True]))
        for fig, key in zip(lines, keys)
    ]
    return figures_box(charts, label=translator(TEXT, lang)("training"))


def step_style(*, step: int, lang: str, phone: bool, scale: float = 1.0) -> Markup:
    """The style that stands ``training_markup``'s dashed lines at ``step``."""
    return mark_style(_training_lines(lang=lang, phone=phone, scale=scale)[0], float(step))


@shared(512)
def predictions(
    *,
    step: int,
    ids: tuple[int, ...],
    position: int,
    lang: str,
    phone: bool = False,
    scale: float = 1.0,
) -> Spec:
    """The bar chart of the five likeliest next words after ``position`` (read-only, shared):
    BAR_PX wide (a phone's column, PRESENT_BAR_PX in presenter mode), each word in quotes at
    14 px under its bar (a lone "." reads), the y axis up to the gridline over the tallest
    bar. ``scale``: the look's (``Look.scale``, projector-sized text in presenter mode)."""
    t = translator(TEXT, lang)
    top = llm.top_predictions(checkpoint(step=step), model_run(step=step, ids=ids), position)
    look = Look(lang=lang, phone=phone, scale=scale)
    words = [w for w, _ in top]
    title = t("predictions_title", i=position)
    chart = bar_chart({t("prob"): [p for _, p in top]}, words, title=title, height=300, look=look)
    layout = chart["layout"]
    tick = _nice_step(max((p for _, p in top), default=1.0))
    highest = max((p for _, p in top), default=1.0)
    ceiling = math.ceil(highest / tick - 1e-9) * tick
    if ceiling - highest < tick * 0.15:  # a bar's number above it keeps room under the line
        ceiling += tick
    width = PRESENT_BAR_PX if look.text_scale > 1 and not phone else BAR_PX[phone]
    quoted = [t("quoted", word=w) for w in words]
    layout = layout | {
        "width": max(layout["width"], width),
        "xaxis": layout["xaxis"]
        | {"tickmode": "array", "tickvals": words, "ticktext": quoted}
        | {"tickfont": {"size": look.text_px(14)}, "tickangle": 0},
        "yaxis": layout["yaxis"] | {"range": [0, ceiling], "dtick": tick, "tick0": 0},
    }
    layout["yaxis"].pop("rangemode", None)
    return keep(fast_figure(chart["data"], layout), wire=False)


def _nice_step(top: float) -> float:
    """A gridline step for an axis from 0 to ``top``: 1, 2, 2.5 or 5 times a power of ten, four
    to six lines."""
    if top <= 0:
        return 0.1
    power = 10.0 ** math.floor(math.log10(top / 5))
    for k in (1, 2, 2.5, 5, 10):
        if top / (k * power) <= 5:
            return k * power
    return 10 * power
