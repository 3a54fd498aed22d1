"""AppTest tests of page 10, learned heads: what it draws is what llm computes on the shipped
model, and bad links, bad sentences and a missing or broken model file get a clear message."""

from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

import llm
import llm.checkpoints
from llm import behaviour
from tests.apptest_pages import (
    array_of,
    figure,
    figure_pieces,
    link_opener,
    open_link,
    page_list,
    shown_settings,
    shown_text,
    small_shown,
    tables,
    z_of,
)
from ui.draw.contrast import cell_colours
from ui.draw.style import COLOUR_SCALES
from ui.lab.shared_cache import STORE
from ui.lessons.learned_maps import SMALL_CSS
from ui.text.learned import TEXT
from ui.text.questions import TEXT as QUESTION_TEXT

PAGE = "../pages/10_learned.py"
DEFAULT = "the cat sat on the mat . the cat sat on the mat"


opened = link_opener(PAGE)


def patterns_shown(at: AppTest) -> list[np.ndarray]:
    """Every head's pattern as the small heads draw it, layer 0's head 0 first."""
    return [z_of(head) for head in figure_pieces(at, "patterns-all")]


def large_shown(at: AppTest) -> np.ndarray:
    """The pattern of the head drawn large."""
    return z_of(figure(at, "patterns"), 0)


def titles_shown(at: AppTest) -> list[str]:
    """Every head as the picker names it: its option and its caption joined by ": "."""
    picker = at.radio(key="focus")
    return [f"{o}: {c}" for o, c in zip(picker.options, picker.proto.captions)]


def small_titles(at: AppTest) -> list[str]:
    """The small heads' titles (their three lines joined by " / ", the bold tags left out),
    after the layers' names."""
    body = "".join(e.proto.body for e in at.main.get("html") if "lab-small-heads" in e.proto.body)
    names = [html.unescape(n) for n in re.findall(r'class="sm-name"[^>]*>([^<]*)<', body)]
    notes = [head["layout"]["annotations"][0] for head in figure_pieces(at, "patterns-all")]
    return names + [
        html.unescape(n["text"].replace("<b>", "").replace("</b>", "").replace("<br>", " / "))
        for n in notes
    ]


def plans(
    *, lang: str = "en", present: bool = False, focus: tuple[int, int] = (1, 1), text: str = ""
) -> tuple[dict, list[dict], str]:
    """What the page plans for the heads at the last step on ``text`` (the default sentence):
    the large head's figure (``focused``), which ``ui.lessons.learned_maps`` draws as a table,
    and the small heads as that module writes them (``heads_markup``): each read back
    (``small_shown``), and the whole markup."""
    from ui.lessons.learned import focused
    from ui.lessons.learned_maps import heads_markup

    model = llm.load_model()
    drawn = {"step": model.steps[-1], "ids": tuple(model.encode(text or DEFAULT)), "lang": lang}
    drawn |= {"phone": False, "scale": 1.25 if present else 1.0}
    large = focused(layer=focus[0], head=focus[1], **drawn)
    markup = heads_markup(focus=0, **drawn)
    heads = [small_shown(m) for m in re.findall(r'<figure class="lab-small".*?</figure>', markup)]
    return large, heads, markup


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
    # the head drawn large at first: the best induction head at the last step
    best = behaviour.best_heads(final.history, final.steps[-1])
    layer, head = int(best["induction_layer"]), int(best["induction_head"])
    assert at.radio(key="focus").value == f"L{layer}H{head}" == "L1H1"
    _same_pattern(large_shown(at), want[layer * 4 + head])
    assert "focus" not in at.query_params  # the default: the link leaves it out
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
    large = figure(at, "patterns")["layout"]["annotations"][0]["text"]
    assert large == f"<b>layer 1 · head 1</b><br>induction ({roles[1][1][1]:.2f})"
    # the small heads: each layer's name, then its heads, titled by what they do
    small = small_titles(at)
    assert small[:2] == ["layer 0", "layer 1"]
    assert small[3] == "head 1 / previous token / score 1.00"
    assert small[2] == "head 0 / other pattern / scores < 0.3"


