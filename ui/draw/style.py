"""The charts' look: sizes of cells and type, fonts, colours, colour scales, the dark theme's CSS.

Every figure's layout goes through ``styled`` before it is sent; nothing here draws data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from ui.text import num

# no tool bar: it covered the titles on hover and on a phone, and put five Tab stops in every
# chart; a cell's exact value is on hover, the numbers in the tables and their CSV
PLOT_CONFIG = {"displayModeBar": False, "displaylogo": False}
# Cells sized by what they hold, not by the room left over: square cells of CELL_PX with their
# numbers at NUMBER_PX up to MAX_CELL_TEXT rows or columns (the chapters' sizes: 8 tokens, 16
# columns); a phone's smaller ones, still readable; beyond, smaller cells without numbers, never
# below what a 12 px tick label needs.
CELL_PX = 40
NUMBER_PX = 13
PHONE_CELL_PX = 28
PHONE_NUMBER_PX = 11
MAX_CELL_TEXT = 16
LARGE_CELL_PX = 24  # more than MAX_CELL_TEXT rows or columns: no numbers
SMALLEST_CELL_PX = 14  # a 12 px label per row or column
LARGE_SIDE_PX = 640  # beyond MAX_CELL_TEXT, the cells of the longest side share about this
PRESENT_SCALE = 1.25  # presenter mode: 50 px cells, 16 px numbers for the back of the room
# presenter mode's chart text: 12 px ticks become 16, 13 px plot titles 17, 14 px titles 19, as
# the page's body text grows from 16 to 20 px and its titles more
PRESENT_TEXT_SCALE = 4 / 3
MASKED_COLOUR = "#c5c8d2"  # a light grey of its own, apart from the cells' gaps and the page
# plotly's named scales as the explicit [position, colour] lists that plotly.js reads
COLOUR_SCALES = {
    name: [list(step) for step in go.Heatmap(colorscale=name).colorscale]
    for name in ("RdBu_r", "Viridis")
}

# The charts' own style. Streamlit's plotly theme restyles a figure in the browser after drawing
# it, which makes plotly.js draw every chart twice on each change. So figures are sent with
# ``theme=None`` and carry Streamlit's look themselves: its fonts, sizes and spacing, on a
# transparent background. Light or dark: the text colours below read on both, and CHART_CSS gives
# each theme its own (the browser switches them with the theme, with no rerun).
MUTED = "#737687"  # the charts' grey without CSS: 4.5:1 on white, 4.0:1 on dark (CHART_CSS: 6.0:1)
FAINT = "rgba(128, 132, 149, 0.3)"  # grid and zero lines, the tool bar's icons
CLEAR = "rgba(0, 0, 0, 0)"
BAR = {"thickness": 14, "xpad": 6}  # a colour bar, narrower than plotly's 30 px
FONT = {"family": '"Source Sans", sans-serif', "size": 12, "color": MUTED}
_AXIS = {
    "tickfont": FONT,
    "title": {"font": {**FONT, "size": 14}},
    "ticklabelposition": "outside",
    "gridcolor": FAINT,
    "zerolinecolor": FAINT,
    "automargin": True,
}
_AXES = {
    "x": {
        **_AXIS,
        "title": {**_AXIS["title"], "standoff": 20},
        "showgrid": False,
        "zeroline": False,
    },
    "y": {**_AXIS, "title": {**_AXIS["title"], "standoff": 24}},
}
# a heatmap's axes: one category a row or column; its ticks only keep the labels off the cells
CELL_AXIS = {"type": "category", "showgrid": False, "tickcolor": CLEAR}
COLOUR_BAR = {
    "tickfont": FONT,
    "title": {"font": {**FONT, "size": 14}},
    "ticklabelposition": "outside",
    "outlinecolor": CLEAR,
    "outlinewidth": 8,
}
_LAYOUT = {
    # no dragging: on a phone a finger that starts on a chart scrolls the page instead of
    # zooming the chart (a tap still shows a cell's value)
    "dragmode": False,
    "font": FONT,
    "paper_bgcolor": CLEAR,
    "plot_bgcolor": CLEAR,
    "hoverlabel": {"bgcolor": "#FFFFFF", "bordercolor": FAINT, "font": {**FONT, "size": 14}},
    "modebar": {"bgcolor": CLEAR, "color": FAINT, "activecolor": MUTED},
    "legend": {"font": FONT, "bordercolor": CLEAR, "borderwidth": 0, "valign": "top"},
}
_TITLE = {"font": {**FONT, "size": 14}, "x": 0, "xanchor": "left", "pad": {"l": 4}}
# the style's values as the JSON they are (no arrays, never changed): a figure's wire form
# (``ui.draw.wire``) takes each of them, and what is nested in them, as it is instead of walking it
JSON_CONSTANTS = (FONT, BAR, _AXIS, _AXES, CELL_AXIS, COLOUR_BAR, _LAYOUT, _TITLE, COLOUR_SCALES)
# Each theme's colours, as Streamlit's theme gives them: light-dark() follows the colour scheme
# that Streamlit sets on the app (chromium 123, firefox 120, safari 17.5; older browsers keep the
# MUTED grey above). Cell numbers are not touched: each is black or white on its cell, in both
# themes (``ui.draw.contrast``). A bold annotation is a plot's title in a figure of several: a
# title's colour. A row of figures (``ui.draw.wire.show_figures``) wraps; a figure wider than
# the row scrolls sideways inside it, at its own width, instead of being squeezed into the
# column. Columns that hold figures are never narrower than them: the row wraps instead (a
# table beside a figure keeps about 40 rem); a figure wider than the whole row scrolls in its
# box, which is at most the row's width.
CHART_CSS = """<style>
[class*="st-key-figs-"] { overflow-x: auto; overflow-y: hidden; }
[class*="st-key-figs-"] > .stElementContainer { max-width: none; }
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [class*="st-key-figs-"]) {
  flex-wrap: wrap;
  container-type: inline-size;
}
[data-testid="stColumn"]:has([class*="st-key-figs-"]) { min-width: fit-content; }
[data-testid="stColumn"] [class*="st-key-figs-"] { max-width: 100cqw; }
[data-testid="stHorizontalBlock"]:has([class*="st-key-figs-"])
  > [data-testid="stColumn"]:has(.lab-table) { min-width: min(100%, 40rem); }
