"""AppTest tests of the chapter 8 pages: 1 Q K V, 2 scores, 3 softmax, 4 mix.

Each page is opened the way a shared link opens it: the URL parameters are set before the first
run. The numbers a page shows (dataframes, plotly specs, metrics) are compared with ``llm`` run
directly in the test on the same settings, so a page that shows the wrong head, seed or d_model
fails. Each (page, link) pair runs once per session (``apptest_pages.opened``).
"""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llm
from tests.apptest_pages import (
    LINKS,
    PAGES,
    Expected,
    close_to_shown,
    figure,
    figure_pieces,
    html_tables,
    opened,
    tables,
    z_of,
)
from tests.test_views_layout import plot_px
from ui.draw.grids import WRAP_PX
from ui.draw.style import Look
from ui.lab.compute import Setting, compute_lab
from ui.lessons.softmax import softmax_figures

PAGES = {key: PAGES[key] for key in ("qkv", "scores", "softmax", "mix")}
TITLES = {
    "en": {
        "qkv": "1. Project into Q, K, V",
        "scores": "2. Score every pair",
        "softmax": "3. Scale, mask, softmax",
        "mix": "4. Mix the values",
    },
    "fr": {
        "qkv": "1. Projeter en Q, K, V",
        "scores": "2. Scorer chaque paire",
        "softmax": "3. Échelle, masque, softmax",
        "mix": "4. Mélanger les values",
    },
}


# --- every page, every link: no exception, the right title ----------------------------------------

SMOKE_LINKS = ("chapter8", "chapter9", "wide", "no_mask", "repeats", "handmade_unknown")


@pytest.mark.parametrize("link", SMOKE_LINKS)
@pytest.mark.parametrize("page", list(PAGES))
def test_page_runs_without_exception(page: str, link: str) -> None:
    at = opened(page, LINKS[link])
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert [t.value for t in at.title] == [TITLES["en"][page]]
    assert at.get("plotly_chart"), "every chapter 8 page draws at least one heatmap"


@pytest.mark.parametrize("page", list(PAGES))
def test_french_link_gives_french_page(page: str) -> None:
    at = opened(page, {"lang": "fr"})
    assert not at.exception
    assert [t.value for t in at.title] == [TITLES["fr"][page]]
    # the chapter's sentences change with the language (formulas, st.latex, are shared)
    english = [m.value for m in opened(page, {}).main.markdown if not m.value.startswith("$$")]
    french = [m.value for m in at.main.markdown if not m.value.startswith("$$")]
    assert len(french) == len(english) > 0
    assert french[0] != english[0], "the first paragraph is the chapter's text"
    assert len(set(french) & set(english)) <= 1  # only words shared by both, like “Intuition”


# --- page 1: X, W_Q W_K W_V of the chosen head, Q K V --------------------------------------------

QKV_LINKS = (
    "chapter8",
    "chapter9",
    "wide",
    "repeats",
    "handmade_unknown",
    "seed3",
    "head1",
    "d_model6",
)


