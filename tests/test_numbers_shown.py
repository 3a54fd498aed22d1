"""Numbers as the tables and bar charts show them: one spelling (``ui.text.num``), no "-0.000",
no "0.0e+00", and no bar number on a reference line."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.apptest_pages import read_table
from ui.draw.charts import bar_chart, text_anchor
from ui.draw.style import PRESENT_SCALE, Look
from ui.draw.tables import table_html


def cells(table: pd.DataFrame, lang: str, digits: int, kinds=None) -> list[list[str]]:
    """The text a table of ``ui.draw.tables`` shows, row by row (the row label left out), read
    back from its HTML."""
    markup = table_html(
        table.to_numpy(),
        list(table.index),
        list(table.columns),
        lang=lang,
        label="t",
        digits=digits,
        kinds=kinds,
    )
    return read_table(markup).cells


def test_a_rounded_zero_has_no_sign_in_either_language() -> None:
    # the page 5 table "Row entropy of each row": the first token's entropy is 0 up to -1e-17
    table = pd.DataFrame(
        [[-1e-17, 0.5], [-0.0, -0.0004]], index=["the", "cat"], columns=["h0", "h1"]
    )
    assert cells(table, "en", 3) == [["0.000", "0.500"], ["0.000", "0.000"]]
    assert cells(table, "fr", 3) == [["0,000", "0,500"], ["0,000", "0,000"]]


def test_a_column_in_scientific_notation_writes_an_exact_zero_as_0() -> None:
    # page 7's row statistics: the mean after LayerNorm, next to six-decimal columns
    table = pd.DataFrame(
        [[-0.108079, 2.8e-17], [0.207472, -1.4e-17], [0.089438, 0.0]],
        index=["the", "cat", "mat"],
        columns=["mean before", "mean after"],
    )
    kinds = {"mean after": (1, "e")}
    assert cells(table, "en", 6, kinds) == [
        ["-0.108079", "2.8e-17"],
        ["0.207472", "-1.4e-17"],
        ["0.089438", "0"],
    ]
    assert cells(table, "fr", 6, kinds) == [
        ["-0,108079", "2,8e-17"],
        ["0,207472", "-1,4e-17"],
        ["0,089438", "0"],
    ]


STDS = {
    "before": [0.999914, 0.719667, 1.169696, 0.788766, 1.099120],
    "after": [0.999995, 0.999990, 0.999996, 0.999992, 0.999996],
}
TOKENS = ["the", "cat", "sat", "on", "mat"]


@pytest.mark.parametrize("look", [Look(), Look(scale=PRESENT_SCALE), Look(phone=True), Look("fr")])
def test_bar_numbers_leave_the_reference_line_std_1(look: Look) -> None:
    # page 7's "Standard deviation of each row": at the bars' ends the line std = 1 ran
    # through "1.00", "1.10", "1.17"; in the middle of the bars it runs clear of every number
    spec = bar_chart(STDS, TOKENS, lines=[(1.0, "std = 1")], look=look)
    assert {trace["insidetextanchor"] for trace in spec["data"]} == {"middle"}
    lo, hi = spec["layout"]["yaxis"]["range"]
    assert lo == 0.0 and hi == pytest.approx(1.169696 * 1.05)


def test_bar_numbers_stay_at_the_ends_where_no_line_crosses_them() -> None:
    # page 5's entropy bars: lines at ln 5 and at the causal maximum, above every bar's number
    heads = {"sharp": [0.46, None, 0.40, 0.37], "mixed": [None, 0.89, None, None]}
    lines = [(1.609, "max ln 5 = 1.61"), (0.96, "causal max = 0.96")]
    spec = bar_chart(heads, ["h0", "h1", "h2", "h3"], lines=lines, barmode="relative")
    assert {trace["insidetextanchor"] for trace in spec["data"]} == {"end"}
    assert "insidetextanchor" not in bar_chart(heads, ["h0", "h1", "h2", "h3"])["data"][0]


def test_text_anchor_measures_in_pixels() -> None:
    # a 200 px plot from 0 to 2: 100 px a unit; numbers 12 px high, 3 px from the bar's end
    bars = {"a": [1.0]}
    assert text_anchor(bars, [1.5], [0.0, 2.0], 200, 12) == "end"  # 50 px above the bar
    assert text_anchor(bars, [0.9], [0.0, 2.0], 200, 12) == "middle"  # through "1.00"
    assert text_anchor(bars, [0.9, 0.5], [0.0, 2.0], 200, 12) == "start"  # end and middle
    # a bar too short for its number has it outside, past its end, wherever the anchor
    assert text_anchor({"a": [0.05]}, [0.12], [0.0, 2.0], 200, 12) == "middle"
    assert text_anchor({"a": [-1.0]}, [-0.9], [-2.0, 0.0], 200, 12) == "middle"
