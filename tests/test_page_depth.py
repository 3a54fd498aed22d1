"""AppTest tests of page 8, depth: the charts carry llm.depth_stack's numbers, bad links repaired.

The page is opened as a shared link opens it (URL parameters before the first run); what it draws
is compared with ``llm.depth_stack`` run in the test on the same settings.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llm
from tests.apptest_pages import SENTENCE_32, array_of, figure, figure_pieces, link_opener, tables

PAGE = "../pages/8_depth.py"
CHAPTER_9 = llm.AttentionConfig(d_model=8, n_heads=4, seed=0)
TOKENS = llm.tokenize("the cat sat on mat")


opened = link_opener(PAGE)


def body(at: AppTest) -> str:
    return "\n".join(m.value for m in [*at.main.markdown, *at.main.caption, *at.main.info])


def lines(at: AppTest, key: str) -> dict[str, np.ndarray]:
    """The y values of a line chart, by series name (None -> NaN)."""
    return {trace["name"]: array_of(trace["y"]) for trace in figure(at, key)["data"]}


def rows(at: AppTest) -> list[np.ndarray]:
    """The token rows' heatmaps (entering layer 0, leaving the stack), over the grid's pieces."""
    return [
        array_of(trace["z"])
        for piece in figure_pieces(at, "rows")
        for trace in piece["data"]
        if trace["type"] == "heatmap"
    ]


def test_the_charts_carry_the_stack_numbers() -> None:
    at = opened()
    assert at.slider(key="layers").value == 12 and at.radio(key="variant").value == "none"
    want = {v: llm.depth_stack(CHAPTER_9, TOKENS, 12, v) for v in llm.VARIANTS}
    rms, grad = lines(at, "rms"), lines(at, "grad")
    assert list(rms) == list(llm.VARIANTS)
    for v, st in want.items():
        np.testing.assert_allclose(rms[v], st.rms, rtol=1e-15)
        np.testing.assert_allclose(grad[v], st.grad_norm, rtol=1e-15)
    both = figure(at, "similarity_collapse")["data"]  # similarity on the left, collapse right
    for trace in both:
        st = want[trace["name"]]
        values = st.similarity if trace.get("xaxis", "x") == "x" else st.collapse
        np.testing.assert_allclose(array_of(trace["y"]), values, rtol=1e-15)
    layout = figure(at, "similarity_collapse")["layout"]
    assert layout["yaxis2"]["type"] == "log" and layout["yaxis"].get("type") != "log"
    assert figure(at, "grad")["layout"]["yaxis"]["type"] == "log"  # 0.4 ... 697: decades
    assert [t["line"]["width"] for t in figure(at, "rms")["data"]] == [3.5, 1.8, 1.8, 1.8]


def test_the_sentences_read_the_current_numbers() -> None:
    """At the chapter 9 preset and 12 layers (numbers from llm.depth_stack, seed 0)."""
    text = body(opened())
    assert "After 12 layers it is 0.0392 without residual, 67.5 with the residual alone" in text
    assert "The distance from rank one is 0.00307, 0.0341, 0.0426 and 0.303." in text
    assert "1.0000 without residual, 0.9986 with the residual" in text
    assert "At layer 0 it is 0.055 of that without residual, 96.2 with the residual" in text
    assert "fades on the way down, 0.055 of the top's" in text
    assert "explodes instead, 96.2 times the top's" in text
    deeper = body(opened(layers="24"))
    assert "it does not vanish on these weights (0.369 of the top's" in deeper
    assert "4.9·10⁻⁷, 0.0112, 0.00159 and 0.238" in deeper
    assert "multiplies the gradient by 1 + the sublayer's slope" in deeper


def test_one_layer_reads_as_one_layer() -> None:
    text = body(opened(layers="1"))
    assert "After 1 layer it is 0.821 without residual, 1.02 with the residual alone" in text
    assert "With the residual alone it stays within a factor of 3 of where it started." in text
    assert "nothing brings back" not in text  # the stream has not grown yet
    assert "The cosine similarity says how alike the rows point" in text  # not yet misleading
    assert "What does vanish is the difference between the tokens" not in text


def test_the_token_rows_of_the_chosen_variant() -> None:
    at = opened(layers="5", variant="pre_ln")
    st = llm.depth_stack(CHAPTER_9, TOKENS, 5, "pre_ln")
    entering, leaving = rows(at)
    np.testing.assert_allclose(entering, st.x[0] / st.rms[0], rtol=1e-15)
    np.testing.assert_allclose(leaving, st.x[5] / st.rms[5], rtol=1e-15)
    # at the chapter's 5 × 8 the two heatmaps are pieces that wrap: one under the other in a
    # 150 % zoom's 521 px column (one figure of both was cut at its edge), each narrower
    pieces = figure_pieces(at, "rows")
    assert len(pieces) == 2 and all(piece["layout"]["width"] <= 516 for piece in pieces)
    assert [t["line"]["width"] for t in figure(at, "grad")["data"]] == [1.8, 1.8, 1.8, 3.5]
    assert len(lines(at, "rms")["none"]) == 6


def test_french() -> None:
    at = opened(lang="fr")
    assert at.title[0].value.startswith("8. Profondeur")
    assert "Après 12 couches elle vaut 0,0392 sans résiduel" in body(at)
    assert figure(at, "grad")["layout"]["separators"] == ", "  # the axes read 0,5
    assert figure(opened(), "grad")["layout"]["separators"] == ".,"


@pytest.mark.parametrize(
    ("link", "shown"),
    [
        ({"layers": "0"}, "0"),
        ({"layers": "25"}, "25"),
        ({"layers": "abc"}, "abc"),
        ({"variant": "foo"}, "foo"),
        ({"layers": "-3", "variant": "Pre_LN"}, "Pre"),
    ],
)
def test_bad_links_are_repaired_and_said(link: dict[str, str], shown: str) -> None:
    at = opened(**link)
    warning = "\n".join(w.value for w in at.warning)
    assert shown in warning
    assert at.slider(key="layers").value == 12 and at.radio(key="variant").value == "none"
    np.testing.assert_array_equal(lines(at, "grad")["none"], lines(opened(), "grad")["none"])


def test_markup_in_a_value_is_shown_as_text() -> None:
    at = opened(variant="[x](https://example.com)<b>")
    (warning,) = at.warning
    assert r"\[x\]\(https\:" in warning.value and r"\<b\>" in warning.value


def test_moving_the_controls_changes_the_charts() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.slider(key="layers").set_value(3).run()
    assert not at.exception
    want = llm.depth_stack(CHAPTER_9, TOKENS, 3, "residual")
    np.testing.assert_allclose(lines(at, "grad")["residual"], want.grad_norm, rtol=1e-15)
    at.radio(key="variant").set_value("residual").run()
    np.testing.assert_allclose(rows(at)[1], want.x[3] / want.rms[3], rtol=1e-15)


def test_one_token() -> None:
    text = body(opened(text="cat"))
    assert "With one token there is nothing to collapse" in text


def test_the_largest_setting() -> None:
    at = opened(d_model="64", n_heads="16", text=SENTENCE_32, layers="24", variant="post_ln")
    cfg = llm.AttentionConfig(64, 16, 0)
    st = llm.depth_stack(cfg, llm.tokenize(SENTENCE_32), 24, "post_ln")
    np.testing.assert_allclose(lines(at, "grad")["post_ln"], st.grad_norm, rtol=1e-15)
    assert rows(at)[1].shape == (32, 64)


def test_layer_chart_axes() -> None:
    from ui.draw.lines import Panel, line_panels, spans_decades

    def layer_chart(series: dict, x: list, log: bool | None = None, bold: str | None = None):
        return line_panels(x, [Panel("", "", series, log=log)], bold=bold, markers=True)

    assert spans_decades({"a": [1.0, 99.0]}) is False
    assert spans_decades({"a": [1.0, 2.0], "b": [0.0, 100.0]}) is True  # 0 is not positive
    assert spans_decades({"a": [0.0, 5.0]}) is False
    chart = layer_chart({"a": [1.0, 0.0, 1000.0], "b": [2.0, 3.0, 4.0]}, [0, 1, 2], bold="b")
    assert chart["layout"]["yaxis"]["type"] == "log"
    assert chart["data"][0]["y"] == [1.0, None, 1000.0]  # no 0 on a log axis
    assert [t["line"]["width"] for t in chart["data"]] == [1.8, 3.5]
    flat = layer_chart({"a": [0.5, -0.2]}, [0, 1], log=False)
    assert "type" not in flat["layout"]["yaxis"] and flat["data"][0]["y"] == [0.5, -0.2]
    assert flat["layout"]["showlegend"] is False


def test_french_names_the_variants_and_the_link_keeps_their_ids() -> None:
    """In French the legends, the picker and the sentences say "sans résidu", "résidu",
    "post-LN", "pre-LN"; the URL keeps variant=post_ln (the picker is not bound to the URL,
    which would write its translated label there)."""
    at = opened(lang="fr", variant="post_ln")
    assert not at.exception and at.radio(key="variant").value == "post_ln"
    assert set(lines(at, "grad")) == {"sans résidu", "résidu", "post-LN", "pre-LN"}
    assert at.query_params["variant"] == "post_ln"
    at.radio(key="variant").set_value("pre_ln").run()
    assert at.query_params["variant"] == "pre_ln"
    text = body(at)  # the ids only in code (the exercise's `stack_post_ln`), never in prose
    assert "pour **pre-LN**" in text and not re.search(r"(?<!\w)(none|post_ln|pre_ln)(?!\w)", text)
    at.radio(key="variant").set_value("none").run()
    assert "variant" not in at.query_params  # the default stays out of the link


def test_a_bad_variant_is_said_with_the_names_the_page_shows() -> None:
    (warning,) = opened(lang="fr", variant="foo").warning
    assert "post_ln = post-LN" in warning.value and "on prend none, sans résidu" in warning.value
    (warning,) = opened(variant="foo").warning
    assert "not one of the variants (none, residual, post_ln, pre_ln); using none" in warning.value


def test_the_charts_numbers_are_a_folded_table_a_measure() -> None:
    """Folded, the page sends no table; open, a tab a measure: a row a layer, a column a
    wiring, each number to 3 significant digits."""
    assert tables(opened()) == []
    want = {v: llm.depth_stack(CHAPTER_9, TOKENS, 12, v) for v in llm.VARIANTS}
    for label, measure in (("RMS", "rms"), ("Distance from rank one", "collapse")):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.session_state["depth_numbers"] = True
        at.session_state["depth_number_tabs"] = label
        at.run()
        assert not at.exception, at.exception
        (table,) = tables(at)
        assert list(table.index) == [f"layer {k}" for k in range(13)]
        assert len(table.columns) == len(llm.VARIANTS)
        for column, v in zip(table.columns, llm.VARIANTS, strict=True):
            expected = getattr(want[v], measure)
            got = table[column].to_numpy(dtype=float)
            np.testing.assert_allclose(got, expected, rtol=5e-3)  # 3 significant digits