@pytest.mark.parametrize("link", QKV_LINKS)
def test_qkv_tables_are_the_heads_projections(link: str) -> None:
    at, want = opened("qkv", LINKS[link]), Expected(LINKS[link])
    x, w_q, q = tables(at)  # the page's order: X, then the open tab of W_Q/W_K/W_V and of Q/K/V
    # only the open tab is built: choose the others as a student would
    _, w_k, k = tables(opened("qkv", LINKS[link], qkv_weights="W_K", qkv_projections="K"))
    _, w_v, v = tables(opened("qkv", LINKS[link], qkv_weights="W_V", qkv_projections="V"))
    h = want.h
    close_to_shown(x, want.x)
    close_to_shown(w_q, want.params.W_Q[h])
    close_to_shown(w_k, want.params.W_K[h])
    close_to_shown(w_v, want.params.W_V[h])
    # Q = X·W_Q computed here with plain numpy, not read from the trace
    close_to_shown(q, want.x @ want.params.W_Q[h])
    close_to_shown(k, want.x @ want.params.W_K[h])
    close_to_shown(v, want.x @ want.params.W_V[h])
    assert list(q.index) == want.labels
    assert q.shape == (len(want.tokens), want.cfg.d_head)
    # Q, K and V drawn as a plot each, in one figure or in pieces that wrap, on one colour scale
    # (the largest |value| of the three) whose bar stands beside the last plot only
    pieces = figure_pieces(at, "qkv_map")
    plots = [(piece, k) for piece in pieces for k in range(len(piece["data"]))]
    d_head = want.cfg.d_head
    projected = (("q", want.head.q), ("k", want.head.k), ("v", want.head.v))
    for (piece, k), (name, m) in zip(plots, projected, strict=True):
        np.testing.assert_allclose(z_of(piece, k).reshape(q.shape), m, atol=1e-12)
        assert piece["data"][k]["x"] == [f"{name}{i}" for i in range(d_head)]
        assert piece["data"][k]["y"] == want.labels
    bound = max(float(np.abs(m).max()) for _, m in projected)
    for piece in pieces:
        scale = piece["layout"]["coloraxis"]
        assert (scale["cmin"], scale["cmax"]) == pytest.approx((-bound, bound), abs=1e-12)
    assert [p["layout"]["coloraxis"].get("showscale", True) for p in pieces] == [
        k == len(pieces) - 1 for k in range(len(pieces))
    ]
    if len(pieces) > 1:  # pieces only for a grid that would not fit the narrowest column
        assert all(p["layout"]["width"] <= WRAP_PX for p in pieces)


@pytest.mark.parametrize(
    ("link", "rows"), [("chapter8", 2), ("chapter9", 2), ("d_model6", 2), ("wide", 1)]
)
def test_qkv_grid_fits_a_narrow_column_as_one_figure(link: str, rows: int) -> None:
    """Q, K and V with numbers (614-752 px in one row) stand two a row in one figure no wider
    than the column of 1280 x 720 zoomed to 150 %, their cells still at least 34 px, the colour
    bar above them; without numbers (32 tokens, d_head 4) one row, whose box scrolls sideways."""
    (spec,) = figure_pieces(opened("qkv", LINKS[link]), "qkv_map")
    layout = spec["layout"]
    assert len(spec["data"]) == 3
    tops = {layout[f"yaxis{s}"]["domain"][1] for s in ("", "2", "3")}
    assert len(tops) == rows
    if rows > 1:
        assert layout["width"] <= WRAP_PX
        assert layout["coloraxis"]["colorbar"]["orientation"] == "h"
        (box, *_) = plot_px(spec)
        assert (box[1] - box[0]) / len(spec["data"][0]["x"]) >= 34


def test_qkv_handmade_features_are_named_in_the_chosen_language() -> None:
    en = tables(opened("qkv", LINKS["chapter8"]))[0]
    fr = tables(opened("qkv", {**LINKS["chapter8"], "lang": "fr"}))[0]
    assert list(en.columns) == ["noun", "verb", "little word", "alive"]
    assert list(fr.columns) == ["nom", "verbe", "petit mot", "vivant"]
    assert list(en.loc["cat"]) == [1.0, 0.0, 0.0, 1.0]  # chapter 8's hand-made row
    seeded = tables(opened("qkv", LINKS["chapter9"]))[0]
    assert list(seeded.columns) == [f"f{i}" for i in range(8)]
    # the matrix's shape under it, the table's own caption
    assert html_tables(opened("qkv", LINKS["chapter9"]))[0].caption == "X  [5 × 8]"


def test_qkv_names_the_words_the_handmade_table_does_not_know() -> None:
    at = opened("qkv", LINKS["handmade_unknown"])
    infos = [i.value for i in at.main.info]
    assert any("dog" in text for text in infos), infos
    assert not any("dog" in i.value for i in opened("qkv", LINKS["chapter8"]).main.info)


