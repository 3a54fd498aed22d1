"""Page 6's figures, built once per setting and look and kept: the heads' outputs side by side
(concat, each head's block marked and named z₀, z₁, ...), W_O (its rows in the same blocks) and
attn_out = concat · W_O.

Like page 1's (``ui.lessons.qkv``), they are shared and read-only (``ui.draw.wire.keep``): a
rerun with the same settings sends the wire form built on their first send.
"""

from __future__ import annotations

from ui.draw.heatmaps import heatmap, label_blocks, mark_blocks
from ui.draw.labels import feature_labels, head_feature_labels
from ui.draw.style import Look
from ui.draw.wire import Spec, keep
from ui.lab.compute import Setting, compute_lab, shared
from ui.text import translator
from ui.text.concat import TEXT

SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def indexed(name: str, h: int) -> str:
    """head₀, z₃: a name with head h's number as a subscript."""
    return f"{name}{str(h).translate(SUBSCRIPTS)}"


def concat_figures(setting: Setting, look: Look) -> dict[str, Spec]:
    """``concat``, ``w_o`` and ``attn_out`` as heatmaps, diverging about 0: concat's columns
    and W_O's rows in blocks of d_head, one a head."""
    return _figures(setting=setting, look=look)


@shared(32)
def _figures(*, setting: Setting, look: Look) -> dict[str, Spec]:
    """``concat_figures``, kept and shared, once per setting and look."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    trace, labels, cfg = lab.trace, lab.labels, lab.cfg
    n_heads, d_head, d_model = cfg.n_heads, cfg.d_head, cfg.d_model
    concat_cols, out_cols = head_feature_labels(n_heads, d_head), feature_labels(d_model)
    tokens = {"y_title": t("token"), "signed": True, "look": look}
    title = t("concat_heatmap", t=len(labels), d_model=d_model)
    columns = {"x_title": t("concat_feature"), **tokens}
    concat = heatmap(trace.concat, labels, concat_cols, title=title, **columns)
    mark_blocks(concat, d_head, n_heads)
    label_blocks(concat, d_head, [indexed("z", h) for h in range(n_heads)])
    w_o = heatmap(
        lab.params.W_O,
        concat_cols,
        out_cols,
        title=t("wo_heatmap", d_model=d_model),
        signed=True,
        x_title=t("feature"),
        y_title=t("concat_feature"),
        look=look,
    )
    mark_blocks(w_o, d_head, n_heads, axis="y")
    title = t("out_heatmap", t=len(labels), d_model=d_model)
    out = heatmap(trace.attn_out, labels, out_cols, title=title, x_title=t("feature"), **tokens)
    return {"concat": keep(concat), "w_o": keep(w_o), "attn_out": keep(out)}
