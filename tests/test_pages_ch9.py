"""AppTest tests of the chapter 9 pages: 5 many heads, 6 concat + W_O, 7 residual + LayerNorm,
8 the code.

Each page is opened the way a shared link opens it: the URL parameters are set before the first
run. What a page shows (plotly specs, dataframes) is compared with ``llm`` run directly in the
test on the same settings, so a page that shows another head, seed, d_model or eps fails.
Each (page, link) pair runs once per session (``apptest_pages.opened``).
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import re
import string

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llm
import llm.nn
import ui.text as ui_text
from llm import engine, readable
from llm.compare import QUANTITIES, agree, compare_implementations, max_differences, run
from tests.apptest_pages import (
    LINKS,
    PAGES,
    Expected,
    array_of,
    close_to_shown,
    figure,
    figure_pieces,
    html_tables,
    opened,
    shown_cells,
    shown_text,
    tables,
    z_of,
)
from ui.text import num
from ui.text.code import TEXT as CODE_TEXT
from ui.text.concat import TEXT as CONCAT_TEXT
from ui.text.heads import TEXT as HEADS_TEXT
from ui.text.layernorm import TEXT as LAYERNORM_TEXT

PAGES = {key: PAGES[key] for key in ("heads", "concat", "layernorm", "code")}
TEXTS = {
    "heads": HEADS_TEXT,
    "concat": CONCAT_TEXT,
    "layernorm": LAYERNORM_TEXT,
    "code": CODE_TEXT,
}
SMOKE = ("chapter8", "chapter9", "wide", "no_mask", "repeats")


# --- every page, every kind of link ---------------------------------------------------------


@pytest.mark.parametrize("link", SMOKE)
@pytest.mark.parametrize("page", PAGES)
def test_page_runs_and_shows_its_title(page: str, link: str) -> None:
    at = opened(page, LINKS[link])
    assert at.title[0].value == TEXTS[page]["en"]["title"]
    assert not at.error
    assert len(at.main.latex) >= 1


@pytest.mark.parametrize("page", PAGES)
def test_french_link_changes_the_text(page: str) -> None:
    en, fr = opened(page, {}), opened(page, {"lang": "fr"})
    assert fr.title[0].value == TEXTS[page]["fr"]["title"] != en.title[0].value
    assert shown_text(fr) != shown_text(en)
    assert TEXTS[page]["fr"]["intro"].split(":")[0][:40] in shown_text(fr)


def placeholders(sentence: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(sentence) if field is not None}


def every_text_table() -> list[dict]:
    """Every ``TEXT`` of ``ui.text`` written in English and French (each page's, the frame's)."""
    modules = (
        importlib.import_module(f"ui.text.{m.name}") for m in pkgutil.iter_modules(ui_text.__path__)
    )
    tables = [getattr(m, "TEXT", None) for m in modules]
    return [t for t in tables if isinstance(t, dict) and {"en", "fr"} <= set(t)]


def test_every_text_of_the_app_has_its_french() -> None:
    assert len(every_text_table()) >= 15  # every page's texts, the frame's, the classroom's
    for text in every_text_table():
        assert set(text["en"]) == set(text["fr"]), set(text["en"]) ^ set(text["fr"])


def test_every_text_exists_in_both_languages() -> None:
    for text in TEXTS.values():
        assert set(text["en"]) == set(text["fr"])
        for name, sentence in text["en"].items():
            assert text["fr"][name].strip(), name
            if name != "formula":  # LaTeX braces, shown as they are, never formatted
                # the same placeholders, so a value shown in English is shown in French too
                assert placeholders(sentence) == placeholders(text["fr"][name]), name


# --- page 5: many heads ---------------------------------------------------------------------

KINDS = ("sharp", "mixed", "diffuse")


def grid_titles(at, key: str) -> list[str]:
    """The plots' titles of a grid, across its pieces, in order."""
    return [a["text"] for piece in figure_pieces(at, key) for a in piece["layout"]["annotations"]]


