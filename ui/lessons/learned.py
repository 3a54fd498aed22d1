"""The learned-heads page's calls into llm and its heads' figures (one head large, every head
small), cached on scalars only; ``ui.lessons.learned_maps`` draws them as markup; its training
and next-word charts are in ``ui.lessons.learned_training``.

Defined in a module, not in the page script, so the caches' wrappers are built once per process
instead of on every rerun. Their arguments are keywords only: Streamlit names a positional
argument by reading the function's signature on every call, a keyword it reads as given.
A checkpoint, a run and a figure are each one shared, read-only object; the figures are
``kept`` (``ui.draw.wire.keep``): their text alternative is written once.
"""

from __future__ import annotations

import math
import re

import numpy as np

import llm
from llm import behaviour
from llm.head_scores import ROLE_THRESHOLD
from ui.draw.grid_plan import SUBTITLE_PX
from ui.draw.grids import grid_figure
from ui.draw.heatmaps import heatmap_cells, mask_shape
from ui.draw.labels import label_px
from ui.draw.style import CELL_AXIS, COLOUR_SCALES, SMALLEST_CELL_PX, FittedLook, Look
from ui.draw.wire import Spec, fast_figure, keep
from ui.lab.compute import shared
from ui.text import num, translator
from ui.text.learned import TEXT

# The head drawn large is at most FOCUS_PX wide: the 521 px column of 1280 × 720 at 150 % (so the
# 564 px of 1024 × 768 with the sidebar, and beside the head picker in 1280 × 720's 820 px) holds
# it with the classroom's cells for the default sentence's 13 tokens (32 px, 13 px numbers); a
# longer sentence's cells shrink to fit, losing their numbers below 20 px (a phone's 358 px
# column: 18 px). Presenter mode: PRESENT_FOCUS_PX, beside the picker in a projector's column.
FOCUS_PX = {False: 521, True: 350}  # by phone
PRESENT_FOCUS_PX = 780
SMALLEST_NUMBER_PX = 10  # a cell's number at least this, else none (the value is on hover)
ROOM_PX = 6  # px over the large head's title
EDGE_PX = 4  # px right of a head's cells, and around the small heads (room for an outline)
SMALL_PX = 104  # a small head's side (px): 8 px cells for 13 tokens, larger in presenter mode
SMALL_GAP = 12  # px between two small heads
LINE_PX = 17  # a line of a 13 px title
# the heads' one colour scale, without a bar of its own (``ui.lessons.learned_maps`` lays one
# over the large head's cells)
VIRIDIS = {"colorscale": COLOUR_SCALES["Viridis"], "cmin": 0.0, "cmax": 1.0, "showscale": False}


@shared(64)
def checkpoint(*, step: int | None) -> llm.TinyModel:
    """One shipped checkpoint, read once and shared read-only between sessions."""
    return llm.load_model(step=step)


@shared(256)
def model_run(*, step: int, ids: tuple[int, ...]) -> llm.ModelRun:
    """The model at ``step`` on one sentence, computed once per (step, sentence)."""
    return llm.run_model(checkpoint(step=step), ids)


def role_text(role: str, score: float, lang: str) -> str:
    """What a head does and the score that gave it: "induction (0.88)"; "other pattern" when
    none of the three scores reaches ROLE_THRESHOLD, said as such."""
    t = translator(TEXT, lang)
    if role == "diffuse":  # llm's name for "none of the three": the head may still be sharp
        why = t("below", threshold=num(ROLE_THRESHOLD, 1, lang))
    else:
        why = num(score, 2, lang)
    return t("head_role", role=t(f"role_{role}"), why=why)


