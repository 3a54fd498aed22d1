"""The frame through AppTest: URL values, their checks and messages, presets, language, heads."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import llm
from tests.apptest_pages import (
    hidden_keys,
    html_tables,
    markdown_rows,
    open_link,
    setting_keys,
    shown_settings,
)
from ui.text import num

HOME = "../app.py"
PAGE = "../pages/3_softmax.py"
PAGES_DIR = Path(__file__).parent.parent / "pages"


def open_page(path: str = HOME, **params: str) -> AppTest:
    """Open a page as a shared link does: URL values set before the first run."""
    return open_link(path, **params)


def widget(at: AppTest, key: str):
    return (
        at.sidebar.get_widget(key) if hasattr(at.sidebar, "get_widget") else at.session_state[key]
    )


def values(at: AppTest) -> dict[str, object]:
    ss = at.session_state
    return {key: ss[key] for key in ("text", "d_model", "n_heads", "seed", "causal", "head")}


def warning_text(at: AppTest) -> str:
    return "\n".join(w.value for w in at.warning)


def test_defaults_are_chapter_9() -> None:
    at = open_page()
    assert values(at) == {
        "text": "the cat sat on mat",
        "d_model": 8,
        "n_heads": 4,
        "seed": 0,
        "causal": True,
        "head": 0,
    }
    assert not at.warning


def test_url_values_seed_the_controls() -> None:
    at = open_page(PAGE, d_model="16", n_heads="8", seed="7", causal="false", head="5")
    assert values(at) | {"text": None} == {
        "text": None,
        "d_model": 16,
        "n_heads": 8,
        "seed": 7,
        "causal": False,
        "head": 5,
    }
    assert not at.warning


@pytest.mark.parametrize(
    ("params", "expected", "fragment"),
    [
        ({"d_model": "abc"}, {"d_model": 8}, "“abc” is not a whole number"),
        ({"d_model": "100"}, {"d_model": 8}, "100 is outside 2–64"),
        (
            {"n_heads": "3"},
            {"n_heads": 4},
            "3 heads do not divide d_model 8 (possible: 1, 2, 4, 8)",
        ),
        ({"d_model": "6", "n_heads": "4"}, {"d_model": 6, "n_heads": 3}, "possible: 1, 2, 3, 6"),
        ({"seed": "-1"}, {"seed": 0}, "-1 is outside 0–4294967295"),
        ({"seed": "4294967296"}, {"seed": 0}, "outside 0–4294967295"),
        ({"head": "7"}, {"head": 0}, "head 7 does not exist with 4 heads"),
        ({"causal": "maybe"}, {"causal": True}, "“maybe” is not one of true, false"),
        ({"text": ""}, {"text": "the cat sat on mat"}, "The sentence is empty"),
        ({"text": "a " * 40}, {"text": "the cat sat on mat"}, "40 tokens"),
        ({"text": "x" * 10_000}, {"text": "the cat sat on mat"}, "10000 characters"),
    ],
)
def test_bad_url_value_is_replaced_and_explained(params, expected, fragment) -> None:
    at = open_page(PAGE, **params)
    for key, value in expected.items():
        assert at.session_state[key] == value
    text = warning_text(at)
    assert "Some settings were changed to valid ones" in text
    assert fragment in text
    assert at.get("plotly_chart"), "the page still shows its numbers"


def test_unknown_key_is_reported_and_dropped() -> None:
    at = open_page(PAGE, foo="bar")
    assert "**foo** is not a setting of this lab" in warning_text(at)
    assert "foo" not in at.query_params


def test_handmade_embeddings_need_d_model_4() -> None:
    at = open_page(PAGE, d_model="8", embeddings="handmade")
    assert at.session_state["embeddings"] == "seeded"
    assert "hand-made embeddings have 4 features" in warning_text(at)
    ok = open_page(PAGE, d_model="4", n_heads="1", embeddings="handmade")
    assert ok.session_state["embeddings"] == "handmade"
    assert not ok.warning
    # both choices are on show; the radio is greyed out where only one is possible
    for page, d_model, greyed in ((at, "8", True), (ok, "4", False)):
        radio = page.radio(key="embeddings")
        assert radio.options == ["seeded", "handmade"], d_model
        assert radio.disabled is greyed, d_model


def test_user_text_in_a_message_is_not_markdown() -> None:
    at = open_page(PAGE, **{"[x](javascript:alert(1))": "1"})
    text = warning_text(at)
    assert "\\[x\\]\\(javascript\\:alert\\(1\\)\\)" in text
    assert "[x](javascript" not in text


def test_messages_in_french() -> None:
    at = open_page(PAGE, lang="fr", d_model="abc")
    text = warning_text(at)
    assert "Certains réglages ont été remplacés" in text
    assert "n’est pas un nombre entier" in text


def test_language_switch_changes_sidebar_and_page() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "3. Scale, mask, softmax"
    assert at.sidebar.slider(key="d_model").label.startswith("d_model")
    assert at.sidebar.selectbox(key="n_heads").label == "Number of heads"
    at.session_state["lang"] = "fr"
    at.run()
    assert at.title[0].value == "3. Échelle, masque, softmax"
    assert at.sidebar.selectbox(key="n_heads").label == "Nombre de têtes"


def test_heads_stay_valid_when_d_model_changes() -> None:
    at = open_page(PAGE, n_heads="8", head="7")
    at.sidebar.slider(key="d_model").set_value(6).run()
    assert not at.exception
    assert at.session_state["n_heads"] in llm.divisors(6)
    assert at.sidebar.selectbox(key="n_heads").options == ["1", "2", "3", "6"]
    assert at.session_state["head"] < at.session_state["n_heads"]
    at.sidebar.slider(key="d_model").set_value(7).run()
    assert not at.exception
    assert at.session_state["n_heads"] == 1


def test_presets_reproduce_the_chapters() -> None:
    at = open_page(HOME, d_model="16", n_heads="2", seed="9")
    chapter8 = next(b for b in at.sidebar.button if b.label == "Chapter 8")
    chapter8.click().run()
    assert values(at) | {"embeddings": at.session_state["embeddings"]} == {
        "text": "the cat sat on mat",
        "d_model": 4,
        "n_heads": 1,
        "seed": 0,
        "causal": True,
        "head": 0,
        "embeddings": "handmade",
    }
    chapter9 = next(b for b in at.sidebar.button if b.label == "Chapter 9")
    chapter9.click().run()
    assert values(at)["d_model"] == 8 and values(at)["n_heads"] == 4
    assert at.session_state["embeddings"] == "seeded"


def test_new_seed_draws_a_valid_seed() -> None:
    at = open_page(HOME)
    button = next(b for b in at.sidebar.button if b.label == "New seed")
    button.click().run()
    first = at.session_state["seed"]
    next(b for b in at.sidebar.button if b.label == "New seed").click().run()
    assert 0 <= first <= llm.MAX_SEED
    assert at.session_state["seed"] != first  # two draws from 2**32 values


def test_typed_sentence_errors_are_shown_not_raised() -> None:
    at = open_page(PAGE)
    at.sidebar.text_input(key="text").input("   ").run()
    assert not at.exception
    assert any("The sentence is empty" in e.value for e in at.error)
    at.sidebar.text_input(key="text").input(" ".join(["word"] * 33)).run()
    assert any("33 tokens" in e.value for e in at.error)


def test_home_lists_tokens_and_shapes() -> None:
    at = open_page(HOME, text="The cat saw the cat.", d_model="12", n_heads="3")
    (tokens,) = html_tables(at)
    assert tokens.cols == ["0", "1", "2", "3", "4", "5"] and tokens.rows == []
    assert tokens.cells == [["the", "cat", "saw", "the·2", "cat·2", "."]]
    (table,) = [m.value for m in at.main.markdown if m.value.startswith("| ")]
    shapes = [row[2] for row in markdown_rows(table)]
    assert "3 × [6 × 4]" in shapes and "[6 × 12]" in shapes


def test_numbers_in_french_prose_take_the_decimal_comma() -> None:
    assert num(math.log(5), 2, "fr") == "1,61" and num(math.log(5), 2, "en") == "1.61"
    assert num(-2.8e-17, 1, "fr", "e") == "-2,8e-17"
    assert num(1e-5, 3, "fr", "g") == "1e-5" and num(0.05, 3, "fr", "g") == "0,05"
    assert num(4.0, 0, "fr") == "4"


@pytest.mark.parametrize(
    ("x", "digits", "lang", "kind", "shown"),
    [
        # a number that rounds to zero at the shown digits has no sign
        (-0.0, 3, "en", "f", "0.000"),
        (-1e-17, 3, "en", "f", "0.000"),
        (-1e-17, 3, "fr", "f", "0,000"),
        (-0.0004, 3, "en", "f", "0.000"),
        (-0.0006, 3, "en", "f", "-0.001"),
        (-0.4, 0, "en", "f", "0"),
        (-0.0, 2, "fr", "g", "0"),
        # an exact zero in scientific notation is 0, never 0.0e+00
        (0.0, 1, "en", "e", "0"),
        (-0.0, 1, "fr", "e", "0"),
        # one short exponent: no padding zero, no plus sign
        (2.8e-17, 1, "en", "e", "2.8e-17"),
        (2.8e-17, 1, "fr", "e", "2,8e-17"),
        (-1.4e-17, 1, "en", "e", "-1.4e-17"),
        (3.2e-5, 1, "en", "e", "3.2e-5"),
        (1500.0, 1, "en", "e", "1.5e3"),
        (1e-5, 6, "en", "g", "1e-5"),
        (1e-12, 6, "fr", "g", "1e-12"),
        (0.0001, 6, "en", "g", "0.0001"),
        (1.0, 6, "en", "g", "1"),
        (0.999914, 6, "fr", "f", "0,999914"),
    ],
)
def test_num_writes_one_spelling(x: float, digits: int, lang: str, kind: str, shown: str) -> None:
    assert num(x, digits, lang, kind) == shown


def test_one_word_is_one_token() -> None:
    captions = [c.value for c in open_page(HOME, text="cat").sidebar.caption]
    assert any(c.startswith("1 token · d_model 8 · 4 heads") for c in captions), captions
    french = [c.value for c in open_page(HOME, text="le chat", lang="fr").sidebar.caption]
    assert any(c.startswith("2 tokens · d_model 8 · 4 têtes") for c in french), french


def test_the_report_stays_until_a_setting_changes() -> None:
    at = open_page(PAGE, d_model="abc")
    at.run()  # a rerun with nothing changed, as a component answering after the page is drawn
    assert "“abc” is not a whole number; using 8." in warning_text(at)
    at.sidebar.number_input(key="seed").set_value(3).run()
    assert "Some settings were changed" not in warning_text(at)
    assert at.session_state["d_model"] == 8 and at.session_state["seed"] == 3


# --- the shared settings a page uses -----------------------------------------------------------
LESSONS = [
    "../app.py",
    "../pages/1_qkv.py",
    "../pages/2_scores.py",
    "../pages/3_softmax.py",
    "../pages/4_mix.py",
    "../pages/5_heads.py",
    "../pages/6_concat.py",
    "../pages/7_layernorm.py",
    "../pages/8_depth.py",
    "../pages/9_code.py",
]
LEARNED = "../pages/10_learned.py"


def test_the_learned_heads_page_draws_none_of_the_labs_settings() -> None:
    at = open_page(LEARNED)
    assert shown_settings(at) == set()
    # nor the caption that said they did nothing there; the language and the page list stay
    shown = "\n".join(c.value for c in at.main.caption)
    assert "d_model" not in shown and "do not apply" not in shown
    assert at.sidebar.segmented_control(key="lang").value == "en"
    # the settings' title is drawn in its place too, hidden with the settings' box
    assert "settings" in hidden_keys(at)
    assert at.sidebar.caption[0].value == "Copy the address bar to share these exact numbers."


@pytest.mark.parametrize("path", LESSONS)
def test_every_other_page_draws_every_shared_setting(path: str) -> None:
    at = open_page(path, d_model="6", n_heads="2", seed="3", text="a cat")
    keys = setting_keys(at)
    assert {"d_model", "n_heads", "seed", "text", "causal", "head"} <= keys, path
    assert (
        at.sidebar.slider(key="d_model").value == 6
        and at.sidebar.number_input(key="seed").value == 3
    )
    assert [b.key for b in at.sidebar.button] == ["preset_chapter8", "preset_chapter9", "new_seed"]


def test_settings_not_drawn_stay_in_the_link_and_reach_the_next_page() -> None:
    # a new session opens /learned's link, then goes on to a lesson page
    at = AppTest.from_file(HOME, default_timeout=30).switch_page("pages/10_learned.py")
    at.query_params.update({"seed": "7", "d_model": "16", "causal": "false"})
    at.run()
    assert not at.exception and setting_keys(at) == set()
    # kept in the session for the next page's widgets, and in this page's link
    assert (at.session_state["seed"], at.session_state["d_model"]) == (7, 16)
    assert at.session_state["causal"] is False and at.session_state["n_heads"] == 4
    assert at.query_params["seed"] == "7" and at.query_params["d_model"] == "16"
    assert "n_heads" not in at.query_params  # 4 is d_model 16's default count
    at.switch_page("pages/3_softmax.py").run()
    assert not at.exception
    assert at.sidebar.slider(key="d_model").value == 16
    assert at.sidebar.number_input(key="seed").value == 7
    assert at.sidebar.toggle(key="causal").value is False
    assert at.query_params["seed"] == "7" and at.query_params["d_model"] == "16"
    assert at.query_params["causal"] == "false"
    # the numbers are those of the settings the link carried
    assert any("d_model 16 · 4 heads · d_head 4 · seed 7" in c.value for c in at.sidebar.caption)


def test_a_bad_setting_not_drawn_is_kept_at_its_default() -> None:
    at = open_page(LEARNED, d_model="5", n_heads="4", head="9")
    # d_model 5 with 4 heads: the count falls back to d_model's default, the head to 0
    assert at.session_state["d_model"] == 5 and at.session_state["n_heads"] == 1
    assert at.session_state["head"] == 0
    assert "n_heads" not in at.query_params and "head" not in at.query_params


def widget_places(block: object, path: tuple[int, ...] = ()) -> dict[str, tuple[int, ...]]:
    """Each keyed widget under ``block`` by its place: the child indices from ``block`` down."""
    places = {}
    for index, child in getattr(block, "children", {}).items():
        key = getattr(child, "key", None)
        if key is not None and getattr(child, "id", None) is not None:
            places[key] = (*path, index)
        places |= widget_places(child, (*path, index))
    return places


# the widgets a link binds (the presets and the embeddings leave an empty slot where not used)
SHARED_WIDGETS = {"lang", "d_model", "n_heads", "seed", "new_seed", "text", "causal", "head"}
SHARED_WIDGETS.add("present")


@pytest.mark.parametrize("present", ["false", "true"])
def test_every_shared_widget_stands_in_one_place_on_every_page(present: str) -> None:
    # the browser drops the link binding of a widget drawn in another place than on the page
    # before: a move from /learned, which uses no setting, to /softmax lost d_model from the link
    places = {}
    for path in ("../app.py", *(f"../pages/{p.name}" for p in sorted(PAGES_DIR.glob("*.py")))):
        at = open_page(path, present=present)
        found = widget_places(at.sidebar) | widget_places(at.main, (-1,))
        places[path] = {key: found.get(key) for key in SHARED_WIDGETS}
    first = places["../app.py"]
    assert all(place is not None for place in first.values()), first
    assert all(found == first for found in places.values()), places


def test_the_first_run_freezes_what_the_imports_made_and_later_objects_are_collected() -> None:
    import gc
    import weakref

    from ui.frame import heap

    heap.freeze_imports.cache_clear()
    gc.unfreeze()
    open_page(PAGE)
    frozen = gc.get_freeze_count()
    # streamlit, plotly, numpy and the lab's modules: tens of thousands of objects
    assert frozen > 20_000
    open_page(HOME)
    assert gc.get_freeze_count() <= frozen  # once a process: none frozen since, some freed

    class Node:
        pass

    # a cycle made after the freeze is still found and freed by a collection
    node = Node()
    node.self = node
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None
