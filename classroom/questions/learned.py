"""/learned's questions: the tiny trained model on the page's sentence, through its training."""

from __future__ import annotations

from functools import lru_cache

import llm
from classroom.questions.base import Question, ask, num, say, too_close
from classroom.questions.setting import Setting, trained

PAGE = "learned"
INDUCTION_PASS = 0.4  # the induction score the question asks about
BINS = 4  # the checkpoints cut in this many runs of consecutive steps, plus "never"
TOP_WORDS = 4
TEXT = {
    "en": {
        "induction_forms": "On this sentence, at which checkpoint does the best induction head "
        "(layer 1 or later) first pass {threshold}?",
        "between": "Between step {a} and step {b}",
        "never": "Never, up to step {last}",
        "step": "step",
        "induction_why": "The best induction score of a head in layer ≥ 1 (period {period}): "
        "{numbers}.",
        "no_repeat": "The sentence does not repeat itself, so no induction score can be read "
        "on it.",
        "next_word": "Which word will the model predict after “{prefix}” (step {step})?",
        "next_word_why": "The model's probabilities of the next word at position {i}: {numbers}.",
    },
    "fr": {
        "induction_forms": "Sur cette phrase, à quel point de l'entraînement la meilleure tête "
        "d'induction (couche 1 ou plus) dépasse-t-elle {threshold} pour la première fois ?",
        "between": "Entre l'étape {a} et l'étape {b}",
        "never": "Jamais, jusqu'à l'étape {last}",
        "step": "étape",
        "induction_why": "Le meilleur score d'induction d'une tête de couche ≥ 1 (période "
        "{period}) : {numbers}.",
        "no_repeat": "La phrase ne se répète pas : on ne peut y lire aucun score d'induction.",
        "next_word": "Quel mot le modèle prédira-t-il après « {prefix} » (étape {step}) ?",
        "next_word_why": "Les probabilités du mot suivant à la position {i} : {numbers}.",
    },
}


def period(ids: tuple[int, ...]) -> int | None:
    """The smallest p < T with ids[i] == ids[i - p] for every i >= p: the sentence's repeat;
    None when it does not repeat. Example: period((5, 7, 9, 5, 7)) == 3"""
    for p in range(1, len(ids)):
        if all(ids[i] == ids[i - p] for i in range(p, len(ids))):
            return p
    return None


@lru_cache(maxsize=64)
def best_induction(ids: tuple[int, ...], p: int) -> tuple[float, ...]:
    """At every checkpoint: max over the heads of layers >= 1 of induction_score(pattern, p)."""
    out = []
    for step in trained(None).steps:
        run = llm.run_model(trained(step), list(ids))
        out.append(max(llm.induction_score(h.pattern, p) for t in run.layers[1:] for h in t.heads))
    return tuple(out)


def bins(steps: tuple[int, ...]) -> list[tuple[int, int]]:
    """The checkpoints cut in BINS runs of consecutive steps: [(first step, last step), ...]."""
    n = len(steps)
    cuts = [round(k * n / BINS) for k in range(BINS + 1)]
    return [(steps[a], steps[b - 1]) for a, b in zip(cuts, cuts[1:]) if b > a]


def induction_forms(s: Setting, lang: str) -> Question | None:
    """The bin holding the first checkpoint whose best induction score (layers >= 1, period of
    the sentence's repeat) is >= 0.4, else "never"; too close to call when a checkpoint up to
    that one scores within 1 % of 0.4, or when the sentence does not repeat."""
    if s.step is None:
        return None
    model = trained(None)
    ids = tuple(model.encode(s.sentence))
    runs = bins(model.steps)
    t = TEXT[lang]
    choices = [t["between"].format(a=a, b=b) for a, b in runs]
    choices.append(t["never"].format(last=model.steps[-1]))
    p = period(ids)
    fields = {"threshold": num(INDUCTION_PASS, 1, lang)}
    if p is None:
        return ask(
            PAGE, "induction_forms", TEXT, lang, s.link(), choices, None, t["no_repeat"], **fields
        )
    scores = best_induction(ids, p)
    first = next((k for k, x in enumerate(scores) if x >= INDUCTION_PASS), None)
    upto = scores if first is None else scores[: first + 1]
    answer = (
        len(runs)
        if first is None
        else next(k for k, (a, b) in enumerate(runs) if a <= model.steps[first] <= b)
    )
    if any(too_close(x, INDUCTION_PASS) for x in upto):
        answer = None
    steps = list(zip(model.steps, scores))
    # the last checkpoints up to the first pass (they decide), else every fifth
    shown = steps[max(0, first - 4) : first + 1] if first is not None else steps[::5]
    sep = " ; " if lang == "fr" else ", "
    listed = sep.join(f"{t['step']} {st}: {num(x, 2, lang)}" for st, x in shown)
    why = say(TEXT, "induction_why", lang, period=p, numbers=listed)
    return ask(PAGE, "induction_forms", TEXT, lang, s.link(), choices, answer, why, **fields)


def next_word(s: Setting, lang: str) -> Question | None:
    """argmax over the vocabulary of softmax(run.logits[position]) at the setting's step; the
    TOP_WORDS likeliest words are the choices, in alphabetical order; too close to call when
    the two likeliest are within 1 %."""
    if s.step is None:
        return None
    model = trained(s.step)
    ids = model.encode(s.sentence)
    run = llm.run_model(model, ids)
    top = llm.top_predictions(model, run, s.position, k=TOP_WORDS)
    words = sorted(w for w, _ in top)
    answer = None if too_close(top[0][1], top[1][1]) else words.index(top[0][0])
    prefix = " ".join(model.vocab[i] for i in ids[: s.position + 1])
    if s.position >= 5:
        prefix = "… " + " ".join(model.vocab[i] for i in ids[s.position - 3 : s.position + 1])
    sep = " ; " if lang == "fr" else ", "
    listed = sep.join(f"{w} {num(p, 3, lang)}" for w, p in top)
    why = say(TEXT, "next_word_why", lang, i=s.position, numbers=listed)
    return ask(
        PAGE,
        "next_word",
        TEXT,
        lang,
        s.link(),
        words,
        answer,
        why,
        {"token": s.position},
        prefix=prefix,
        step=s.step,
    )


QUESTIONS = (induction_forms, next_word)
