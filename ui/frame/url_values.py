"""A page's own URL values: how a page declares them, and how a bad one is refused.

A page passes its declarations to the frame, which repairs and reports them like the shared
settings (one warning box, both languages; the widget's default replaces a bad value)::

    TOKEN = IntRange("token", 0, last_token, default=last_token, message=(TEXT, "reset"))
    s = frame("page_mix", values=(TOKEN,))
    i = st.selectbox(..., index=s.value("token"), key="token",
                     bind="query-params", persist_state="session")

A bound (``low``, ``high``, ``options``, ``default``) is a constant or a function of the
repaired shared settings (``Sizes``), so ``token``'s range follows the sentence. The widget must
start on the declared default: then a URL without the parameter means that value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

from ui.text import md_escape, num


@dataclass(frozen=True)
class Sizes:
    """The repaired shared settings a page value's range or default may depend on."""

    n_tokens: int
    d_model: int
    n_heads: int


class Refused(Exception):
    """A URL value a declaration does not accept: ``code`` names the frame's generic message
    (``bad_int``, ``bad_number``, ``bad_range``, ``bad_choice``), ``fields`` fill it."""

    def __init__(self, code: str, **fields: object) -> None:
        super().__init__(code)
        self.code, self.fields = code, fields


def _at(bound: Any, sizes: Sizes) -> Any:
    return bound(sizes) if callable(bound) else bound


def short(raw: str, limit: int = 40) -> str:
    """A raw URL value cut to a readable length for a message (shown as text, never HTML)."""
    return md_escape(raw if len(raw) <= limit else raw[:limit] + "…")


def _spelled(label: str, lang: str) -> str:
    """A URL spelling as a message writes it: a decimal number with the French decimal comma
    (``0.5`` -> ``0,5``, ``1e-05`` unchanged), any other word as it is."""
    try:
        float(label)
    except ValueError:
        return label
    return label.replace(".", ",") if lang == "fr" else label


def in_words(fields: dict[str, object], lang: str) -> dict[str, object]:
    """A refusal's fields as its message writes them in ``lang``: a bound (a float) with up to
    six significant digits and the decimal comma in French, a list of options joined (by
    ``;`` in French once an option holds a decimal comma, as the pages list numbers), and the
    value used instead spelled the same way. The value the link held is left as it came."""
    out = dict(fields)
    for key, field in fields.items():
        if isinstance(field, float):
            out[key] = num(field, 6, lang, "g")
        elif isinstance(field, tuple):
            items = [_spelled(str(item), lang) for item in field]
            comma = lang == "fr" and any("," in item for item in items)
            out[key] = ("\u00a0; " if comma else ", ").join(items)
    if isinstance(fields.get("used"), str):
        out["used"] = _spelled(fields["used"], lang)
    return out


@dataclass(frozen=True)
class Value:
    """What every declaration has: the URL name, the default, and an optional own message.

    ``message`` is ``(TEXT, key)`` in a page's text module; it replaces the generic message of a
    value out of range or not among the options, and is formatted with ``key``, ``value``,
    ``used``, ``low``, ``high``, ``options`` and ``n_tokens``.
    """

    name: str
    _: KW_ONLY
    default: Any
    message: tuple[dict[str, dict[str, str]], str] | None = None

    def default_for(self, sizes: Sizes) -> Any:
        return _at(self.default, sizes)

    def parse(self, raw: str, sizes: Sizes) -> Any:
        """The value a URL string means, or ``Refused``."""
        raise NotImplementedError

    def allows(self, value: Any, sizes: Sizes) -> bool:
        """Whether a value already in the session is still valid (a range that follows the
        sentence can leave it behind)."""
        try:
            return self.parse(self.label(value), sizes) == value
        except Refused:
            return False

    def label(self, value: Any) -> str:
        """How the URL writes the value."""
        return str(value)

    def fields(self, sizes: Sizes) -> dict[str, object]:
        """The bounds a message may name."""
        return {}


@dataclass(frozen=True)
class IntRange(Value):
    """A whole number from ``low`` to ``high`` (both included)."""

    low: int | Callable[[Sizes], int]
    high: int | Callable[[Sizes], int]

    def parse(self, raw: str, sizes: Sizes) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise Refused("bad_int", value=short(raw)) from None
        low, high = _at(self.low, sizes), _at(self.high, sizes)
        if not low <= value <= high:
            raise Refused("bad_range", value=value, low=low, high=high)
        return value

    def fields(self, sizes: Sizes) -> dict[str, object]:
        return {"low": _at(self.low, sizes), "high": _at(self.high, sizes)}


@dataclass(frozen=True)
class FloatRange(Value):
    """A finite number from ``low`` to ``high`` (both included); NaN and infinities are refused."""

    low: float | Callable[[Sizes], float]
    high: float | Callable[[Sizes], float]

    def parse(self, raw: str, sizes: Sizes) -> float:
        try:
            value = float(raw.strip())
        except ValueError:
            raise Refused("bad_number", value=short(raw)) from None
        if not math.isfinite(value):
            raise Refused("bad_number", value=short(raw))
        low, high = _at(self.low, sizes), _at(self.high, sizes)
        if not low <= value <= high:
            raise Refused("bad_range", value=short(raw), low=float(low), high=float(high))
        return value

    def label(self, value: Any) -> str:
        return f"{value:g}"

    def fields(self, sizes: Sizes) -> dict[str, object]:
        # numbers: the message writes them in its language (``in_words``: 0,05 in French)
        return {"low": float(_at(self.low, sizes)), "high": float(_at(self.high, sizes))}


@dataclass(frozen=True)
class Choice(Value):
    """One of ``options``, written in the URL as ``format(option)`` (what the widget's
    ``format_func`` shows, since a bound select_slider or selectbox writes that)."""

    options: Sequence[Any] | Callable[[Sizes], Sequence[Any]]
    format: Callable[[Any], str] = str

    def parse(self, raw: str, sizes: Sizes) -> Any:
        for option in _at(self.options, sizes):
            if self.format(option) == raw:
                return option
        raise Refused("bad_choice", value=short(raw), **self.fields(sizes))

    def label(self, value: Any) -> str:
        return self.format(value)

    def fields(self, sizes: Sizes) -> dict[str, object]:
        # the URL spellings, listed by the message in its language (``in_words``)
        return {"options": tuple(map(self.format, _at(self.options, sizes)))}


def _flag_label(value: bool) -> str:
    return "true" if value else "false"


@dataclass(frozen=True)
class Flag(Choice):
    """On or off, written ``true`` / ``false`` as a bound toggle or checkbox writes it."""

    options: Sequence[Any] | Callable[[Sizes], Sequence[Any]] = (True, False)
    format: Callable[[Any], str] = _flag_label
