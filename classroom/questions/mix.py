"""/mix's questions: one token's output row z_i = sum_j A[i, j] · v_j."""

from __future__ import annotations

from classroom.questions.base import Question, ask, say, shape_choices, token_question
from classroom.questions.setting import Setting, lab, norms

PAGE = "mix"
TEXT = {
    "en": {
        "top_value": "Which value row weighs most in {token}'s output (head {h})?",
        "top_value_why": "The length of each term of z_{i} = Σ_j A[{i}, j] · v_j, that is "
        "A[{i}, j] · ‖v_j‖ (head {h}): {numbers}.",
        "z_shape": "What shape is Z = A · V for one head?",
        "z_shape_why": "A is {t} × {t} and V is {t} × {d_head}: Z = A · V is {t} × {d_head}, "
        "one row per token.",
    },
    "fr": {
        "top_value": "Quelle ligne de valeurs pèse le plus dans la sortie de {token} (tête {h}) ?",
        "top_value_why": "La longueur de chaque terme de z_{i} = Σ_j A[{i}, j] · v_j, soit "
        "A[{i}, j] · ‖v_j‖ (tête {h}) : {numbers}.",
        "z_shape": "Quelle est la forme de Z = A · V pour une tête ?",
        "z_shape_why": "A est {t} × {t} et V est {t} × {d_head} : Z = A · V est {t} × {d_head}, "
        "une ligne par token.",
    },
}


def top_value(s: Setting, lang: str) -> Question | None:
    """argmax_j A[i, j] · ||v_j|| (the norm of the term A[i, j] v_j, what
    ``llm.value_contributions`` gives row by row), i the followed token; six largest shown."""
    labels = s.labels
    if len(labels) < 2:
        return None
    i = s.token
    head = lab(s)[2].heads[s.head]
    weights = (head.pattern[i] * norms(head.v)).tolist()
    fields = {"token": labels[i], "h": s.head, "i": i}
    return token_question(
        PAGE, "top_value", TEXT, lang, s.link(), labels, weights, {"token": i}, **fields
    )


def z_shape(s: Setting, lang: str) -> Question:
    """Z = pattern @ v is [T, d_head] (read off the trace); the others: [T, T], [T, d_model],
    [d_head, T]."""
    z = lab(s)[2].heads[s.head].z
    t, d_head = z.shape
    choices, answer = shape_choices((t, d_head), [(t, t), (t, s.d_model), (d_head, t)])
    why = say(TEXT, "z_shape_why", lang, t=t, d_head=d_head)
    return ask(PAGE, "z_shape", TEXT, lang, s.link(), choices, answer, why)


QUESTIONS = (top_value, z_shape)