def entropy_bars(spec: dict) -> np.ndarray:
    """The bar of every head, whichever series (kind of head) holds it."""
    return np.nansum([array_of(bar["y"]) for bar in spec["data"]], axis=0)


@pytest.mark.parametrize("link", ["chapter8", "chapter9", "wide", "no_mask", "repeats", "seed3"])
def test_heads_patterns_labels_and_entropy_bars(link: str) -> None:
    at, want = opened("heads", LINKS[link]), Expected(LINKS[link])
    heads = want.trace.heads
    # one plot per head, in one figure or in pieces that wrap, each piece's plots on x/y, x2/y2...
    pieces = figure_pieces(at, "patterns")
    plots = [(piece, k) for piece in pieces for k in range(len(piece["data"]))]
    assert len(plots) == want.cfg.n_heads
    for h, (head, (piece, k)) in enumerate(zip(heads, plots)):
        z = z_of(piece, k)
        np.testing.assert_allclose(z[want.trace.mask], head.pattern[want.trace.mask], atol=1e-12)
        assert np.isnan(z[~want.trace.mask]).all()  # masked cells drawn as masked, not as 0
        trace = piece["data"][k]
        assert trace["coloraxis"] == "coloraxis" and "zmin" not in trace
        label = HEADS_TEXT["en"][llm.classify_head(head.pattern, want.causal)]
        title = piece["layout"]["annotations"][k]["text"].replace("<br>", " ")  # when it wraps
        assert title == f"head {h} · {label} · mean H = {llm.head_entropy(head.pattern):.2f}"
        assert [str(v) for v in trace["y"]] == want.labels
        assert (trace["xaxis"], trace["yaxis"]) == (
            ("x", "y") if k == 0 else (f"x{k + 1}", f"y{k + 1}")
        )
    # one colour scale for all heads, from 0 to 1, and one colour bar, beside the last piece
    for piece in pieces:
        scale = piece["layout"]["coloraxis"]
        assert (scale["cmin"], scale["cmax"]) == (0.0, 1.0)
    assert [p["layout"]["coloraxis"].get("showscale", True) for p in pieces] == [
        piece is pieces[-1] for piece in pieces
    ]

    bars = figure(at, "entropy_bars")
    # one series per kind of head: each head's bar sits in the series of its label
    assert [b["name"] for b in bars["data"]] == [HEADS_TEXT["en"][k] for k in KINDS]
    np.testing.assert_allclose(
        entropy_bars(bars), [llm.head_entropy(head.pattern) for head in heads], rtol=0, atol=1e-12
    )
    for bar, kind in zip(bars["data"], KINDS):
        mine = [llm.classify_head(head.pattern, want.causal) == kind for head in heads]
        assert np.isfinite(array_of(bar["y"])).tolist() == mine
    n_tokens = len(want.tokens)
    lines = sorted(shape["y0"] for shape in bars["layout"]["shapes"])
    expected = [math.log(n_tokens)]
    if want.causal:
        expected.append(float(llm.max_row_entropy(n_tokens, True).mean()))
    np.testing.assert_allclose(lines, sorted(expected), rtol=0, atol=1e-12)

    (rows,) = tables(at)
    assert list(rows.index) == want.labels
    columns = [llm.row_entropy(head.pattern) for head in heads]
    columns.append(llm.max_row_entropy(n_tokens, want.causal))
    close_to_shown(rows.to_numpy(), np.column_stack(columns))


def test_heads_five_tokens_max_is_ln5_and_causal_max_lower() -> None:
    spec = figure(opened("heads", {}), "entropy_bars")
    lines = sorted(shape["y0"] for shape in spec["layout"]["shapes"])
    # causal: rows see 1..5 tokens, mean of ln 1..ln 5 = ln(120) / 5
    np.testing.assert_allclose(lines, [math.log(120) / 5, math.log(5)], atol=1e-12)
    # chapter 9's number, as the chart's label writes it: ln 5 ≈ 1.61
    assert any("1.61" in note["text"] for note in spec["layout"]["annotations"])
    (no_mask,) = figure(opened("heads", LINKS["no_mask"]), "entropy_bars")["layout"]["shapes"]
    assert no_mask["y0"] == pytest.approx(math.log(5), abs=1e-12)


