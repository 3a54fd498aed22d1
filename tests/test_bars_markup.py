"""A bar chart of markup (``ui.draw.bars_markup``) shows what its figure holds: every bar as tall
as its value on a y axis of round numbers from 0 (down from 0 for a negative value), its number
readable in or past its end, its reference lines, the categories' labels and the series' names
as typed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_pages import bars_shown
from ui.draw.bars_markup import bars_markup
from ui.draw.charts import PALETTE, bar_chart
from ui.draw.contrast import luminance, rgb
from ui.draw.style import Look

ENTROPY = [0.0, 0.5849, 1.0986, None]
CEILING = [0.0, 0.6931, 1.0986, 1.3863]
TOKENS = ["the", "cat", "<i>sat</i>", "on"]
BAR = re.compile(
    r'<div class="bar" style="width:[\d.]+px;height:([\d.]+)%;bottom:0\.00%;background:([^"]+)"'
)


def _chart(lang: str = "en", **look: object) -> dict:
    series = {"H(A_i)": ENTROPY, "ceiling <b>ln</b>": CEILING}
    return bar_chart(
        series, TOKENS, title="Row entropy", y_title="nats", height=280, look=Look(lang, **look)
    )


def test_the_bars_carry_the_figures_values_labels_and_names() -> None:
    shown = bars_shown(bars_markup(_chart(), key="row_entropy"))
    first, second = shown["data"]
    assert first["x"] == second["x"] == TOKENS  # as typed, escaped in the markup
    assert (first["name"], second["name"]) == ("H(A_i)", "ceiling <b>ln</b>")
    assert first["y"] == ENTROPY and second["y"] == CEILING
    assert shown["alt"].startswith("Bar chart")
    assert shown["layout"]["title"]["text"] == "Row entropy"


def test_each_bar_is_as_tall_as_its_value_on_a_round_axis_from_zero() -> None:
    markup = bars_markup(_chart(), key="k")
    bars = BAR.findall(markup)  # category by category, series by series; no bar for None
    values = [v for pair in zip(ENTROPY, CEILING) for v in pair if v is not None]
    assert len(bars) == len(values) == 7
    ticks = [float(t) for t in re.findall(r'<span style="bottom:[\d.]+%">([\d.]+)</span>', markup)]
    assert ticks[0] == 0 and ticks[-1] >= max(CEILING)  # 0 to a round top above every bar
    top = ticks[-1]
    np.testing.assert_allclose(
        [float(h) for h, _ in bars], [100 * v / top for v in values], atol=0.006
    )
    assert {c for _, c in bars} == set(PALETTE[:2])


def test_a_number_reads_on_its_bar_or_stands_above_it() -> None:
    markup = bars_markup(_chart(), key="k")
    inside = re.findall(
        r'background:([^"]+)" title="[^"]*"><span class="in" style="font-size:12px;'
        r'color:([^"]+)">([^<]+)<',
        markup,
    )
    above = re.findall(r'<span class="out" style="font-size:12px">([^<]+)<', markup)
    # a quarter of the plot (0 to 1.5) or taller: inside; the zeros above
    assert sorted(t for *_, t in inside) == ["0.58", "0.69", "1.10", "1.10", "1.39"]
    assert sorted(above) == ["0.00", "0.00"]
    for bar, ink, _ in inside:  # black or white, whichever reads at 4.5:1 on the bar's colour
        back = luminance(np.array(rgb(bar)))
        front = luminance(np.array((255, 255, 255) if ink == "#fff" else (0, 0, 0)))
        assert (max(back, front) + 0.05) / (min(back, front) + 0.05) >= 4.5


def test_french_numbers_and_presenter_sizes() -> None:
    fr = bars_markup(_chart("fr"), key="k")
    assert ">0,58<" in fr and re.search(r'%">\d,\d+</span>', fr)  # a tick with its comma
    big = bars_markup(_chart(scale=1.25), key="k")
    assert 'style="font-size:16px"' in big  # presenter mode's 16 px ticks and numbers


def test_many_categories_slant_their_labels_and_drop_their_numbers() -> None:
    words = [f"token{k}" for k in range(24)]
    fig = bar_chart({"H": list(np.linspace(0, 2, 24))}, words, title="t", y_title="nats")
    markup = bars_markup(fig, key="k")
    assert 'class="bars-x slant"' in markup and "--angle:-60deg" in markup
    assert 'class="in"' not in markup and 'class="out"' not in markup  # plotly's rule: > 16
    assert bars_shown(markup)["data"][0]["x"] == words


def test_a_negative_bar_hangs_from_zero_and_a_reference_line_stands_at_its_value() -> None:
    # /layernorm's charts: a row's mean may be negative; the stds' chart has the line std = 1
    means = bars_markup(bar_chart({"mean": [-0.6, 0.2]}, ["a", "b"], title="m"), key="m")
    bars = re.findall(
        r'<div class="bar( neg)?" style="width:[\d.]+px;height:([\d.]+)%;bottom:([\d.]+)%', means
    )
    ticks = [
        float(t.replace("\u2212", "-"))
        for t in re.findall(r'<span style="bottom:[\d.]+%">([^<]+)</span>', means)
    ]
    lo, hi = ticks[0], ticks[-1]
    assert lo <= -0.6 and hi >= 0.2 and 0.0 in ticks  # a round axis through 0
    zero = 100 * (0 - lo) / (hi - lo)
    (neg, h0, b0), (pos, h1, b1) = bars
    assert neg == " neg" and pos == ""
    assert float(b0) == pytest.approx(zero - 100 * 0.6 / (hi - lo), abs=0.006)
    assert float(h0) == pytest.approx(100 * 0.6 / (hi - lo), abs=0.006)
    assert float(b1) == pytest.approx(zero, abs=0.006)
    assert float(h1) == pytest.approx(100 * 0.2 / (hi - lo), abs=0.006)

    fig = bar_chart({"std": [1.0, 0.5]}, ["a", "b"], title="s", lines=[(1.0, "std = 1")])
    stds = bars_markup(fig, key="s")
    lo, hi = fig["layout"]["yaxis"]["range"]  # the figure's own range: numbers clear the line
    (at, label) = re.findall(
        r'class="line" data-y="1.0" style="bottom:([\d.]+)%"><span>([^<]+)<', stds
    )[0]
    assert float(at) == pytest.approx(100 * (1.0 - lo) / (hi - lo), abs=0.006)
    assert label == "std = 1"
    anchor = fig["data"][0]["insidetextanchor"]  # 1.00 at its bar's end would sit on the line
    assert anchor == "middle" and '<span class="in mid"' in stds
    assert bars_shown(stds)["layout"]["shapes"] == [
        {"type": "line", "y0": 1.0, "y1": 1.0, "yref": "y"}
    ]
