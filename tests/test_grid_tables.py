"""A grid of heatmaps as tables (``ui.draw.grid_tables``) draws every plot of the grid's figures,
in order, with its own numbers, its title, the grid's cells' size and one colour scale, the
colour bar once, where the figure puts it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_pages import array_of, heatmap_shown
from ui.draw.grid_tables import grid_tables, plots_of
from ui.draw.grids import grid_figures
from ui.draw.style import Look

TOKENS = ["the", "cat", "sat", "on", "mat"]
FEATURES = [f"f{k}" for k in range(6)]
RNG = np.random.default_rng(7)
MATS = [RNG.normal(size=(5, 6)) for _ in range(4)]
TITLES = ["X", "attn_out", "resid", "ln_out"]


def _grid(**look: object) -> list[dict]:
    return grid_figures(
        MATS,
        TOKENS,
        [FEATURES] * 4,
        TITLES,
        look=Look(**look),
        signed=True,
        x_title="feature",
        y_title="token",
        per_row=2,
    )


def _cells(markup: str) -> float:
    return float(re.search(r"--cell:([\d.]+)px", markup).group(1))


@pytest.mark.parametrize("phone", [False, True])
def test_every_plot_is_a_table_of_its_own_numbers_on_one_scale(phone: bool) -> None:
    pieces = _grid(phone=phone)
    assert (len(pieces) == 1) == phone  # a phone's grid is one figure of four plots
    tables = grid_tables(pieces, key="matrices")
    assert len(tables) == 4
    bound = max(np.abs(m).max() for m in MATS)
    for k, (markup, matrix) in enumerate(zip(tables, MATS, strict=True)):
        assert f'data-key="{"matrices" if k == 0 else f"matrices-{k}"}"' in markup
        shown = heatmap_shown(markup)
        np.testing.assert_array_equal(array_of(shown["data"][0]["z"]), matrix)
        assert shown["layout"]["coloraxis"] == {"cmin": -bound, "cmax": bound}
        assert shown["layout"]["annotations"][0]["text"] == TITLES[k]
        assert shown["data"][0]["y"] == TOKENS
    # the cells as wide as in the figure: its plot's share of its width, a column each
    fig = pieces[0]
    margin, axis = fig["layout"]["margin"], fig["layout"]["xaxis"]["domain"]
    cell = (fig["layout"]["width"] - margin["l"] - margin["r"]) * (axis[1] - axis[0]) / 6
    assert _cells(tables[0]) == pytest.approx(cell - 1, abs=1e-9)
    # the colour bar once: lying over the first plot on a phone, upright by the last elsewhere
    bars = [("hm-lying" in t, "hm-bar" in t) for t in tables]
    want = (True, False) if phone else (False, True)
    assert bars.count(want) == 1 and bars.count((False, False)) == 3
    assert bars[0 if phone else 3] == want


def test_a_phone_grid_names_each_plot_and_puts_the_shared_x_title_under_the_last() -> None:
    (fig,) = _grid(phone=True)
    plots = plots_of(fig)
    assert [p["layout"]["annotations"][0]["text"] for p in plots] == TITLES
    titles = [p["layout"]["xaxis"].get("title", {}).get("text", "") for p in plots]
    assert titles[-1] == "feature" and not any(titles[:-1])
    tables = grid_tables([fig], key="m")
    assert [re.search(r'aria-label="([^"]*)"', t)[1] for t in tables] == TITLES