def test_heads_one_token_has_one_reference_line() -> None:
    """One token: its only row sees one key, entropy 0, and both maxima are ln 1 = 0. One line
    and one label, not two labels written over each other."""
    at = opened("heads", {"text": "cat"})
    bars = figure(at, "entropy_bars")
    assert [shape["y0"] for shape in bars["layout"]["shapes"]] == [0.0]
    (note,) = bars["layout"]["annotations"]
    assert note["y"] == 0.0 and "ln 1" in note["text"]
    np.testing.assert_array_equal(entropy_bars(bars), [0.0] * 4)
    # the text still speaks of the causal mask, which is on
    (info,) = at.info
    assert info.value == HEADS_TEXT["en"]["causal_max"].format(t=1, max="0.00", causal_max="0.00")
    assert not at.exception


def test_heads_many_heads_stay_readable() -> None:
    at = opened("heads", LINKS["wide"])
    grid = figure(at, "patterns")
    layout = grid["layout"]
    inner = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert len(grid["data"]) == 16
    for h, trace in enumerate(grid["data"]):
        assert not trace.get("texttemplate")  # no numbers in 32 × 32 cells
        low, high = layout[f"yaxis{h + 1 if h else ''}"]["domain"]
        assert (high - low) * inner == pytest.approx(32 * 14, abs=0.5)  # 32 rows of 14 px


def test_heads_settings_change_the_numbers() -> None:
    shown = {
        link: entropy_bars(figure(opened("heads", LINKS[link]), "entropy_bars"))
        for link in ("chapter9", "seed3", "d_model6", "no_mask")
    }
    assert len(shown["d_model6"]) == 3
    assert not np.allclose(shown["chapter9"], shown["seed3"])
    assert not np.allclose(shown["chapter9"], shown["no_mask"])


# --- page 6: concat + W_O ------------------------------------------------------------------

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


@pytest.mark.parametrize("link", ["chapter8", "chapter9", "wide", "repeats", "d_model6"])
def test_concat_shows_heads_concat_w_o_and_attn_out(link: str) -> None:
    at, want = opened("concat", LINKS[link]), Expected(LINKS[link])
    n_heads, d_head = want.cfg.n_heads, want.cfg.d_head
    cols = [f"h{h}·{i}" for h in range(n_heads) for i in range(d_head)]
    concat = figure(at, "concat")
    np.testing.assert_allclose(z_of(concat), want.trace.concat, rtol=0, atol=1e-12)
    assert concat["data"][0]["x"] == cols
    # block h of the concat is head h's z, exactly: the heads glued side by side, in order
    for h, head in enumerate(want.trace.heads):
        np.testing.assert_allclose(
            z_of(concat)[:, h * d_head : (h + 1) * d_head], head.z, rtol=0, atol=0
        )
    # a separator between every two head blocks, none at the edges
    edges = sorted(s["x0"] for s in concat["layout"].get("shapes", []))
    assert edges == [k * d_head - 0.5 for k in range(1, n_heads)]
    # each block named above its middle column: z₀ over h0·0 … h0·(d_head-1), and so on; at
    # these settings every block (16 heads of 4 columns of 14 px: 56 px) is wider than its name
    names = {a["text"]: a["x"] for a in concat["layout"].get("annotations", [])}
    step = 1
    assert names == {
        "z" + str(h).translate(SUBSCRIPTS): h * d_head + (d_head - 1) / 2
        for h in range(0, n_heads, step)
        if n_heads > 1
    }
    # and no two names closer than the widest name and a space (14 px type: ~9 px a glyph)
    centres = sorted(names.values())
    cell = (concat["layout"]["width"] - sum(concat["layout"]["margin"][k] for k in "lr")) / len(
        cols
    )
    assert all((b - a) * cell >= 3 * 9 for a, b in zip(centres, centres[1:]))

    w_o = figure(at, "w_o")
    np.testing.assert_allclose(z_of(w_o), want.params.W_O, rtol=0, atol=1e-12)
    assert [s["y0"] for s in w_o["layout"].get("shapes", [])] == edges
    np.testing.assert_allclose(z_of(figure(at, "attn_out")), want.trace.attn_out, atol=1e-12)
    np.testing.assert_allclose(want.trace.concat @ want.params.W_O, want.trace.attn_out, atol=1e-12)

    assert tables(at) == []  # the tables' section is closed: nothing built
    concat_t, w_o_t, attn_out_t = tables(opened("concat", LINKS[link], concat_tables=True))
    assert list(concat_t.columns) == cols and list(concat_t.index) == want.labels
    close_to_shown(concat_t.to_numpy(), want.trace.concat)
    close_to_shown(w_o_t.to_numpy(), want.params.W_O)
    close_to_shown(attn_out_t.to_numpy(), want.trace.attn_out)


