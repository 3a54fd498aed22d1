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


MINUS = "\u2212"  # the minus sign of a number shown in a cell or read aloud: as wide as "+"


def num(x: float, digits: int, lang: str, kind: str = "f") -> str:
    """A number for prose, tables and charts in ``lang``: ``digits`` decimals (``kind`` "f"),
    or significant digits ("g"), or a mantissa's decimals ("e"); French writes the decimal
    comma, as the chapters do.

    One spelling everywhere: a number that rounds to zero at the shown digits has no sign
    (``num(-1e-17, 3, "en") == "0.000"``); an exponent has no padding zero and no "+"
    (``num(1e-5, 3, "en", "g") == "1e-5"``, ``num(2.8e-17, 1, "fr", "e") == "2,8e-17"``); an
    exact zero in scientific notation is ``"0"``, not ``"0.0e+00"``.
    """
    if kind == "e" and x == 0:
        return "0"
    text = f"{x:.{digits}{kind}}"
    mantissa, mark, exponent = text.partition("e")
    if mark:  # e-05 -> e-5, e+20 -> e20
        text = f"{mantissa}e{int(exponent)}"
    elif mantissa.startswith("-") and float(mantissa) == 0:  # -0.000 -> 0.000
        text = mantissa[1:]
    return text.replace(".", ",") if lang == "fr" else text


_MD_SPECIAL = frozenset("\\`*_{}[]()#+-.!|<>~$:&=\"'")


def md_escape(text: str) -> str:
    """Make any text literal inside Streamlit markdown: every punctuation mark is backslash-escaped.

    Used for whatever a user or a URL supplies, so that it is shown as typed and never becomes a
    link, an image, a directive or HTML.
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text).replace("\n", " ")
