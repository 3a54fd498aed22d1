"""Page 7's figures, built once per setting, eps and look and kept: the four matrices X,
attn_out, resid and ln_out on one colour scale, and each row's mean and standard deviation
before and after LayerNorm.

Like page 3's (``ui.lessons.softmax``), they are shared and read-only (``ui.draw.wire.keep``): a
rerun that shows them again sends the wire form built on their first send.
"""

from __future__ import annotations

import llm
from ui.draw.charts import bar_chart
from ui.draw.grids import grid_figures
from ui.draw.labels import feature_labels
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
        "matrices": tuple(keep(piece) for piece in matrices),
        "row_stats": (keep(means), keep(stds)),
    }
