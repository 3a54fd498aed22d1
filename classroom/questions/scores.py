"""/scores' questions: the raw scores S = Q · Kᵀ of the selected head."""

from __future__ import annotations

import numpy as np

from classroom.questions.base import Question, ask, num, say, sci, token_question
from classroom.questions.setting import Setting, lab

PAGE = "scores"
SYMMETRIC_BELOW = 1e-9  # max |S - Sᵀ| at most this (times 1 + max |S|): symmetric, up to rounding
TEXT = {
    "en": {
        "top_key": "Which key does {token} score highest (raw S, head {h})?",
        "top_key_why": "Row {token} of S = Q · Kᵀ (head {h}), S[{i}, j] for each key j: {numbers}.",
        "symmetric": "Is S symmetric (S = Sᵀ, head {h})?",
        "yes": "Yes",
        "no": "No",
        "symmetric_why": "max |S − Sᵀ| = {gap} (largest |S| = {top}): {verdict}. S[i, j] = q_i · "
        "k_j and S[j, i] = q_j · k_i use different projections W_Q and W_K.",
        "sym": "zero, up to rounding",
        "asym": "not zero",
    },
    "fr": {
        "top_key": "Quelle clé {token} note-t-il le plus haut (S brut, tête {h}) ?",
        "top_key_why": "Ligne {token} de S = Q · Kᵀ (tête {h}), S[{i}, j] pour chaque clé j : "
        "{numbers}.",
        "symmetric": "S est-elle symétrique (S = Sᵀ, tête {h}) ?",
        "yes": "Oui",
        "no": "Non",
        "symmetric_why": "max |S − Sᵀ| = {gap} (plus grand |S| = {top}) : {verdict}. S[i, j] = "
        "q_i · k_j et S[j, i] = q_j · k_i passent par deux projections différentes, W_Q et W_K.",
        "sym": "nul, aux arrondis près",
        "asym": "non nul",
    },
}


def top_key(s: Setting, lang: str) -> Question | None:
    """argmax_j S[i, j] over every key j (the raw scores, before any mask), i the followed
    token (default the last); the six highest keys are the choices."""
    labels = s.labels
    if len(labels) < 2:
        return None
    i = s.token
    row = lab(s)[2].heads[s.head].scores[i].tolist()
    highlight = {"token": i}
    fields = {"token": labels[i], "h": s.head, "i": i}
    return token_question(PAGE, "top_key", TEXT, lang, s.link(), labels, row, highlight, **fields)


def symmetric(s: Setting, lang: str) -> Question:
    """Yes iff gap = max |S - Sᵀ| <= SYMMETRIC_BELOW * (1 + max |S|); too close to call when
    gap is within 1 % of that bound (or TIE_FLOOR of it)."""
    scores = lab(s)[2].heads[s.head].scores
    gap = float(np.abs(scores - scores.T).max())
    top = float(np.abs(scores).max())
    bound = SYMMETRIC_BELOW * (1.0 + top)
    yes = gap <= bound
    close = abs(gap - bound) <= 0.01 * bound
    t = TEXT[lang]
    why = say(
        TEXT,
        "symmetric_why",
        lang,
        gap=sci(gap, lang),
        top=num(top, 3, lang),
        verdict=t["sym"] if yes else t["asym"],
    )
    return ask(
        PAGE,
        "symmetric",
        TEXT,
        lang,
        s.link(),
        [t["yes"], t["no"]],
        None if close else (0 if yes else 1),
        why,
        h=s.head,
    )


QUESTIONS = (top_key, symmetric)