def test_step_zero_shows_the_initial_weights_and_no_role() -> None:
    at = opened(step="0")
    assert at.select_slider(key="step").value == 0
    for s, w in zip(patterns_shown(at), expected_patterns(0)):
        _same_pattern(s, w)
    assert all(title.endswith(": other pattern (scores < 0.3)") for title in titles_shown(at))
    assert all(title.endswith(" / scores < 0.3") for title in small_titles(at)[2:])
    assert at.radio(key="focus").value == "L1H1"  # the same head drawn large at every step
    _same_pattern(large_shown(at), expected_patterns(0)[5])
    assert not np.allclose(patterns_shown(at)[1], expected_patterns(None)[1])


def test_the_top_five_predictions_are_llm_top_predictions() -> None:
    at = opened(step="1000")
    model = llm.load_model(step=1000)
    ids = model.encode(DEFAULT)
    top = llm.top_predictions(model, llm.run_model(model, ids), len(ids) - 1)
    bars = figure(at, "predictions")["data"][0]
    assert bars["x"] == [f"“{w}”" for w, _ in top]  # quoted under their bars
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
    # the chosen step: the dashed line in every plot, where the step's style puts it
    bodies = [e.proto.body for e in at.get("html")]
    (at_pct,) = re.findall(r"--mark-x: ([\d.]+)%", "".join(b for b in bodies if "<style>" in b))
    lo, hi = loss["data"][0]["x"][0] - 1, loss["data"][0]["x"][-1] + 1  # line_panels' x range
    assert lo + float(at_pct) / 100 * (hi - lo) == pytest.approx(450, abs=0.01)
    charts = "".join(b for b in bodies if "lab-lines" in b)
    assert charts.count('class="mark moving"') == charts.count('class="ln-plot"') == 5
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
    # the frame drew its sidebar: the language and the page list, without the lab's settings
    # this page does not use
    assert at.sidebar.segmented_control(key="lang").value == "en"
    assert "10. Learned heads" in page_list(at)[0]
    assert not shown_settings(at)
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
    assert figure(at, "predictions")["data"][0]["x"] == [f"“{w}”" for w, _ in top]
    assert "After “the·2” (position 4)" in shown_text(at)


def test_the_head_drawn_large_is_in_the_link() -> None:
    at = opened(focus="L0H1", step="450")
    assert at.radio(key="focus").value == "L0H1"
    want = expected_patterns(450)
    _same_pattern(large_shown(at), want[1])
    large = figure(at, "patterns")["layout"]["annotations"][0]["text"]
    assert large.startswith("<b>layer 0 · head 1</b><br>")
    # the small heads outline the one drawn large, and only it
    outlined = [head["layout"]["outlined"] for head in figure_pieces(at, "patterns-all")]
    assert outlined == [k == 1 for k in range(8)]
    assert not at.warning


def test_picking_a_head_writes_it_to_the_link_and_redraws_the_large_head() -> None:
    at = open_link(PAGE)
    at.radio(key="focus").set_value("L0H2").run()
    assert at.query_params["focus"] == "L0H2"
    _same_pattern(large_shown(at), expected_patterns(None)[2])
    at.radio(key="focus").set_value("L1H1").run()  # the default: the link leaves it out
    assert "focus" not in at.query_params


@pytest.mark.parametrize("focus", ["L2H0", "L0H4", "zzz", "1.1", "<b>x</b>", ""])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_head_that_is_not_the_model_s_is_repaired(focus: str, lang: str) -> None:
    at = opened(focus=focus, lang=lang)
    assert at.radio(key="focus").value == "L1H1"
    _same_pattern(large_shown(at), expected_patterns(None)[5])
    warning = "\n".join(w.value for w in at.warning)
    options = "L0H0, L0H1, L0H2, L0H3, L1H0, L1H1, L1H2, L1H3"
    if lang == "en":
        assert f"is not one of the model's heads ({options}); using L1H1" in warning
    else:
        assert f"n’est pas une des têtes du modèle ({options})\u00a0; on prend L1H1" in warning
    assert "<b>" not in warning  # a link's text is never HTML


