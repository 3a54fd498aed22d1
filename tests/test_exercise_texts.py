"""The texts of the "Your turn" cells: complete, and templates that fit the cell and the checker."""

from __future__ import annotations

import ast
import re

import pytest

from exercises import BY_ID, CELLS
from exercises.cells import MAX_CHECKED_LAYERS
from ui.text import LANGS
from ui.text.exercise import TEXT as TURN
from ui.text.exercises import CELLS as TEXTS

KEYS = ("title", "instructions", "template", "hint")
MATH_ATTRIBUTES = {"exp", "log", "sqrt"}
CASES = [(cell.id, lang) for cell in CELLS for lang in LANGS]


def parse(cell_id: str, lang: str) -> ast.Module:
    return ast.parse(TEXTS[cell_id][lang]["template"])


def test_one_text_per_cell_in_both_languages() -> None:
    assert list(TEXTS) == [cell.id for cell in CELLS]
    for cell_id, langs in TEXTS.items():
        assert set(langs) == set(LANGS), cell_id


@pytest.mark.parametrize(("cell_id", "lang"), CASES)
def test_four_non_empty_texts(cell_id: str, lang: str) -> None:
    texts = TEXTS[cell_id][lang]
    assert set(texts) == set(KEYS)
    for key in KEYS:
        assert isinstance(texts[key], str) and texts[key].strip(), (cell_id, lang, key)


@pytest.mark.parametrize(("cell_id", "lang"), CASES)
def test_template_defines_exactly_the_cells_function(cell_id: str, lang: str) -> None:
    cell = BY_ID[cell_id]
    template = TEXTS[cell_id][lang]["template"]
    tree = parse(cell_id, lang)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    assert len(tree.body) == 1 and functions == tree.body
    (function,) = functions
    assert function.name == cell.function
    args = function.args
    assert tuple(a.arg for a in args.args) == cell.params
    assert not (args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg)
    assert not args.defaults
    assert template.splitlines()[0] == cell.signature()


@pytest.mark.parametrize(("cell_id", "lang"), CASES)
def test_template_body_is_a_comment_block_then_the_placeholder(cell_id: str, lang: str) -> None:
    template = TEXTS[cell_id][lang]["template"]
    assert template.endswith("\n") and not template.endswith("\n\n")
    assert len(template) < 1500
    lines = template.splitlines()[1:]
    comments, last = lines[:-1], lines[-1]
    assert len(comments) >= 5
    assert all(line.startswith("    #") for line in comments), (cell_id, lang)
    assert all(line == line.rstrip() for line in lines)
    (function,) = parse(cell_id, lang).body
    (statement,) = function.body
    assert isinstance(statement, ast.Return)
    if cell_id == "add_norm":  # the chapter's `return sublayerOutput;`
        assert last == "    return sublayer_out"
        assert isinstance(statement.value, ast.Name) and statement.value.id == "sublayer_out"
    else:
        assert last == "    return []"
        assert isinstance(statement.value, ast.List) and not statement.value.elts


@pytest.mark.parametrize(("cell_id", "lang"), CASES)
def test_template_stays_in_the_checkers_language(cell_id: str, lang: str) -> None:
    tree = parse(cell_id, lang)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert isinstance(node.value, ast.Name) and node.value.id == "math", ast.dump(node)
            assert node.attr in MATH_ATTRIBUTES, ast.dump(node)
        assert not isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Lambda))
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.FunctionDef):
            names = [node.name]
        for name in names:
            assert name == "_" or not name.startswith("_"), name


@pytest.mark.parametrize("cell_id", [cell.id for cell in CELLS])
def test_languages_differ_only_in_comments(cell_id: str) -> None:
    assert ast.dump(parse(cell_id, "en")) == ast.dump(parse(cell_id, "fr"))
    en, fr = (TEXTS[cell_id][lang]["template"] for lang in ("en", "fr"))
    assert en != fr  # the comments are translated
    assert en.splitlines()[0] == fr.splitlines()[0]
    assert en.splitlines()[-1] == fr.splitlines()[-1]


@pytest.mark.parametrize(("cell_id", "lang"), CASES)
def test_instructions_name_the_function_and_its_helpers(cell_id: str, lang: str) -> None:
    cell = BY_ID[cell_id]
    texts = TEXTS[cell_id][lang]
    assert f"`{cell.function}({', '.join(cell.params)})`" in texts["instructions"]
    for helper in cell.helpers:
        assert f"`{helper}(" in texts["instructions"], helper
        assert f"{helper}(" in texts["template"], helper
    hidden = {"en": "hidden random cases", "fr": "cas aléatoires cachés"}[lang]
    current = {"en": "current settings", "fr": "réglages actuels"}[lang]
    assert hidden in texts["instructions"] and current in texts["instructions"]


@pytest.mark.parametrize("lang", LANGS)
def test_templates_spell_out_the_tricky_cases(lang: str) -> None:
    softmax = TEXTS["softmax"][lang]["template"]
    assert 'float("-inf")' in softmax and "-1e9" in softmax
    assert "True" in softmax and "False" in softmax
    entropy = TEXTS["entropy"][lang]["template"]
    assert "0 * log(0)" in entropy and "p = 0" in entropy
    assert "eps" in TEXTS["add_norm"][lang]["template"]
    assert "j <= i" in TEXTS["attention"][lang]["template"]


def prose(text: str) -> str:
    """The text without its code spans."""
    return re.sub(r"`[^`]*`", "", text)


@pytest.mark.parametrize("cell_id", [cell.id for cell in CELLS])
def test_french_typography(cell_id: str) -> None:
    texts = TEXTS[cell_id]["fr"]
    comments = "\n".join(
        line for line in texts["template"].splitlines() if line.lstrip().startswith("#")
    )
    for text in (texts["title"], texts["instructions"], texts["hint"], comments):
        assert not re.search(r"[^\s][:;?!](\s|$)", prose(text)), (cell_id, text)
    for key in ("title", "instructions", "hint"):
        assert "'" not in prose(texts[key]), (cell_id, key)
    assert not re.search(r"\w'\w", comments), cell_id  # l’entrée, not l'entrée
    assert texts["title"].startswith("À toi\u00a0: ")  # a no-break space before the colon
    assert TEXTS[cell_id]["en"]["title"].startswith("Your turn: ")


@pytest.mark.parametrize("lang", LANGS)
def test_the_depth_cell_says_what_it_checks(lang: str) -> None:
    texts = TEXTS["depth"][lang]
    up_to = {"en": "up to {n}", "fr": "jusqu’à {n}"}[lang].format(n=MAX_CHECKED_LAYERS)
    assert up_to in texts["instructions"]
    assert "`matmul(x, ws[l])`" in texts["instructions"]
    assert (
        "matmul(x, ws[l])" in texts["template"]
        and "x = LayerNorm(x + sublayer(x))" in (texts["template"])
    )
    assert "layer_norm(add(x, matmul(x, w)), eps)" in texts["hint"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_usual_mistake_has_its_own_message(lang: str) -> None:
    for cell in CELLS:
        for mistake in cell.mistakes:
            assert f"mistake_{mistake.code}" in TURN[lang], (cell.id, mistake.code)
    assert set(TURN["en"]) == set(TURN["fr"])
