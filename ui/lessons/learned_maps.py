"""The learned-heads page's heads as markup the server writes: the head drawn large as a heatmap
table under its colour scale (``ui.draw.heatmap_table``), and every head small, its cells an
image of a pixel a cell (``ui.draw.cells_png``), the one drawn large outlined.

The large head draws the figure ``ui.lessons.learned.focused`` plans: the same cells, titles,
colours and mask, nothing decided again. The small heads are written straight from the model's
run, their titles from ``small_titles``. A new training step, sentence or head redraws them
without plotly.js laying out a chart. Cached on keyword scalars, shared.
"""

from __future__ import annotations

import base64
import math
from html import escape

import numpy as np

from llm import behaviour
from ui.draw.axis_text import caption_lines, plain
from ui.draw.cells_png import cells_png
from ui.draw.contrast import cell_colours, rgb
from ui.draw.grid_plan import SUBTITLE_PX
from ui.draw.heatmap_table import figures_box, heatmap_table
from ui.draw.markup import Markup
from ui.draw.style import COLOUR_SCALES, MASKED_COLOUR, Look
from ui.draw.wire import alt_text
from ui.frame.follow import OUTLINE, OUTLINE_WIDTH
from ui.lab.compute import shared
from ui.lessons.learned import (
    EDGE_PX,
    SMALL_GAP,
    SMALL_PX,
    checkpoint,
    focused,
    model_run,
    small_titles,
)
from ui.text import translator
from ui.text.learned import TEXT

# the heads' one colour scale, 0 to 1 (its bar lies over the large head's cells)
VIRIDIS = COLOUR_SCALES["Viridis"]
MASKED_RGB = rgb(MASKED_COLOUR)  # a masked cell's grey
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
.lab-small .cells { flex: none; overflow: hidden; }
.lab-small .cells img { display: block; image-rendering: pixelated; }
/* the cells' gaps: the image seen through a grid of squares, 1 px apart (--cell, --pitch) */
.lab-small .cells.gaps img {
  mask-image: repeating-linear-gradient(90deg, #000 0 var(--cell), #0000 0 var(--pitch)),
    repeating-linear-gradient(180deg, #000 0 var(--cell), #0000 0 var(--pitch));
  mask-composite: intersect; }
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
    """Every head small: a row a layer under its name, each head titled by what it does at
    ``step`` (``small_titles``), head ``focus`` (k = layer × heads + head) outlined; cells of
    SMALL_PX / T px (at least 1), larger in presenter mode, without numbers. Each head's values
    ride along as a heatmap table's do (``data-z``, ``data-key`` ``patterns-all``,
    ``patterns-all-1``, ...)."""
    model, run = checkpoint(step=step), model_run(step=step, ids=ids)
    look = Look(lang=lang, phone=phone, scale=scale)
    titles = small_titles(behaviour.roles_at(model.history, step), lang)
    hidden = ~run.layers[0].mask
    patterns = [np.where(hidden, np.nan, h.pattern) for layer in run.layers for h in layer.heads]
    cell = max(1, round(SMALL_PX * scale) // len(ids))
    gap = math.ceil(SMALL_GAP * look.text_scale)
    title_px, name_px = look.text_px(SUBTITLE_PX), look.text_px(14)
    t = translator(TEXT, lang)
    rows = []
    for layer in range(model.n_layers):
        ks = range(layer * model.n_heads, (layer + 1) * model.n_heads)
        heads = [_small(patterns[k], titles[k], k, k == focus, cell, title_px) for k in ks]
        rows.append(
            f'<div class="sm-name" style="font-size:{name_px}px">'
            f"{escape(t('layer_row', layer=layer))}</div>"
            f'<div class="sm-row" style="gap:{gap}px">{"".join(heads)}</div>'
        )
    label = t("overview_label")
    return Markup(
        f'<div class="lab-small-heads" role="group" aria-label="{escape(label)}" '
        f'style="padding:{EDGE_PX}px">{"".join(rows)}</div>'
    )


def _small(z: np.ndarray, title: str, k: int, outlined: bool, cell: int, title_px: int) -> str:
    """One small head: its title's lines (the first bold) over its cells (``cell`` px, 1 px
    apart from 6 px, masked ones grey), named by them; the cells an image, a pixel a cell
    (``cells_png``), scaled to ``cell`` px. Shapes: z [T, T], NaN where masked."""
    spacing = 1 if cell >= 6 else 0
    size = cell - spacing
    colours = cell_colours(np.nan_to_num(z), VIRIDIS, 0.0, 1.0)
    colours[np.isnan(z)] = MASKED_RGB
    width, height = (n * cell - spacing for n in z.shape[::-1])
    lines = title.split("<br>")
    frame = f";outline:{OUTLINE_WIDTH}px solid {OUTLINE};outline-offset:2px" if outlined else ""
    z_bytes = base64.b64encode(np.ascontiguousarray(z).tobytes()).decode()
    key = f"patterns-all-{k}" if k else "patterns-all"
    gaps = " gaps" if spacing else ""
    return (
        f'<figure class="lab-small" role="img" aria-label="{escape(_named(lines))}" '
        f'data-key="{key}" data-z="{z_bytes}" data-shape="{z.shape[0]},{z.shape[1]}" '
        f'data-focus="{str(outlined).lower()}" style="font-size:{title_px}px">'
        f"<figcaption>{caption_lines(title)}</figcaption>"
        f'<div class="cells{gaps}" style="--cell:{size}px;--pitch:{cell}px;width:{width}px;'
        f'height:{height}px{frame}"><img alt="" src="data:image/png;base64,{cells_png(colours)}" '
        f'style="width:{z.shape[1] * cell}px;height:{z.shape[0] * cell}px"></div></figure>'
    )


def _named(lines: list[str]) -> str:
    """A small head's name for a screen reader: its title's lines, one after the other."""
    return " · ".join(plain(line) for line in lines)