def test_concat_settings_change_the_numbers() -> None:
    a = z_of(figure(opened("concat", {}), "attn_out"))
    b = z_of(figure(opened("concat", LINKS["seed3"]), "attn_out"))
    assert a.shape == b.shape == (5, 8) and not np.allclose(a, b)
    assert z_of(figure(opened("concat", LINKS["d_model6"]), "attn_out")).shape == (5, 6)


# --- page 7: residual + LayerNorm ----------------------------------------------------------


def stats_of(at: AppTest) -> np.ndarray:
    """The row statistics table: mean before, std before, mean after, std after."""
    return tables(at)[0].to_numpy(dtype=np.float64)


@pytest.mark.parametrize("link", ["chapter8", "chapter9", "wide", "no_mask", "repeats"])
def test_layernorm_matrices_and_row_stats(link: str) -> None:
    at, want = opened("layernorm", LINKS[link]), Expected(LINKS[link])
    assert at.select_slider(key="eps").value == 1e-5
    resid, ln_out = llm.residual_layer_norm(want.x, want.trace.attn_out, eps=1e-5)
    plots = [
        (piece, k) for piece in figure_pieces(at, "matrices") for k in range(len(piece["data"]))
    ]
    for (piece, k), m in zip(plots, (want.x, want.trace.attn_out, resid, ln_out), strict=True):
        np.testing.assert_allclose(z_of(piece, k), m, rtol=0, atol=1e-12)
    # one red-blue scale for the four, from -b to b, b the largest magnitude of them all
    b = max(np.abs(m).max() for m in (want.x, want.trace.attn_out, resid, ln_out))
    for piece, _ in plots:
        scale = piece["layout"]["coloraxis"]
        assert (scale["cmin"], scale["cmax"]) == pytest.approx((-b, b), abs=1e-12)
    np.testing.assert_allclose(resid, want.x + want.trace.attn_out, atol=0)

    stats = stats_of(at)
    assert list(tables(at)[0].index) == want.labels
    # six decimals; the mean after as num writes it in scientific notation
    close_to_shown(stats[:, 0], resid.mean(axis=1), digits=6)
    close_to_shown(stats[:, 1], resid.std(axis=1), digits=6)
    after = [row[2] for row in shown_cells(at)]
    assert after == [num(v, 1, "en", "e") for v in ln_out.mean(axis=1)]
    # what is shown after LayerNorm: mean 0, std 1 up to eps
    np.testing.assert_allclose(stats[:, 2], 0.0, atol=1e-12)
    assert (stats[:, 3] < 1.0).all() and (stats[:, 3] > 0.999).all()
    # eps inside the sqrt: std after = std / sqrt(std² + eps)
    std = resid.std(axis=1)
    close_to_shown(stats[:, 3], std / np.sqrt(std**2 + 1e-5), digits=6)
    assert len(tables(at)) == 1  # the matrices' tables are in a closed section
    x_tab, attn_tab, resid_tab, ln_tab = tables(
        opened("layernorm", LINKS[link], layernorm_tables=True)
    )[1:]
    close_to_shown(ln_tab.to_numpy(), ln_out)
    close_to_shown(resid_tab.to_numpy(), resid)

    # the means before (after LayerNorm each is 0: the caption says so), then the stds before
    # and after, as two charts of one row: side by side where both fit, else one under the other
    means, stds = figure(at, "means")["data"], figure(at, "stds")["data"]
    assert len(means) == 1 and len(stds) == 2
    np.testing.assert_allclose(array_of(means[0]["y"]), resid.mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(array_of(stds[0]["y"]), resid.std(axis=1), atol=1e-12)
    np.testing.assert_allclose(array_of(stds[1]["y"]), ln_out.std(axis=1), atol=1e-12)
    close_to_shown(array_of(stds[1]["y"]), stats[:, 3], digits=6)  # the table's numbers
    np.testing.assert_allclose(stats[:, 2], 0.0, atol=1e-12)  # the means after, in the table
    assert means[0]["marker"] == stds[0]["marker"]  # "before" in one colour in both
    assert LAYERNORM_TEXT["en"]["means_after"] in [c.value for c in at.caption]
    # the std = 1 line is drawn on the stds' chart
    assert [(s["y0"], s["yref"]) for s in figure(at, "stds")["layout"]["shapes"]] == [(1.0, "y")]


def test_layernorm_large_eps_lowers_the_std() -> None:
    at, want = opened("layernorm", {"eps": "1"}), Expected({})
    assert at.select_slider(key="eps").value == 1.0
    assert not at.warning
    stats = stats_of(at)
    _, ln_out = llm.residual_layer_norm(want.x, want.trace.attn_out, eps=1.0)
    close_to_shown(stats[:, 3], ln_out.std(axis=1), digits=6)
    std = (want.x + want.trace.attn_out).std(axis=1)  # the rows' std before LayerNorm
    close_to_shown(stats[:, 3], std / np.sqrt(std**2 + 1.0), digits=6)
    assert stats[:, 3].max() < 0.9  # visibly below 1: every row here has variance near 1
    assert (stats_of(opened("layernorm", {}))[:, 3] > stats[:, 3] + 0.1).all()
    np.testing.assert_allclose(stats[:, 2], 0.0, atol=1e-12)  # the mean stays 0
    assert "eps = 1" in grid_titles(at, "matrices")[3]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_presenter_mode_folds_why_the_residual_and_layernorm(lang: str) -> None:
    # on a projector the four matrices start on the first screen; the reasons stay one click away
    words = LAYERNORM_TEXT[lang]
    at = opened("layernorm", {"lang": lang, "present": "true"})
    folded = [e for e in at.main.expander if e.label == words["why"]]
    assert len(folded) == 1
    (text,) = [m.value for m in folded[0].markdown]
    assert words["intro"] in text and words["reason_drift"] in text and words["layernorm"] in text
    plain = opened("layernorm", {"lang": lang})
    assert not [e for e in plain.main.expander if e.label == words["why"]]
    shown = "\n".join(m.value for m in plain.main.markdown)
    assert words["residual"] in shown and words["reason_gradient"] in shown


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_eps_slider_writes_the_language_s_numbers(lang: str) -> None:
    # the slider's labels are the link's spelling: in French a caption writes eps (0,001), and
    # the page styles the slider's own value and ends away
    at = opened("layernorm", {"lang": lang, "eps": "0.001"})
    slider = at.main.select_slider(key="eps")
    assert slider.value == 1e-3 and "0.001" in slider.options
    said = [c.value for c in at.main.caption if c.value.startswith("eps = ")]
    assert said == (
        ["eps = 0,001 (de 1e-12 à 1\u00a0; le chapitre prend 1e-5)"] if lang == "fr" else []
    )
    hidden = [h.proto.body for h in at.get("html") if ".st-key-eps" in h.proto.body]
    assert len(hidden) == (1 if lang == "fr" else 0)


def test_layernorm_bad_eps_is_replaced_and_said() -> None:
    at = opened("layernorm", {"eps": "banana"})
    assert at.select_slider(key="eps").value == 1e-5
    assert "banana" in "\n".join(w.value for w in at.warning)
    np.testing.assert_allclose(stats_of(at), stats_of(opened("layernorm", {})), atol=0)


def test_layernorm_markup_in_eps_is_shown_as_text() -> None:
    at = opened("layernorm", {"eps": "[x](https://example.com)<b>"})
    (warning,) = at.warning
    assert r"\[x\]\(https\:" in warning.value and r"\<b\>" in warning.value


def test_layernorm_moving_eps_updates_the_numbers() -> None:
    at = AppTest.from_file(PAGES["layernorm"], default_timeout=30)
    at.run()
    at.select_slider(key="eps").set_value(0.1).run()
    assert not at.exception
    stats, want = stats_of(at), Expected({})
    std = (want.x + want.trace.attn_out).std(axis=1)  # the rows' std before LayerNorm
    close_to_shown(stats[:, 1], std, digits=6)
    close_to_shown(stats[:, 3], std / np.sqrt(std**2 + 0.1), digits=6)
    assert "eps = 0.1" in grid_titles(at, "matrices")[3]


def test_layernorm_settings_change_the_numbers() -> None:
    a, b = stats_of(opened("layernorm", {})), stats_of(opened("layernorm", LINKS["seed3"]))
    assert not np.allclose(a[:, :2], b[:, :2])


# --- page 9: the code ------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["chapter8", "chapter9", "wide", "no_mask", "repeats"])
def test_code_readable_matches_engine(link: str) -> None:
    at, want = opened("code", LINKS[link]), Expected(LINKS[link])
    differences, *beside = tables(at)
    assert [name.split()[0] for name in differences.index] == list(QUANTITIES)
    shown = differences.iloc[:, 0].to_numpy(dtype=np.float64)
    assert (shown >= 0.0).all() and shown.max() < 1e-12
    direct = compare_implementations(want.x, want.params, want.causal)
    # each largest difference as the prose writes it: two decimals of the mantissa
    assert [row[0] for row in shown_cells(at)] == [
        num(direct[name], 2, "en", "e") for name in QUANTITIES
    ]
    assert at.success and not at.main.error

    pattern_readable, pattern_engine, ln_readable, ln_engine = beside
    head = want.trace.heads[want.h]
    _, ln_out = llm.residual_layer_norm(want.x, want.trace.attn_out)
    for table, exact in (
        (pattern_readable, head.pattern),
        (pattern_engine, head.pattern),
        (ln_readable, ln_out),
        (ln_engine, ln_out),
    ):
        close_to_shown(table.to_numpy(), exact, digits=6)


def test_code_shows_the_real_source() -> None:
    def shown(tab: str | None = None) -> list[str]:
        at = opened("code", {}, **({"code_sources": tab} if tab else {}))
        return [block.value.strip() for block in at.main.code]

    # one module a tab, built only when its tab is open (the first one by default)
    assert shown() == [inspect.getsource(llm.attention).strip()]
    assert shown(CODE_TEXT["en"]["nn_tab"]) == [inspect.getsource(llm.nn).strip()]
    (compare,) = shown(CODE_TEXT["en"]["compare_tab"])
    assert "def compare_implementations" in compare
    # a line longer than the box wraps on screen instead of hiding past its right edge
    assert all(block.proto.wrap_lines for block in opened("code", {}).main.code)


def test_compare_reports_a_planted_difference() -> None:
    want = Expected({})
    readable_out = run(readable, want.x, want.params, want.causal)
    engine_out = run(engine, want.x, want.params, want.causal)
    assert agree(max_differences(readable_out, engine_out))
    engine_out["ln_out"] = engine_out["ln_out"].copy()
    engine_out["ln_out"][2, 3] += 1e-9
    planted = max_differences(readable_out, engine_out)
    assert planted["ln_out"] == pytest.approx(1e-9, rel=1e-3)
    assert not agree(planted)
    assert agree(planted, tol=1e-8)


# --- French: the decimal comma and the spaces of French typography -----------------------------


def comma(text: str) -> str:
    return text.replace(".", ",")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_heads_titles_notes_and_prose_write_the_language_s_decimals(lang: str) -> None:
    at = opened("heads", {"lang": lang})
    want = Expected({})
    entropies = [f"{llm.head_entropy(head.pattern):.2f}" for head in want.trace.heads]
    kinds = [llm.classify_head(head.pattern, True) for head in want.trace.heads]
    assert entropies == ["0.46", "0.89", "0.40", "0.37"]  # the chapter 9 preset's heads
    causal = f"{llm.max_head_entropy(5, True):.2f}"
    notes = [f"max ln 5 = {math.log(5):.2f}", f"causal max = {causal}"]
    assert notes == ["max ln 5 = 1.61", "causal max = 0.96"]
    if lang == "fr":
        entropies = [comma(e) for e in entropies]
        notes = ["max ln 5 = 1,61", "max causal = 0,96"]
    t = HEADS_TEXT[lang]
    titles = [
        t["head_title"].format(h=h, label=t[kind], entropy=entropy)
        for h, (kind, entropy) in enumerate(zip(kinds, entropies))
    ]
    assert titles[0] == (
        "tête 0 · mixte · H moyen = 0,46" if lang == "fr" else "head 0 · mixed · mean H = 0.46"
    )
    shown = [title.replace("<br>", " ") for title in grid_titles(at, "patterns")]
    assert [title for title in shown if " H = " in title or "H moyen" in title] == titles
    bars = [a["text"] for a in figure(at, "entropy_bars")["layout"]["annotations"]]
    assert sorted(bars) == sorted(notes)
    # the prose: "0.96, not ln 5 ≈ 1.61" / "0,96, et non ln 5 ≈ 1,61"
    ceiling, full = notes[1].split()[-1], notes[0].split()[-1]
    assert f"{ceiling}, {'et non' if lang == 'fr' else 'not'} ln 5 ≈ {full}" in shown_text(at)


def test_one_head_does_not_compare_heads() -> None:
    for lang in ("en", "fr"):
        prose = shown_text(opened("heads", {**LINKS["chapter8"], "lang": lang}))
        assert HEADS_TEXT[lang]["found_one"] in prose
        assert HEADS_TEXT[lang]["found"] not in prose


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_layernorm_prose_and_row_stats_in_the_language(lang: str) -> None:
    at = opened("layernorm", {"lang": lang})
    prose = "\n".join(box.value for box in at.main.info)
    assert ("Monte eps à 0,01 ou 1" if lang == "fr" else "Raise eps to 0.01 or 1") in prose
    values = tables(at)[0].to_numpy(dtype=np.float64)  # numbers, read back in French
    # six decimals; the mean after in a short scientific notation, an exact 0 as "0"
    # (ui.text.num: "2.8e-17", never "0.0e+00" next to "-1.4e-17")
    mean_after = ["2.8e-17", "1.4e-17", "2.8e-17", "-1.4e-17", "0"]  # chapter 9 preset
    want = [
        [f"{v:.6f}" if c != 2 else after for c, v in enumerate(row)]
        for row, after in zip(values, mean_after, strict=True)
    ]
    if lang == "fr":
        want = [[comma(cell) for cell in row] for row in want]
    assert shown_cells(at) == want
    assert shown_cells(at)[0][1] == ("0,999914" if lang == "fr" else "0.999914")  # "the"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_code_differences_read_in_the_language(lang: str) -> None:
    at = opened("code", {"lang": lang})
    largest = tables(at)[0].to_numpy(dtype=np.float64).ravel()
    assert (largest < 1e-12).all() and (largest > 0).any()
    # two decimals of the mantissa, a decimal comma in French; an exact 0 would read "0"
    shown = [v and f"{v:.2e}" or "0" for v in largest]
    want = [comma(v) if lang == "fr" else v for v in shown]
    assert [row[0] for row in shown_cells(at)] == want


OWN_TEXTS = ("qkv", "scores", "softmax", "mix", "heads", "concat", "layernorm", "code", "home")


@pytest.mark.parametrize("module", OWN_TEXTS)
def test_french_texts_keep_french_typography(module: str) -> None:
    text = importlib.import_module(f"ui.text.{module}").TEXT["fr"]
    for name, sentence in text.items():
        if name == "formula":  # LaTeX
            continue
        # a no-break space before : ; ! ? and inside « », never a plain one, never “ ”
        assert not re.search(r"\S [:;!?]", sentence), (name, sentence)
        assert "“" not in sentence and "”" not in sentence, name
        assert "« " not in sentence and " »" not in sentence, name
        # a decimal comma in French prose (a file name such as llm/engine.py is not a number)
        assert not re.search(r"\d\.\d", sentence), (name, sentence)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_one_token_is_never_1_tokens(lang: str) -> None:
    at = opened("heads", {"text": "cat", "causal": "false", "lang": lang})
    prose = shown_text(at)
    assert "1 tokens" not in prose
    t = HEADS_TEXT[lang]
    assert (
        t["entropy_intro"].format(tokens="1 token", t=1, max="0,00" if lang == "fr" else "0.00")
        in prose
    )
    assert t["all_one"] in prose


@pytest.mark.parametrize("page", ["heads", "layernorm", "code"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_tables_write_a_fixed_number_of_decimals(page: str, lang: str) -> None:
    """Every number of every table has a fixed count of decimals in its column (1.400, not 1.4;
    a decimal comma in French), or, in a column written as prose writes it, scientific
    notation (2.8e-17, an exact 0 as "0")."""
    at = opened(page, {"lang": lang})
    found = html_tables(at)
    assert found, page
    point = "," if lang == "fr" else r"\."
    fixed = re.compile(rf"-?\d+{point}\d+")
    science = re.compile(rf"-?\d(?:{point}\d{{1,2}})?e-?\d+|0")
    for table in found:
        for j, name in enumerate(table.cols):
            cells = [row[j] for row in table.cells]
            if all(fixed.fullmatch(c) for c in cells):
                decimals = {len(re.split(point, c)[1]) for c in cells}
                assert len(decimals) == 1, (page, name, cells)
            else:
                assert all(science.fullmatch(c) for c in cells), (page, name, cells)


def test_layernorm_figures_are_shared_and_follow_eps() -> None:
    """Page 7's figures come from one cache: the same setting and eps give the same kept
    figures; another eps gives ln_out at that eps (its last plot), X left as it was."""
    from ui.draw.style import Look
    from ui.lab.compute import Setting, compute_lab
    from ui.lessons.layernorm import layernorm_figures

    setting = Setting("the cat sat on mat", 8, 4, 3, True)
    first = layernorm_figures(setting, Look(), 1e-5)
    assert layernorm_figures(setting, Look(), 1e-5) is first
    lab = compute_lab(setting)
    for eps in (1e-5, 1.0):
        traces = [
            t
            for piece in layernorm_figures(setting, Look(), eps)["matrices"]
            for t in piece["data"]
        ]
        x, *_, ln_out = (np.asarray(t["z"]) for t in traces)
        np.testing.assert_array_equal(x, lab.x)
        _, want = llm.residual_layer_norm(lab.x, lab.trace.attn_out, eps=eps)
        np.testing.assert_allclose(ln_out, want, atol=0)
    with pytest.raises(TypeError):
        first["row_stats"][0]["data"].append({})  # shared between sessions: read-only
