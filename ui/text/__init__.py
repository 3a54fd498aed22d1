"""Texts in English and French. Each module holds ``TEXT = {"en": {...}, "fr": {...}}``."""

from __future__ import annotations

from collections.abc import Callable

LANGS = ("en", "fr")


def pick(table: dict[str, dict[str, str]], lang: str, name: str, /, **values: object) -> str:
    """The text for ``name`` in ``lang`` (English when a translation is missing), formatted."""
    text = table.get(lang, {}).get(name) or table["en"][name]
    return text.format(**values) if values else text


def translator(table: dict[str, dict[str, str]], lang: str) -> Callable[..., str]:
    """``pick`` with the table and the language fixed: ``t("title")``, ``t("n", x=1)``."""
    return lambda name, /, **values: pick(table, lang, name, **values)


def num(x: float, digits: int, lang: str, kind: str = "f") -> str:
    """A number for prose in ``lang``: ``digits`` decimals (``kind`` "f"), or significant digits
    ("g"), or a mantissa's decimals ("e"); French writes the decimal comma, as the chapters do.

    ``num(1.609, 2, "fr") == "1,61"``, ``num(2.8e-17, 1, "fr", "e") == "2,8e-17"``.
    """
    text = f"{x:.{digits}{kind}}"
    return text.replace(".", ",") if lang == "fr" else text


_MD_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~$:&=\"'")


def md_escape(text: str) -> str:
    """Make any text literal inside Streamlit markdown: every punctuation mark is backslash-escaped.

    Used for whatever a user or a URL supplies, so that it is shown as typed and never becomes a
    link, an image, a directive or HTML.
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text).replace("\n", " ")
