"""Every chart's text alternative says what it shows: hand-made figures built with the real
builders, their sentences checked word for word in English and in French, and every chart of
every page sent with a non-empty ``alt``."""

from __future__ import annotations

import html
import re
import string
from pathlib import Path

import numpy as np
import pytest

from tests.apptest_pages import head_view_of, open_link
from ui.draw.charts import bar_chart, side_by_side
from ui.draw.describe import describe
from ui.draw.describe_words import LIMIT, figure_lang, plain
from ui.draw.grids import grid_figure, grid_figures
from ui.draw.headview import view_label
from ui.draw.heatmaps import heatmap
from ui.draw.lines import Panel, line_panels
from ui.draw.style import Look
from ui.frame.follow import outline_row
from ui.text.describe import TEXT

ROOT = Path(__file__).resolve().parents[1]
TOKENS = ["the", "cat", "sat"]
# 9.0 sits under the mask: a masked cell is never the largest
M = np.array([[0.5, 9.0, 0.1], [0.2, 0.9, 0.3], [0.05, 0.4, 0.7]])
MASK = np.zeros((3, 3), dtype=bool)
MASK[0, 1] = True


def _heatmap(lang: str) -> dict:
    return heatmap(
        M,
        TOKENS,
        TOKENS,
        title="A, head 0",
        x_title="key (who is looked at)",
        y_title="query (who looks)",
        masked=MASK,
        look=Look(lang=lang),
    )


def test_a_heatmap_says_its_labels_masked_cells_and_extremes() -> None:
    assert describe(_heatmap("en"), "en") == (
        "Heatmap “A, head 0”: 3 rows (query: the, cat, sat) × 3 columns (key: the, cat, sat); "
        "1 masked cell; largest 0.90 at row cat, column cat; "
        "smallest 0.05 at row sat, column the."
    )
    assert describe(_heatmap("fr"), "fr") == (
        "Heatmap « A, head 0 » : 3 lignes (query : the, cat, sat) × 3 colonnes "
        "(key : the, cat, sat). 1 cellule masquée. Maximum 0,90 en ligne cat, colonne cat. "
        "Minimum 0,05 en ligne sat, colonne the."
    )


def test_the_language_is_the_figures_and_the_followed_row_is_said() -> None:
    assert figure_lang(_heatmap("en")) == "en" and figure_lang(_heatmap("fr")) == "fr"
    followed = outline_row(_heatmap("en"), 2)
    assert describe(followed, "en").endswith("; row sat outlined.")


def test_markup_of_ours_goes_and_a_tokens_stays() -> None:
    assert plain("<b>Softmax</b><br>the pattern") == "Softmax the pattern"
    labels = ["<i>x</i>", "a&b", '"q"']
    fig = heatmap(M, labels, labels, title="<b>A</b><br>two lines")
    text = describe(fig, "en")
    assert text.startswith('Heatmap “A two lines”: 3 rows (<i>x</i>, a&b, "q") × 3 columns')
    assert "largest 9.00 at row <i>x</i>, column a&b" in text  # nothing masked here


def test_a_grid_says_each_plot() -> None:
    second = np.array([[1.0, 0.0, 0.0], [0.25, 0.6, 0.15], [0.3, 0.3, 0.4]])
    style = {"x_title": "key", "y_title": "query", "masked": MASK}
    en = grid_figure([M, second], TOKENS, [TOKENS] * 2, ["head 0", "head 1"], **style)
    assert describe(en, "en") == (
        "2 heatmaps, 3 rows (query: the, cat, sat) × 3 columns (key: the, cat, sat): "
        "1 masked cell in each; “head 0”: largest 0.90 at row cat, column cat, smallest 0.05 "
        "at row sat, column the; “head 1”: largest 1.00 at row the, column the, smallest 0.00 "
        "at row the, column sat."
    )
    fr = grid_figure(
        [M, second], TOKENS, [TOKENS] * 2, ["tête 0", "tête 1"], look=Look(lang="fr"), **style
    )
    # in French the labels would take it past LIMIT: the next sentence names the axes only
    assert describe(fr, "fr") == (
        "2 heatmaps, 3 lignes (query) × 3 colonnes (key) : "
        "1 cellule masquée dans chacune. « tête 0 » : maximum 0,90 en ligne cat, colonne cat ; "
        "minimum 0,05 en ligne sat, colonne the. « tête 1 » : maximum 1,00 en ligne the, "
        "colonne the ; minimum 0,00 en ligne the, colonne sat."
    )


