"""The learned-heads page's calls into llm and its figures, cached on scalars only.

Defined in a module, not in the page script, so the caches' wrappers are built once per process
instead of on every rerun. Their arguments are keywords only: Streamlit names a positional
argument by reading the function's signature on every call, a keyword it reads as given.
A checkpoint, a run and a figure are each one shared, read-only object; the figures are
``kept`` (``ui.draw.wire.keep``), so a rerun that shows them again sends the wire form built on
their first send instead of walking and writing their cells again.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

import llm
from llm import behaviour
from llm.head_scores import ROLE_THRESHOLD
from ui.draw.charts import bar_chart
from ui.draw.grids import grid_figure
from ui.draw.labels import label_px
from ui.draw.lines import Panel, line_panels, marked
from ui.draw.style import (
    COLOUR_SCALES,
    SMALLEST_CELL_PX,
    FittedLook,
    Look,
)
from ui.draw.wire import Spec, fast_figure, keep
from ui.lab.compute import shared
from ui.text import num, translator
from ui.text.learned import TEXT

# A head's figure is at most HEAD_PX wide, so that two stand side by side in the 820 px column of
# 1280 × 720 (with the 32 px gap of ``ui.draw.wire.show_figures``) and one fits the 521 px column of
# 1280 × 720 at 150 % and the 564 px of 1024 × 768 with the sidebar: its cells shrink to fit (the
# default sentence's 13 tokens: 21 px, 10 px numbers), and lose their numbers below 20 px (a
# phone's 358 px column: 18 px). Presenter mode keeps one a row in a projector's 800 px column.
HEAD_PX = {False: 394, True: 350}  # by phone
PRESENT_HEAD_PX = 780
SMALLEST_NUMBER_PX = 10  # a cell's number at least this, else none (the value is on hover)
PANEL_PX = {False: 240, True: 320}  # a score plot's height; a phone stacks them, with their axes
BAR_PX = {False: 480, True: 350}  # the predictions' chart: most of a 521 px column, a phone's
PRESENT_BAR_PX = 640


@shared(64)
def checkpoint(*, step: int | None) -> llm.TinyModel:
    """One shipped checkpoint, read once and shared read-only between sessions."""
    return llm.load_model(step=step)


@shared(256)
def model_run(*, step: int, ids: tuple[int, ...]) -> llm.ModelRun:
    """The model at ``step`` on one sentence, computed once per (step, sentence)."""
    return llm.run_model(checkpoint(step=step), ids)


def head_title(role: str, score: float, layer: int, head: int, lang: str) -> str:
    """A head's title, two lines: the head (bold), then its role and the score that gave it;
    "other pattern" when none of the three scores reaches ROLE_THRESHOLD, said as such."""
    t = translator(TEXT, lang)
    if role == "diffuse":  # llm's name for "none of the three": the head may still be sharp
        why = t("below", threshold=num(ROLE_THRESHOLD, 1, lang))
    else:
        why = num(score, 2, lang)
    name = t("head_title", layer=layer, head=head)
    return f"<b>{name}</b><br>{t('head_role', role=t(f'role_{role}'), why=why)}"


ROOM_PX = 6  # px over a head's title: apart from the x axis title of the head above it


def _widest_line(title: str) -> str:
    """A title's widest line as plain text (a bold line counted a tenth wider)."""
    lines = title.split("<br>")
    px = [label_px(re.sub("<[^>]+>", "", line)) * (1.1 if "<b>" in line else 1.0) for line in lines]
    return re.sub("<[^>]+>", "", lines[px.index(max(px))]) if lines else ""


def _piece(
    pattern: np.ndarray,
    labels: list[str],
    title: str,
    look: Look,
    widest: str = "",
    **style: object,
) -> Spec:
    """One head's heatmap with its title above it (of two lines, ``<br>``): ``grid_figure``
    sizes its plot's slot for the widest line (``widest``, else the title's own), and the
    figure grows by the lines it did not count and ROOM_PX."""
    plain = widest or _widest_line(title) or "·"
    fig = grid_figure([pattern], labels, [labels], [plain], look=look, per_row=1, **style)
    layout = dict(fig["layout"])
    (note, *others) = layout["annotations"]
    counted = note["text"].count("<br>") + 1  # grid_figure may have put it on two lines
    extra = math.ceil(17 * look.text_scale) * max(0, title.count("<br>") + 1 - counted) + ROOM_PX
    layout["annotations"] = [{**note, "text": title}, *others]
    layout["margin"] = {**layout["margin"], "t": layout["margin"]["t"] + extra}
    layout["height"] = layout["height"] + extra
    return {"data": fig["data"], "layout": layout}


