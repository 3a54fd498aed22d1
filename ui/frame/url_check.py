"""The URL's repair: the shared settings' limits, and a first visit's values checked against them.

A corrected value is the widget's default wherever possible, so that the URL without that
parameter and the page show the same numbers. A page's own values (``ui.frame.url_values``) are
checked here too, against the repaired shared ones (a token position against the sentence's length).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

import llm
from ui.frame.url_values import Refused, Sizes, Value, in_words, short
from ui.text import LANGS, pick, translator
from ui.text.common import TEXT

DEFAULT_TEXT = "the cat sat on mat"
D_MODEL_MAX = 64  # the slider's top: 64 features still fit a readable table
DEFAULTS: dict[str, object] = {
    "text": DEFAULT_TEXT,
    "d_model": 8,
    "n_heads": 4,
    "seed": 0,
    "causal": True,
    "embeddings": "seeded",
    "head": 0,
}
SHARED_KEYS = ("text", "d_model", "n_heads", "seed", "causal", "embeddings", "head", "lang")
SHARED_KEYS += ("present", "class")  # presenter mode; the class a student follows


def default_heads(d_model: int) -> int:
    """The head count a d_model starts with: 4 when it divides d_model, else the largest divisor
    below 4 (so a URL without ``n_heads`` always means this value)."""
    return max(h for h in llm.divisors(d_model) if h <= 4)


def parse_int(key: str, raw: str, low: int, high: int, used: int, t: Callable[..., str]):
    """(value, None) for a whole number in [low, high], else (None, message)."""
    try:
        value = int(raw.strip())
    except ValueError:
        return None, t("bad_int", key=key, value=short(raw), used=used)
    if not low <= value <= high:
        return None, t("bad_range", key=key, value=value, low=low, high=high, used=used)
    return value, None


def refusal(value: Value, refused: Refused, sizes: Sizes, lang: str) -> str:
    """The message for a refused page value: its own message if declared, else the frame's,
    its numbers written in ``lang`` (``in_words``)."""
    used = value.label(value.default_for(sizes))
    fields = value.fields(sizes) | refused.fields
    fields |= {"key": value.name, "used": used, "n_tokens": sizes.n_tokens}
    fields = in_words(fields, lang)
    if value.message is not None and refused.code in ("bad_range", "bad_choice"):
        table, name = value.message
        return pick(table, lang, name, **fields)
    return pick(TEXT, lang, refused.code, **fields)


def page_values(values: tuple[Value, ...], sizes: Sizes, lang: str) -> dict[str, object]:
    """The page's values from the session, each still valid: a range that follows the sentence
    can leave a value behind, which falls back to its default with a note."""
    ss = st.session_state
    current: dict[str, object] = {}
    for value in values:
        default = value.default_for(sizes)
        if value.name in ss:
            old = ss[value.name]
        else:  # the widget has not run yet: it will start on the link's value (checked before)
            try:
                old = value.parse(st.query_params.get(value.name, ""), sizes)
            except Refused:
                old = default
        try:
            if value.parse(value.label(old), sizes) != old:
                raise Refused("bad_choice", value=short(value.label(old)), **value.fields(sizes))
        except Refused as refused:
            st.info(refusal(value, refused, sizes, lang), icon=":material/info:")
            ss[value.name] = old = default
        current[value.name] = old
    return current


class _Fixes:
    """The corrections of one link: the value each fixed key takes, one message per fix."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.messages: list[str] = []

    def fix(self, key: str, value: object, message: str) -> None:
        self.values[key] = value
        self.messages.append(message)


def check_url(lang: str, values: tuple[Value, ...]) -> tuple[dict[str, object], list[str]]:
    """Check the raw URL values of a first visit: (corrected values, one message per fix).

    A corrected value is the widget's default wherever possible, so that the URL without that
    parameter and the page show the same numbers.
    """
    t = translator(TEXT, lang)
    raw = st.query_params.to_dict()
    fixes = _Fixes()
    for key in sorted(set(raw) - set(SHARED_KEYS) - {value.name for value in values}):
        fixes.messages.append(t("bad_unknown", key=short(key)))
        del st.query_params[key]
    d_model, n_heads = _check_sizes(raw, t, fixes)
    _check_choices(raw, t, lang, fixes)
    if raw.get("embeddings") == "handmade" and d_model != llm.HANDMADE_D_MODEL:
        fixes.fix("embeddings", "seeded", t("bad_handmade", value=d_model))
    n_tokens = _check_text(raw, t, lang, fixes)
    sizes = Sizes(n_tokens=n_tokens, d_model=d_model, n_heads=n_heads)
    _check_page_values(raw, values, sizes, lang, fixes)
    return fixes.values, fixes.messages


