"""AppTest tests of the what-ifs and of following one token: page 3's temperature and √d_k
switch and its √d_k measurement, page 5's head view, the token chips of pages 3, 4 and 5, and the
repair of bad values in both languages."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import exercises as ex
import llm
from llm.scaling import scaling_sweep
from tests.apptest_pages import (
    PAGES,
    Expected,
    array_of,
    figure,
    figure_pieces,
    head_view_of,
    opened,
    z_of,
)
from ui.draw.headview import lines_of
from ui.frame.follow import OUTLINE
from ui.text.home import TEXT as HOME_TEXT
from ui.text.softmax import TEXT as SOFTMAX_TEXT


def pattern_of(at: AppTest, key: str = "pattern") -> np.ndarray:
    spec = figure(at, key)
    t = len(spec["data"][0]["y"])
    return z_of(spec).reshape(t, t)


def outlined(spec: dict) -> list[tuple[str, float]]:
    """The (y axis, row) of every outline the page drew on a figure."""
    return [
        (s["yref"], (s["y0"] + s["y1"]) / 2)
        for s in spec["layout"].get("shapes", ())
        if s.get("type") == "rect" and s["line"]["color"] == OUTLINE
    ]


def expected_trace(link: dict[str, str], temperature: float, scale: bool) -> llm.Trace:
    want = Expected(link)
    return llm.multi_head_attention(want.x, want.params, want.causal, temperature, scale)


# --- page 3: temperature and the √d_k switch ---------------------------------------------------


@pytest.mark.parametrize(
    ("link", "temperature", "scale"),
    [
        ({}, 1.0, True),
        ({"temperature": "0.2"}, 0.2, True),
        ({"temperature": "5"}, 5.0, True),
        ({"scale": "false"}, 1.0, False),
        ({"temperature": "0.2", "scale": "false", "head": "2"}, 0.2, False),
        ({"temperature": "20", "causal": "false", "seed": "4"}, 20.0, True),
    ],
)
def test_pattern_and_entropies_follow_temperature_and_scale(link, temperature, scale) -> None:
    at = opened("softmax", link)
    want = Expected(link)
    head = expected_trace(link, temperature, scale).heads[want.h]
    assert at.session_state["temperature"] == temperature and at.session_state["scale"] is scale
    mask = want.trace.mask
    np.testing.assert_allclose(pattern_of(at), np.where(mask, head.pattern, np.nan), atol=1e-12)
    scaled = z_of(figure(at, "scaled")).reshape(mask.shape)
    divisor = temperature * (np.sqrt(want.cfg.d_head) if scale else 1.0)
    np.testing.assert_allclose(scaled, head.scores / divisor, rtol=1e-12, atol=1e-12)
    bars = figure(at, "row_entropy")["data"]
    np.testing.assert_allclose(bars[0]["y"], llm.row_entropy(head.pattern), atol=1e-12)
    np.testing.assert_allclose(bars[1]["y"], llm.max_row_entropy(len(want.tokens), want.causal))
    moved = temperature != 1.0 or not scale
    infos = [i.value for i in at.main.info]
    assert (SOFTMAX_TEXT["en"]["turn_note"] in infos) is moved
    assert any(v.startswith("What-if: τ") for v in infos) is moved
    formulas = [f.value for f in at.latex if r"\tau =" in f.value]
    assert len(formulas) == int(moved)
    if moved:  # the what-if's formula, with √d_k only when the switch is on
        assert rf"\tau = {temperature:g}" in formulas[0]
        assert (r"\sqrt{d_k}" in formulas[0]) is scale


def test_a_colder_softmax_is_sharper_and_a_hotter_one_flatter() -> None:
    entropy = {}
    for tau in ("0.2", "1", "5"):
        bars = figure(opened("softmax", {"temperature": tau}), "row_entropy")["data"]
        entropy[tau] = float(np.mean(bars[0]["y"]))
    assert entropy["0.2"] < entropy["1"] < entropy["5"]


def test_moving_the_slider_and_the_switch_redraws_the_pattern() -> None:
    at = AppTest.from_file(PAGES["softmax"], default_timeout=30)
    at.run()
    before = pattern_of(at)
    at.select_slider(key="temperature").set_value(0.2).run()
    assert not at.exception
    cold = pattern_of(at)
    head = expected_trace({}, 0.2, True).heads[0]
    np.testing.assert_allclose(np.nan_to_num(cold), head.pattern, atol=1e-12)  # masked: 0
    assert not np.allclose(np.nan_to_num(cold), np.nan_to_num(before))
    at.toggle(key="scale").set_value(False).run()
    assert not at.exception
    head = expected_trace({}, 0.2, False).heads[0]
    np.testing.assert_allclose(np.nan_to_num(pattern_of(at)), head.pattern, atol=1e-12)


def test_the_sqrt_d_k_chart_shows_the_measured_numbers() -> None:
    link = {"seed": "3", "d_model": "16", "n_heads": "2"}
    at, want = opened("softmax", link), Expected(link)
    sweep = scaling_sweep(want.x, want.cfg.seed, want.causal)
    spec = figure(at, "why_sqrt_dk")
    series = [array_of(trace["y"]) for trace in spec["data"]]
    expected = [
        sweep.raw_std,
        sweep.scaled_std,
        sweep.raw_entropy,
        sweep.scaled_entropy,
        sweep.raw_top,
        sweep.scaled_top,
    ]
    assert len(series) == len(expected)
    for shown, exact in zip(series, expected, strict=True):
        np.testing.assert_allclose(shown, exact, rtol=1e-12, atol=1e-12)
    assert array_of(spec["data"][0]["x"]).tolist() == list(range(1, 65))
    # the lab's own d_k is marked; the caption gives the fitted exponent
    assert any(
        s.get("x0") == 8 and s["line"].get("dash") == "dash" for s in spec["layout"]["shapes"]
    )
    (caption,) = [c.value for c in at.main.caption if c.value.startswith("Without √d_k")]
    assert f"d_k^{sweep.exponent:.2f}" in caption


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_sqrt_d_k_panels_titles_hold_on_one_line_each(lang: str) -> None:
    """Three plots side by side in the narrowest column: each title on one line, so the plots'
    tops stay level under titles of one height."""
    spec = figure(opened("softmax", {"lang": lang}), "why_sqrt_dk")
    t = SOFTMAX_TEXT[lang]
    titles = [t["spread"], t["sharpness"], t["top"]]
    shown = [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith("<b>")]
    assert shown == [f"<b>{title}</b>" for title in titles]


def test_one_token_has_no_spread_to_measure() -> None:
    at = opened("softmax", {"text": "cat"})
    assert SOFTMAX_TEXT["en"]["why_one_token"] in [c.value for c in at.main.caption]


# --- bad values, both languages -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "name", "said"),
    [
        ({"temperature": "abc"}, "temperature", "abc"),
        ({"temperature": "0"}, "temperature", "0"),
        ({"temperature": "-1"}, "temperature", "1"),
        ({"temperature": "1e9"}, "temperature", "1e9"),
        ({"temperature": "nan"}, "temperature", "nan"),
        ({"scale": "maybe"}, "scale", "maybe"),
        ({"token": "99"}, "token", "99"),
        ({"token": "two"}, "token", "two"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_bad_values_are_repaired_and_reported(link, name, said, lang) -> None:
    at = opened("softmax", {**link, "lang": lang})
    assert not at.exception
    (warning,) = at.main.warning
    assert said in warning.value
    first = "Some settings were changed" if lang == "en" else "Certains réglages"
    assert warning.value.startswith(first)
    default = {"temperature": 1.0, "scale": True, "token": 4}[name]
    assert at.session_state[name] == default
    np.testing.assert_allclose(np.nan_to_num(pattern_of(at)), Expected({}).head.pattern, atol=1e-12)


# --- following one token ------------------------------------------------------------------------


def test_the_followed_token_is_outlined_in_every_heatmap_of_page_3() -> None:
    at = opened("softmax", {"token": "2"})
    for key in ("scaled", "masked", "pattern"):
        assert outlined(figure(at, key)) == [("y", 2.0)]
    assert "**sat** (position 2)" in " ".join(c.value for c in at.main.caption)
    default = opened("softmax", {})
    assert outlined(figure(default, "pattern")) == [("y", 4.0)]  # the last token by default


def test_picking_a_chip_moves_the_outline_on_every_page() -> None:
    for page, keys in (
        ("softmax", ("scaled", "pattern")),
        ("mix", ("pattern_map", "v_map", "z_map")),
        ("heads", ("patterns",)),
    ):
        at = AppTest.from_file(PAGES[page], default_timeout=30)
        at.run()
        at.pills(key="token").set_value(1).run()
        assert not at.exception
        assert at.session_state["token"] == 1
        for key in keys:
            rows = {row for _, row in outlined(figure(at, key))}
            assert rows == {1.0}, (page, key)


def test_page_5_outlines_the_token_in_every_head_and_thickens_its_lines() -> None:
    at = opened("heads", {"token": "3"})
    # every head's plot, in one figure or in pieces that wrap (each piece's plots on y, y2...)
    pieces = figure_pieces(at, "patterns")
    assert sum(len(p["data"]) for p in pieces) == 4
    for piece in pieces:
        assert outlined(piece) == [
            ("y" if k == 0 else f"y{k + 1}", 3.0) for k in range(len(piece["data"]))
        ]
    lines = lines_of(head_view_of(at))
    widths = {s["line"]["width"] for s in lines if s["y0"] == 3}
    others = {s["line"]["width"] for s in lines if s["y0"] != 3}
    assert len(widths) == len(others) == 1 and widths.pop() > others.pop()


# --- page 5: the head view ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "link", [{}, {"causal": "false", "head": "2"}, {"d_model": "6", "n_heads": "3"}]
)
def test_head_view_lines_are_the_pattern(link: dict[str, str]) -> None:
    at, want = opened("heads", link), Expected(link)
    lines = lines_of(head_view_of(at))
    mask = want.trace.mask
    assert len(lines) == int(mask.sum())  # the shown head only, one line per unmasked pair
    for line in lines:
        i, j = int(line["y0"]), int(line["y1"])
        assert mask[i, j]
        assert line["opacity"] == pytest.approx(want.head.pattern[i, j], abs=1e-15)


def test_the_head_picker_adds_a_colour_per_head() -> None:
    at = AppTest.from_file(PAGES["heads"], default_timeout=30)
    at.run()
    at.pills(key="headview_heads_4").set_value([0, 3]).run()
    assert not at.exception
    want = Expected({})
    lines = lines_of(head_view_of(at))
    assert len(lines) == 2 * int(want.trace.mask.sum())
    # the caption counts the lines drawn
    assert any(c.value.startswith(f"{len(lines)} lines:") for c in at.main.caption)
    colours = {s["line"]["color"] for s in lines}
    assert len(colours) == 2
    by_colour = {c: [s for s in lines if s["line"]["color"] == c] for c in colours}
    for h, head in ((0, want.trace.heads[0]), (3, want.trace.heads[3])):
        matching = [
            c
            for c, group in by_colour.items()
            if all(
                s["opacity"] == pytest.approx(head.pattern[int(s["y0"]), int(s["y1"])])
                for s in group
            )
        ]
        assert matching, h
    at.pills(key="headview_heads_4").set_value([]).run()
    assert not at.exception and any("at least one head" in i.value for i in at.main.info)


@pytest.mark.parametrize(("page", "key"), [("heads", "headview_heads_4"), ("softmax", "token")])
def test_chips_in_a_column_wrap_onto_more_rows(page: str, key: str) -> None:
    """The head picker and the token chips sit in a column, where Streamlit keeps chips on one
    row by default: a narrow column (150 % zoom) cut "head 2" and hid "head 3"."""
    at = opened(page, {})
    proto = at.pills(key=key).proto
    assert proto.HasField("wrap") and proto.wrap


@pytest.mark.parametrize("link", [{"temperature": "0.2", "scale": "false"}, {"temperature": "5"}])
def test_the_exercise_checks_the_chapters_formula_whatever_the_what_ifs(link) -> None:
    """The chapter's softmax solution passes with the what-ifs moved: the cell is checked on
    the chapter's pattern (τ = 1, with √d_k), not on the one drawn above it."""
    at = AppTest.from_file(PAGES["softmax"], default_timeout=60)
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    assert SOFTMAX_TEXT["en"]["turn_note"] in [i.value for i in at.main.info]
    at.text_area(key="code_softmax").set_value(ex.BY_ID["softmax"].solution_source())
    at.button(key="check_softmax").click()
    at.run()
    assert not at.exception
    assert [s.value for s in at.success if "cases pass" in s.value], [e.value for e in at.error]


# --- the home page names the what-ifs, the depth page and the learned heads -------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_home_links_every_experiment_beyond_the_chapters(lang: str) -> None:
    at = AppTest.from_file("../app.py", default_timeout=30)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    t = HOME_TEXT[lang]
    links = [(link.proto.page, link.proto.label) for link in at.main.get("page_link")]
    assert links[1:] == [
        ("softmax", t["beyond_temperature"]),
        ("softmax", t["beyond_sqrt"]),
        ("mix", t["beyond_follow"]),
        ("heads", t["beyond_headview"]),
        ("depth", t["beyond_depth"]),
        ("learned", t["beyond_learned"]),
    ]
    # each line starts with the number of the page it opens
    numbers = {"softmax": "3", "mix": "4", "heads": "5", "depth": "8", "learned": "10"}
    assert all(label.startswith(f"{numbers[page]} · ") for page, label in links[1:])
    assert t["beyond"] in [m.value.strip("*") for m in at.main.markdown]