def test_a_grid_of_many_plots_is_summed_up() -> None:
    mats = [M * (k + 1) / 10 for k in range(8)]  # plot 7 holds the largest, 0.9 × 0.8
    titles = [f"head {k}" for k in range(8)]
    (fig,) = grid_figures(mats, TOKENS, [TOKENS] * 8, titles, masked=MASK, phone=True)
    assert describe(fig, "en") == (
        "8 heatmaps, 3 rows × 3 columns: 1 masked cell in each; largest 0.72 in “head 7” at "
        "row cat, column cat; smallest 5.0e\u22123 in “head 0” at row sat, column the."
    )


def test_a_large_matrix_stays_short() -> None:
    m = np.random.default_rng(5).normal(size=(32, 64))
    rows, cols = [f"w{i}" for i in range(32)], [f"f{j}" for j in range(64)]
    i, j = np.unravel_index(m.argmax(), m.shape)
    k, n = np.unravel_index(m.argmin(), m.shape)
    for lang in ("en", "fr"):
        fig = heatmap(m, rows, cols, title="X", look=Look(lang=lang))
        text = describe(fig, lang)
        assert len(text) <= LIMIT
        # 32 and 64 labels: their count, not their names
        assert ("32 lignes × 64 colonnes." if lang == "fr" else "32 rows × 64 columns;") in text
    text = describe(heatmap(m, rows, cols, title="X"), "en")
    assert m.min() < 0  # written with the cells' minus sign, U+2212, read aloud as "minus"
    assert text == (
        f"Heatmap “X”: 32 rows × 64 columns; largest {m.max():.2f} at row w{i}, column f{j}; "
        f"smallest \u2212{-m.min():.2f} at row w{k}, column f{n}."
    )


def test_long_titles_fall_back_to_a_shorter_sentence() -> None:
    mats = [M] * 6
    titles = [f"head {k} · a title long enough to fill a line on its own" for k in range(6)]
    for fig in grid_figures(mats, TOKENS, [TOKENS] * 6, titles, masked=MASK):
        assert 0 < len(describe(fig, "en")) <= LIMIT


def _bars(lang: str, **kw: object) -> dict:
    return bar_chart(
        {"sharp": [0.5, 1.25, None], "diffuse": [None, None, 2.0]},
        ["head 0", "head 1", "head 2"],
        title="Entropy per head",
        lines=[(1.61, "max = 1.61")],
        barmode="relative",
        look=Look(lang=lang),
        **kw,
    )


def test_a_bar_chart_says_every_bar() -> None:
    assert describe(_bars("en"), "en") == (
        "Bar chart “Entropy per head”: head 0 = 0.50 (sharp), head 1 = 1.25 (sharp), "
        "head 2 = 2.00 (diffuse); reference lines: max = 1.61."
    )
    assert describe(_bars("fr"), "fr") == (
        "Diagramme en barres « Entropy per head » : head 0 = 0,50 (sharp) ; "
        "head 1 = 1,25 (sharp) ; head 2 = 2,00 (diffuse). Repères : max = 1.61."
    )
    both = describe(side_by_side(_bars("en"), bar_chart({"v": [3.0]}, ["a"], title="B")), "en")
    assert both.endswith("; Bar chart “B”: a = 3.00.")


