"""/concat's questions: the heads' outputs side by side, and W_O."""

from __future__ import annotations

from classroom.questions.base import Question, ask, say, shape_choices
from classroom.questions.setting import Setting, lab

PAGE = "concat"
TEXT = {
    "en": {
        "concat_shape": "What shape is the concatenation of the heads' outputs?",
        "concat_shape_why": "{n_heads} heads, each z of {t} × {d_head}, side by side: {t} × "
        "({n_heads} · {d_head}) = {t} × {d_model}.",
        "wo_shape": "What shape is W_O?",
        "wo_shape_why": "attn_out = concat · W_O takes each {d_model}-wide row of the "
        "concatenation to a {d_model}-wide row: W_O is {d_model} × {d_model}.",
    },
    "fr": {
        "concat_shape": "Quelle est la forme de la concaténation des sorties des têtes ?",
        "concat_shape_why": "{n_heads} têtes, chaque z de {t} × {d_head}, côte à côte : {t} × "
        "({n_heads} · {d_head}) = {t} × {d_model}.",
        "wo_shape": "Quelle est la forme de W_O ?",
        "wo_shape_why": "attn_out = concat · W_O envoie chaque ligne de {d_model} nombres de la "
        "concaténation sur une ligne de {d_model} : W_O est {d_model} × {d_model}.",
    },
}


def concat_shape(s: Setting, lang: str) -> Question:
    """trace.concat is [T, n_heads · d_head] = [T, d_model]; the others: [T, d_head],
    [n_heads, T], [T, n_heads]."""
    concat = lab(s)[2].concat
    t = concat.shape[0]
    d_head = s.d_model // s.n_heads
    choices, answer = shape_choices(concat.shape, [(t, d_head), (s.n_heads, t), (t, s.n_heads)])
    why = say(
        TEXT, "concat_shape_why", lang, t=t, d_head=d_head, n_heads=s.n_heads, d_model=s.d_model
    )
    return ask(PAGE, "concat_shape", TEXT, lang, s.link(), choices, answer, why)


def wo_shape(s: Setting, lang: str) -> Question:
    """params.W_O is [d_model, d_model]; the others: [d_head, d_model], [d_model, d_head],
    [n_heads, d_model]."""
    w_o = lab(s)[1].W_O
    d_head = s.d_model // s.n_heads
    others = [(d_head, s.d_model), (s.d_model, d_head), (s.n_heads, s.d_model)]
    choices, answer = shape_choices(w_o.shape, others)
    why = say(TEXT, "wo_shape_why", lang, d_model=s.d_model)
    return ask(PAGE, "wo_shape", TEXT, lang, s.link(), choices, answer, why)


QUESTIONS = (concat_shape, wo_shape)