def head_title(role: str, score: float, layer: int, head: int, lang: str) -> str:
    """A head's title, two lines: the head (bold), then its role and the score that gave it."""
    name = translator(TEXT, lang)("head_title", layer=layer, head=head)
    return f"<b>{name}</b><br>{role_text(role, score, lang)}"


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
    figure grows by the lines it did not count and ROOM_PX; EDGE_PX right of its slot, which
    holds no colour bar (its x labels slant to the left)."""
    plain = widest or _widest_line(title) or "·"
    fig = grid_figure([pattern], labels, [labels], [plain], look=look, per_row=1, **style)
    layout = dict(fig["layout"])
    (note, *others) = layout["annotations"]
    counted = note["text"].count("<br>") + 1  # grid_figure may have put it on two lines
    extra = math.ceil(17 * look.text_scale) * max(0, title.count("<br>") + 1 - counted) + ROOM_PX
    layout["annotations"] = [{**note, "text": title}, *others]
    margin = layout["margin"]
    right = min(margin["r"], EDGE_PX)
    layout["margin"] = {**margin, "t": margin["t"] + extra, "r": right}
    layout["width"] = layout["width"] - margin["r"] + right
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
        piece = _piece(pattern, list(labels), probe, fitted, widest, **style)
        if piece["layout"]["width"] <= budget:
            return fitted
    return look.fitted(SMALLEST_CELL_PX, 0)


@shared(256)
def focused(
    *, step: int, ids: tuple[int, ...], layer: int, head: int, lang: str, phone: bool, scale: float
) -> Spec:
    """The head (``layer``, ``head``) drawn large at ``step``, titled by its role, a number in
    each cell, fitted to FOCUS_PX (``Look(lang, phone, scale)``): read-only, shared. Every head
    is fitted to the widest of their titles, so that another head keeps the cells' size."""
    t = translator(TEXT, lang)
    model, run = checkpoint(step=step), model_run(step=step, ids=ids)
    labels = llm.token_labels([model.vocab[i] for i in ids])
    roles = behaviour.roles_at(model.history, step)
    look = Look(lang=lang, phone=phone, scale=scale)
    style = {"zmin": 0.0, "zmax": 1.0, "masked_label": t("masked_cell"), "x_title": t("key")}
    style |= {"y_title": t("query"), "digits": 1, "colour_bar": False}
    titles = [head_title(*r, k, h, lang) for k, row in enumerate(roles) for h, r in enumerate(row)]
    widest = max((_widest_line(title) for title in titles), key=label_px)
    probe = max(titles, key=lambda title: label_px(_widest_line(title)))
    fitted = _fitted(tuple(labels), probe, widest, look, _budget(look), **style)
    title = head_title(*roles[layer][head], layer, head, lang)
    style["masked"] = ~run.layers[0].mask  # the mask draws no width: not in the fit
    pattern = run.layers[layer].heads[head].pattern
    large = keep(_piece(pattern, labels, title, fitted, widest, **style), wire=False)
    return large


def _budget(look: Look) -> int:
    """How wide the large head's figure may be (px): FOCUS_PX, a projector's PRESENT_FOCUS_PX."""
    return PRESENT_FOCUS_PX if look.text_scale > 1 and not look.phone else FOCUS_PX[look.phone]


def _small_titles(roles: list[list[tuple[str, float]]], lang: str) -> list[str]:
    """Every small head's title, three lines: the head (bold), its role, the score that gave
    it ("scores < 0.3" for none of the three)."""
    t = translator(TEXT, lang)
    titles = []
    for row in roles:
        for h, (role, score) in enumerate(row):
            if role == "diffuse":
                why = t("below", threshold=num(ROLE_THRESHOLD, 1, lang))
            else:
                why = t("small_score", score=num(score, 2, lang))
            titles.append(f"<b>{t('head_only', head=h)}</b><br>{t(f'role_{role}')}<br>{why}")
    return titles


def _small_places(
    n_layers: int, n_heads: int, per_row: int, sizes: tuple[int, int, int, int, int]
) -> tuple[list[tuple[float, float]], list[float], int]:
    """Where the small heads stand, in px from the figure's top left: each plot's (left, top),
    each layer's name's top, and the figure's height. ``sizes``: a plot's slot and side, its
    title's height, a layer name's, the gap between two plots."""
    slot, side, title_h, name_h, gap = sizes
    places, names, top = [], [], EDGE_PX
    for _layer in range(n_layers):
        names.append(top)
        top += name_h
        for h in range(n_heads):
            if h % per_row == 0 and h:
                top += title_h + side + gap
            left = EDGE_PX + (h % per_row) * (slot + gap) + (slot - side) / 2
            places.append((left, top + title_h))
        top += title_h + side + gap
    return places, names, top - gap + EDGE_PX