def test_many_bars_say_their_largest_and_smallest() -> None:
    values = [0.1 * k for k in range(13)]
    fig = bar_chart({"p": values}, [f"w{k}" for k in range(13)], title="P")
    assert describe(fig, "en") == "Bar chart “P”: 13 bars; largest w12 = 1.20; smallest w0 = 0.00."


def _lines(lang: str) -> dict:
    panels = [
        Panel("Spread", "std", {"with": [1.0, 1.5, 2.0, 2.5], "without": [1.0, 2.0, 4.0, 8.0]}),
        Panel("Top", "p", {"with": [0.5, 0.6, 0.7, 0.75], "without": [0.5, 0.7, 0.9, 0.99]}),
    ]
    return line_panels(
        [1, 2, 4, 8], panels, x_title="d_k", mark=(2, "this d_k"), look=Look(lang=lang)
    )


def test_a_line_chart_says_each_lines_first_and_last_value() -> None:
    assert describe(_lines("en"), "en") == (
        "2 line charts: d_k from 1 to 8; “Spread”: with from 1.00 to 2.50, without from 1.00 "
        "to 8.00; “Top”: with from 0.50 to 0.75, without from 0.50 to 0.99; marked: this d_k."
    )
    assert describe(_lines("fr"), "fr") == (
        "2 graphiques de courbes : d_k de 1 à 8. « Spread » : with de 1,00 à 2,50 ; without "
        "de 1,00 à 8,00. « Top » : with de 0,50 à 0,75 ; without de 0,50 à 0,99. "
        "Marqué : this d_k."
    )


def test_the_head_view_names_each_querys_strongest_line() -> None:
    mask = np.tril(np.ones((3, 3), dtype=bool))
    first = np.array([[1.0, 0, 0], [0.3, 0.7, 0], [0.2, 0.5, 0.3]])
    second = np.array([[1.0, 0, 0], [0.8, 0.2, 0], [0.1, 0.1, 0.8]])
    assert view_label([first, second], mask, TOKENS, [0, 1]) == (
        "Head view, heads 0, 1: each query's lines to the keys it may see, as opaque as their "
        "probability; each query's strongest line: the → the (1.00, head 0), cat → the "
        "(0.80, head 1), sat → sat (0.80, head 1)."
    )
    assert view_label([first, second], mask, TOKENS, [0], lang="fr") == (
        "Vue des têtes, tête 0 : les lignes de chaque query vers les keys qu’elle peut voir, "
        "aussi opaques que leur probabilité. La ligne la plus forte de chaque query : "
        "the → the (1,00) ; cat → cat (0,70) ; sat → cat (0,50)."
    )
    many = [f"w{i}" for i in range(12)]
    pattern = np.tril(np.ones((12, 12))) / np.arange(1, 13)[:, None]
    wide = view_label([pattern], np.tril(np.ones((12, 12), dtype=bool)), many, [0])
    assert wide.endswith("the strongest pair: w0 → w0 (1.00).")


def test_every_text_exists_in_both_languages() -> None:
    def fields(s: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(s) if f is not None}

    assert set(TEXT["en"]) == set(TEXT["fr"])
    for name, sentence in TEXT["en"].items():
        assert fields(sentence) == fields(TEXT["fr"][name]), name


# --- every chart of every page, as a link opens it ------------------------------------------------

