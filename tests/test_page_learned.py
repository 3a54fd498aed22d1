"""AppTest tests of page 10, learned heads: what it draws is what llm computes on the shipped
model, and bad links, bad sentences and a missing or broken model file get a clear message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import llm
import llm.checkpoints
from llm import behaviour
from tests.apptest_pages import array_of, figure, link_opener, shown_text, z_of
from ui.text.learned import TEXT

PAGE = "../pages/10_learned.py"
DEFAULT = "the cat sat on the mat . the cat sat on the mat"


opened = link_opener(PAGE)


def patterns_shown(at: AppTest) -> list[np.ndarray]:
    spec = figure(at, "patterns")
    return [z_of(spec, k) for k in range(len(spec["data"]))]


def titles_shown(at: AppTest) -> list[str]:
    return [a["text"] for a in figure(at, "patterns")["layout"]["annotations"] if "·" in a["text"]]


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
    for k, title in enumerate(titles):
        role, score = roles[k // 4][k % 4]
        assert title.startswith(f"layer {k // 4} · head {k % 4}: {role}")
        if role != "diffuse":
            assert f"({score:.2f})" in title
    assert "layer 0 · head 1: previous token (1.00)" in titles
    assert sum("induction" in title for title in titles[4:]) >= 1


def test_step_zero_shows_the_initial_weights_and_no_role() -> None:
    at = opened(step="0")
    assert at.select_slider(key="step").value == 0
    for s, w in zip(patterns_shown(at), expected_patterns(0)):
        _same_pattern(s, w)
    assert all(title.endswith("diffuse") for title in titles_shown(at))
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
    st.cache_resource.clear()  # the page keeps the checkpoints it has read
    try:
        at = AppTest.from_file(PAGE, default_timeout=60).run()
    finally:
        st.cache_resource.clear()
    assert not at.exception, at.exception
    return at


def test_a_missing_model_file_is_reported_and_the_frame_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _with_model_file(tmp_path / "learned_heads.npz", monkeypatch)
    (error,) = at.error
    assert "The trained model's file (`llm/learned_heads.npz`) is missing" in error.value
    assert "the other pages work as usual" in error.value
    assert at.sidebar.slider(key="d_model").value == 8  # the frame drew its controls
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


def _cells(spec: dict) -> tuple[float, int, int]:
    """The heads' cell side (px), their numbers' size (px) and plots a row, from the figure."""
    layout = spec["layout"]
    inner = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    left, right = layout["xaxis"]["domain"]
    top = layout["yaxis"]["domain"]
    per_row = sum(layout[f"yaxis{k}"]["domain"] == top for k in ("", *map(str, range(2, 9))))
    return (right - left) * inner / 13, spec["data"][0]["textfont"]["size"], per_row


@pytest.mark.parametrize(
    ("link", "want"), [({}, (40.0, 13, 1)), ({"present": "true"}, (50.0, 16, 1))]
)
def test_the_heads_have_the_lesson_pages_cells_and_numbers(link: dict, want: tuple) -> None:
    # 13 tokens: 40 px cells with 13 px numbers (50 and 16 in presenter mode), one head a row
    cell, number, per_row = _cells(figure(opened(**link), "patterns"))
    assert (round(cell, 6), number, per_row) == want


def test_a_phone_draws_the_heads_one_a_row_wider_than_its_screen() -> None:
    from ui.learned import heads_figure

    ids = tuple(llm.load_model().encode(DEFAULT))
    steps = llm.load_model().steps
    spec = heads_figure(step=steps[-1], ids=ids, lang="en", phone=True, scale=1.0)
    cell, number, per_row = _cells(spec)
    assert (round(cell, 6), number, per_row) == (28.0, 11, 1)
    assert spec["layout"]["width"] > 390  # its box scrolls sideways on a 390 px phone


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
    assert not plain.expander and "No MLP" in shown_text(plain)
