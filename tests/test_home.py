"""AppTest tests of the home page: where the settings are, the steps' table.

tests/e2e/test_e2e_fit.py measures the page in the browser."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest_pages import markdown_rows, open_link
from ui.text.home import TEXT

HOME = "../app.py"


def prose(at: AppTest) -> str:
    return "\n".join(m.value for m in at.main.markdown)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_intro_names_the_sidebar_or_presenter_modes_bar(lang: str) -> None:
    t = TEXT[lang]
    screen, present = (
        prose(open_link(HOME, lang=lang)),
        prose(open_link(HOME, lang=lang, present="true")),
    )
    assert t["intro"].format(where=t["where_sidebar"]) in screen
    assert t["intro"].format(where=t["where_bar"]) in present
    # presenter mode folds the sidebar away: its intro never sends the reader there
    assert t["where_sidebar"] not in present and t["where_bar"] not in screen
    assert "sidebar" not in present and "barre latérale" not in present


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_steps_table_names_each_page_by_its_number(lang: str) -> None:
    # a table of text (its cells wrap), the page column as short as the navigation's numbers:
    # at 150 % zoom the page names made it wider than the 521 px column
    at = open_link(HOME, lang=lang, d_model="64", n_heads="16")
    (table,) = [m.value for m in at.main.markdown if m.value.startswith("| ")]
    header, *steps = markdown_rows(table)
    assert header == [TEXT[lang][c] for c in ("col_step", "col_formula", "col_shape", "col_page")]
    assert [row[3] for row in steps] == ["1", "1", "2", "3", "4", "6", "6", "7", "7"]
    assert "16 × [5 × 4]" in [row[2] for row in steps]
    # a formula's own bar stays in its cell
    assert ["[Z₀ | Z₁ | …]", "[5 × 64]"] in [row[1:3] for row in steps]
