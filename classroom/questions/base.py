"""What every question is made of: the Question, the tie rule, choices and numbers in EN/FR."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LANGS = ("en", "fr")
TIE_RELATIVE = 0.01  # two deciding numbers within 1 % of the larger are too close to call
TIE_FLOOR = 1e-6  # ... and so are two numbers both this close to each other near 0


@dataclass(frozen=True)
class Question:
    """One question about the numbers of a page, at one setting, in one language.

    ``answer`` indexes ``choices``; None when the right choice is too close to call here (the
    question is then not asked). ``why`` gives the numbers that make the answer right.
    ``highlight`` says what to outline on the page's chart: ``{"token": i}``, ``{"head": h}``
    or ``{}``. ``setting`` is the setting the answer was computed at (the parsed URL values).
    """

    id: str
    page: str
    text: str
    choices: tuple[str, ...]
    answer: int | None
    why: str
    highlight: dict[str, int] = field(default_factory=dict)
    setting: dict[str, str] = field(default_factory=dict)


def too_close(a: float, b: float) -> bool:
    """The tie rule: |a - b| <= 1 % of max(|a|, |b|), or |a - b| <= TIE_FLOOR (numbers near 0).

    Example: too_close(1.0, 0.995) is True; too_close(1.0, 0.98) is False;
    too_close(1e-9, 3e-9) is True (both are 0 at the lab's precision).
    """
    gap = abs(a - b)
    return gap <= TIE_FLOOR or gap <= TIE_RELATIVE * max(abs(a), abs(b))


def best_of(values: Sequence[float], largest: bool = True) -> int | None:
    """The index of the largest (or smallest) value; None when the runner-up is too close.

    Shapes: [n] -> index or None; a single value is its own best.
    Example: best_of([0.2, 0.5, 0.3]) == 1; best_of([0.5, 0.499]) is None
    """
    signed = [v if largest else -v for v in values]
    order = sorted(range(len(signed)), key=lambda k: -signed[k])
    if not order:
        return None
    if len(order) > 1 and too_close(signed[order[0]], signed[order[1]]):
        return None
    return order[0]


def top_candidates(values: Sequence[float], limit: int = 6, largest: bool = True) -> list[int]:
    """The ``limit`` candidates with the largest (or smallest) values, in their own order
    (a sentence's order, the heads' order), so that the choices' order tells nothing.

    Example: top_candidates([5, 1, 4, 3], limit=2) == [0, 2]
    """
    signed = [v if largest else -v for v in values]
    order = sorted(range(len(signed)), key=lambda k: (-signed[k], k))
    return sorted(order[:limit])


def pick_best(values: Sequence[float], limit: int = 6, largest: bool = True):
    """(candidates shown, answer index into them or None): the ``limit`` best candidates in
    their own order, and the best of them under the tie rule."""
    shown = top_candidates(values, limit, largest)
    best = best_of([values[k] for k in shown], largest)
    return shown, best


def num(x: float, digits: int, lang: str) -> str:
    """A number with ``digits`` decimals, the decimal comma in French, −0 written 0."""
    text = f"{x:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")
    return text.replace(".", ",") if lang == "fr" else text


def sci(x: float, lang: str) -> str:
    """A number with 3 significant digits (``1.23e-05`` for small ones), comma in French."""
    text = f"{x:.3g}"
    return text.replace(".", ",") if lang == "fr" else text


def numbers(xs: Sequence[float], digits: int, lang: str) -> str:
    """Numbers listed as the pages list them: ", " in English, "; " in French (comma decimals)."""
    return ("; " if lang == "fr" else ", ").join(num(float(x), digits, lang) for x in xs)


def shape(rows: int, cols: int) -> str:
    """A shape as the pages write it: ``5 × 2``."""
    return f"{rows} × {cols}"


def shape_choices(right: tuple[int, int], others: Sequence[tuple[int, int]]) -> tuple:
    """(choices, answer): the right shape among up to three distinct other shapes, in order of
    size (rows then columns), so that the position tells nothing; fallbacks keep >= 2 choices."""
    pool = [right, *others, (right[0] + 1, right[1]), (right[0], right[1] + 1)]
    kept: list[tuple[int, int]] = []
    for item in pool:
        if item not in kept and len(kept) < 4:
            kept.append(item)
    kept.sort()
    return tuple(shape(*s) for s in kept), kept.index(right)


Text = dict[str, dict[str, str]]


def say(table: Text, key: str, lang: str, **fields: object) -> str:
    """A text of a page's table in ``lang``, its fields filled (plain text, never markup)."""
    return table[lang][key].format(**fields)


def token_why(
    labels: Sequence[str], shown: Sequence[int], values: Sequence[float], digits: int, lang: str
) -> str:
    """The deciding numbers of a token question: ``cat 0.41, sat 0.20`` (French: ``cat 0,41 ;``)."""
    sep = " ; " if lang == "fr" else ", "
    return sep.join(f"{labels[k]} {num(float(values[k]), digits, lang)}" for k in shown)


Builder = Callable[..., "Question | None"]


def finite(xs: Sequence[float]) -> bool:
    """Whether every number is finite (a question on NaN is never asked)."""
    return all(math.isfinite(float(x)) for x in xs)


def ask(
    page: str,
    name: str,
    table: Text,
    lang: str,
    link: dict[str, str],
    choices: Sequence[str],
    answer: int | None,
    why: str,
    highlight: dict[str, int] | None = None,
    **fields: object,
) -> Question:
    """The Question ``page.name``: its text ``table[lang][name]`` filled with ``fields``."""
    return Question(
        id=f"{page}.{name}",
        page=page,
        text=say(table, name, lang, **fields),
        choices=tuple(choices),
        answer=answer,
        why=why,
        highlight=dict(highlight or {}),
        setting=dict(link),
    )


def token_question(
    page: str,
    name: str,
    table: Text,
    lang: str,
    link: dict[str, str],
    labels: Sequence[str],
    values: Sequence[float],
    highlight: dict[str, int] | None = None,
    **fields: object,
) -> Question:
    """The Question ``page.name`` whose choices are tokens: the six with the largest ``values``,
    in the sentence's order, the answer the largest under the tie rule. Its why,
    ``table[lang][name + "_why"]``, lists their numbers; ``fields`` fill both texts.
    ``highlight`` None outlines the answer's token."""
    shown, best = pick_best(values)
    numbers = token_why(labels, shown, values, 3, lang)
    why = say(table, f"{name}_why", lang, numbers=numbers, **fields)
    if highlight is None:
        highlight = {"token": shown[best]} if best is not None else {}
    choices = [labels[k] for k in shown]
    return ask(page, name, table, lang, link, choices, best, why, highlight, **fields)
