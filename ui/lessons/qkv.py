"""Page 1's figures, built once per setting, head and look and kept: X as a heatmap, and the
head's Q, K and V on one colour scale in the pieces that wrap (``ui.draw.grids.grid_figures``).

Like page 7's (``ui.lessons.layernorm``), they are shared and read-only (``ui.draw.wire.keep``):
a rerun that shows them again (another tab, a folded table opened, a classmate's visit with the
same settings) sends the wire form built on their first send instead of building them anew.
"""

from __future__ import annotations

import llm
from ui.draw.grids import grid_figures
from ui.draw.heatmaps import heatmap
from ui.draw.labels import feature_labels
from ui.draw.style import Look
from ui.draw.wire import Spec, keep
from ui.lab.compute import Setting, compute_lab, shared
from ui.text import pick, translator
from ui.text.qkv import FEATURES, TEXT


def features_of(setting: Setting, lang: str) -> list[str]:
    """X's column names: the hand-made embeddings' features in the page's language, else
    ``f0``, ``f1``, ..."""
    if setting.embeddings == "handmade":
        return [pick(FEATURES, lang, name) for name in llm.HANDMADE_FEATURES]
    return feature_labels(setting.d_model)


def qkv_figures(setting: Setting, look: Look, head: int) -> tuple[Spec, tuple[Spec, ...]]:
    """X as a heatmap (diverging about 0), and head ``head``'s Q, K, V side by side on one
    colour scale, in pieces that wrap where the column is narrow (keys ``qkv_map``, ...)."""
    return _figures(setting=setting, look=look, head=int(head))


@shared(32)
def _figures(*, setting: Setting, look: Look, head: int) -> tuple[Spec, tuple[Spec, ...]]:
    """``qkv_figures``, kept and shared, once per setting, look and head."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    labels, traced = lab.labels, lab.trace.heads[head]
    axes = {"x_title": t("feature"), "y_title": t("token"), "look": look}
    title = t("x_map", t=len(labels), d_model=setting.d_model)
    x_map = heatmap(
        lab.x, labels, features_of(setting, look.lang), title=title, signed=True, **axes
    )
    projected = {"Q": traced.q, "K": traced.k, "V": traced.v}
    pieces = grid_figures(
        list(projected.values()),
        labels,
        [feature_labels(lab.cfg.d_head, name.lower()) for name in projected],
        [t(f"{name.lower()}_map") for name in projected],
        signed=True,
        per_row=3,
        scale_title=t("scale"),
        **axes,
    )
    return keep(x_map), tuple(keep(piece) for piece in pieces)
