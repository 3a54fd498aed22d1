"""/softmax's questions: the pattern A at the setting's temperature τ and √d_k switch."""

from __future__ import annotations

import llm
from classroom.questions.base import Question, ask, num, numbers, say, token_question, too_close
from classroom.questions.setting import Setting, lab

PAGE = "softmax"
ROW_SUM_ROUNDING = 1e-9  # a row sum this close to a choice's number is that number
TAU_ASKED, TAU_ELSE = 0.2, 5.0  # the what-if τ; the other one when the setting is already at 0.2
TEXT = {
    "en": {
        "top_key": "Which token does {token} attend to most (head {h})?",
        "top_key_why": "Row {token} of A (head {h}, τ = {tau}, {scaled}), A[{i}, j]: {numbers}.",
        "row_sum": "What does each row of A add up to?",
        "zero": "0",
        "one": "1",
        "t": "T, the number of tokens ({t})",
        "depends": "It depends on the row",
        "row_sum_why": "The row sums of A (head {h}): {numbers}. Softmax divides each row by its "
        "own total, so every row adds up to 1.",
        "entropy_tau": "At τ = {new}, does the mean row entropy of head {h} go up or down "
        "(now τ = {tau})?",
        "up": "Up",
        "down": "Down",
        "entropy_tau_why": "Mean row entropy of head {h}: {before} at τ = {tau}, {after} at "
        "τ = {new}.",
        "scaled": "divided by √d_k",
        "unscaled": "without √d_k",
    },
    "fr": {
        "top_key": "À quel token {token} prête-t-il le plus attention (tête {h}) ?",
        "top_key_why": "Ligne {token} de A (tête {h}, τ = {tau}, {scaled}), A[{i}, j] : {numbers}.",
        "row_sum": "Que vaut la somme de chaque ligne de A ?",
        "zero": "0",
        "one": "1",
        "t": "T, le nombre de tokens ({t})",
        "depends": "Cela dépend de la ligne",
        "row_sum_why": "Les sommes des lignes de A (tête {h}) : {numbers}. Le softmax divise "
        "chaque ligne par son propre total : chaque ligne vaut 1.",
        "entropy_tau": "À τ = {new}, l'entropie moyenne des lignes de la tête {h} monte-t-elle "
        "ou descend-elle (τ = {tau} maintenant) ?",
        "up": "Elle monte",
        "down": "Elle descend",
        "entropy_tau_why": "Entropie moyenne des lignes de la tête {h} : {before} à τ = {tau}, "
        "{after} à τ = {new}.",
        "scaled": "divisé par √d_k",
        "unscaled": "sans √d_k",
    },
}


def _pattern(s: Setting, temperature: float):
    return lab(s, temperature, s.scale)[2].heads[s.head].pattern


def top_key(s: Setting, lang: str) -> Question | None:
    """argmax_j A[i, j], A = softmax(mask(S / (τ · √d_k or 1))) at the setting's τ and scale, i
    the followed token; the six largest probabilities are the choices (sentence order)."""
    labels = s.labels
    if len(labels) < 2:
        return None
    i = s.token
    row = _pattern(s, s.temperature)[i].tolist()
    t = TEXT[lang]
    fields = {
        "token": labels[i],
        "h": s.head,
        "i": i,
        "tau": num(s.temperature, 2, lang),
        "scaled": t["scaled"] if s.scale else t["unscaled"],
    }
    return token_question(
        PAGE, "top_key", TEXT, lang, s.link(), labels, row, {"token": i}, **fields
    )


def row_sum(s: Setting, lang: str) -> Question:
    """The choice every row sum sum_j A[i, j] equals (to ROW_SUM_ROUNDING): 0, 1, T, else
    "it depends on the row". T is left out for a one-token sentence (it would be 1 too)."""
    pattern = _pattern(s, s.temperature)
    sums = llm.row_sums(pattern)
    n = len(sums)
    t = TEXT[lang]
    targets = [(t["zero"], 0.0), (t["one"], 1.0)] + ([(t["t"].format(t=n), float(n))] * (n > 1))
    choices = [c for c, _ in targets] + [t["depends"]]
    answer = len(targets)
    for k, (_, target) in enumerate(targets):
        if all(abs(x - target) <= ROW_SUM_ROUNDING for x in sums):
            answer = k
    why = say(TEXT, "row_sum_why", lang, h=s.head, numbers=numbers(sums, 3, lang))
    return ask(PAGE, "row_sum", TEXT, lang, s.link(), choices, answer, why)


def entropy_tau(s: Setting, lang: str) -> Question:
    """Up iff head_entropy(A at τ_new) > head_entropy(A at τ), τ_new = 0.2 (5 when τ = 0.2);
    too close to call when the two means are within 1 % (``too_close``)."""
    new = TAU_ELSE if s.temperature == TAU_ASKED else TAU_ASKED
    before = llm.head_entropy(_pattern(s, s.temperature))
    after = llm.head_entropy(_pattern(s, new))
    answer = None if too_close(before, after) else (0 if after > before else 1)
    t = TEXT[lang]
    fields = {"h": s.head, "new": num(new, 1, lang), "tau": num(s.temperature, 2, lang)}
    why = say(
        TEXT,
        "entropy_tau_why",
        lang,
        before=num(before, 3, lang),
        after=num(after, 3, lang),
        **fields,
    )
    return ask(
        PAGE, "entropy_tau", TEXT, lang, s.link(), [t["up"], t["down"]], answer, why, **fields
    )


QUESTIONS = (top_key, row_sum, entropy_tau)