def test_qkv_numbers_follow_seed_head_and_d_model() -> None:
    base = tables(opened("qkv", {}))[2]  # Q
    assert not np.allclose(base, tables(opened("qkv", LINKS["seed3"]))[2])
    assert not np.allclose(base, tables(opened("qkv", LINKS["head1"]))[2])
    assert tables(opened("qkv", LINKS["d_model6"]))[2].shape == (5, 2)
    assert tables(opened("qkv", LINKS["wide"]))[2].shape == (32, 4)


# --- page 2: raw scores, asymmetry ---------------------------------------------------------------

SCORE_LINKS = ("chapter8", "chapter9", "wide", "no_mask", "repeats", "seed3", "head1", "d_model6")


@pytest.mark.parametrize("link", SCORE_LINKS)
def test_scores_heatmap_is_raw_q_kt_with_every_cell(link: str) -> None:
    at, want = opened("scores", LINKS[link]), Expected(LINKS[link])
    spec = figure(at, "scores_map")
    t = len(want.tokens)
    z = z_of(spec).reshape(t, t)
    expected = want.head.q @ want.head.k.T  # rows = query, cols = key
    np.testing.assert_allclose(z, expected, atol=1e-12)
    assert np.isfinite(z).all(), "raw scores come before the mask: no cell is hidden"
    assert list(spec["data"][0]["y"]) == want.labels
    assert list(spec["data"][0]["x"]) == want.labels
    close_to_shown(tables(at)[0], expected)


@pytest.mark.parametrize("link", ("chapter8", "chapter9", "repeats", "wide"))
def test_scores_asymmetry_and_most_lopsided_pair(link: str) -> None:
    at, want = opened("scores", LINKS[link]), Expected(LINKS[link])
    s = want.head.scores
    asym, gap = (m.value for m in at.main.metric)
    assert asym == f"{llm.asymmetry(s):.3f}"
    assert float(asym) > 0.0, "Q and K differ, so these scores are not symmetric"
    # the largest |S[i, j] - S[j, i]|, found here by brute force
    pairs = {(i, j): abs(s[i, j] - s[j, i]) for i in range(len(s)) for j in range(i, len(s))}
    i, j = max(pairs, key=pairs.get)
    assert gap == f"{pairs[i, j]:.3f}"
    (info,) = [m.value for m in at.main.info]
    assert f"S[{i}][{j}] = {s[i, j]:.3f}" in info and f"S[{j}][{i}] = {s[j, i]:.3f}" in info


def test_scores_of_one_repeated_word_are_symmetric() -> None:
    at = opened("scores", {"text": "ha ha ha"})
    assert [m.value for m in at.main.metric] == ["0.000", "0.000"]
    (info,) = [m.value for m in at.main.info]
    assert "S[i][j] = S[j][i]" in info


def test_scores_one_token() -> None:
    at = opened("scores", {"text": "hello", "lang": "fr"})
    assert not at.exception
    assert "1 × 1" in at.main.info[0].value


# --- page 3 (the reference page), same links ----------------------------------------------------


@pytest.mark.parametrize(
    "link", ("chapter8", "chapter9", "wide", "no_mask", "repeats", "head1", "seed3", "d_model6")
)
def test_softmax_pattern_table_matches_llm(link: str) -> None:
    at, want = opened("softmax", LINKS[link]), Expected(LINKS[link])
    (pattern,) = tables(at)  # the open tab's table only: the other is built when chosen
    (scaled,) = tables(opened("softmax", LINKS[link], softmax_tables="S / √d_k"))
    close_to_shown(pattern, want.head.pattern)
    close_to_shown(scaled, want.head.scaled)
    masked = z_of(figure(at, "masked")) if want.causal else None
    if masked is not None:  # the future is hidden (NaN, drawn as ×), the past keeps S/sqrt(d_k)
        t = len(want.tokens)
        np.testing.assert_array_equal(np.isnan(masked.reshape(t, t)), ~want.trace.mask)
        np.testing.assert_allclose(
            masked.reshape(t, t)[want.trace.mask], want.head.scaled[want.trace.mask], atol=1e-12
        )
    else:
        assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith("-masked")]
    np.testing.assert_allclose(pattern.sum(axis=1), 1.0, atol=5e-3)
    if want.causal:
        assert (np.triu(pattern.to_numpy(), k=1) == 0.0).all()


