"""/depth's questions: the sublayer stacked ``layers`` deep in four wirings, at initialization."""

from __future__ import annotations

import llm
from classroom.questions.base import Question, ask, best_of, num, say, sci, too_close
from classroom.questions.setting import Setting, stacks

PAGE = "depth"
VANISHED_BELOW = 0.01  # the gradient at layer 0 vanishes: under 1 % of the residual wiring's
TEXT = {
    "en": {
        "least_collapse": "At {layers} layers, which wiring keeps the tokens furthest from "
        "rank one?",
        "none": "no residual",
        "residual": "residual",
        "post_ln": "post-LN",
        "pre_ln": "pre-LN",
        "least_collapse_why": "Distance from rank one ‖X − 1·mean_row(X)‖ / ‖X‖ after {layers} "
        "layers: {numbers}.",
        "grad_vanish": "Without residual, does the gradient at layer 0 vanish (at {layers} "
        "layers)?",
        "yes": "Yes: under 1 % of the residual wiring's",
        "no": "No",
        "grad_vanish_why": "‖d loss / d x_0‖: {none} without residual, {residual} with it; "
        "ratio {ratio} (it vanishes below {threshold}).",
    },
    "fr": {
        "least_collapse": "À {layers} couches, quel câblage garde les tokens le plus loin du "
        "rang un ?",
        "none": "sans résiduel",
        "residual": "résiduel",
        "post_ln": "post-LN",
        "pre_ln": "pré-LN",
        "least_collapse_why": "Distance au rang un ‖X − 1·moyenne_ligne(X)‖ / ‖X‖ après "
        "{layers} couches : {numbers}.",
        "grad_vanish": "Sans résiduel, le gradient à la couche 0 s'évanouit-il (à {layers} "
        "couches) ?",
        "yes": "Oui : moins de 1 % de celui du câblage résiduel",
        "no": "Non",
        "grad_vanish_why": "‖d perte / d x_0‖ : {none} sans résiduel, {residual} avec ; "
        "rapport {ratio} (évanoui sous {threshold}).",
    },
}


def least_collapse(s: Setting, lang: str) -> Question:
    """argmax over the four variants of collapse[L] (``llm.depth_stacks``, L = layers)."""
    stacked = stacks(s)
    values = [float(stacked[v].collapse[s.layers]) for v in llm.VARIANTS]
    t = TEXT[lang]
    sep = " ; " if lang == "fr" else ", "
    listed = sep.join(f"{t[v]} {num(x, 3, lang)}" for v, x in zip(llm.VARIANTS, values))
    why = say(TEXT, "least_collapse_why", lang, layers=s.layers, numbers=listed)
    return ask(
        PAGE,
        "least_collapse",
        TEXT,
        lang,
        s.link(),
        [t[v] for v in llm.VARIANTS],
        best_of(values),
        why,
        layers=s.layers,
    )


def grad_vanish(s: Setting, lang: str) -> Question:
    """Yes iff r = grad_norm[0] of "none" / grad_norm[0] of "residual" < VANISHED_BELOW (0.01);
    too close to call when r is within 1 % of it (``too_close``)."""
    stacked = stacks(s)
    none, residual = float(stacked["none"].grad_norm[0]), float(stacked["residual"].grad_norm[0])
    ratio = none / residual if residual > 0 else 0.0
    answer = None if too_close(ratio, VANISHED_BELOW) else (0 if ratio < VANISHED_BELOW else 1)
    t = TEXT[lang]
    why = say(
        TEXT,
        "grad_vanish_why",
        lang,
        none=sci(none, lang),
        residual=sci(residual, lang),
        ratio=sci(ratio, lang),
        threshold=sci(VANISHED_BELOW, lang),
    )
    return ask(
        PAGE, "grad_vanish", TEXT, lang, s.link(), [t["yes"], t["no"]], answer, why, layers=s.layers
    )


QUESTIONS = (least_collapse, grad_vanish)
