"""The learned-heads page's heads as markup the server writes: the head drawn large as a heatmap
table under its colour scale (``ui.draw.heatmap_table``), and every head small, a grid of
coloured cells each, the one drawn large outlined.

Each draws the figure ``ui.lessons.learned`` plans (``focused``, ``small_heads``): the same cells,
titles, colours and mask, nothing decided again. A new training step, sentence or head redraws
them without plotly.js laying out a chart. Cached on keyword scalars, shared, like the figures.
"""

from __future__ import annotations

import base64
import math
from html import escape

import numpy as np

from ui.draw.axis_text import caption_lines
from ui.draw.contrast import cell_colours, hex_colour
from ui.draw.heatmap_table import figures_box, heatmap_table
from ui.draw.markup import Markup
from ui.draw.style import MASKED_COLOUR, Look
from ui.draw.wire import alt_text
from ui.frame.follow import OUTLINE, OUTLINE_WIDTH
from ui.lab.compute import shared
from ui.lessons.learned import EDGE_PX, SMALL_GAP, focused, small_heads
from ui.text import translator
from ui.text.learned import TEXT

# the small heads: a row of heads a layer under its name, wrapping where the column ends; each
# head its title over a grid of cells (1 px apart where a cell is 6 px or more, as plotly's gaps)
SMALL_CSS = """<style>
.lab-small-heads { font-family: "Source Sans", sans-serif; line-height: 1.2; overflow-x: auto;
  width: fit-content; max-width: 100%; box-sizing: border-box;
  color: light-dark(#5f6272, #e6eaf1); padding: 4px; }
.lab-small-heads .sm-name { font-weight: 600; color: light-dark(#2f2d2b, #edebe8);
  margin: 0.4em 0 0.3em; }
.lab-small-heads .sm-row { display: flex; flex-wrap: wrap; align-items: flex-end; }
.lab-small { margin: 0; display: flex; flex-direction: column; align-items: center; }
.lab-small figcaption { text-align: center; white-space: nowrap; margin-bottom: 2px; }
.lab-small figcaption b { color: light-dark(#2f2d2b, #edebe8); font-weight: 600; }
.lab-small .cells { flex: none; }
</style>"""


@shared(256)
def focused_markup(
    *, step: int, ids: tuple[int, ...], layer: int, head: int, lang: str, phone: bool, scale: float
) -> Markup:
    """The head (``layer``, ``head``) drawn large (``focused``) as a heatmap table, its colour
    scale (0 to 1, titled) lying over its cells: ``data-key`` ``patterns``; in a box that
    scrolls sideways in a column narrower than it (a 320 px window)."""
    drawn = {"step": step, "ids": ids, "lang": lang, "phone": phone, "scale": scale}
    large = focused(layer=layer, head=head, **drawn)
    layout = large["layout"]
    bar = {"orientation": "h", "title": {"text": translator(TEXT, lang)("scale")}}
    lying = {**layout, "coloraxis": {**layout["coloraxis"], "showscale": True, "colorbar": bar}}
    fig = {"data": large["data"], "layout": lying}
    name = translator(TEXT, lang)("head_title", layer=layer, head=head)
    return figures_box([heatmap_table(fig, key="patterns", alt=alt_text(large))], label=name)


