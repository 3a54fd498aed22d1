"""Every number printed on a heatmap cell reads at 4.5:1 or more against its cell (WCAG 1.4.3).

The cell colours and the contrast are computed here with a second, plain-Python implementation
of plotly.js's colour scale interpolation and of the WCAG 2 formula, not with ``ui.draw.contrast``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ui.draw import contrast, grids, heatmaps, style

# what each theme's light-dark() resolves to, and the page behind a cell with no colour
THEMES = {"light": (0, "#ffffff"), "dark": (1, "#171614")}
SPAN = re.compile(r'^<span style="color:([^"]+)">(.*)</span>$')


def channels(colour: str) -> tuple[float, float, float]:
    colour = colour.strip()
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return tuple(int(digits[k : k + 2], 16) for k in (0, 2, 4))
    inside = colour[colour.index("(") + 1 : colour.rindex(")")]
    return tuple(float(part) for part in inside.split(",")[:3])


def relative_luminance(colour: tuple[float, float, float]) -> float:
    def linear(v: float) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: tuple, b: tuple) -> float:
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def scale_colour(scale: list, t: float) -> tuple[float, float, float]:
    """plotly.js: each channel linear between the two stops around t, then rounded."""
    t = min(1.0, max(0.0, t))
    for (p0, c0), (p1, c1) in zip(scale, scale[1:]):
        if p0 <= t <= p1:
            f = 0.0 if p1 == p0 else (t - p0) / (p1 - p0)
            a, b = channels(c0), channels(c1)
            return tuple(round(x + f * (y - x)) for x, y in zip(a, b))
    raise AssertionError(t)


def resolve(colour: str, theme: str) -> tuple[float, float, float]:
    """A text colour as the browser reads it in ``theme``: light-dark(a, b) picks one."""
    found = re.fullmatch(r"light-dark\((.+),(.+)\)", colour.replace(" ", ""))
    return channels(found.group(THEMES[theme][0] + 1) if found else colour)


def cell_texts(trace: dict) -> list[list[tuple[str, str]]]:
    """(text colour, number) of every cell: its span's colour, or the trace's."""
    default = trace["textfont"]["color"]
    out = []
    for row in trace["text"]:
        cells = []
        for text in row:
            found = SPAN.match(text)
            cells.append((found.group(1), found.group(2)) if found else (default, text))
        out.append(cells)
    return out


def assert_readable(trace: dict, scale: list, lo: float, hi: float, masked=None) -> float:
    z = np.asarray(trace["z"], dtype=float)
    worst = np.inf
    for theme, (_, page) in THEMES.items():
        for i, row in enumerate(cell_texts(trace)):
            for j, (colour, number) in enumerate(row):
                if masked is not None and masked[i, j]:
                    cell = channels(style.MASKED_COLOUR)
                    assert number == "×"
                elif np.isfinite(z[i, j]):
                    cell = scale_colour(scale, (z[i, j] - lo) / (hi - lo))
                else:
                    cell = channels(page)
                got = ratio(resolve(colour, theme), cell)
                assert got >= 4.5, (theme, i, j, colour, cell, number)
                worst = min(worst, got)
    return worst


@pytest.mark.parametrize("name", sorted(style.COLOUR_SCALES))
def test_two_hundred_values_of_each_scale_read_on_their_cells(name: str) -> None:
    signed = name == "RdBu_r"
    values = np.linspace(-3.0 if signed else 0.0, 3.0 if signed else 1.0, 200).reshape(10, 20)
    look = style.PLAIN.fitted(40, 13)  # numbers on every cell, whatever the size
    limits = {"signed": True} if signed else {"zmin": 0.0, "zmax": 1.0}
    trace = heatmaps.heatmap(
        values, list("abcdefghij"), list("ABCDEFGHIJKLMNOPQRST"), look=look, **limits
    )["data"][0]
    scale = style.COLOUR_SCALES[name]
    worst = assert_readable(trace, scale, float(values.min()), float(values.max()))
    assert 4.5 <= worst < 5.5  # the scale passes where black and white read alike
    # the numbers themselves are the cells' values, as before, with a true minus sign
    flat = [number for row in cell_texts(trace) for _, number in row]
    rounded = np.round(values.ravel(), 2) + 0.0
    assert flat == [f"{v:.2f}".replace("-", "\u2212") for v in rounded]


def test_plotlys_own_text_colours_fall_under_four_and_a_half() -> None:
    """Without a chosen colour plotly writes #444 on a light cell and white on a dark one (by
    its brightness, (299 r + 587 g + 114 b) / 1000 < 128): cells of both scales fall under 4.5,
    down to 2.6 -- what the test above catches."""
    for scale in style.COLOUR_SCALES.values():
        worst = []
        for t in np.linspace(0.0, 1.0, 200):
            cell = scale_colour(scale, t)
            dark = (299 * cell[0] + 587 * cell[1] + 114 * cell[2]) / 1000 < 128
            worst.append(ratio(channels("#ffffff" if dark else "#444444"), cell))
        assert 2.5 < min(worst) < 4.5


def test_masked_cells_keep_their_cross_and_read_on_the_grey() -> None:
    pattern = np.tril(np.full((4, 4), 0.25))
    masked = ~np.tril(np.ones((4, 4), dtype=bool))
    trace = heatmaps.heatmap(pattern, list("abcd"), list("abcd"), zmin=0, zmax=1, masked=masked)[
        "data"
    ][0]
    assert_readable(trace, style.COLOUR_SCALES["Viridis"], 0.0, 1.0, masked)
    texts = cell_texts(trace)
    assert [texts[0][j][1] for j in range(4)] == ["0.25", "×", "×", "×"]


def test_a_cell_without_a_value_takes_the_pages_text_colour() -> None:
    values = np.array([[0.1, np.nan], [0.9, 0.5]])
    trace = heatmaps.heatmap(values, ["a", "b"], ["x", "y"], zmin=0, zmax=1)["data"][0]
    assert cell_texts(trace)[0][1] == (contrast.PAGE_TEXT, "0.00")
    assert_readable(trace, style.COLOUR_SCALES["Viridis"], 0.0, 1.0)


@pytest.mark.parametrize("signed", [False, True])
def test_every_plot_of_a_grid_reads_on_the_shared_colour_axis(signed: bool) -> None:
    rng = np.random.default_rng(3)
    mats = [rng.normal(size=(5, 5)) * (k + 1) if signed else rng.random((5, 5)) for k in range(4)]
    labels = ["the", "cat", "sat", "on", "mat"]
    fig = grids.grid_figure(mats, labels, [labels] * 4, ["h0", "h1", "h2", "h3"], signed=signed)
    axis = fig["layout"]["coloraxis"]
    if signed:  # one scale for all four: from -b to b, b the largest |value| of them all
        assert axis["cmax"] == -axis["cmin"] == max(float(np.abs(m).max()) for m in mats)
    for trace in fig["data"]:
        assert_readable(trace, axis["colorscale"], axis["cmin"], axis["cmax"])


def test_black_or_white_always_reaches_four_and_a_half() -> None:
    """The rule behind the choice: on any grey, the better of black and white reads at 4.58:1
    or more (both at the crossover luminance, 0.1791)."""
    best = [max(ratio((v, v, v), (0, 0, 0)), ratio((v, v, v), (255, 255, 255))) for v in range(256)]
    assert min(best) >= 4.58 and min(best) < 4.7
    assert abs(contrast.CROSSOVER - 0.1791) < 1e-4
