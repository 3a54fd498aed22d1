"""/code's questions: the readable code beside the engine, and the shapes in it."""

from __future__ import annotations

from classroom.questions.base import Question, ask, say, sci, shape_choices
from classroom.questions.setting import Setting, lab
from llm.compare import compare_implementations

PAGE = "code"
BOUNDS = (1e-12, 1e-6)  # the order-of-magnitude choices' edges
TEXT = {
    "en": {
        "agreement": "How far apart are the readable code's numbers and the engine's (largest "
        "difference)?",
        "exact": "Exactly 0: the same to the last bit",
        "tiny": "Below 1e-12, rounding only",
        "small": "Between 1e-12 and 1e-6",
        "large": "Above 1e-6",
        "agreement_why": "The largest difference over q, k, v, scores, pattern, z, concat, "
        "attn_out, resid and ln_out: {d} (on {what}).",
        "scores_shape": "In causal_attention, what shape is scores?",
        "scores_shape_why": "scores[i][j] = dot(q_i, k_j) / sqrt(d_k) for every query i and key "
        "j: {t} tokens give {t} × {t}.",
    },
    "fr": {
        "agreement": "Quel écart entre les nombres du code lisible et ceux du moteur (plus grande "
        "différence) ?",
        "exact": "Exactement 0 : identiques au dernier bit",
        "tiny": "Moins de 1e-12, des arrondis",
        "small": "Entre 1e-12 et 1e-6",
        "large": "Plus de 1e-6",
        "agreement_why": "La plus grande différence sur q, k, v, scores, pattern, z, concat, "
        "attn_out, resid et ln_out : {d} (sur {what}).",
        "scores_shape": "Dans causal_attention, quelle est la forme de scores ?",
        "scores_shape_why": "scores[i][j] = dot(q_i, k_j) / sqrt(d_k) pour chaque requête i et "
        "chaque clé j : {t} tokens donnent {t} × {t}.",
    },
}


def agreement(s: Setting, lang: str) -> Question:
    """d = max of ``llm.compare.compare_implementations`` (eps 1e-5): 0 -> "exactly 0",
    d < 1e-12, 1e-12 <= d <= 1e-6, d > 1e-6; too close to call within 1 % of an edge."""
    x, params, _ = lab(s)
    diffs = compare_implementations(x, params, s.causal)
    what, d = max(diffs.items(), key=lambda kv: kv[1])
    answer = 0 if d == 0.0 else 1 if d < BOUNDS[0] else 2 if d <= BOUNDS[1] else 3
    if any(abs(d - edge) <= 0.01 * edge for edge in BOUNDS):
        answer = None
    t = TEXT[lang]
    why = say(TEXT, "agreement_why", lang, d=sci(d, lang), what=what)
    choices = [t["exact"], t["tiny"], t["small"], t["large"]]
    return ask(PAGE, "agreement", TEXT, lang, s.link(), choices, answer, why)


def scores_shape(s: Setting, lang: str) -> Question:
    """scores is [T, T] (the trace's head 0); the others: [T, d_head], [d_head, d_head],
    [T, d_model]."""
    t = lab(s)[2].heads[0].scores.shape[0]
    d_head = s.d_model // s.n_heads
    choices, answer = shape_choices((t, t), [(t, d_head), (d_head, d_head), (t, s.d_model)])
    why = say(TEXT, "scores_shape_why", lang, t=t)
    return ask(PAGE, "scores_shape", TEXT, lang, s.link(), choices, answer, why)


QUESTIONS = (agreement, scores_shape)