FIGURE_NAME = (
    r'<figure class="lab-(?:heatmap|bars|small|lines)"(?: role="img")? aria-label="([^"]*)"'
)
PAGE_FILES = ["app.py", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_chart_of_every_page_has_a_text_alternative(page: str, lang: str) -> None:
    at = open_link(f"../{page}", lang=lang)
    charts = at.get("plotly_chart")
    for chart in charts:
        assert chart.proto.alt.strip(), chart.proto.id
        assert len(chart.proto.alt) <= LIMIT
    # the figures of markup (ui.draw.heatmap_table, ui.draw.bars_markup), each named
    tables = [e.proto.body for e in at.main.get("html") if "<figure" in e.proto.body]
    named = [html.unescape(a) for b in tables for a in re.findall(FIGURE_NAME, b)]
    assert len(named) == sum(b.count("<figure") for b in tables)
    assert all(a.strip() and len(a) <= LIMIT for a in named)
    if page == "pages/3_softmax.py":
        assert len(named) == 4  # S, masked S, A, the row entropies
        assert named[3].startswith({"en": "Bar chart", "fr": "Diagramme en barres"}[lang])
        alts = [chart.proto.alt for chart in charts] + named
        pattern = {"en": "Heatmap “Softmax: the", "fr": "Heatmap « Softmax : le motif"}[lang]
        (alt,) = [a for a in alts if a.startswith(pattern)]
        assert all(token in alt for token in ("the", "cat", "sat", "on", "mat"))
        assert ("1,00" if lang == "fr" else "1.00") in alt
    if page == "pages/10_learned.py":  # the large head, every head small, next words, training
        assert len(named) == 13 and not charts
        small = {"en": "head 1 · previous token · score 1.00", "fr": "tête 1 · token précédent"}
        assert named[2].startswith(small[lang])
    if page == "pages/5_heads.py":
        view = head_view_of(at)
        assert 'role="img"' in view
        label = {"en": 'aria-label="Head view, head 0:', "fr": 'aria-label="Vue des têtes'}
        assert label[lang] in view


def test_a_kept_figures_alt_is_written_once_for_its_traces(monkeypatch) -> None:
    """A kept figure (a cache's) is described at its first draw, then read from its layout; a
    figure that shares its traces under another layout (a row outlined) is described anew."""
    from ui.draw import heatmaps, wire

    pattern = np.tril(np.full((3, 3), 1 / 3))
    kept = wire.keep(heatmaps.heatmap(pattern, list("abc"), list("abc")))
    first = wire.alt_text(kept)
    assert first == describe(kept, "en")
    monkeypatch.setattr(wire, "describe", lambda fig, lang: "described again")
    assert wire.alt_text(kept) == first
    other = {"data": kept["data"], "layout": wire.derived_layout(kept["layout"], width=999)}
    assert wire.alt_text(other) == "described again"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_training_steps_charts_say_what_a_fresh_description_says(lang: str) -> None:
    """/learned's training charts at a step are named by their unmarked charts' words: the
    step's dashed line has no name, so a description written anew from the marked figure is
    the same, word for word; and the step's style stands the charts' dashed line where the
    marked figure draws it, the rest of the markup the same."""
    import llm
    from ui.draw.lines import marked
    from ui.draw.lines_markup import lines_markup, mark_style
    from ui.draw.style import Look
    from ui.lessons.learned_training import _training_lines, training_markup

    steps = llm.load_model().steps
    for step in (steps[0], steps[len(steps) // 2]):
        plain_ones = _training_lines(lang=lang, phone=False)
        shown = training_markup(lang=lang, phone=False)
        named = re.findall(r'<figure class="lab-lines" aria-label="([^"]*)"', shown)
        assert [html.unescape(a) for a in named] == [describe(base, lang) for base in plain_ones]
        for base in plain_ones:
            fig = marked(base, float(step), look=Look(lang))
            assert describe(fig, lang) == describe(base, lang)
            assert len(fig["layout"]["shapes"]) > len(base["layout"]["shapes"])
            drawn = lines_markup(fig, key="k", width=500)
            plain = lines_markup(base, key="k", width=500)
            divs = [
                sorted(d for d in re.findall(r"<div[^>]*>", m) if 'class="mark"' not in d)
                for m in (drawn, plain)
            ]
            assert divs[0] == divs[1]
            (at,) = set(re.findall(r'class="mark" data-x="[^"]*" style="left:([\d.]+)%', drawn))
            (placed,) = re.findall(r"--mark-x: ([\d.]+)%;", mark_style(base, float(step)))
            assert float(placed) == pytest.approx(float(at), abs=0.006)