def test_softmax_figures_are_shared_and_a_new_token_outlines_the_same_cells() -> None:
    """Page 3's figures come from one cache: the same settings give the same kept figures; a
    new token is a new outline over the very same traces (their wire form is built once)."""
    setting = Setting("the cat sat on mat", 8, 2, 4, True)
    first = softmax_figures(setting, Look(), 1, 1.0, True, 0)
    assert softmax_figures(setting, Look(), 1, 1.0, True, 0) is first
    moved = softmax_figures(setting, Look(), 1, 1.0, True, 3)
    want = compute_lab(setting).trace.heads[1]
    for key in ("scaled", "masked", "pattern"):
        assert moved[key]["data"] is first[key]["data"]
        (frame_0,), (frame_3,) = (
            [s for s in f[key]["layout"]["shapes"] if s.get("name") == "followed"]
            for f in (first, moved)
        )
        assert (frame_0["y0"], frame_3["y0"]) == (-0.5, 2.5)
    z = np.asarray(first["pattern"]["data"][0]["z"])
    np.testing.assert_array_equal(np.isnan(z), ~compute_lab(setting).trace.mask)
    np.testing.assert_allclose(np.nan_to_num(z), want.pattern, atol=0)
    with pytest.raises(TypeError):
        first["pattern"]["data"].append({})  # shared between sessions: read-only


# --- page 4: A·V and one token followed ----------------------------------------------------------


@pytest.mark.parametrize(
    "link", ("chapter8", "chapter9", "wide", "no_mask", "repeats", "seed3", "head1", "d_model6")
)
def test_mix_output_is_pattern_times_values(link: str) -> None:
    at, want = opened("mix", LINKS[link]), Expected(LINKS[link])
    v, z, *_ = tables(at)
    close_to_shown(v, want.head.v)
    close_to_shown(z, want.head.pattern @ want.head.v)
    t = len(want.tokens)
    np.testing.assert_allclose(
        z_of(figure(at, "pattern_map")).reshape(t, t),
        np.where(want.trace.mask, want.head.pattern, np.nan),
        atol=1e-12,
    )


@pytest.mark.parametrize("link", ("chapter8", "chapter9", "no_mask", "repeats", "wide"))
def test_mix_token_2_contributions_sum_to_its_output(link: str) -> None:
    at, want = opened("mix", {**LINKS[link], "token": "2"}), Expected(LINKS[link])
    assert not at.exception
    assert at.session_state["token"] == 2
    _, _, contributions, sums = tables(at)
    pattern, v = want.head.pattern, want.head.v
    # pattern[2, j] × V[j], by hand, one key at a time
    by_hand = np.array([pattern[2, j] * v[j] for j in range(len(v))])
    close_to_shown(contributions, by_hand)
    assert list(contributions.index) == [
        f"{p:.3f} × v({label})" for p, label in zip(pattern[2], want.labels, strict=True)
    ]
    if want.causal:
        assert (contributions.to_numpy()[3:] == 0.0).all(), "keys after token 2 add nothing"
    close_to_shown(sums.to_numpy()[0], by_hand.sum(axis=0), digits=6)
    close_to_shown(sums.to_numpy()[1], want.head.z[2], digits=6)
    (check,) = [m.value for m in at.main.metric]
    assert float(check) < 1e-12


@pytest.mark.parametrize("token", ("99", "-1", "two"))
def test_mix_token_out_of_range_falls_back_to_the_last_token(token: str) -> None:
    at = opened("mix", {"token": token})
    assert not at.exception
    assert at.session_state["token"] == 4
    assert any(token.lstrip("-") in w.value for w in at.main.warning)
    _, _, contributions, _ = tables(at)
    assert contributions.shape == (5, 2)


