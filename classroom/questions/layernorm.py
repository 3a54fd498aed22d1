"""/layernorm's questions: each row's mean and std after resid = X + attn_out and LayerNorm."""

from __future__ import annotations

import numpy as np

import llm
from classroom.questions.base import TIE_FLOOR, Question, ask, num, numbers, say, sci, too_close
from classroom.questions.setting import Setting, lab

PAGE = "layernorm"
NEAR_ONE = 0.95  # a mean std after LayerNorm at least this is "about 1"
TEXT = {
    "en": {
        "mean_after": "What is the mean of each row after LayerNorm?",
        "zero": "0, in every row",
        "about_before": "About {before}, the mean before",
        "one": "1, in every row",
        "depends": "It differs from row to row",
        "mean_after_why": "Row means before (X + attn_out): {before}; after LayerNorm: {after}. "
        "LayerNorm subtracts each row's own mean.",
        "std_after": "What is the std of each row after LayerNorm (eps = {eps})?",
        "s_zero": "0",
        "s_one": "About 1 (at least 0.95 on average)",
        "s_below": "Clearly below 1",
        "s_before": "About {before}, the std before",
        "std_after_why": "Row std after = sqrt(var / (var + eps)), eps = {eps}: {after} (mean "
        "{mean}); before: {before} (mean {mean_before}).",
    },
    "fr": {
        "mean_after": "Quelle est la moyenne de chaque ligne après la LayerNorm ?",
        "zero": "0, sur chaque ligne",
        "about_before": "Environ {before}, la moyenne d'avant",
        "one": "1, sur chaque ligne",
        "depends": "Elle change d'une ligne à l'autre",
        "mean_after_why": "Moyennes des lignes avant (X + attn_out) : {before} ; après la "
        "LayerNorm : {after}. La LayerNorm retire à chaque ligne sa propre moyenne.",
        "std_after": "Quel est l'écart-type de chaque ligne après la LayerNorm (eps = {eps}) ?",
        "s_zero": "0",
        "s_one": "Environ 1 (au moins 0,95 en moyenne)",
        "s_below": "Nettement moins de 1",
        "s_before": "Environ {before}, l'écart-type d'avant",
        "std_after_why": "Écart-type après = racine(var / (var + eps)), eps = {eps} : {after} "
        "(moyenne {mean}) ; avant : {before} (moyenne {mean_before}).",
    },
}


def _stats(s: Setting):
    x, _, trace = lab(s)
    resid, ln_out = llm.residual_layer_norm(x, trace.attn_out, eps=s.eps)
    return llm.row_stats(resid), llm.row_stats(ln_out)


def mean_after(s: Setting, lang: str) -> Question:
    """Which number every row mean of ln_out equals (within TIE_FLOOR): 0, 1, or the mean of the
    row means before (m); else "it differs". Too close to call when m is within the tie rule
    of 0 (two choices would both be right)."""
    (mean_before, _), (mean_ln, _) = _stats(s)
    m = float(mean_before.mean())
    t = TEXT[lang]
    targets = [
        (t["zero"], 0.0),
        (t["about_before"].format(before=num(m, 3, lang)), m),
        (t["one"], 1.0),
    ]
    answer = len(targets)
    for k, (_, target) in enumerate(targets):
        if np.all(np.abs(mean_ln - target) <= TIE_FLOOR):
            answer = k
            break
    if too_close(m, 0.0) or too_close(m, 1.0):
        answer = None
    why = say(
        TEXT,
        "mean_after_why",
        lang,
        before=numbers(mean_before, 3, lang),
        after=numbers(mean_ln, 3, lang),
    )
    choices = [c for c, _ in targets] + [t["depends"]]
    return ask(PAGE, "mean_after", TEXT, lang, s.link(), choices, answer, why)


def std_after(s: Setting, lang: str) -> Question:
    """By a = mean over rows of the std of ln_out: 0 if a <= TIE_FLOOR, "about 1" if a >= 0.95,
    else "clearly below 1"; too close to call when a is within 1 % of 0.95, or when the mean
    std before (b) is within 1 % of a (the "about b" choice would be right too)."""
    (_, std_before), (_, std_ln) = _stats(s)
    a, b = float(std_ln.mean()), float(std_before.mean())
    answer = 0 if a <= TIE_FLOOR else (1 if a >= NEAR_ONE else 2)
    if too_close(a, NEAR_ONE) or too_close(a, b):
        answer = None
    t = TEXT[lang]
    choices = [t["s_zero"], t["s_one"], t["s_below"], t["s_before"].format(before=num(b, 3, lang))]
    eps = sci(s.eps, lang)
    why = say(
        TEXT,
        "std_after_why",
        lang,
        eps=eps,
        after=numbers(std_ln, 3, lang),
        mean=num(a, 3, lang),
        before=numbers(std_before, 3, lang),
        mean_before=num(b, 3, lang),
    )
    return ask(PAGE, "std_after", TEXT, lang, s.link(), choices, answer, why, eps=eps)


QUESTIONS = (mean_after, std_after)