def test_the_class_link_carries_the_head_drawn_large() -> None:
    # presenter mode's QR code: the page's own values that differ from their defaults
    at = opened(present="true", focus="L0H1", step="450")
    link = parse_qs(urlsplit(at.code[0].value).query)
    assert link["focus"] == ["L0H1"] and link["step"] == ["450"]
    assert "focus" not in parse_qs(urlsplit(opened(present="true").code[0].value).query)


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
    """A head's cell side (px) and its numbers' size (px; 0: none), from its figure, or from
    its heatmap table as the page shows it."""
    layout = spec["layout"]
    if "cell_px" in layout:
        return layout["cell_px"], spec["data"][0]["textfont"]["size"]
    inner = layout["width"] - layout["margin"]["l"] - layout["margin"]["r"]
    left, right = layout["xaxis"]["domain"]
    return (right - left) * inner / n, spec["data"][0].get("textfont", {}).get("size", 0)


# the columns a class's screens give a chart (CSS px): 1280 × 720 at 150 % (521), 1024 × 768
# with the sidebar (564), 1280 × 720 (820) and a phone (358)
ZOOMED, BESIDE_SIDEBAR, SCREEN, PHONE = 521, 564, 820, 358
CLASS_CELL_PX, CLASS_NUMBER_PX = 32, 12  # the lab's classroom sizes (tests/e2e/test_e2e_sizes.py)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_large_head_keeps_the_class_sizes_in_the_zoomed_column(lang: str) -> None:
    # 13 tokens, more than the chapters' 8: 32 px cells and 13 px numbers, the figure at most
    # 521 px wide; beside the picker in 1280 × 720's 820 px column
    at = opened(lang=lang)
    shown = figure(at, "patterns")
    assert _cells(shown) == (32.0, 13) and CLASS_NUMBER_PX <= 13
    # the colour scale lies over the cells, titled
    assert shown["layout"]["lying_bar"]["title"] == TEXT[lang]["scale"]
    assert shown["layout"]["coloraxis"] == {"cmin": 0.0, "cmax": 1.0}
    large, small, markup = plans(lang=lang)
    assert _cells(large) == (32.0, 13)  # what the table draws is the plan
    assert large["layout"]["width"] <= ZOOMED
    assert not large["layout"]["coloraxis"].get("showscale", True)  # the bar stands above
    # the small heads: a row a layer, without numbers, 8 px cells 1 px apart (104 px for 13
    # tokens): four heads' cells and their gaps inside the zoomed column; as the page draws them
    assert markup.count('class="sm-row"') == 2 and len(small) == 8
    assert "<td" not in markup and "<table" not in markup
    assert {head["layout"]["cell_px"] for head in small} == {7.0}
    gap = int(re.search(r'class="sm-row" style="gap:(\d+)px"', markup)[1])
    assert 4 * (13 * 8 - 1) + 3 * gap <= ZOOMED
    fonts = [int(px) for px in re.findall(r'class="lab-small"[^>]*font-size:(\d+)px', markup)]
    assert len(fonts) == 8 and min(fonts) >= 13
    heads = figure_pieces(at, "patterns-all")
    assert [head["layout"]["cell_px"] for head in heads] == [7.0] * 8


def test_every_head_drawn_large_has_the_same_cells() -> None:
    # another head keeps the figure's size: the page does not jump when the picker moves
    sizes = {_cells(figure(opened(focus=focus), "patterns")) for focus in ("L0H0", "L0H1", "L1H3")}
    assert sizes == {(32.0, 13)}
    widths = {plans(focus=place)[0]["layout"]["width"] for place in ((0, 0), (0, 1), (1, 3))}
    assert widths == {plans()[0]["layout"]["width"]}


