"""AppTest tests of page 10, learned heads: what it draws is what llm computes on the shipped
model, and bad links, bad sentences and a missing or broken model file get a clear message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import llm
import llm.checkpoints
from llm import behaviour
from tests.apptest_pages import array_of, figure, figure_pieces, link_opener, shown_text, z_of
from ui.lab.shared_cache import STORE
from ui.text.learned import TEXT
from ui.text.questions import TEXT as QUESTION_TEXT

PAGE = "../pages/10_learned.py"
DEFAULT = "the cat sat on the mat . the cat sat on the mat"


opened = link_opener(PAGE)


def patterns_shown(at: AppTest) -> list[np.ndarray]:
    return [z_of(spec, 0) for spec in figure_pieces(at, "patterns")]


def titles_shown(at: AppTest) -> list[str]:
    """Every head's title as it reads: its two lines joined by ": ", the bold tags left out."""
    return [
        spec["layout"]["annotations"][0]["text"]
        .replace("<b>", "")
        .replace("</b>", "")
        .replace("<br>", ": ")
        for spec in figure_pieces(at, "patterns")
    ]


def expected_patterns(step: int | None, text: str = DEFAULT) -> list[np.ndarray]:
    model = llm.load_model(step=step)
    run = llm.run_model(model, model.encode(text))
    return [head.pattern for trace in run.layers for head in trace.heads]


def _same_pattern(shown: np.ndarray, want: np.ndarray) -> None:
    visible = np.tril(np.ones_like(want, dtype=bool))  # masked cells are drawn as NaN
    np.testing.assert_allclose(shown[visible], want[visible], rtol=1e-12, atol=1e-15)