def test_mix_token_resets_when_the_sentence_shrinks() -> None:
    at = AppTest.from_file(PAGES["mix"], default_timeout=30)
    at.query_params["token"] = "4"
    at.run()
    assert at.session_state["token"] == 4
    at.text_input(key="text").set_value("the cat").run()
    assert not at.exception
    assert at.session_state["token"] == 1
    assert "4" in at.main.info[0].value
    at.run()  # the next run is quiet again
    assert not at.exception and not at.main.info


def test_mix_token_choice_changes_the_table() -> None:
    at = AppTest.from_file(PAGES["mix"], default_timeout=30)
    at.run()
    assert at.session_state["token"] == 4  # the last token, which may read the whole sentence
    at.pills(key="token").set_value(1).run()
    want = Expected({})
    _, _, contributions, sums = tables(at)
    close_to_shown(sums.to_numpy()[1], want.head.z[1], digits=6)
    assert (contributions.to_numpy()[2:] == 0.0).all()


# --- the llm helpers these pages added ----------------------------------------------------------


def test_most_asymmetric_pair_by_hand() -> None:
    s = np.array([[1.0, 3.0, 0.0], [1.0, 2.0, 5.0], [0.5, -1.0, 0.0]])
    # gaps: (0,1) 2.0, (0,2) 0.5, (1,2) 6.0
    assert llm.most_asymmetric_pair(s) == (1, 2, 6.0)
    assert llm.most_asymmetric_pair(np.ones((3, 3))) == (0, 0, 0.0)
    assert llm.most_asymmetric_pair(np.array([[7.0]])) == (0, 0, 0.0)


def test_column_sums_and_max_abs_diff_by_hand() -> None:
    m = np.array([[1.0, 2.0], [3.0, -4.0]])
    np.testing.assert_array_equal(llm.column_sums(m), [4.0, -2.0])
    assert llm.max_abs_diff(m, np.array([[1.0, 2.5], [2.0, -4.0]])) == 1.0
    assert llm.max_abs_diff(m, m) == 0.0


# --- French numbers: the decimal comma in titles, metrics, notes and messages -------------------


def comma(text: str) -> str:
    return text.replace(".", ",")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_scores_metrics_and_pair_write_the_language_s_decimals(lang: str) -> None:
    at = opened("scores", {"lang": lang})
    want = Expected({})
    scores = want.head.scores
    i, j, gap = llm.most_asymmetric_pair(scores)
    # the chapter 9 preset's numbers: 0.722 and 17.133, S[0][2] = 15.936
    numbers = ["0.722", "17.133", f"S[{i}][{j}] = 15.936"]
    assert [f"{llm.asymmetry(scores):.3f}", f"{gap:.3f}"] == numbers[:2]
    assert f"{scores[i, j]:.3f}" == "15.936"
    shown = [m.value for m in at.main.metric]
    pair = "\n".join(box.value for box in at.main.info)
    if lang == "fr":
        numbers = [comma(n) for n in numbers]
    assert shown == numbers[:2]
    assert numbers[2] in pair


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_softmax_title_row_sums_and_range_message_in_the_language(lang: str) -> None:
    at = opened("softmax", {"lang": lang, "temperature": "0"})
    title = figure(at, "scaled")["layout"]["title"]["text"]
    sums = next(c.value for c in at.main.caption if "A" in c.value and "1,000000" in comma(c.value))
    warning = "\n".join(w.value for w in at.warning)
    if lang == "fr":
        assert "(√2 = 1,4142)" in title
        assert sums.startswith("Sommes des lignes de A\u00a0: 1,000000\u00a0; 1,000000")
        assert "**temperature** = 0 sort de 0,05–20\u00a0; on prend 1." in warning
    else:
        assert "(√2 = 1.4142)" in title
        assert sums.startswith("Row sums of A: 1.000000, 1.000000")
        assert "**temperature** = 0 is outside 0.05–20; using 1." in warning
    assert f"{llm.MIN_TEMPERATURE:g}–{llm.MAX_TEMPERATURE:g}" == "0.05–20"  # the French text's


