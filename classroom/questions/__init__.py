"""classroom.questions: questions about a page's numbers, whose right answer the lab computes.

    qs = for_page("softmax", {"seed": "7", "token": "2"}, "en")
    #   slug as in the URL ("" = home: no questions); values as a link carries them (strings;
    #   a missing or bad one takes its default, never an error); lang "en" or "fr"
    #   -> list[Question]: q.id ("softmax.top_key", the same at every setting and language),
    #   q.text, q.choices (2..6, distinct), q.answer (index, or None: too close to call at this
    #   setting, not asked), q.why (the numbers that decide), q.highlight ({"token": i},
    #   {"head": h} or {}), q.page, q.setting (the values the answer was computed at)

The tie rule (``base.too_close``): two deciding numbers within 1 % of the larger, or within
1e-6 of each other (numbers near 0), are too close to call. A question whose chart needs two
candidates (two tokens, two heads) is left out of a setting that has one. One module per page;
every question is one function whose docstring gives its formula. Imports llm and numpy only.
"""

from __future__ import annotations

from collections.abc import Mapping

from classroom.questions import (
    code,
    concat,
    depth,
    heads,
    layernorm,
    learned,
    mix,
    qkv,
    scores,
    softmax,
)
from classroom.questions.base import TIE_FLOOR, TIE_RELATIVE, Question, too_close
from classroom.questions.setting import Setting, parse

PAGES = {
    module.PAGE: module.QUESTIONS
    for module in (qkv, scores, softmax, mix, heads, concat, layernorm, depth, code, learned)
}


def for_page(slug: str, values: Mapping[str, object] | None = None, lang: str = "en"):
    """The page's questions at the setting the values mean, in ``lang`` (else English).

    Shapes: slug, {name: text}, "en"/"fr" -> list[Question] (empty for home or an unknown page).
    """
    questions = PAGES.get(slug if isinstance(slug, str) else "", ())
    if not questions:
        return []
    lang = lang if lang in ("en", "fr") else "en"
    setting = parse(values)
    asked = (question(setting, lang) for question in questions)
    return [q for q in asked if q is not None]


__all__ = [
    "PAGES",
    "TIE_FLOOR",
    "TIE_RELATIVE",
    "Question",
    "Setting",
    "for_page",
    "parse",
    "too_close",
]
