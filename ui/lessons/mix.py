"""Page 4's figures, built once per setting, head and look and kept: the head's pattern A, its
values V and its output Z = A V, side by side on the page.

Like page 1's (``ui.lessons.qkv``), they are shared and read-only (``ui.draw.wire.keep``): the
row a student follows is outlined on a new layout over the same traces
(``ui.frame.follow.outline_row``), which sends the traces' wire form built on their first send.
"""

from __future__ import annotations

from ui.draw.heatmaps import heatmap
from ui.draw.labels import feature_labels
from ui.draw.style import Look
from ui.draw.wire import Spec, keep
from ui.lab.compute import Setting, compute_lab, shared
from ui.text import translator
from ui.text.mix import TEXT


def mix_figures(setting: Setting, look: Look, head: int) -> dict[str, Spec]:
    """``pattern_map`` (A, 0 to 1, the masked future greyed), ``v_map`` and ``z_map`` (diverging
    about 0) of head ``head``."""
    return _figures(setting=setting, look=look, head=int(head))


@shared(32)
def _figures(*, setting: Setting, look: Look, head: int) -> dict[str, Spec]:
    """``mix_figures``, kept and shared, once per setting, look and head."""
    t = translator(TEXT, look.lang)
    lab = compute_lab(setting)
    traced, labels, d_head = lab.trace.heads[head], lab.labels, lab.cfg.d_head
    pattern_map = heatmap(
        traced.pattern,
        labels,
        labels,
        title=t("pattern_map"),
        zmin=0.0,
        zmax=1.0,
        masked=~lab.trace.mask,
        masked_label=t("masked_cell"),
        x_title=t("key"),
        y_title=t("query"),
        look=look,
    )
    rows = {"signed": True, "y_title": t("token"), "look": look}
    v_map = heatmap(traced.v, labels, feature_labels(d_head, "v"), title=t("v_map"), **rows)
    z_map = heatmap(traced.z, labels, feature_labels(d_head, "z"), title=t("z_map"), **rows)
    return {"pattern_map": keep(pattern_map), "v_map": keep(v_map), "z_map": keep(z_map)}