@shared(512)
def heads_markup(
    *, step: int, ids: tuple[int, ...], focus: int, lang: str, phone: bool, scale: float
) -> Markup:
    """Every head small (``small_heads``): a row a layer under its name, each head titled by
    what it does at ``step``, head ``focus`` (k = layer × heads + head) outlined. Each head's
    values ride along as a heatmap table's do (``data-z``, ``data-key`` ``patterns-all``,
    ``patterns-all-1``, ...)."""
    fig = small_heads(step=step, ids=ids, lang=lang, phone=phone, scale=scale)
    data, layout = fig["data"], fig["layout"]
    notes = layout["annotations"]
    n_layers = len(notes) - len(data)
    per_layer = len(data) // n_layers
    gap = math.ceil(SMALL_GAP * Look(lang=lang, phone=phone, scale=scale).text_scale)
    rows = []
    for layer in range(n_layers):
        heads = [
            _small(data[k], notes[n_layers + k]["text"], k, k == focus, layout, gap)
            for k in range(layer * per_layer, (layer + 1) * per_layer)
        ]
        name = _plain(notes[layer]["text"])
        rows.append(
            f'<div class="sm-name" style="font-size:{notes[layer]["font"]["size"]}px">'
            f'{escape(name)}</div><div class="sm-row" style="gap:{gap}px">{"".join(heads)}</div>'
        )
    label = translator(TEXT, lang)("overview_label")
    return Markup(
        f'<div class="lab-small-heads" role="group" aria-label="{escape(label)}" '
        f'style="padding:{EDGE_PX}px">{"".join(rows)}</div>'
    )


def _small(trace: dict, title: str, k: int, outlined: bool, layout: dict, gap: int) -> str:
    """One small head: its title's lines (the first bold) over its cells, named by them."""
    z = np.asarray(trace["z"], dtype=np.float64)
    suffix = trace["xaxis"][1:]
    left, right = layout[f"xaxis{suffix}"]["domain"]
    side = round((right - left) * layout["width"])
    cell = side / z.shape[1]
    spacing = 1 if cell >= 6 else 0
    axis = layout["coloraxis"]
    rgb = cell_colours(np.nan_to_num(z), axis["colorscale"], axis["cmin"], axis["cmax"])
    size = round(cell - spacing, 3)
    painted = _rows_painted(z, rgb.astype(int), size, spacing)
    width, height = (n * (size + spacing) - spacing for n in (z.shape[1], z.shape[0]))
    lines = title.split("<br>")
    frame = f";outline:{OUTLINE_WIDTH}px solid {OUTLINE};outline-offset:2px" if outlined else ""
    z_bytes = base64.b64encode(np.ascontiguousarray(z).tobytes()).decode()
    key = f"patterns-all-{k}" if k else "patterns-all"
    return (
        f'<figure class="lab-small" role="img" aria-label="{escape(_named(lines))}" '
        f'data-key="{key}" data-z="{z_bytes}" data-shape="{z.shape[0]},{z.shape[1]}" '
        f'data-focus="{str(outlined).lower()}" style="font-size:{_notes_px(layout)}px">'
        f"<figcaption>{caption_lines(title)}</figcaption>"
        f'<div class="cells" style="--cell:{size:g}px;width:{width:g}px;height:{height:g}px;'
        f'background:{painted}{frame}"></div></figure>'
    )


def _rows_painted(z: np.ndarray, rgb: np.ndarray, size: float, spacing: int) -> str:
    """A head's cells as one element's backgrounds, a layer a row: each cell its colour
    (``size`` px, ``spacing`` px apart), a masked one grey. One element a head instead of one a
    cell: 8 instead of 1 352 for the default sentence. Shapes: z [R, C], rgb [R, C, 3]."""
    pitch = size + spacing
    layers = []
    for i, row in enumerate(z.tolist()):
        stops = []
        for j, v in enumerate(row):
            colour = MASKED_COLOUR if v != v else hex_colour(rgb[i, j].tolist())
            stops.append(f"{colour} {j * pitch:g}px {j * pitch + size:g}px")
            if spacing:
                stops.append(f"#0000 {j * pitch + size:g}px {(j + 1) * pitch:g}px")
        layers.append(
            f"linear-gradient(90deg,{','.join(stops)}) 0 {i * pitch:g}px/100% {size:g}px no-repeat"
        )
    return ",".join(layers)


def _named(lines: list[str]) -> str:
    """A small head's name for a screen reader: its title's lines, one after the other."""
    return " · ".join(_plain(line) for line in lines)


def _notes_px(layout: dict) -> int:
    """The small heads' titles' size (px): their figure's."""
    return layout["annotations"][-1]["font"]["size"]


def _plain(text: str) -> str:
    """A title's line without its bold tags."""
    return text.replace("<b>", "").replace("</b>", "")
