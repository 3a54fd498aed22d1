"""/heads' questions: every head's pattern and its mean row entropy."""

from __future__ import annotations

import llm
from classroom.questions.base import Question, ask, num, pick_best, say, shape_choices
from classroom.questions.setting import Setting, lab

PAGE = "heads"
TEXT = {
    "en": {
        "most_diffuse": "Which head is the most diffuse (highest mean entropy)?",
        "most_sharp": "Which head is the sharpest (lowest mean entropy)?",
        "head": "head {h}",
        "entropy_why": "Mean row entropy −Σ_j A[i, j] ln A[i, j], averaged over the rows, per "
        "head: {numbers}.",
        "pattern_shape": "What shape is each head's pattern A?",
        "pattern_shape_why": "One row per query and one column per key: {t} tokens give "
        "{t} × {t}, for each of the {n_heads} heads.",
    },
    "fr": {
        "most_diffuse": "Quelle tête est la plus diffuse (entropie moyenne la plus haute) ?",
        "most_sharp": "Quelle tête est la plus nette (entropie moyenne la plus basse) ?",
        "head": "tête {h}",
        "entropy_why": "Entropie des lignes −Σ_j A[i, j] ln A[i, j], moyenne sur les lignes, par "
        "tête : {numbers}.",
        "pattern_shape": "Quelle est la forme du motif A de chaque tête ?",
        "pattern_shape_why": "Une ligne par requête, une colonne par clé : {t} tokens donnent "
        "{t} × {t}, pour chacune des {n_heads} têtes.",
    },
}


def _entropies(s: Setting) -> list[float]:
    return [llm.head_entropy(head.pattern) for head in lab(s)[2].heads]


def _extreme(s: Setting, lang: str, name: str, largest: bool) -> Question | None:
    """argmax (or argmin) over heads h of head_entropy(pattern_h); six heads at most shown."""
    if s.n_heads < 2:
        return None
    values = _entropies(s)
    shown, best = pick_best(values, largest=largest)
    t = TEXT[lang]
    sep = " ; " if lang == "fr" else ", "
    listed = sep.join(f"{t['head'].format(h=h)} {num(values[h], 3, lang)}" for h in shown)
    why = say(TEXT, "entropy_why", lang, numbers=listed)
    highlight = {"head": shown[best]} if best is not None else {}
    choices = [t["head"].format(h=h) for h in shown]
    return ask(PAGE, name, TEXT, lang, s.link(), choices, best, why, highlight)


def most_diffuse(s: Setting, lang: str) -> Question | None:
    """argmax_h mean_i row_entropy(pattern_h)[i]."""
    return _extreme(s, lang, "most_diffuse", largest=True)


def most_sharp(s: Setting, lang: str) -> Question | None:
    """argmin_h mean_i row_entropy(pattern_h)[i]."""
    return _extreme(s, lang, "most_sharp", largest=False)


def pattern_shape(s: Setting, lang: str) -> Question:
    """pattern is [T, T] (read off the trace); the others: [T, d_head], [n_heads, T],
    [d_head, d_head]."""
    pattern = lab(s)[2].heads[0].pattern
    t = pattern.shape[0]
    d_head = s.d_model // s.n_heads
    choices, answer = shape_choices(pattern.shape, [(t, d_head), (s.n_heads, t), (d_head, d_head)])
    why = say(TEXT, "pattern_shape_why", lang, t=t, n_heads=s.n_heads)
    return ask(PAGE, "pattern_shape", TEXT, lang, s.link(), choices, answer, why)


QUESTIONS = (most_diffuse, most_sharp, pattern_shape)
