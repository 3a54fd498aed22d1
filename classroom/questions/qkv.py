"""/qkv's questions: the selected head's Q, K, V at the setting."""

from __future__ import annotations

from classroom.questions.base import Question, ask, say, shape_choices, token_question
from classroom.questions.setting import Setting, lab, norms

PAGE = "qkv"
TEXT = {
    "en": {
        "largest_query": "Which token's query has the largest norm (head {h})?",
        "largest_query_why": "‖q_i‖ = sqrt(sum_k Q[i, k]²) for head {h}: {numbers}.",
        "q_shape": "What shape is Q for one head (head {h})?",
        "q_shape_why": "Q = X · W_Q: X is {t} × {d_model} (one row a token), W_Q of a head is "
        "{d_model} × {d_head}, so Q is {t} × {d_head}.",
    },
    "fr": {
        "largest_query": "Quel token a la requête de plus grande norme (tête {h}) ?",
        "largest_query_why": "‖q_i‖ = racine(somme_k Q[i, k]²) pour la tête {h} : {numbers}.",
        "q_shape": "Quelle est la forme de Q pour une tête (tête {h}) ?",
        "q_shape_why": "Q = X · W_Q : X est {t} × {d_model} (une ligne par token), le W_Q d'une "
        "tête est {d_model} × {d_head}, donc Q est {t} × {d_head}.",
    },
}


def largest_query(s: Setting, lang: str) -> Question | None:
    """argmax_i ||q_i|| over the tokens, q = trace.heads[head].q [T, d_head]; the six largest
    norms are the choices (sentence order). Not asked for a one-token sentence."""
    labels = s.labels
    if len(labels) < 2:
        return None
    q = lab(s)[2].heads[s.head].q
    values = norms(q).tolist()
    return token_question(PAGE, "largest_query", TEXT, lang, s.link(), labels, values, h=s.head)


def q_shape(s: Setting, lang: str) -> Question:
    """Q of one head is [T, d_head] (read off the trace's array); the other choices are the
    shapes a learner confuses it with: [T, d_model], [d_model, d_head], [T, T]."""
    q = lab(s)[2].heads[s.head].q
    t, d_head = q.shape
    choices, answer = shape_choices((t, d_head), [(t, s.d_model), (s.d_model, d_head), (t, t)])
    why = say(TEXT, "q_shape_why", lang, t=t, d_model=s.d_model, d_head=d_head)
    return ask(PAGE, "q_shape", TEXT, lang, s.link(), choices, answer, why, h=s.head)


QUESTIONS = (largest_query, q_shape)