def test_presenter_mode_keeps_projector_cells_and_large_titles() -> None:
    at = opened(present="true")
    cell, number = _cells(figure(at, "patterns"))
    assert cell >= 48 and number == 16
    large, small, markup = plans(present=True)
    layout = large["layout"]
    assert _cells(large) == (cell, number)
    assert layout["width"] <= 800  # a projector's column with the sidebar open
    title = layout["annotations"][0]
    assert title["font"]["size"] >= 16 and title["text"].startswith("<b>")
    # room over the title: the figure's top margin holds its two lines and more
    assert layout["margin"]["t"] >= 2 * title["font"]["size"] + 16
    # the small heads' cells grow with the text: 10 px for 13 tokens (130 px), four heads'
    # cells and gaps inside a projector's column
    assert {head["layout"]["cell_px"] for head in small} == {9.0}
    gap = int(re.search(r'class="sm-row" style="gap:(\d+)px"', markup)[1])
    assert 4 * (13 * 10 - 1) + 3 * gap <= 800
    body = "".join(e.proto.body for e in at.main.get("html") if "lab-small-heads" in e.proto.body)
    sizes = [int(px) for px in re.findall(r'class="lab-small"[^>]*font-size:(\d+)px', body)]
    assert len(sizes) == 8 and min(sizes) >= 17  # the titles as planned


def test_a_phone_draws_the_heads_inside_its_column() -> None:
    from ui.lessons.learned import focused
    from ui.lessons.learned_maps import heads_markup

    ids = tuple(llm.load_model().encode(DEFAULT))
    steps = llm.load_model().steps
    drawn = {"step": steps[-1], "ids": ids, "lang": "fr", "phone": True, "scale": 1.0}
    large = focused(layer=1, head=1, **drawn)
    assert _cells(large) == (18.0, 0)  # too small for numbers: the folded table holds them
    assert large["layout"]["width"] <= PHONE
    # the small heads wrap in their row: two heads' cells and their gap fit a phone's column
    markup = heads_markup(focus=0, **drawn)
    gap = int(re.search(r'class="sm-row" style="gap:(\d+)px"', markup)[1])
    assert 2 * (13 * 8 - 1) + gap <= PHONE and "flex-wrap: wrap" in SMALL_CSS


def test_the_small_heads_carry_their_values_and_their_names() -> None:
    from ui.lessons.learned import model_run
    from ui.lessons.learned_maps import heads_markup

    ids = tuple(llm.load_model().encode(DEFAULT))
    step = llm.load_model().steps[-1]
    markup = heads_markup(step=step, ids=ids, focus=5, lang="fr", phone=False, scale=1.0)
    found = re.findall(r'<figure class="lab-small".*?</figure>', markup)
    patterns = [h.pattern for layer in model_run(step=step, ids=ids).layers for h in layer.heads]
    masked = np.triu(np.ones((len(ids), len(ids)), dtype=bool), k=1)  # the causal mask's future
    for k, (head, pattern) in enumerate(zip(map(small_shown, found), patterns, strict=True)):
        # every value, NaN on the masked future; the head named by its title's lines, in
        # French with a decimal comma; only the head drawn large outlined
        z = z_of(head)
        assert np.array_equal(np.isnan(z), masked)
        assert np.array_equal(z[~masked], pattern[~masked])
        lines = html.unescape(head["layout"]["annotations"][0]["text"]).split("<br>")
        assert html.unescape(head["alt"]) == " · ".join(
            line.replace("<b>", "").replace("</b>", "") for line in lines
        )
        assert lines[0] == f"<b>tête {k % 4}</b>" and head["layout"]["outlined"] == (k == 5)
        # the cells: an image of a pixel a cell, each in viridis at its value, masked ones grey
        (png,) = re.findall(r'src="data:image/png;base64,([^"]+)"', found[k])
        image = np.asarray(Image.open(io.BytesIO(base64.b64decode(png))))
        grey = np.array([0xC5, 0xC8, 0xD2])  # ui.draw.style.MASKED_COLOUR
        assert image.shape == (len(ids), len(ids), 3) and (image[masked] == grey).all()
        want = cell_colours(pattern, COLOUR_SCALES["Viridis"], 0.0, 1.0)
        assert np.array_equal(image[~masked], want[~masked])
    assert "score 1,00" in markup


