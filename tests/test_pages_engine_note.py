"""Pages 3, 4 and 7 show the engine's numbers beside the readable code: each says so, with the
agreement it measured between the two on the page's own setting, in both languages."""

from __future__ import annotations

import re

import numpy as np
import pytest

from llm import engine, readable
from tests.apptest_pages import LINKS, Expected, opened
from ui.text.layernorm import TEXT as LAYERNORM_TEXT
from ui.text.mix import TEXT as MIX_TEXT
from ui.text.softmax import TEXT as SOFTMAX_TEXT

# page: (its code section's key, its texts, what the note compares)
PAGES = {
    "softmax": ("softmax_code", SOFTMAX_TEXT, "pattern"),
    "mix": ("mix_code", MIX_TEXT, "z"),
    "layernorm": ("layernorm_code", LAYERNORM_TEXT, "ln_out"),
}
NUMBER = re.compile(r"(\d[.,]\de[+-]\d\d)\.?$")  # French writes a decimal comma


def note(page: str, link: dict[str, str]) -> tuple[str, float]:
    """The page's note above its readable code, and the difference it reports."""
    key, text, _ = PAGES[page]
    at = opened(page, link, **{key: True})
    lang = link.get("lang", "en")
    start = text[lang]["engine_note"].split("{diff}")[0]
    (caption,) = [c.value for c in at.main.caption if c.value.startswith(start)]
    (shown,) = NUMBER.findall(caption)
    return caption, float(shown.replace(",", "."))


def direct(page: str, link: dict[str, str]) -> float:
    """The same agreement measured here: the readable module against the engine."""
    want = Expected(link)
    if page == "layernorm":
        a = readable.residual_layer_norm(want.x, want.trace.attn_out)
        b = engine.residual_layer_norm(want.x, want.trace.attn_out)
        return max(engine.max_abs_diff(m, n) for m, n in zip(a, b, strict=True))
    w = (want.params.W_Q[want.h], want.params.W_K[want.h], want.params.W_V[want.h])
    head = readable.attention_head(want.x, *w, want.trace.mask)
    return engine.max_abs_diff(getattr(head, PAGES[page][2]), getattr(want.head, PAGES[page][2]))


@pytest.mark.parametrize("link", ["chapter9", "wide", "no_mask", "repeats"])
@pytest.mark.parametrize("page", list(PAGES))
def test_the_note_reports_the_measured_agreement(page: str, link: str) -> None:
    caption, shown = note(page, LINKS[link])
    assert "llm/engine.py" in caption
    assert 0.0 <= shown < 1e-12
    # the number is the one measured, to the two digits shown
    np.testing.assert_allclose(shown, direct(page, LINKS[link]), rtol=0.051, atol=0.0)


@pytest.mark.parametrize("page", list(PAGES))
def test_the_note_in_french(page: str) -> None:
    caption, shown = note(page, {"lang": "fr", "seed": "3"})
    assert caption.startswith("Les nombres ci-dessus viennent du moteur vectorisé")
    assert 0.0 <= shown < 1e-12
    if shown:
        assert re.search(r"\d,\de[+-]\d\d\.?$", caption)  # the decimal comma, as the chapters write


def test_a_closed_code_section_measures_nothing() -> None:
    at = opened("softmax", {})
    start = SOFTMAX_TEXT["en"]["engine_note"].split("{diff}")[0]
    assert not [c for c in at.main.caption if c.value.startswith(start)]