def _note(text: str, x: float, y: float, size: int, **place: str) -> dict:
    """A title at (``x``, ``y``), paper coordinates, ``size`` px."""
    out = {"text": text, "x": round(x, 6), "y": round(y, 6), "xref": "paper", "yref": "paper"}
    return out | {"showarrow": False, "font": {"size": size}} | place


@shared(128)
def small_heads(*, step: int, ids: tuple[int, ...], lang: str, phone: bool, scale: float) -> Spec:
    """Every head's pattern small, without numbers (on hover), on the one colour scale: a row
    a layer under its name (two rows on a phone), each titled by what it does at ``step``;
    read-only, shared. Plot k sits on axes x{k+1}/y{k+1}, from layer 0's head 0."""
    t = translator(TEXT, lang)
    model, run = checkpoint(step=step), model_run(step=step, ids=ids)
    labels = llm.token_labels([model.vocab[i] for i in ids])
    look = Look(lang=lang, phone=phone, scale=scale)
    grow, per_row = look.text_scale, 2 if phone else model.n_heads
    cell = max(1, round(SMALL_PX * scale) // len(ids))
    titles = _small_titles(behaviour.roles_at(model.history, step), lang)
    # the widest line: a role or a score (the bold line, the head's name, is shorter)
    widest = max(label_px(_widest_line(title)) for title in titles) * SUBTITLE_PX / 12
    side, gap = cell * len(ids), math.ceil(SMALL_GAP * grow)
    slot = max(side, math.ceil(widest * grow) + 8)
    sizes = (slot, side, 3 * math.ceil(LINE_PX * grow) + 4, math.ceil(24 * grow), gap)
    places, names, height = _small_places(model.n_layers, model.n_heads, per_row, sizes)
    width = 2 * EDGE_PX + per_row * slot + (per_row - 1) * gap
    notes = [
        _note(f"<b>{t('layer_row', layer=k)}</b>", 0, 1 - top / height, 14, yanchor="top")
        | {"xanchor": "left", "xshift": EDGE_PX}
        for k, top in enumerate(names)
    ]
    hidden, data, layout, shapes = ~run.layers[0].mask, [], {}, []
    # 8 small heads: no hover on a masked cell (grey), so no text per cell to write and send
    text = {"x_title": t("key"), "y_title": t("query"), "masked_hover": False}
    patterns = [head.pattern for trace in run.layers for head in trace.heads]
    for k, (pattern, (left, top)) in enumerate(zip(patterns, places)):
        suffix = str(k + 1) if k else ""
        trace = heatmap_cells(pattern, labels, labels, masked=hidden, number_px=0, **text)
        trace |= {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}", "coloraxis": "coloraxis"}
        data.append(trace | ({} if cell >= 6 else {"xgap": 0, "ygap": 0}))
        axis = {**CELL_AXIS, "showticklabels": False, "fixedrange": True}
        x = [round(left / width, 6), round((left + side) / width, 6)]
        y = [round(1 - (top + side) / height, 6), round(1 - top / height, 6)]
        layout[f"xaxis{suffix}"] = axis | {"domain": x, "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = axis | {"domain": y, "anchor": f"x{suffix}"}
        layout[f"yaxis{suffix}"]["autorange"] = "reversed"
        note = _note(titles[k], (left + side / 2) / width, y[1], SUBTITLE_PX, yanchor="bottom")
        notes.append(note | {"xanchor": "center", "yshift": 2})
        shapes.append(mask_shape(hidden, cell, f"x{suffix}", f"y{suffix}"))
    layout |= {
        "annotations": notes,
        "shapes": [shape for shape in shapes if shape],
        "coloraxis": VIRIDIS,
        "width": width,
        "height": height,
        "margin": {"l": 0, "r": 0, "t": 0, "b": 0, "pad": 0},
        "separators": look.separators(),
    }
    return keep(fast_figure(data, look.chart_text(layout)), wire=False)
