"""The charts' look: fonts, colours, colour scales, the dark theme's CSS, plotly's chart options.

Every figure's layout goes through ``styled`` before it is sent; nothing here draws data.
"""

from __future__ import annotations

import plotly.graph_objects as go

# the chart's tool bar: save as PNG, zoom, pan, reset (and Streamlit's full screen); the + and -
# and autoscale buttons only repeat zoom and reset, and crowd a title on a phone
PLOT_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"],
}
MASKED_COLOUR = "#a0a0a0"  # opaque mid grey: the × reads on it in light and dark mode
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
MUTED = "#808495"  # Streamlit's chart label grey: 3.7:1 on its light background, 4.9:1 on dark
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
    # zooming the chart (a tap still shows a cell's value; the zoom button turns dragging on)
    "dragmode": False,
    "font": FONT,
    "paper_bgcolor": CLEAR,
    "plot_bgcolor": CLEAR,
    "hoverlabel": {"bgcolor": "#FFFFFF", "bordercolor": FAINT, "font": FONT},
    "modebar": {"bgcolor": CLEAR, "color": FAINT, "activecolor": MUTED},
    "legend": {"font": FONT, "bordercolor": CLEAR, "borderwidth": 0, "valign": "top"},
}
_TITLE = {"font": {**FONT, "size": 14}, "x": 0, "xanchor": "left", "pad": {"l": 4}}
# Each theme's colours, as Streamlit's theme gives them: light-dark() follows the colour scheme
# that Streamlit sets on the app (chromium 123, firefox 120, safari 17.5; older browsers keep the
# MUTED grey above). Cell numbers are not touched: plotly picks them to read on their cell. A
# bold annotation is a plot's title in a figure of several (``side_by_side``): a title's colour.
CHART_CSS = """<style>
.stPlotlyChart .infolayer text, .stPlotlyChart .xaxislayer-above text,
.stPlotlyChart .yaxislayer-above text, .stPlotlyChart text.bartext-outside {
  fill: light-dark(#808495, #e6eaf1) !important;
}
.stPlotlyChart .g-gtitle text, .stPlotlyChart .annotation-text tspan[style*="bold"] {
  fill: light-dark(#2f2d2b, #edebe8) !important;
}
.stPlotlyChart .infolayer .legendtext { fill: light-dark(#262730, #fafafa) !important; }
.stPlotlyChart .hoverlayer .hovertext path {
  fill: light-dark(#ffffff, #171614) !important;
  stroke: light-dark(rgba(47, 45, 43, 0.2), rgba(237, 235, 232, 0.2)) !important;
}
.stPlotlyChart .hoverlayer .hovertext text { fill: light-dark(#808495, #e6eaf1) !important; }
</style>"""


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
