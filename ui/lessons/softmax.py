"""Page 3's figures, built once per setting and what-if and kept: the scaled and masked scores,
the pattern and its row entropies, and the measurement of why √d_k. The heatmaps and the bars reach
the page as markup (``softmax_maps``: heatmap tables and bars the server writes, once too).

Like ``ui.draw.headview``'s page 5 figures, they are shared, read-only (``ui.draw.wire.keep``): a
rerun that shows them again sends the wire form built on their first send. The arguments reach the
caches by name (Streamlit reads a positional argument's name from the signature on every call).
"""

from __future__ import annotations

import numpy as np

import llm
from ui.draw.bars_markup import bars_markup
from ui.draw.charts import bar_chart
from ui.draw.heatmap_table import figures_box, heatmap_table
from ui.draw.heatmaps import heatmap
from ui.draw.lines import Panel, line_panels
from ui.draw.markup import Markup
from ui.draw.style import Look
from ui.draw.wire import Spec, alt_text, keep
from ui.frame.follow import outline_row
from ui.lab.compute import Setting, compute_lab, scaling_lab, shared
from ui.text import num, translator
from ui.text.softmax import TEXT

# why √d_k's three plots at a width of their own: in a narrower column (a 390 px window) the
# figure scrolls sideways in its box instead of squeezing three plots whose titles run together
WHY_WIDTH = 780


def softmax_figures(
    setting: Setting, look: Look, head: int, temperature: float, scale: bool, token: int
) -> dict[str, Spec]:
    """The scaled scores S/(τ·√d_k), the masked ones (without a mask: left out, they would
    repeat the scaled ones) and the pattern A of ``head``, row ``token`` outlined in each, and
    the bar chart of A's row entropies under their ceiling ln(keys); keys ``scaled``,
    ``masked``, ``pattern``, ``row_entropy``."""
    return _outlined(**_by_name(setting, look, head, temperature, scale, token))


def _by_name(
    setting: Setting, look: Look, head: int, temperature: float, scale: bool, token: int
) -> dict:
    """A what-if's arguments by name, τ a float and the switch a bool: as the caches take them
    (one key for 1 and 1.0)."""
    return {
        "setting": setting,
        "look": look,
        "head": head,
        "temperature": float(temperature),
        "scale": bool(scale),
        "token": token,
    }


MAPS = ("scaled", "masked", "pattern")  # the heatmaps, in the page's order


def softmax_maps(
    setting: Setting, look: Look, head: int, temperature: float, scale: bool, token: int
) -> Markup:
    """``softmax_figures`` as the markup of one box: the heatmaps as heatmap tables
    (``ui.draw.heatmap_table``), the row entropies as bars (``ui.draw.bars_markup``). The
    section redraws them on every temperature without plotly.js laying out a chart."""
    return _maps(**_by_name(setting, look, head, temperature, scale, token))


@shared(64)
def _maps(
    *, setting: Setting, look: Look, head: int, temperature: float, scale: bool, token: int
) -> Markup:
    """``softmax_maps``, written once a setting, what-if and token (kept, shared)."""
    figures = softmax_figures(setting, look, head, temperature, scale, token)
    maps = [
        heatmap_table(figures[k], key=k, alt=alt_text(figures[k])) for k in MAPS if k in figures
    ]
    bars = bars_markup(figures["row_entropy"], key="row_entropy")
    return figures_box([*maps, bars], label=translator(TEXT, look.lang)("maps_label"))


@shared(64)
def _outlined(
    *, setting: Setting, look: Look, head: int, temperature: float, scale: bool, token: int
) -> dict[str, Spec]:
    """``_figures`` with row ``token`` outlined in each heatmap (kept, shared)."""
    figures = _figures(setting=setting, look=look, head=head, temperature=temperature, scale=scale)
    return {
        key: keep(outline_row(fig, token), wire=False) if key != "row_entropy" else fig
        for key, fig in figures.items()
    }


@shared(32)
def _figures(
    *, setting: Setting, look: Look, head: int, temperature: float, scale: bool
) -> dict[str, Spec]:
    """The heatmaps of ``softmax_figures`` with no row outlined, and its entropy chart."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting, temperature, scale)
    pattern, scaled = lab.trace.heads[head].pattern, lab.trace.heads[head].scaled
    labels, d_k = lab.labels, setting.d_model // setting.n_heads
    divisor = llm.score_divisor(d_k, temperature, scale)
    if temperature != 1.0 or not scale:
        name = ("τ·√d_k" if scale else "τ") if temperature != 1.0 else "1"
        scaled_title = t("scaled_whatif", divisor_name=name, divisor=num(divisor, 4, look.lang))
    else:
        scaled_title = t("scaled", d_k=d_k, sqrt_dk=num(divisor, 4, look.lang))
    axes = {
        "x_title": t("key"),
        "y_title": t("query"),
        "masked_label": t("masked_cell"),
        "look": look,
    }
    hidden = ~lab.trace.mask  # True where a query may not look: j > i under the mask
    # the masked chart shows the same numbers as the scaled one: one colour scale for both
    finite = np.abs(scaled[np.isfinite(scaled)])
    bound = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    signed = {"signed": True, "zmin": -bound, "zmax": bound}
    styles = {
        "scaled": (scaled, {"title": scaled_title, **signed}),
        "masked": (scaled, {"title": t("masked"), **signed, "masked": hidden}),
        "pattern": (pattern, {"title": t("pattern"), "zmin": 0.0, "zmax": 1.0, "masked": hidden}),
    }
    if not setting.causal:
        del styles["masked"]
    figures = {
        key: keep(heatmap(matrix, labels, labels, **style, **axes), wire=False)
        for key, (matrix, style) in styles.items()
    }
    ceiling = llm.max_row_entropy(len(labels), setting.causal)
    entropy = bar_chart(
        {t("row_entropy"): llm.row_entropy(pattern), t("ceiling"): ceiling},
        labels,
        title=t("entropy_title"),
        y_title="nats",
        height=280,
        look=look,
    )
    return figures | {"row_entropy": keep(entropy, wire=False)}


@shared(32)
def why_sqrt_figure(*, setting: Setting, look: Look) -> Spec:
    """The spread of q·k, the mean row entropy and the largest probability as d_k grows, with
    and without √d_k, on the lab's X and seed (``ui.lab.compute.scaling_lab``), this lab's d_k
    marked; kept."""
    t = translator(TEXT, look.lang)
    sweep = scaling_lab(setting)
    d_k = setting.d_model // setting.n_heads
    without, with_ = t("no_sqrt"), t("with_sqrt")  # one colour each, in all three plots
    panels = [
        Panel(t("spread"), t("spread_y"), {without: sweep.raw_std, with_: sweep.scaled_std}),
        Panel(
            t("sharpness"),
            t("sharpness_y"),
            {without: sweep.raw_entropy, with_: sweep.scaled_entropy},
            levels=[(sweep.max_entropy, t("ceiling_line"))],
        ),
        Panel(t("top"), t("top_y"), {without: sweep.raw_top, with_: sweep.scaled_top}),
    ]
    return keep(
        line_panels(
            sweep.d_k,
            panels,
            x_title=t("d_k_axis"),
            mark=(d_k, t("this_d_k", d_k=d_k)),
            phone=look.phone,
            look=look,  # 0,5 on the axes and in the hover in French
            width=WHY_WIDTH,
        )
    )