def test_every_head_of_the_final_model_on_the_default_sentence() -> None:
    at = opened()
    final = llm.load_model()
    assert at.select_slider(key="step").value == final.steps[-1]
    assert at.text_input(key="sentence").value == DEFAULT
    shown, want = patterns_shown(at), expected_patterns(None)
    assert len(shown) == final.n_layers * final.n_heads == 8
    for s, w in zip(shown, want):
        _same_pattern(s, w)
    roles = behaviour.roles_at(final.history, final.steps[-1])
    titles = titles_shown(at)
    assert len(titles) == 8
    for k, title in enumerate(titles):
        role, score = roles[k // 4][k % 4]
        if role == "diffuse":  # none of the three scores reaches the threshold: said so
            assert title == f"layer {k // 4} · head {k % 4}: other pattern (scores < 0.3)"
        else:  # every title the same form: the role, the score that gave it in brackets
            assert title == f"layer {k // 4} · head {k % 4}: {role} ({score:.2f})"
    assert "layer 0 · head 1: previous token (1.00)" in titles
    assert sum("induction" in title for title in titles[4:]) >= 1
    assert not any("diffuse" in title for title in titles)


def test_step_zero_shows_the_initial_weights_and_no_role() -> None:
    at = opened(step="0")
    assert at.select_slider(key="step").value == 0
    for s, w in zip(patterns_shown(at), expected_patterns(0)):
        _same_pattern(s, w)
    assert all(title.endswith(": other pattern (scores < 0.3)") for title in titles_shown(at))
    assert not np.allclose(patterns_shown(at)[1], expected_patterns(None)[1])


def test_the_top_five_predictions_are_llm_top_predictions() -> None:
    at = opened(step="1000")
    model = llm.load_model(step=1000)
    ids = model.encode(DEFAULT)
    top = llm.top_predictions(model, llm.run_model(model, ids), len(ids) - 1)
    bars = figure(at, "predictions")["data"][0]
    assert bars["x"] == [w for w, _ in top]
    np.testing.assert_allclose(array_of(bars["y"]), [p for _, p in top], rtol=1e-12)
    assert at.slider(key="position").value == len(ids) - 1
    captions = "\n".join(c.value for c in at.main.caption)  # markdown: "." escaped as "\."
    assert "“mat” appeared earlier in the sentence, followed by “\\.”" in captions


def test_the_training_charts_carry_the_history() -> None:
    at = opened(step="450")
    history = llm.load_model().history
    loss = figure(at, "loss")
    np.testing.assert_allclose(array_of(loss["data"][0]["x"]), history.score_steps)
    np.testing.assert_allclose(
        array_of(loss["data"][0]["y"]), behaviour.loss_at(history, history.score_steps)
    )
    assert any(shape.get("x0") == 450 for shape in loss["layout"]["shapes"])  # the chosen step
    for layer in range(2):
        data = figure(at, f"scores{layer}")["data"]
        assert len(data) == 8  # four heads, two panels
        for trace in data[:4]:
            h = int(trace["name"].split()[-1])
            np.testing.assert_allclose(array_of(trace["y"]), history.previous[:, layer, h])
        for trace in data[4:]:
            h = int(trace["name"].split()[-1])
            np.testing.assert_allclose(array_of(trace["y"]), history.induction[:, layer, h])


def test_the_page_states_the_shipped_numbers_and_when_the_head_forms() -> None:
    text = shown_text(opened())
    numbers = llm.load_model().history.behaviour
    at, layer, head = behaviour.formation(llm.load_model().history)
    assert f"induction score **{numbers['induction']:.2f}**" in text
    assert f"previous-token score **{numbers['previous']:.2f}**" in text
    assert f"**{numbers['accuracy_repeat']:.2f}** on the repeated half" in text
    assert f"passes an induction score of 0.4 at step {at}" in text
    assert f"(layer {layer}, head {head})" in text
    assert "Elhage et al. 2021" in text and "trained weights" in text
    fr = shown_text(opened(lang="fr"))
    assert f"score d’induction **{numbers['induction']:.2f}**".replace(".", ",") in fr
    assert "la seconde lit ce que la première a écrit" in fr


@pytest.mark.parametrize("step", ["-1", "abc", "123", "1e3", "1500.0"])
def test_a_step_that_is_not_a_checkpoint_is_repaired(step: str) -> None:
    at = opened(step=step)
    assert at.select_slider(key="step").value == 1500
    warning = "\n".join(w.value for w in at.warning)
    assert "is not one of the training checkpoints (" in warning
    assert "0, 50, 100" in warning
    for s, w in zip(patterns_shown(at), expected_patterns(None)):
        _same_pattern(s, w)


def test_a_bad_step_in_french() -> None:
    warning = "\n".join(w.value for w in opened(step="-1", lang="fr").warning)
    assert "n’est pas parmi les points de sauvegarde (" in warning


def test_unknown_words_are_named_and_the_default_sentence_is_shown() -> None:
    at = opened(sentence="the zebra sat on the <b>mat</b>")
    warning = "\n".join(w.value for w in at.warning)
    assert "The model does not know" in warning and "“zebra”" in warning
    assert "“b”" in warning and "<b>" not in warning  # typed text is never HTML
    assert "Showing the default sentence instead" in warning
    captions = "\n".join(c.value for c in at.main.caption)
    assert "The model's 48 words: the cat sat on mat" in captions
    for s, w in zip(patterns_shown(at), expected_patterns(None)):
        _same_pattern(s, w)


@pytest.mark.parametrize(
    ("sentence", "message"),
    [
        ("", "The sentence is empty"),
        (" ".join(["cat"] * 33), "The sentence has 33 words; the model reads at most 32"),
    ],
)
def test_an_empty_or_too_long_sentence_is_refused(sentence: str, message: str) -> None:
    at = opened(sentence=sentence)
    assert message in "\n".join(w.value for w in at.warning)
    assert len(patterns_shown(at)[0]) == 13  # the default sentence


def test_a_sentence_of_its_own() -> None:
    text = "sky pen cat hat sky pen cat"
    at = opened(sentence=text, step="1500")
    shown, want = patterns_shown(at), expected_patterns(None, text)
    assert shown[0].shape == (7, 7)
    for s, w in zip(shown, want):
        _same_pattern(s, w)
    assert not at.warning


def test_one_word_has_no_position_slider() -> None:
    at = opened(sentence="cat")
    assert not at.main.slider and patterns_shown(at)[0].shape == (1, 1)


def _with_model_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setattr(llm.checkpoints, "MODEL_FILE", path)
    STORE.clear()  # the page keeps the checkpoints it has read
    try:
        at = AppTest.from_file(PAGE, default_timeout=60).run()
    finally:
        STORE.clear()
    assert not at.exception, at.exception
    return at


def test_a_missing_model_file_is_reported_and_the_frame_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _with_model_file(tmp_path / "learned_heads.npz", monkeypatch)
    (error,) = at.error
    assert "The trained model's file (`llm/learned_heads.npz`) is missing" in error.value
    assert "the other pages work as usual" in error.value
    # the frame drew its sidebar: the language and the page list (a page run on its own lists
    # the pages as captions), without the lab's settings this page does not use
    assert at.sidebar.segmented_control(key="lang").value == "en"
    assert "10. Learned heads" in [c.value for c in at.sidebar.caption]
    assert not at.sidebar.slider
    assert not at.get("plotly_chart")


def test_a_corrupt_model_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "learned_heads.npz"
    broken.write_bytes(b"PK\x03\x04 not really a zip archive")
    at = _with_model_file(broken, monkeypatch)
    (error,) = at.error
    assert "cannot be read" in error.value and "python -m llm.train" in error.value


def test_the_position_read_is_in_the_link() -> None:
    at = opened(position="4", step="1500")
    model = llm.load_model()
    ids = model.encode(DEFAULT)
    assert at.slider(key="position").value == 4
    top = llm.top_predictions(model, llm.run_model(model, ids), 4)
    assert figure(at, "predictions")["data"][0]["x"] == [w for w, _ in top]
    assert "After “the·2” (position 4)" in shown_text(at)


@pytest.mark.parametrize(
    ("position", "box", "message"),
    [
        ("20", "info", "Position 20 is past the sentence's last word; showing the last one, 12."),
        (
            "99",
            "warning",
            "**position** = “99” is not a place the model reads (0–31); using 31, the last",
        ),
        ("abc", "warning", "**position** = “abc” is not a place the model reads (0–31)"),
        ("-1", "warning", "**position** = “-1” is not a place the model reads"),
    ],
)
def test_a_position_past_the_sentence_or_not_a_place_is_repaired(
    position: str, box: str, message: str
) -> None:
    at = opened(position=position)
    assert at.slider(key="position").value == 12
    assert message in "\n".join(m.value for m in getattr(at, box))


def _cells(spec: dict, n: int = 13) -> tuple[float, int]:
    """A head's cell side (px) and its numbers' size (px; 0: none), from its figure."""
    layout = spec["layout"]
    inner = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    left, right = layout["xaxis"]["domain"]
    return (right - left) * inner / n, spec["data"][0].get("textfont", {}).get("size", 0)


# the columns a class's screens give a chart (CSS px): 1280 × 720 at 150 % (521), 1024 × 768
# with the sidebar (564), 1280 × 720 (820) and a phone (358); show_figures' gap is 32 px
ZOOMED, BESIDE_SIDEBAR, SCREEN, PHONE, GAP = 521, 564, 820, 358, 32


@pytest.mark.parametrize(("lang", "sentence"), [("en", DEFAULT), ("fr", DEFAULT)])
def test_every_head_fits_the_zoomed_column_and_two_stand_side_by_side(
    lang: str, sentence: str
) -> None:
    # 13 tokens, more than the chapters' 8: the cells shrink to 21 px with 10 px numbers so that
    # a head is at most 394 px wide, one a row in 521 px and two a row in 820 px
    at = opened(lang=lang)
    pieces = figure_pieces(at, "patterns")
    assert len(pieces) == 8 and all(len(p["data"]) == 1 for p in pieces)
    widths = {p["layout"]["width"] for p in pieces}
    assert len(widths) == 1  # every head as wide: the rows line up
    (width,) = widths
    assert width <= ZOOMED and 2 * width + GAP <= SCREEN and 3 * width + 2 * GAP > BESIDE_SIDEBAR
    for piece in pieces:
        assert _cells(piece) == (21.0, 10)
        assert not piece["layout"]["coloraxis"].get("showscale", True)  # the bar stands above
    bar = figure(at, "patterns-scale")
    assert bar["layout"]["width"] == width
    assert bar["layout"]["coloraxis"]["cmin"] == 0.0 and bar["layout"]["coloraxis"]["cmax"] == 1
    assert all(p["layout"]["coloraxis"]["cmax"] == 1.0 for p in pieces)  # one colour scale
    # the bar lies over the first head's cells: as far from the left, as wide
    head = pieces[0]["layout"]
    inner = head["width"] - head["margin"]["l"] - head["margin"]["r"]
    cells_left = head["margin"]["l"] + head["xaxis"]["domain"][0] * inner
    assert bar["layout"]["margin"]["l"] == pytest.approx(cells_left)
    assert bar["layout"]["margin"]["r"] == pytest.approx(width - cells_left - 13 * 21)


def test_presenter_mode_keeps_projector_cells_one_head_a_row_with_large_titles() -> None:
    pieces = figure_pieces(opened(present="true"), "patterns")
    for piece in pieces:
        layout = piece["layout"]
        assert _cells(piece) == (48.0, 16)
        assert layout["width"] <= 800  # a projector's column with the sidebar open
        title = layout["annotations"][0]
        assert title["font"]["size"] >= 16 and title["text"].startswith("<b>")
        # room over the title: the figure's top margin holds its two lines and more
        assert layout["margin"]["t"] >= 2 * title["font"]["size"] + 16


def test_a_phone_draws_the_heads_inside_its_column() -> None:
    from ui.lessons.learned import heads_figures

    ids = tuple(llm.load_model().encode(DEFAULT))
    steps = llm.load_model().steps
    pieces = heads_figures(step=steps[-1], ids=ids, lang="en", phone=True, scale=1.0)
    for spec in pieces:
        assert _cells(spec) == (18.0, 0)  # too small for numbers: the value is on a tap
        assert spec["layout"]["width"] <= PHONE


def test_a_short_sentence_keeps_the_cells_and_numbers_of_the_lessons() -> None:
    pieces = figure_pieces(opened(sentence="sky pen cat hat sky pen cat"), "patterns")
    for piece in pieces:
        cell, number = _cells(piece, 7)
        assert cell >= 39 and number == 13 and 2 * piece["layout"]["width"] + GAP <= SCREEN


@pytest.mark.parametrize("step", [1500, 450, 0])
def test_the_dotted_lines_labels_never_touch_the_chosen_step(step: int) -> None:
    # a dotted line's label ("ln 48: guessing", "target 0.5") is a legend entry, under the
    # plots, never a note in the plot where the dashed line at the step may run through it
    at = opened(step=str(step))
    for key, label in (("loss", "ln 48: guessing"), ("scores0", "target 0.5")):
        layout = figure(at, key)["layout"]
        notes = [a for a in layout["annotations"] if a["text"].startswith(("ln 48", "target"))]
        entries = [shape.get("name") for shape in layout["shapes"]]
        assert notes == [] and label in entries


def test_the_predictions_chart_is_wide_its_words_quoted_and_its_axis_over_the_bars() -> None:
    at = opened()
    spec = figure(at, "predictions")
    layout, bars = spec["layout"], spec["data"][0]
    assert 400 <= layout["width"] <= ZOOMED
    assert layout["xaxis"]["ticktext"] == [f"“{w}”" for w in bars["x"]]
    assert layout["xaxis"]["tickfont"]["size"] >= 14
    low, high = layout["yaxis"]["range"]
    assert low == 0 and high >= max(bars["y"])
    assert round(high / layout["yaxis"]["dtick"], 9).is_integer()  # a gridline at the top
    fr = figure(opened(lang="fr"), "predictions")["layout"]["xaxis"]["ticktext"]
    assert fr[0].startswith("«\u00a0")


def test_the_french_page_says_perte_and_motif_and_the_command_stands_apart() -> None:
    page = opened(lang="fr")
    fr = shown_text(page) + "\n".join(c.value for c in page.main.caption)
    assert "loss" not in fr and "pattern" not in fr
    assert "la perte et les scores" in fr and "Un motif montre" in fr
    assert "entraîné par `python -m llm.train` (Adam, 1500 pas)" in fr
    assert (
        "perte d’entraînement"
        in figure(opened(lang="fr"), "loss")["layout"]["annotations"][0]["text"]
    )
    en = shown_text(opened())
    assert "trained by `python -m llm.train` (Adam, 1500 steps)" in en


def test_presenter_mode_folds_the_model_s_description_and_sets_the_step_beside_the_sentence() -> (
    None
):
    at = opened(present="true")
    (about,) = at.expander
    assert about.label == TEXT["en"]["about_model"]
    assert "trained weights" in about.info[0].value and "No MLP" in about.markdown[0].value
    sentence, step = at.columns[:2]
    assert sentence.text_input(key="sentence").value == DEFAULT
    assert step.select_slider(key="step").value == llm.load_model().steps[-1]
    plain = opened()
    # the only folded section is the page's questions (predict, then reveal), not the model
    assert [e.label for e in plain.expander] == [QUESTION_TEXT["en"]["alone"]]
    assert "No MLP" in shown_text(plain)