def test_softmax_what_if_title_writes_the_divisor_in_french() -> None:
    at = opened("softmax", {"lang": "fr", "temperature": "0.5"})
    title = figure(at, "scaled")["layout"]["title"]["text"]
    assert f"(= S / {comma(f'{0.5 * 2**0.5:.4f}')})" in title.replace("<br>", " ")
    assert any("{,}" in m.value for m in at.main.latex if "tau" in m.value)  # τ = 0{,}5


@pytest.mark.parametrize("link", [{}, {"d_model": "4", "n_heads": "1", "embeddings": "handmade"}])
def test_masked_scores_share_the_scaled_scores_colour_scale(link: dict[str, str]) -> None:
    at = opened("softmax", link)
    scaled, masked = figure(at, "scaled")["data"][0], figure(at, "masked")["data"][0]
    bound = float(np.max(np.abs(Expected(link).head.scaled)))
    assert (scaled["zmin"], scaled["zmax"]) == (masked["zmin"], masked["zmax"]) == (-bound, bound)
    if not link:  # chapter 9: the largest |score| is a masked one, the visible ones reach less
        want = Expected(link)
        assert np.abs(want.head.scaled[want.trace.mask]).max() < bound


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_mix_contribution_rows_and_check_in_the_language(lang: str) -> None:
    at = opened("mix", {"lang": lang})
    want = Expected({})
    i = len(want.labels) - 1
    rows = [f"{p:.3f} × v({label})" for p, label in zip(want.head.pattern[i], want.labels)]
    if lang == "fr":
        rows = [comma(r) for r in rows]
    contributions = next(df for df in tables(at) if "× v(" in str(df.index[0]))
    assert list(contributions.index) == rows
    (check,) = at.main.metric
    total = llm.column_sums(llm.value_contributions(want.head.pattern, want.head.v, i))
    # the sum over j rebuilds Z[4] exactly in this preset: an exact 0 reads "0", not "0.0e+00"
    assert llm.max_abs_diff(total, want.head.z[i]) == 0.0
    assert check.value == "0"


def test_one_token_without_the_mask_has_its_one_key() -> None:
    at = opened("softmax", {"text": "cat", "causal": "false"})
    caption = next(c.value for c in at.main.caption if c.value.startswith("Mean row entropy"))
    assert "its one key" in caption and "1 keys" not in caption


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_temperature_slider_writes_the_language_s_numbers(lang: str) -> None:
    # the slider's labels are the link's spelling: in French a caption writes the value (0,50)
    at = opened("softmax", {"lang": lang, "temperature": "0.5"})
    slider = at.main.select_slider(key="temperature")
    assert slider.value == 0.5 and "0.5" in slider.options
    said = [c.value for c in at.main.caption if c.value.startswith("τ = ")]
    assert said == (
        ["τ = 0,50 (de 0,05 à 20\u00a0; 1 est la formule du chapitre)"] if lang == "fr" else []
    )


def test_the_temperature_s_stops_mirror_around_the_chapter_s_one() -> None:
    at = opened("softmax", {})
    slider = at.main.select_slider(key="temperature")
    stops = [float(label) for label in slider.options]
    assert slider.value == 1.0 and stops[len(stops) // 2] == 1.0  # in the middle of the track
    assert stops == sorted(stops) and (stops[0], stops[-1]) == (0.05, 20.0)
    # each stop under 1 faces one over 1 at the same place from the other end, near 1/τ (0.3, 3)
    for low, high in zip(stops, reversed(stops), strict=True):
        assert 0.89 < low * high < 1.12, (low, high)
    # a link's τ between two stops is a stop of its own, drawn as it is, not the nearest one
    at = opened("softmax", {"temperature": "0.37"})
    slider = at.main.select_slider(key="temperature")
    assert slider.value == 0.37 and "0.37" in slider.options and len(slider.options) == 18
    assert not at.main.warning  # a valid value: no message