def _check_sizes(raw: dict[str, str], t: Callable[..., str], fixes: _Fixes) -> tuple[int, int]:
    """d_model, the head count (a divisor of d_model), the head shown and the seed: the
    (d_model, n_heads) the page will run at."""
    d_model = int(DEFAULTS["d_model"])
    if "d_model" in raw:
        value, message = parse_int("d_model", raw["d_model"], 2, D_MODEL_MAX, d_model, t)
        if message:
            fixes.fix("d_model", d_model, message)
        else:
            d_model = value
    n_heads = default_heads(d_model)
    if "n_heads" in raw:
        value, message = parse_int("n_heads", raw["n_heads"], 1, llm.MAX_HEADS, n_heads, t)
        if message:
            fixes.fix("n_heads", n_heads, message)
        elif d_model % value:
            options = ", ".join(map(str, llm.divisors(d_model)))
            message = t("bad_heads", value=value, d_model=d_model, options=options, used=n_heads)
            fixes.fix("n_heads", n_heads, message)
        else:
            n_heads = value
    if "head" in raw:
        value, message = parse_int("head", raw["head"], 0, llm.MAX_HEADS - 1, 0, t)
        if message:
            fixes.fix("head", 0, message)
        elif value >= n_heads:
            fixes.fix("head", 0, t("bad_head", value=value, n_heads=n_heads, used=0))
    if "seed" in raw:
        _value, message = parse_int("seed", raw["seed"], 0, llm.MAX_SEED, 0, t)
        if message:
            fixes.fix("seed", 0, message)
    return d_model, n_heads


def _check_choices(raw: dict[str, str], t: Callable[..., str], lang: str, fixes: _Fixes) -> None:
    """The mask, presenter mode, the language and the embeddings: one of their options each."""
    for key, options in (
        ("causal", ("true", "false")),
        ("present", ("true", "false")),
        ("lang", LANGS),
        ("embeddings", llm.EMBEDDINGS),
    ):
        if key in raw and raw[key] not in options:
            used = {"causal": "true", "present": "false", "lang": lang, "embeddings": "seeded"}[key]
            value = {"causal": True, "present": False, "lang": lang, "embeddings": "seeded"}[key]
            message = t(
                "bad_choice", key=key, value=short(raw[key]), options=", ".join(options), used=used
            )
            fixes.fix(key, value, message)


def _check_text(raw: dict[str, str], t: Callable[..., str], lang: str, fixes: _Fixes) -> int:
    """The sentence, readable by llm: its number of tokens (the default's, if replaced)."""
    text = raw.get("text", DEFAULT_TEXT)
    try:
        return len(llm.tokenize(text))
    except llm.LabError as err:
        why = pick(TEXT, lang, f"err_{err.code}", **err.params)
        fixes.fix("text", DEFAULT_TEXT, t("bad_text", why=why.rstrip("."), used=DEFAULT_TEXT))
        return len(llm.tokenize(DEFAULT_TEXT))


def _check_page_values(
    raw: dict[str, str], values: tuple[Value, ...], sizes: Sizes, lang: str, fixes: _Fixes
) -> None:
    """The page's own values, checked against the repaired shared ones (a token position
    against the sentence's length); a refused one leaves the URL now, so that its widget
    starts on the default instead of reading the bad value when it first appears."""
    for value in values:
        if value.name in raw:
            try:
                value.parse(raw[value.name], sizes)
            except Refused as refused:
                fixes.fix(
                    value.name, value.default_for(sizes), refusal(value, refused, sizes, lang)
                )
                del st.query_params[value.name]