def test_a_short_sentence_keeps_the_cells_and_numbers_of_the_lessons() -> None:
    sentence = "sky pen cat hat sky pen cat"
    cell, number = _cells(figure(opened(sentence=sentence), "patterns"), 7)
    assert cell == 40 and number == 13
    large = plans(text=sentence)[0]
    assert _cells(large, 7) == (cell, number) and large["layout"]["width"] <= ZOOMED


def test_a_long_sentence_shrinks_the_large_head_to_its_smallest_cells() -> None:
    words = " ".join(llm.load_model().vocab[:16] * 2)  # the 32 words the model reads at most
    cell, number = _cells(figure(opened(sentence=words), "patterns"), 32)
    # the smallest cells that hold a label, without numbers: inside 1024 × 768's column
    large = plans(text=words)[0]
    assert (cell, number) == _cells(large, 32) == (14.0, 0)
    assert large["layout"]["width"] <= BESIDE_SIDEBAR


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
    from ui.lessons.learned_training import predictions

    at = opened()
    model = llm.load_model()
    ids = tuple(model.encode(DEFAULT))
    drawn = {"step": model.steps[-1], "ids": ids, "position": len(ids) - 1, "lang": "en"}
    spec = predictions(**drawn)
    layout, bars = spec["layout"], spec["data"][0]
    shown = figure(at, "predictions")["data"][0]  # the page's bars: the plan's
    assert shown["x"] == layout["xaxis"]["ticktext"] and shown["y"] == bars["y"]
    assert 400 <= layout["width"] <= ZOOMED
    assert layout["xaxis"]["ticktext"] == [f"“{w}”" for w in bars["x"]]
    assert layout["xaxis"]["tickfont"]["size"] >= 14
    low, high = layout["yaxis"]["range"]
    assert low == 0 and high >= max(bars["y"])
    assert round(high / layout["yaxis"]["dtick"], 9).is_integer()  # a gridline at the top
    fr = figure(opened(lang="fr"), "predictions")["data"][0]["x"]
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
    about, how, *others = at.expander
    assert any(e.label.startswith("Its pattern as a table") for e in others)  # as on a screen
    assert about.label == TEXT["en"]["about_model"]
    assert "trained weights" in about.info[0].value and "No MLP" in about.markdown[0].value
    # how to read the heads folds too: the heads start on a projector's first screen
    assert how.label == TEXT["en"]["read_heads"] and "previous token" in how.markdown[0].value
    sentence, step = at.columns[:2]
    assert sentence.text_input(key="sentence").value == DEFAULT
    assert step.select_slider(key="step").value == llm.load_model().steps[-1]
    plain = opened()
    # folded: the large head's table and the page's questions (predict, then reveal), not the
    # model
    labels = sorted(e.label for e in plain.expander)
    assert len(labels) == 2 and labels[0].startswith("Its pattern as a table")
    assert labels[1] == QUESTION_TEXT["en"]["alone"]
    assert "No MLP" in shown_text(plain) and "(it looks one place back)" in shown_text(plain)


def test_the_large_heads_numbers_are_a_folded_table() -> None:
    """Open, the table holds the large head's pattern (layer 0, head 1, the final step) to 2
    decimals, a row a query and a column a key, the masked future 0."""
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["focus"] = "L0H1"
    at.session_state["learned_pattern_table"] = True
    at.run()
    assert not at.exception, at.exception
    (table,) = tables(at)
    model = llm.load_model()
    ids = model.encode("the cat sat on the mat . the cat sat on the mat")
    pattern = llm.run_model(model, ids).layers[0].heads[1].pattern
    assert list(table.index) == llm.token_labels([model.vocab[i] for i in ids])
    got = table.to_numpy(dtype=float)
    np.testing.assert_allclose(got, pattern, atol=5e-3)
    assert (got[np.triu_indices(len(ids), 1)] == 0.0).all()  # the masked future
