"""A heatmap table (``ui.draw.heatmap_table``) shows what its figure holds: the same numbers in
the same cells, colours of the figure's scale, numbers readable on them, the mask, the followed
row, and every text escaped."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_pages import array_of, heatmap_shown
from ui.draw.axis_text import nice_ticks, tick_text
from ui.draw.contrast import cell_colours, colour_range, luminance, shown_number
from ui.draw.heatmap_table import figures_box, heatmap_table
from ui.draw.heatmaps import heatmap
from ui.draw.style import Look
from ui.draw.wire import alt_text
from ui.frame.follow import OUTLINE, outline_row

TOKENS = ["the", "cat", "<b>sat</b>"]
PATTERN = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.125, 0.5, 0.375]])
HIDDEN = np.triu(np.ones((3, 3), dtype=bool), k=1)
CELL = re.compile(r'<td style="background:#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2});color:([^"]+)"')


def _figure(lang: str = "en") -> dict:
    return heatmap(
        PATTERN,
        TOKENS,
        TOKENS,
        title="A <i>pattern</i>",
        zmin=0.0,
        zmax=1.0,
        masked=HIDDEN,
        x_title="key",
        y_title="query",
        masked_label="masked",
        look=Look(lang),
    )


def test_the_table_shows_the_figures_numbers_labels_and_values() -> None:
    fig = _figure()
    shown = heatmap_shown(heatmap_table(fig, key="pattern", alt="a pattern"))
    trace = shown["data"][0]
    assert trace["x"] == trace["y"] == TOKENS  # as typed, not as markup
    assert trace["text"] == [["1.00", "×", "×"], ["0.25", "0.75", "×"], ["0.12", "0.50", "0.38"]]
    assert trace["text"] == [[shown_number(t) for t in row] for row in fig["data"][0]["text"]]
    z = array_of(trace["z"]).reshape(3, 3)
    np.testing.assert_array_equal(np.isnan(z), HIDDEN)
    np.testing.assert_array_equal(z[~HIDDEN], PATTERN[~HIDDEN])
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)
    assert shown["layout"]["title"]["text"] == "A &lt;i&gt;pattern&lt;/i&gt;"  # escaped
    assert shown["alt"] == "a pattern"


def test_each_cell_has_its_scales_colour_and_a_number_that_reads_on_it() -> None:
    fig = _figure()
    markup = heatmap_table(fig, key="pattern", alt="")
    cells = CELL.findall(markup)
    shown = PATTERN[~HIDDEN]  # row by row, the cells that are not masked
    assert len(cells) == len(shown) == 6
    want = cell_colours(shown, fig["data"][0]["colorscale"], 0.0, 1.0)
    assert [tuple(int(c, 16) for c in cell[:3]) for cell in cells] == [tuple(w) for w in want]
    assert cells[0][:3] == ("fd", "e7", "25")  # 1.00: viridis' top, #fde725
    for *channels, ink in cells:
        back = luminance(np.array([int(c, 16) for c in channels]))
        text = luminance(np.array({"#000": (0, 0, 0), "#fff": (255, 255, 255)}[ink]))
        ratio = (max(back, text) + 0.05) / (min(back, text) + 0.05)
        assert ratio >= 4.5
    assert markup.count('class="masked"') == 3  # grey, with its ×


def test_a_masked_cell_says_so_and_a_cell_says_its_exact_value_in_its_language() -> None:
    en = heatmap_table(_figure(), key="p", alt="")
    assert 'title="query the → key cat\nmasked"' in en
    assert 'title="query cat → key cat\n0.75"' in en
    fr = heatmap_table(_figure("fr"), key="p", alt="")
    assert 'title="query cat → key cat\n0,75"' in fr
    assert "&lt;b&gt;sat&lt;/b&gt;" in en and "<b>sat" not in en


def test_the_followed_row_is_framed_in_the_outline_colour() -> None:
    shown = heatmap_shown(heatmap_table(outline_row(_figure(), 2), key="p", alt=""))
    (frame,) = shown["layout"]["shapes"]
    assert (frame["y0"], frame["y1"], frame["line"]["color"]) == (1.5, 2.5, OUTLINE)
    assert heatmap_shown(heatmap_table(_figure(), key="p", alt=""))["layout"]["shapes"] == []


def test_signed_numbers_keep_a_range_centred_on_zero_and_a_true_minus() -> None:
    scores = np.array([[-2.0, 1.0], [0.5, 4.0]])
    fig = heatmap(scores, ["a", "b"], ["a", "b"], signed=True)
    markup = heatmap_table(fig, key="s", alt="")
    trace = heatmap_shown(markup)["data"][0]
    assert (trace["zmin"], trace["zmax"]) == (-4.0, 4.0)
    assert trace["text"][0][0] == "\u22122.00"
    assert colour_range(scores, -4.0, 4.0) == (-4.0, 4.0)
    ticks = re.findall(r'<span style="top:([\d.]+)%">([^<]+)</span>', markup)
    assert [t for _, t in ticks] == ["\u22122.5", "0", "2.5"]  # a bar of 100 px: 2 steps
    assert [float(p) for p, _ in ticks] == [81.25, 50.0, 18.75]


@pytest.mark.parametrize(
    ("lo", "hi", "count", "want"),
    [
        (0.0, 1.0, 5, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (-11.27, 11.27, 6, [-10.0, -5.0, 0.0, 5.0, 10.0]),
        (-11.27, 11.27, 4, [-10.0, 0.0, 10.0]),
        (-15.9, 15.9, 8, [-15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 15.0]),
        (0.0, 1.0, 4, [0.0, 0.25, 0.5, 0.75, 1.0]),
        (-4.0, 4.0, 2, [-2.5, 0.0, 2.5]),  # 5 would leave one number: a finer step
        (2.0, 2.0, 4, [2.0]),
    ],
)
def test_colour_bar_numbers_are_round(lo: float, hi: float, count: int, want: list) -> None:
    assert nice_ticks(lo, hi, count) == want


def test_tick_text_writes_the_language() -> None:
    assert tick_text(-0.5, comma=True) == "\u22120,5"
    assert tick_text(0.25, comma=False) == "0.25"


def test_the_box_names_itself_and_each_figure() -> None:
    figure = _figure()
    box = figures_box([heatmap_table(figure, key="pattern", alt=alt_text(figure))], label='S & "A"')
    assert box.startswith('<div class="lab-maps" role="region" tabindex="0" ')
    assert 'aria-label="S &amp; &quot;A&quot;"' in box
    assert re.search(r'<figure class="lab-heatmap" aria-label="Heatmap [^"]+"', box)
