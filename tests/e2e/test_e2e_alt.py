"""Every chart has an accessible name in a real browser (WCAG 1.1.1): each plotly chart's box and
each heatmap table is a figure named by its text alternative (``ui.draw.describe``), which names
the page's tokens, and the head view's drawing is an image with a label."""

from __future__ import annotations

import pytest

from tests.e2e.harness import DEFAULT_TEXT, Session, exceptions

pytestmark = pytest.mark.e2e

TOKENS = DEFAULT_TEXT.split()


def chart_names(session: Session, path: str) -> list[dict]:
    """Each chart's role and accessible name, as the browser has them, in page order: every
    element the accessibility tree calls a figure (a plotly chart's box, a heatmap table's
    ``<figure>``), and whether it holds a plot or a table of numbers."""
    session.open(path)
    page = session.page
    assert exceptions(page) == []
    page.locator(".stPlotlyChart, .lab-heatmap").first.wait_for()
    return page.get_by_role("figure").evaluate_all(
        """els => els.map(el => ({
            role: 'figure',
            label: el.getAttribute('aria-label') || '',
            plot: el.querySelector('.js-plotly-plot, table, .bars-plot') !== null,
        }))"""
    )


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_softmax_charts_are_named_figures(session: Session, lang: str) -> None:
    charts = chart_names(session, f"/softmax?lang={lang}")
    # the causal mask is on: scaled scores, masked scores, the pattern, the rows' entropy, why √d_k
    assert len(charts) == 5
    for chart in charts:
        assert chart["plot"] and chart["role"] == "figure" and chart["label"].strip(), chart
    heatmaps = [c["label"] for c in charts if c["label"].startswith("Heatmap")]
    assert len(heatmaps) == 3
    for label in heatmaps:  # each names its rows and columns: the sentence's tokens
        assert all(token in label for token in TOKENS), label
    pattern = {"en": "Heatmap “Softmax: the", "fr": "Heatmap « Softmax : le motif"}[lang]
    (label,) = [label for label in heatmaps if label.startswith(pattern)]
    assert ("1,00" if lang == "fr" else "1.00") in label  # row 0 sees only itself
    assert ("10 cellules masquées" if lang == "fr" else "10 masked cells") in label
    assert session.console.errors == []


def test_heads_charts_and_head_view_are_named(session: Session) -> None:
    charts = chart_names(session, "/heads")
    assert len(charts) >= 2  # the heads' patterns (one figure or pieces), the entropy bars
    for chart in charts:
        assert chart["plot"] and chart["role"] == "figure" and chart["label"].strip(), chart
    labels = [c["label"] for c in charts]
    assert any("heatmaps" in label and "the" in label for label in labels), labels
    assert any(label.startswith("Bar chart “Average entropy per head”") for label in labels)
    view = session.page.locator("svg.head-view")
    assert view.get_attribute("role") == "img"
    label = view.get_attribute("aria-label") or ""
    assert label.startswith("Head view, head 0:"), label
    assert "strongest" in label and any(f"{token} → " in label for token in TOKENS), label
    assert session.console.errors == []
