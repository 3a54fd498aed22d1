"""The learned-heads page's calls into llm, cached on scalars only, the head drawn large as a
figure and every head's title; ``ui.lessons.learned_maps`` draws the heads as markup; its
training and next-word charts are in ``ui.lessons.learned_training``.

Defined in a module, not in the page script, so the caches' wrappers are built once per process
instead of on every rerun. Their arguments are keywords only: Streamlit names a positional
argument by reading the function's signature on every call, a keyword it reads as given.
A checkpoint and a run are each one shared, read-only object; the large head's figure is
``kept`` (``ui.draw.wire.keep``): its text alternative is written once.
"""

from __future__ import annotations

import math

import numpy as np

import llm
from llm import behaviour
from llm.head_scores import ROLE_THRESHOLD
from ui.draw.axis_text import plain
from ui.draw.grids import grid_figure
from ui.draw.labels import label_px
from ui.draw.style import SMALLEST_CELL_PX, FittedLook, Look
from ui.draw.wire import Spec, keep
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
    px = [label_px(plain(line)) * (1.1 if "<b>" in line else 1.0) for line in lines]
    return plain(lines[px.index(max(px))]) if lines else ""


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


def focused(
    *, step: int, ids: tuple[int, ...], layer: int, head: int, lang: str, phone: bool, scale: float
) -> Spec:
    """The head (``layer``, ``head``) drawn large at ``step``, titled by its role, a number in
    each cell, fitted to FOCUS_PX (``Look(lang, phone, scale)``). Every head is fitted to the
    widest of their titles, so that another head keeps the cells' size. Not cached itself:
    ``ui.lessons.learned_maps.focused_markup``, its one reader on the page, is."""
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


def small_titles(roles: list[list[tuple[str, float]]], lang: str) -> list[str]:
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
