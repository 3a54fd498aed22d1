"""Page 7's figures, built once per setting, eps and look and kept: the four matrices X,
attn_out, resid and ln_out on one colour scale, and each row's mean and standard deviation
before and after LayerNorm. They reach the page as markup (``layernorm_maps``: heatmap tables
and bars the server writes, once too), as page 3's do.

Like page 3's (``ui.lessons.softmax``), they are shared and read-only (``ui.draw.wire.keep``): a
rerun that shows them again sends the wire form built on their first send.
"""

from __future__ import annotations

import llm
from ui.draw.bars_markup import bars_markup
from ui.draw.charts import bar_chart
from ui.draw.grid_tables import grid_tables
from ui.draw.grids import grid_figures
from ui.draw.heatmap_table import figures_box
from ui.draw.labels import feature_labels
from ui.draw.markup import Markup
from ui.draw.style import Look
from ui.draw.wire import Spec, keep
from ui.lab.compute import Setting, compute_lab, shared
from ui.text import num, translator
from ui.text.layernorm import TEXT


def layernorm_figures(setting: Setting, look: Look, eps: float) -> dict[str, tuple[Spec, ...]]:
    """``matrices``: the four matrices in the pieces that wrap (``ui.draw.grids.grid_figures``, two
    a row where the column holds them, else one); ``row_stats``: the bars of each row's mean
    before (after LayerNorm every mean is 0: bars nobody would see, the page says so) and of
    its standard deviation before and after, with the line std = 1."""
    return _figures(setting=setting, look=look, eps=float(eps))


@shared(32)
def _figures(*, setting: Setting, look: Look, eps: float) -> dict[str, tuple[Spec, ...]]:
    """``layernorm_figures``, kept and shared, once per setting, look and eps."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    x, attn_out, labels = lab.x, lab.trace.attn_out, lab.labels
    resid, ln_out = llm.residual_layer_norm(x, attn_out, eps=eps)
    features = feature_labels(setting.d_model)
    matrices = grid_figures(
        [x, attn_out, resid, ln_out],
        labels,
        [features] * 4,
        [
            t("x", t=len(labels), d_model=setting.d_model),
            t("attn_out"),
            t("resid"),
            t("ln_out", eps=num(eps, 6, look.lang, "g")),
        ],
        look=look,
        signed=True,
        x_title=t("feature"),
        y_title=t("token"),
        per_row=2,
    )
    (mean_before, std_before), (_, std_after) = llm.row_stats(resid), llm.row_stats(ln_out)
    before, after = t("before"), t("after")
    means = bar_chart({before: mean_before}, labels, title=t("means_chart"), look=look)
    stds = bar_chart(
        {before: std_before, after: std_after},
        labels,
        title=t("stds_chart"),
        lines=[(1.0, t("one"))],
        look=look,
    )
    return {
        "matrices": tuple(keep(piece, wire=False) for piece in matrices),
        "row_stats": (keep(means, wire=False), keep(stds, wire=False)),
    }


def layernorm_maps(setting: Setting, look: Look, eps: float) -> tuple[Markup, Markup]:
    """``layernorm_figures`` as the markup of two boxes: the four matrices as heatmap tables
    (``ui.draw.grid_tables``) that wrap as the column allows, keys ``matrices``,
    ``matrices-1``, ...; the row statistics as bars (``ui.draw.bars_markup``), keys ``means``
    and ``stds``. A new eps redraws them without plotly.js laying out a chart."""
    return _maps(setting=setting, look=look, eps=float(eps))


@shared(32)
def _maps(*, setting: Setting, look: Look, eps: float) -> tuple[Markup, Markup]:
    """``layernorm_maps``, written once a setting, look and eps (shared)."""
    t = translator(TEXT, look.lang)
    figures = _figures(setting=setting, look=look, eps=eps)
    matrices = figures_box(grid_tables(figures["matrices"], key="matrices"), label=t("matrices"))
    means, stds = figures["row_stats"]
    bars = [bars_markup(means, key="means"), bars_markup(stds, key="stds")]
    return matrices, figures_box(bars, label=t("stats"))
