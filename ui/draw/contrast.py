"""Cell numbers that read on their cell: each one black or white by its cell's WCAG luminance.

WCAG 2's contrast of two colours is (L1 + 0.05) / (L2 + 0.05), L the relative luminance of the
sRGB colour. Black text wins over white where the cell's L is above CROSSOVER, and the better of
the two is always at least (1.05 / 0.05) ** 0.5 = 4.58:1, above the 4.5:1 that WCAG 1.4.3 asks
of text. plotly's heatmap takes one text colour a trace (``textfont.color``), so the numbers
keep the trace's colour where most of them need it and the others say their own in plotly's
``<span style>`` markup: the numbers stay the heatmap's own text, drawn where they always were.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ui.draw.style import MASKED_COLOUR

DARK_TEXT = "#000"
LIGHT_TEXT = "#fff"
# a cell with no colour (a value that is not a number, not masked) shows the page behind it
PAGE_TEXT = "light-dark(#000, #fff)"
CROSSOVER = math.sqrt(1.05 * 0.05) - 0.05  # L = 0.1791: black and white read alike
_TEXTS = (DARK_TEXT, LIGHT_TEXT, PAGE_TEXT)


def rgb(colour: str) -> tuple[int, int, int]:
    """A colour of plotly's scales as its red, green, blue (0-255): ``"#440154"`` or
    ``"rgb(5,48,97)"``."""
    if colour.startswith("#"):
        return tuple(int(colour[k : k + 2], 16) for k in (1, 3, 5))  # type: ignore[return-value]
    r, g, b = (int(float(c)) for c in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return r, g, b


def colour_codes(rgb: np.ndarray) -> list:
    """Red, green, blue (0-255, last axis) as one 0xrrggbb integer each, which markup writes
    ``f"#{code:06x}"``: the short form (32 tokens × 64 features a matrix, four matrices a
    page), one integer a cell instead of a list of three. Shapes: [..., 3] -> nested lists [...]."""
    rgb = np.asarray(rgb).astype(int)
    return (rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2]).tolist()


def luminance(colours: np.ndarray) -> np.ndarray:
    """WCAG 2's relative luminance of sRGB colours (0-255, last axis r, g, b).
    Shapes: [..., 3] -> [...]."""
    c = np.asarray(colours, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def cell_colours(z: np.ndarray, scale: Sequence[Sequence], lo: float, hi: float) -> np.ndarray:
    """The colour plotly.js gives each value of z on ``scale`` from ``lo`` to ``hi``: each
    channel interpolated between the scale's stops, the value clamped to the range, rounded.
    Shapes: z [...] -> [..., 3] (NaN stays NaN)."""
    positions, stops = _stops(tuple((p, c) for p, c in scale))
    t = np.clip((np.asarray(z, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)
    out = np.stack([np.interp(t, positions, stops[:, k]) for k in range(3)], axis=-1)
    return np.round(out)


@functools.lru_cache(maxsize=16)
def _stops(scale: tuple[tuple[float, str], ...]) -> tuple[np.ndarray, np.ndarray]:
    """A scale's stop positions and colours (0-255), read once a scale.
    Shapes: S stops -> [S], [S, 3]."""
    positions = np.array([float(p) for p, _ in scale])
    return positions, np.array([rgb(c) for _, c in scale], dtype=np.float64)


def colour_range(
    z: np.ndarray, zmin: float | None, zmax: float | None, zmid: float | None = None
) -> tuple[float, float]:
    """Where plotly.js puts a trace's colour scale: ``zmin`` to ``zmax`` when both are given
    and in order; else the finite values' range, made symmetric about ``zmid`` when given,
    widened by 0.5 each way when it is one value."""
    if zmin is not None and zmax is not None and zmin < zmax:
        return float(zmin), float(zmax)
    finite = np.asarray(z, dtype=np.float64)[np.isfinite(z)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if zmid is not None:
        half = max(hi - zmid, zmid - lo)
        lo, hi = zmid - half, zmid + half
    return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)


# the masked grey's text: white on it if it is darker than CROSSOVER, else black
MASKED_KIND = int(luminance(np.array(rgb(MASKED_COLOUR))) < CROSSOVER)


def text_kinds(
    z: np.ndarray, hidden: np.ndarray, scale: Sequence, lo: float, hi: float
) -> np.ndarray:
    """Each cell's text colour as an index into (DARK_TEXT, LIGHT_TEXT, PAGE_TEXT): white on a
    cell darker than CROSSOVER, black on the others and on the masked grey, the page's own on a
    cell without a value. Shapes: z [R, C], hidden [R, C] -> [R, C] of 0, 1, 2."""
    z = np.asarray(z, dtype=np.float64)
    lum = luminance(cell_colours(np.nan_to_num(z), scale, lo, hi))
    kinds = np.where(lum < CROSSOVER, 1, 0)
    kinds = np.where(hidden, MASKED_KIND, kinds)
    return np.where(~hidden & ~np.isfinite(z), 2, kinds)


def readable_numbers(
    trace: dict, hidden: np.ndarray | None, scale: Sequence, lo: float, hi: float
) -> dict:
    """A heatmap trace of ``ui.draw.heatmaps.heatmap_cells`` whose numbers each read on their
    cell (at least 4.5:1), ``hidden`` (True = masked) cells' × on the masked grey: the trace's
    text colour black or white, the one most cells need, the others' numbers in a ``<span>``
    of their colour (``scale`` from ``lo`` to ``hi``: the trace's colour scale). A trace
    without numbers is left as it is. Shapes: trace["z"] [R, C], hidden [R, C] or None."""
    texts = trace.get("text")
    if not texts:
        return trace
    z = np.asarray(trace["z"], dtype=np.float64)
    hidden = np.zeros(z.shape, dtype=bool) if hidden is None else np.asarray(hidden, dtype=bool)
    kinds = text_kinds(z, hidden, scale, lo, hi)
    common = int(np.bincount(kinds.ravel(), minlength=3)[:2].argmax())  # black or white
    spans = [f'<span style="color:{c}">' for c in _TEXTS]
    trace["text"] = [
        [t if k == common else f"{spans[k]}{t}</span>" for t, k in zip(row, krow)]
        for row, krow in zip(texts, kinds.tolist())
    ]
    trace["textfont"] = {**trace.get("textfont", {}), "color": _TEXTS[common]}
    return trace


def ink_and_number(text: str, ink: str) -> tuple[str, str]:
    """A cell's text of ``readable_numbers`` as its ink and its number: the ``<span>``'s colour
    and what it holds, or ``ink`` (the trace's colour) and the text itself."""
    if text.startswith('<span style="color:'):
        colour, _, rest = text[len('<span style="color:') :].partition('">')
        return colour, rest[: -len("</span>")]
    return ink, text


def shown_number(text: str) -> str:
    """A cell's text as the page shows it: without its colour's ``<span>``."""
    return ink_and_number(text, "")[1]