.stPlotlyChart .infolayer text, .stPlotlyChart .xaxislayer-above text,
.stPlotlyChart .yaxislayer-above text, .stPlotlyChart text.bartext-outside {
  fill: light-dark(#5f6272, #e6eaf1) !important;
}
.stPlotlyChart .g-gtitle text, .stPlotlyChart .annotation-text tspan[style*="bold"] {
  fill: light-dark(#2f2d2b, #edebe8) !important;
}
.stPlotlyChart .infolayer .legendtext { fill: light-dark(#262730, #fafafa) !important; }
.stPlotlyChart .hoverlayer .hovertext path {
  fill: light-dark(#ffffff, #171614) !important;
  stroke: light-dark(rgba(47, 45, 43, 0.2), rgba(237, 235, 232, 0.2)) !important;
}
.stPlotlyChart .hoverlayer .hovertext text { fill: light-dark(#5f6272, #e6eaf1) !important; }
.stApp [data-testid="stCaptionContainer"] { color: inherit; opacity: 0.75; }
.stApp [data-testid="stWidgetLabel"][disabled] { color: inherit; opacity: 0.75; }
.head-view-box { overflow-x: auto; overflow-y: hidden; }
.head-view { display: block; font-family: "Source Sans", sans-serif; }
.head-view text { fill: light-dark(#262730, #fafafa); }
.head-view text.hv-title { fill: light-dark(#5f6272, #e6eaf1); }
</style>"""


@dataclass(frozen=True)
class Look:
    """How a page draws its charts: the numbers' language, a phone's cells, and ``scale`` for
    the cells and their numbers (a projector's larger ones)."""

    lang: str = "en"
    phone: bool = False
    scale: float = 1.0

    @classmethod
    def of(cls, settings: Any) -> Look:
        """The look of a page's settings (``ui.frame.page.Settings``): its language, a phone's
        cells, and projector-sized ones in presenter mode (``PRESENT_SCALE``)."""
        return cls(settings.lang, settings.phone, PRESENT_SCALE if settings.present else 1.0)

    def cells(self, n: int, side_px: int = LARGE_SIDE_PX) -> tuple[int, int]:
        """The side of a square cell (px) of a matrix whose longest side is ``n``, and its
        numbers' size (px; 0: no numbers); beyond MAX_CELL_TEXT, the longest side is about
        ``side_px`` (a grid of several matrices asks for less).

        ``Look().cells(8) == (40, 13)``, ``Look(phone=True).cells(8) == (28, 11)``,
        ``Look().cells(64) == (14, 0)``."""
        if n <= MAX_CELL_TEXT:
            if self.phone:
                return round(PHONE_CELL_PX * self.scale), round(PHONE_NUMBER_PX * self.scale)
            return round(CELL_PX * self.scale), round(NUMBER_PX * self.scale)
        return max(SMALLEST_CELL_PX, min(LARGE_CELL_PX, side_px // n)), 0

    @property
    def text_scale(self) -> float:
        """How much larger the charts' text is than on a screen: PRESENT_TEXT_SCALE in
        presenter mode (any ``scale`` above 1), else 1."""
        return PRESENT_TEXT_SCALE if self.scale > 1.0 else 1.0

    def fitted(self, cell_px: int, number_px: int) -> FittedLook:
        """This look with every matrix's cells ``cell_px`` square and numbers of ``number_px``
        (0: none), whatever its size: cells shrunk to fit a column."""
        return FittedLook(self.lang, self.phone, self.scale, cell_px, number_px)

    def text_px(self, px: float) -> int:
        """A chart text of ``px`` on a screen, at this look's size: ``Look().text_px(12) == 12``,
        ``Look(scale=PRESENT_SCALE).text_px(12) == 16``."""
        return round(px * self.text_scale)

    def chart_text(self, layout: dict) -> dict:
        """``layout`` with its texts at this look's size (``text_px``): the default font (tick
        labels, colour-bar numbers), its axes' ticks and titles, its title, its annotations, a
        shared colour axis's bar and the hover text. The layout itself on a screen."""
        if self.text_scale == 1.0:
            return layout
        out = dict(layout)
        out["font"] = {**layout.get("font", {}), "size": self.text_px(12)}
        out["hoverlabel"] = {"font": {"size": self.text_px(14)}}
        for k, axis in layout.items():
            if k[:5] in ("xaxis", "yaxis") and isinstance(axis, dict):
                title = axis.get("title", {})
                out[k] = {
                    **axis,
                    "tickfont": {"size": self.text_px(12)},
                    "title": {**title, "font": {"size": self.text_px(14)}},
                }
        title = layout.get("title")
        if title:
            size = title.get("font", {}).get("size", 14)
            out["title"] = {**title, "font": {**title.get("font", {}), "size": self.text_px(size)}}
        if layout.get("annotations"):
            out["annotations"] = [
                {
                    **a,
                    "font": {
                        **a.get("font", {}),
                        "size": self.text_px(a.get("font", {}).get("size", 12)),
                    },
                }
                for a in layout["annotations"]
            ]
        if "coloraxis" in layout:
            axis = layout["coloraxis"]
            bar = axis.get("colorbar", {})
            bar = {**bar, "tickfont": {"size": self.text_px(12)}}
            if "title" in bar:
                bar["title"] = {**bar["title"], "font": {"size": self.text_px(14)}}
            out["coloraxis"] = {**axis, "colorbar": bar}
        return out

    def number(self, x: float, digits: int, kind: str = "f") -> str:
        """``x`` as the page writes it: ``digits`` decimals, a decimal comma in French."""
        return num(x, digits, self.lang, kind)

    def separators(self) -> str:
        """plotly's ``separators`` (decimal, thousands) for hover, ticks and colour bars."""
        return ", " if self.lang == "fr" else ".,"


PLAIN = Look()  # English on a computer's screen, at the cells' own size


def _under(defaults: dict, own: dict) -> dict:
    """``own`` laid over ``defaults``, nested dicts merged: the figure's keys win."""
    out = dict(defaults)
    for k, v in own.items():
        out[k] = _under(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def styled(layout: dict) -> dict:
    """A figure's layout with the chart style under it: fonts, colours, spacing, axes."""
    out = _under(_LAYOUT, layout)
    out["margin"] = {"pad": 8, **layout.get("margin", {})}
    for k, v in layout.items():
        if k[:5] in ("xaxis", "yaxis"):
            out[k] = _under(_AXES[k[0]], v)
    for k in ("xaxis", "yaxis"):
        out.setdefault(k, _AXES[k[0]])
    title = layout.get("title")
    if title and title.get("text"):
        out["title"] = _under(_TITLE, {**title, "text": f"<b>{title['text']}</b>"})
    if "coloraxis" in layout:
        out["coloraxis"] = _under({"colorbar": COLOUR_BAR}, layout["coloraxis"])
    return out


@dataclass(frozen=True)
class FittedLook(Look):
    """A look whose cells are ``cell_px`` square with numbers of ``number_px`` (0: none) for
    any matrix (``Look.fitted``): a grid or a head sized to the column it must fit."""

    cell_px: int = CELL_PX
    number_px: int = NUMBER_PX

    def cells(self, n: int, side_px: int = LARGE_SIDE_PX) -> tuple[int, int]:
        return self.cell_px, self.number_px


# the "Your turn" editors (``ui.turn.panel``): shown with CHART_CSS once a run, by the frame
EDITOR_CSS = """<style>
[class*="st-key-code_"] textarea {
  font-family: "Source Code Pro", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 0.9rem; line-height: 1.4; tab-size: 4;
  /* a line longer than the box wraps on screen (a zoomed or narrow column cut the template's
     comments at its right edge); the code itself keeps its lines and its indentation */
  white-space: pre-wrap; overflow-wrap: anywhere;
}
/* where the browser sizes a box to its text, the box is as tall as the code at any width and
   type size, within a few lines and one screen; elsewhere it keeps editor_height's height */
@supports (field-sizing: content) {
  [class*="st-key-code_"] [data-testid="stTextArea"],
  [class*="st-key-code_"] [data-testid="stTextAreaRootElement"] { height: auto !important; }
  [class*="st-key-code_"] textarea {
    field-sizing: content; height: auto !important; min-height: 6lh; max-height: 36rem;
  }
}
</style>"""