@shared(64)
def _fitted(
    labels: tuple[str, ...], probe: str, widest: str, look: Look, budget: int, **style: object
) -> FittedLook:
    """The largest cells, at most the look's own, whose head figure titled ``probe`` (its
    widest line ``widest``) is at most ``budget`` px wide; the smallest that hold a label when
    none is. Cached: a new training step keeps the sentence, and mostly its titles' widths."""
    base, base_number = look.cells(len(labels))
    pattern = np.zeros((len(labels), len(labels)))
    for cell in range(base, SMALLEST_CELL_PX - 1, -1):
        number = base_number if cell >= base else min(base_number, cell // 2)
        if number < SMALLEST_NUMBER_PX * look.text_scale:
            number = 0
        fitted = look.fitted(cell, number)
        if (
            _piece(pattern, list(labels), probe, fitted, widest, **style)["layout"]["width"]
            <= budget
        ):
            return fitted
    return look.fitted(SMALLEST_CELL_PX, 0)


@shared(256)
def heads_figures(
    *, step: int, ids: tuple[int, ...], lang: str, phone: bool, scale: float
) -> tuple[Spec, ...]:
    """Every head's pattern on the sentence, one figure each, titled by its role at ``step``,
    cells fitted to HEAD_PX (``Look(lang, phone, scale)``), all on one colour scale (0 to 1,
    the bar in ``scale_figure``); read-only, shared. ``ui.draw.wire.show_figures`` stands them side
    by side where the column holds them."""
    t = translator(TEXT, lang)
    model, run = checkpoint(step=step), model_run(step=step, ids=ids)
    labels = llm.token_labels([model.vocab[i] for i in ids])
    roles = behaviour.roles_at(model.history, step)
    look = Look(lang=lang, phone=phone, scale=scale)
    style = {
        "zmin": 0.0,
        "zmax": 1.0,
        "masked": ~run.layers[0].mask,
        "masked_label": t("masked_cell"),
        "x_title": t("key"),
        "y_title": t("query"),
        "digits": 1,
        "colour_bar": False,
    }
    titles = [
        head_title(*roles[layer][head], layer, head, lang)
        for layer, trace in enumerate(run.layers)
        for head in range(len(trace.heads))
    ]
    widest = max((_widest_line(t) for t in titles), key=label_px)  # every head as wide
    probe = max(titles, key=lambda t: label_px(_widest_line(t)))
    # the mask draws no width: the fit is the same for every step on this sentence's titles
    sizing = {k: v for k, v in style.items() if k != "masked"}
    fitted = _fitted(tuple(labels), probe, widest, look, _budget(look), **sizing)
    patterns = [head.pattern for trace in run.layers for head in trace.heads]
    return tuple(
        keep(_piece(pattern, labels, title, fitted, widest, **style))
        for pattern, title in zip(patterns, titles)
    )


def _budget(look: Look) -> int:
    """How wide a head's figure may be (px): HEAD_PX, a projector's PRESENT_HEAD_PX."""
    return PRESENT_HEAD_PX if look.text_scale > 1 and not look.phone else HEAD_PX[look.phone]


def scale_figure(head: Spec, look: Look, title: str) -> Spec:
    """The heads' one colour scale, Viridis from 0 to 1: a bar lying over the cells of ``head``
    (a figure of ``heads_figures``), as wide and as far from the left, ``title`` on its left."""
    layout = head["layout"]
    left, right = layout["xaxis"]["domain"]
    inner = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    plot_w = (right - left) * inner
    margin_l = layout["margin"]["l"] + left * inner
    margin_r = layout["width"] - margin_l - plot_w
    steps = np.linspace(0.0, 1.0, 101)
    trace = {
        "type": "heatmap",
        "z": [steps.tolist()],
        "x": steps.tolist(),
        "y": [0],
        "coloraxis": "coloraxis",
        "hoverinfo": "skip",
    }
    bar = {
        "width": layout["width"],
        "height": math.ceil(62 * look.text_scale),
        "margin": {"l": margin_l, "r": margin_r, "t": 6, "b": math.ceil(36 * look.text_scale)},
        "xaxis": {"range": [0, 1], "dtick": 0.2, "showgrid": False, "zeroline": False},
        "yaxis": {"visible": False, "fixedrange": True},
        "coloraxis": {
            "colorscale": COLOUR_SCALES["Viridis"],
            "cmin": 0.0,
            "cmax": 1.0,
            "showscale": False,
        },
        "annotations": [
            {
                "text": title,
                "x": 0,
                "xref": "paper",
                "xanchor": "right",
                "xshift": -8,
                "y": 0.5,
                "yref": "paper",
                "yanchor": "middle",
                "showarrow": False,
                "font": {"size": 14},
            }
        ],
        "separators": look.separators(),
    }
    return keep(fast_figure([trace], look.chart_text(bar)))


def _short(values: np.ndarray) -> list[float]:
    """The values to nine significant digits: a measured score or loss, half the bytes of a
    float's repr."""
    return [float(f"{v:.9g}") for v in np.asarray(values, dtype=np.float64).tolist()]


@shared(8)
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


@shared(128)
def training_figures(*, step: int, lang: str, phone: bool, scale: float = 1.0) -> tuple[Spec, ...]:
    """``_training_lines`` with a dashed line at ``step`` in every plot (read-only, shared); the
    text above the charts names the step."""
    lines = _training_lines(lang=lang, phone=phone, scale=scale)
    look = Look(lang=lang, phone=phone, scale=scale)
    return tuple(keep(marked(fig, float(step), look=look)) for fig in lines)


@dataclass(frozen=True)
class View:
    """What the page draws at one (step, sentence, language, screen): every head's pattern, a
    figure each, their colour scale, and the training charts."""

    heads: tuple[Spec, ...]
    scale: Spec
    training: tuple[Spec, ...]


@shared(256)
def view(*, step: int, ids: tuple[int, ...], lang: str, phone: bool, scale: float) -> View:
    """The page's figures, one cache look-up a rerun (read-only, shared); ``scale``: the
    cells' (``Look.scale``, larger in presenter mode)."""
    heads = heads_figures(step=step, ids=ids, lang=lang, phone=phone, scale=scale)
    look = Look(lang=lang, phone=phone, scale=scale)
    return View(
        heads,
        scale_figure(heads[0], look, translator(TEXT, lang)("scale")),
        training_figures(step=step, lang=lang, phone=phone, scale=scale),
    )


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
    chart = bar_chart(
        {t("prob"): [p for _, p in top]},
        words,
        title=t("predictions_title", i=position),
        height=300,
        look=look,
    )
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
    return keep(fast_figure(chart["data"], layout))


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
