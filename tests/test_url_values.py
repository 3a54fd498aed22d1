"""A page's own URL values: the declarations alone, then repaired and reported by the frame."""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_pages import figure_pieces, open_link
from ui.frame.url_values import Choice, Flag, FloatRange, IntRange, Refused, Sizes
from ui.text import md_escape

SIZES = Sizes(n_tokens=5, d_model=8, n_heads=4)
MIX = "../pages/4_mix.py"
LAYERNORM = "../pages/7_layernorm.py"


def last_token(sizes: Sizes) -> int:
    return sizes.n_tokens - 1


TOKEN = IntRange("token", 0, last_token, default=last_token)
TEMPERATURE = FloatRange("temperature", 0.05, 20.0, default=1.0)
EPS = Choice("eps", [1e-5, 1e-3, 1.0], default=1e-5, format=lambda v: f"{v:g}")


def refusal(value, raw: str, sizes: Sizes = SIZES) -> tuple[str, dict]:
    with pytest.raises(Refused) as caught:
        value.parse(raw, sizes)
    return caught.value.code, caught.value.fields


def test_int_range_follows_the_sentence() -> None:
    assert TOKEN.parse(" 3 ", SIZES) == 3
    assert TOKEN.default_for(SIZES) == 4
    assert refusal(TOKEN, "two") == ("bad_int", {"value": "two"})
    assert refusal(TOKEN, "5") == ("bad_range", {"value": 5, "low": 0, "high": 4})
    assert refusal(TOKEN, "-1") == ("bad_range", {"value": -1, "low": 0, "high": 4})
    two_tokens = Sizes(n_tokens=2, d_model=8, n_heads=4)
    assert refusal(TOKEN, "3", two_tokens)[1]["high"] == 1
    assert TOKEN.allows(1, two_tokens) and not TOKEN.allows(4, two_tokens)


def test_float_range_refuses_nan_infinities_and_out_of_range() -> None:
    assert TEMPERATURE.parse("0.5", SIZES) == 0.5
    assert TEMPERATURE.parse("20", SIZES) == 20.0
    for raw in ("abc", "nan", "inf", "-inf", ""):
        assert refusal(TEMPERATURE, raw)[0] == "bad_number", raw
    for raw in ("0", "-1", "1e9", "0.049"):
        assert refusal(TEMPERATURE, raw) == (
            "bad_range",
            {"value": md_escape(raw), "low": 0.05, "high": 20.0},
        )
    assert TEMPERATURE.label(0.2) == "0.2" and not TEMPERATURE.allows(math.nan, SIZES)


def test_choice_reads_the_widget_spelling() -> None:
    assert EPS.parse("1e-05", SIZES) == 1e-5
    assert EPS.parse("0.001", SIZES) == 1e-3
    # 1e-3 is the same number, but the slider writes 0.001: the URL spelling is what counts
    assert refusal(EPS, "1e-3") == (
        "bad_choice",
        {"value": r"1e\-3", "options": ("1e-05", "0.001", "1")},
    )
    scale = Flag("scale", default=True)
    assert scale.parse("false", SIZES) is False and scale.parse("true", SIZES) is True
    assert refusal(scale, "maybe") == (
        "bad_choice",
        {"value": "maybe", "options": ("true", "false")},
    )
    # markup in a value is escaped before any message shows it
    assert refusal(scale, "[x](y)")[1]["value"] == r"\[x\]\(y\)"


def warning_text(at: AppTest) -> str:
    return "\n".join(w.value for w in at.warning)


@pytest.mark.parametrize(
    ("lang", "raw", "expected"),
    [
        ("en", "two", "**token** = “two” is not a whole number; using 4."),
        (
            "fr",
            "two",
            "**token** = «\u00a0two\u00a0» n’est pas un nombre entier\u00a0; on prend 4.",
        ),
        (
            "en",
            "9",
            "**token** = 9 is outside 0–4, the positions of this sentence; using 4.",
        ),
        (
            "fr",
            "9",
            "**token** = 9 sort de 0–4, les positions de cette phrase\u00a0; on prend 4.",
        ),
    ],
)
def test_bad_token_is_reported_with_the_shared_settings(lang: str, raw: str, expected: str) -> None:
    at = open_link(MIX, lang=lang, token=raw, d_model="abc")
    (warning,) = at.warning  # one box for the shared setting and the page's own value
    title = "Some settings were changed" if lang == "en" else "Certains réglages ont été remplacés"
    assert warning.value.startswith(title)
    assert f"- {expected}" in warning.value.splitlines()
    assert "d_model" in warning.value
    assert at.session_state["token"] == 4 and at.session_state["d_model"] == 8
    assert "token" not in at.query_params  # the default, so the link drops it


def test_token_range_is_the_repaired_sentence() -> None:
    two = open_link(MIX, text="the cat", token="3")
    assert "**token** = 3 is outside 0–1, the positions of this sentence; using 1." in warning_text(
        two
    )
    assert two.session_state["token"] == 1
    ok = open_link(MIX, text="the cat", token="0")
    assert not ok.warning and ok.session_state["token"] == 0
    assert ok.query_params["token"] == ["0"] or ok.query_params["token"] == "0"
    # an empty sentence is replaced by the 5-token default first, so token 4 exists again
    empty = open_link(MIX, text="", token="4")
    assert "The sentence is empty" in warning_text(empty)
    assert "**token**" not in warning_text(empty)
    assert empty.session_state["token"] == 4


def test_token_left_behind_by_a_shorter_sentence_says_so_once() -> None:
    at = open_link(MIX, lang="fr", token="3")
    at.text_input(key="text").set_value("le chat").run()
    (info,) = at.main.info
    assert (
        info.value == "**token** = 3 sort de 0–1, les positions de cette phrase\u00a0; on prend 1."
    )
    assert at.session_state["token"] == 1
    at.run()
    assert not at.main.info


def test_eps_is_declared_on_page_7_only() -> None:
    at = open_link(LAYERNORM, lang="fr", eps="banana")
    (warning,) = at.warning
    shown = warning.value.replace("\u00a0", " ")  # French puts no-break spaces around « »
    assert "**eps** = « banana » n’est pas parmi les valeurs proposées (1e-12 ; 1e-11 ;" in shown
    # the slider's labels, in the short form the prose writes (1e-5, not 1e-05)
    assert "1e-9 ; 1e-8 ; 1e-7 ; 1e-6 ; 1e-5 ; 0,0001 ; 0,001 ; 0,01 ; 0,1 ; 1) ;" in shown
    assert shown.rstrip().endswith("on prend 1e-5.")
    assert at.select_slider(key="eps").value == 1e-5
    assert not open_link(LAYERNORM, eps="0.001").warning
    on_mix = open_link(MIX, eps="0.001")  # page 4 declares no eps: an unknown setting there
    assert "**eps** is not a setting of this lab" in warning_text(on_mix)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("1e-05", 1e-5),  # the slider's label before its exponents lost their padding zero
        ("0.00001", 1e-5),
        ("1e-5", 1e-5),
        ("1e-08", 1e-8),
        ("0.0010", 1e-3),
        ("1", 1.0),
    ],
)
def test_eps_reads_any_spelling_of_an_offered_number(raw: str, value: float) -> None:
    at = open_link(LAYERNORM, eps=raw)
    assert not at.warning and all("**eps**" not in box.value for box in at.main.info)
    assert at.select_slider(key="eps").value == value
    title = "ln_out = LayerNorm(resid), eps = " + {1e-5: "1e-5", 1e-8: "1e-8"}.get(
        value, f"{value:g}"
    )
    assert title in [line for piece in figure_titles(at) for line in piece]


def figure_titles(at: AppTest) -> list[list[str]]:
    """The titles of /layernorm's four matrices (a grid's plots are titled by annotations)."""
    return [
        [a["text"] for a in piece["layout"]["annotations"]]
        for piece in figure_pieces(at, "matrices")
    ]


def test_a_refusal_writes_its_numbers_in_the_page_language() -> None:
    from ui.frame.url_check import refusal as message

    tau = FloatRange("temperature", 0.05, 20.0, default=0.5)
    refused = Refused("bad_range", value="1e9", low=0.05, high=20.0)
    assert (
        message(tau, refused, SIZES, "en") == "**temperature** = 1e9 is outside 0.05–20; using 0.5."
    )
    assert message(tau, refused, SIZES, "fr") == (
        "**temperature** = 1e9 sort de 0,05–20\u00a0; on prend 0,5."
    )
    refused = Refused("bad_choice", value="x", **EPS.fields(SIZES))
    assert message(EPS, refused, SIZES, "fr").endswith(
        "parmi 1e-05\u00a0; 0,001\u00a0; 1\u00a0; on prend 1e-05."
    )
    assert message(EPS, refused, SIZES, "en").endswith("one of 1e-05, 0.001, 1; using 1e-05.")
    scale = Flag("scale", default=True)
    refused = Refused("bad_choice", value="maybe", **scale.fields(SIZES))
    assert "parmi true, false\u00a0; on prend true." in message(scale, refused, SIZES, "fr")


def _what_if_page() -> None:
    """A page with a temperature slider and a scale switch, declared as a page declares them."""
    import streamlit as st

    from ui.frame.page import frame
    from ui.frame.url_values import Flag, FloatRange

    s = frame(
        "page_softmax",
        values=(
            FloatRange("temperature", 0.05, 20.0, default=1.0),
            Flag("scale", default=True),
        ),
    )
    bound = {"bind": "query-params", "persist_state": "session"}
    tau = st.slider("τ", 0.05, 20.0, value=1.0, key="temperature", **bound)
    scale = st.toggle("√d_k", value=True, key="scale", **bound)
    st.text(f"{s.value('temperature')} {s.value('scale')} {tau} {scale}")


@pytest.mark.parametrize(
    ("params", "fragments", "shown"),
    [
        ({"temperature": "0.5", "scale": "false"}, [], "0.5 False 0.5 False"),
        ({"temperature": "1e9"}, ["**temperature** = 1e9 is outside 0.05–20; using 1."], "1.0"),
        ({"temperature": "nan"}, ["“nan” is not a finite number; using 1."], "1.0"),
        ({"temperature": "0"}, ["= 0 is outside 0.05–20"], "1.0"),
        ({"scale": "maybe"}, ["**scale** = “maybe” is not one of true, false; using true."], ""),
        (
            {"temperature": "1e9", "lang": "fr"},
            ["**temperature** = 1e9 sort de 0,05–20\u00a0; on prend 1."],
            "1.0",
        ),
        ({"temperature": "0", "lang": "fr"}, ["= 0 sort de 0,05–20"], "1.0"),
        (
            {"temperature": "abc", "lang": "fr"},
            ["**temperature** = «\u00a0abc\u00a0» n’est pas un nombre fini\u00a0; on prend 1."],
            "1.0",
        ),
    ],
)
def test_float_and_flag_values_through_the_frame(params, fragments, shown) -> None:
    at = AppTest.from_function(_what_if_page, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    for fragment in fragments:
        assert fragment in warning_text(at)
    if not fragments:
        assert not at.warning
    (text,) = at.text
    assert text.value.startswith(shown)
    assert at.slider(key="temperature").value == float(text.value.split()[2])
