"""The "Your turn" panel of every lesson page, through AppTest: editor, Check, verdicts."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

import exercises as ex
import sandbox
from exercises import seal
from tests.apptest_pages import PAGES, page_list
from ui.text.exercises import CELLS
from ui.turn import progress
from ui.turn.panel import verdict_text

LESSONS = {**PAGES, "depth": "../pages/8_depth.py"}
PAGE_OF = {cell.id: page for page in LESSONS for cell in ex.CELLS if cell.page == page}


def open_page(cell_id: str, **link: str) -> AppTest:
    at = AppTest.from_file(LESSONS[PAGE_OF[cell_id]], default_timeout=30)
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def check(at: AppTest, cell_id: str, code: str) -> AppTest:
    at.text_area(key=f"code_{cell_id}").set_value(code)
    at.button(key=f"check_{cell_id}").click()
    at.run()
    assert not at.exception, at.exception
    return at


def shown(element) -> str:
    """An element's markdown as the reader sees it: backslash escapes removed."""
    return re.sub(r"\\(.)", r"\1", element.value)


def sidebar_text(at: AppTest) -> str:
    """The page list's labels and the line under them, one a line."""
    labels, note = page_list(at)
    return "\n".join([*labels, note])


@pytest.mark.parametrize("cell_id", [cell.id for cell in ex.CELLS])
def test_every_lesson_page_has_its_cell_prefilled_with_the_template(cell_id: str) -> None:
    at = open_page(cell_id)
    editor = at.text_area(key=f"code_{cell_id}")
    assert editor.value == CELLS[cell_id]["en"]["template"]
    assert editor.value.startswith(ex.BY_ID[cell_id].signature())
    assert CELLS[cell_id]["en"]["title"] in [h.value for h in at.header]
    assert not at.error
    assert not [e for e in at.success if "cases pass" in e.value]  # no verdict before a check


@pytest.mark.parametrize("cell_id", ["scores", "add_norm"])
def test_the_solution_is_sent_only_once_its_section_is_opened(cell_id: str) -> None:
    solution = ex.BY_ID[cell_id].solution_source().strip()
    at = open_page(cell_id)
    assert solution not in [block.value.strip() for block in at.main.code]
    at.session_state[f"solution_{cell_id}"] = True  # the student opens "Show the solution"
    at.run()
    assert solution in [block.value.strip() for block in at.main.code]


def test_the_solution_passes_and_the_navigation_marks_the_page() -> None:
    at = open_page("add_norm")
    assert f"0 of {len(ex.CELLS)}" in sidebar_text(at)
    check(at, "add_norm", ex.BY_ID["add_norm"].solution_source())
    assert [e.value for e in at.success] == [
        "Correct: all 3 cases pass, the current settings of the page and 2 hidden cases of "
        "other shapes."
    ]
    assert f"1 of {len(ex.CELLS)}" in sidebar_text(at)
    # the frame's page list: the solved page carries a check mark, the others do not
    labels, note = page_list(at)
    assert [label for label in labels if "✓" in label] == ["7. Residual + LayerNorm ✓"]
    assert note == f"Your turn: 1 of {len(ex.CELLS)} cells solved"


def test_a_usual_mistake_gets_its_own_message() -> None:
    source = (
        ex.BY_ID["add_norm"].solution_source().replace(") / len(row)  #", ") / (len(row) - 1)  #")
    )
    assert "(len(row) - 1)" in source
    at = check(open_page("add_norm"), "add_norm", source)
    (error,) = at.error
    assert "Case 1 of 3, the current settings of the page: x [5 × 8]" in shown(error)
    assert "n − 1" in shown(error) and "population variance" in shown(error)
    assert f"0 of {len(ex.CELLS)}" in sidebar_text(at)


def test_a_wrong_value_names_the_first_differing_cell() -> None:
    at = check(
        open_page("qkv"), "qkv", "def matmul(x, w):\n    return [[0.0] * len(w[0]) for r in x]\n"
    )
    (error,) = at.error
    assert "first cell that differs is row 0, column 0" in shown(error)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("def matmul(x, w):\n    return ().__class__.__bases__\n", "is not allowed"),
        ("def matmul(x, w):\n    out = []\n    out.extend(x)\n", "one list method, `.append`"),
        ("import numpy as np\ndef matmul(x, w):\n    return x\n", "Only `import math` is allowed"),
        ("def matmul(x, w):\n    return open('/etc/passwd')\n", "`open` is not defined"),
        ("def matmul(x, w)\n    return x\n", "Syntax error on line 1"),
        ("def matmul(x, w):\n    while True:\n        x = x\n", "Too slow"),
        ("def matmul(x, w):\n    return [0] * 10 ** 9\n", "too large"),
        ("def mat(x, w):\n    return x\n", "does not define the function `matmul`"),
        ("def matmul(x, w):\n    return x[99]\n", "Line 2: an index is out of range"),
    ],
)
def test_bad_code_gets_a_clear_message_and_the_page_keeps_working(code: str, words: str) -> None:
    at = check(open_page("qkv"), "qkv", code)
    (error,) = at.error
    assert words in shown(error)
    check(at, "qkv", ex.BY_ID["qkv"].solution_source())
    assert at.success and not at.error


def test_typed_markup_is_shown_as_text() -> None:
    at = check(
        open_page("qkv"), "qkv", "def matmul(x, w):\n    return <img src=x onerror=alert(1)>\n"
    )
    (error,) = at.error
    assert "Syntax error on line 2" in shown(error)
    # whatever text a message carries from the learner's code is escaped or kept in a code span
    verdict = ex.Verdict(
        False,
        "error",
        {"error": "syntax", "line": 2, "message": "<img src=x onerror=alert(1)> [a](javascript:x)"},
    )
    _, text = verdict_text(verdict, "en")
    assert re.search(r"(?<!\\)[<\[]", text) is None  # every < and [ is backslash-escaped
    assert "\\<img src\\=x onerror\\=alert\\(1\\)\\>" in text
    construct = "constant `'<b>[x](y)'`"
    params = {"error": "not_allowed", "line": 2, "construct": construct}
    verdict = ex.Verdict(False, "error", params)
    assert verdict_text(verdict, "en")[1] == (
        "Line 2: constant `'<b>[x](y)'` is not allowed in the checker."
    )
    verdict = ex.Verdict(False, "error", {"error": "unknown_name", "line": 3, "name": "a`<b>`c"})
    assert "`a'<b>'c`" in verdict_text(verdict, "en")[1]  # one code span: no markup inside


def test_french_page_has_the_french_template_and_messages() -> None:
    at = open_page("softmax", lang="fr")
    assert at.text_area(key="code_softmax").value == CELLS["softmax"]["fr"]["template"]
    check(at, "softmax", "def scale_mask_softmax(scores, d_k, causal):\n    return []\n")
    (error,) = at.error
    assert "Mauvaise forme\u00a0: attendu [5 × 5], reçu [0 × 0]." in shown(error)


def test_an_untouched_template_follows_the_language_and_own_code_stays() -> None:
    at = open_page("mix")
    at.sidebar.segmented_control(key="lang").set_value("fr").run()
    assert at.text_area(key="code_mix").value == CELLS["mix"]["fr"]["template"]
    at.text_area(key="code_mix").set_value("def mix_values(pattern, v):\n    return v\n").run()
    at.sidebar.segmented_control(key="lang").set_value("en").run()
    assert at.text_area(key="code_mix").value == "def mix_values(pattern, v):\n    return v\n"


def test_start_again_restores_the_template_and_clears_the_verdict() -> None:
    at = check(open_page("scores"), "scores", "def attention_scores(q, k):\n    return 1\n")
    assert at.error
    at.button(key="reset_scores").click().run()
    assert at.text_area(key="code_scores").value == CELLS["scores"]["en"]["template"]
    assert not at.error


def test_the_check_uses_the_page_settings() -> None:
    # head 3 without the mask: the current case is that head's scores, unmasked
    at = open_page("softmax", head="3", causal="false", seed="4")
    check(at, "softmax", ex.BY_ID["softmax"].solution_source())
    assert at.success
    masked_always = (
        ex.BY_ID["softmax"].solution_source().replace("(j <= i or not causal)", "j <= i")
    )
    check(at, "softmax", masked_always)
    (error,) = at.error
    assert "Case 1 of 5" in shown(error) and "causal = False" in shown(error)


def test_a_runtime_error_shows_its_line_of_code() -> None:
    code = "def matmul(x, w):\n    n = len(x)\n    return x[n] * 2\n"
    at = check(open_page("qkv"), "qkv", code)
    (error,) = at.error
    assert "Line 3: an index is out of range" in shown(error)
    assert "return x[n] * 2" in [c.value for c in at.code]


# --- the work this browser keeps (ui.turn.progress) ---------------------------------------------

WRONG_SCORES = "def attention_scores(q, k):\n    return [[0.0 for b in k] for a in q]\n"
OWN_QKV = "def matmul(x, w):\n    return x\n"


def report(at: AppTest, entries: object, token: str | None = None) -> AppTest:
    """The browser's store reports what it kept (as its component would), then the page reruns."""
    token = at.session_state[progress.ASK] if token is None else token
    at.session_state[progress.STORE_KEY] = {"saved": {"token": token, "entries": entries}}
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_browser_keeps_the_work_under_the_name_it_always_had() -> None:
    """A new name would leave every learner's kept work behind, in their browser."""
    assert progress.STORE == "attention-lab/work/v1"


def test_a_pass_is_sealed_for_the_browser_and_an_edit_is_kept() -> None:
    solution = ex.BY_ID["add_norm"].solution_source()
    at = check(open_page("add_norm"), "add_norm", solution)
    entry = at.session_state[progress.WORK]["add_norm"]
    assert entry["code"] == entry["passed"] == solution
    assert seal.opens(progress._key(), "add_norm", solution, entry["seal"])
    assert not seal.opens(progress._key(), "add_norm", solution + "\n", entry["seal"])
    assert not seal.opens(progress._key(), "qkv", solution, entry["seal"])
    # an edit after the pass keeps the pass; a template is not the learner's work
    edited = solution.replace("return", "return  ")
    at.text_area(key="code_add_norm").set_value(edited).run()
    assert at.session_state[progress.WORK]["add_norm"] == {**entry, "code": edited}
    at.button(key="reset_add_norm").click().run()
    template = CELLS["add_norm"]["en"]["template"]
    assert at.session_state[progress.WORK]["add_norm"] == {**entry, "code": template}
    at = open_page("qkv")
    at.text_area(key="code_qkv").set_value(CELLS["qkv"]["fr"]["template"]).run()
    assert "qkv" not in at.session_state[progress.WORK]


def test_the_browsers_copy_comes_back_and_only_trusted_passes_get_a_check_mark() -> None:
    at = open_page("qkv")
    assert "0 of" in sidebar_text(at)
    right = ex.BY_ID["qkv"].solution_source()
    softmax = ex.BY_ID["softmax"].solution_source()
    entries = {
        "qkv": {"code": right, "passed": right, "seal": seal.seal(progress._key(), "qkv", right)},
        # a forged seal on code that fails: the code comes back, without a check mark
        "scores": {"code": WRONG_SCORES, "passed": WRONG_SCORES, "seal": "0" * 64},
        # a seal of another server (or version) on code that passes: checked again, solved
        "softmax": {"code": softmax, "passed": softmax, "seal": "f" * 64},
        # what a browser may hold but the app never wrote: left alone
        "mix": {"code": 3},
        "entropy": {"code": "x" * (sandbox.MAX_SOURCE + 1)},
        "nope": {"code": "def f():\n    return 1\n"},
        "combine": "not an entry",
    }
    at = report(at, entries)
    assert at.text_area(key="code_qkv").value == right
    assert "2 of" in sidebar_text(at)
    assert at.session_state[progress.PASSED] == {"qkv", "softmax"}
    assert [c.value for c in at.main.caption if "solved this cell before" in c.value]
    work = at.session_state[progress.WORK]
    assert set(work) == {"qkv", "scores", "softmax"}
    assert work["scores"] == {"code": WRONG_SCORES}  # the forged seal is dropped
    assert seal.opens(progress._key(), "softmax", softmax, work["softmax"]["seal"])
    assert at.session_state[progress.ASK] == ""
    # the copy is read once a session: a second report changes nothing
    report(at, {"mix": {"code": "def mix_values(pattern, v):\n    return v\n"}}, token="other")
    assert "mix" not in at.session_state[progress.WORK]
    assert at.session_state["code_scores"] == WRONG_SCORES  # the editor of page 2, once drawn


def test_a_late_copy_never_replaces_what_the_learner_typed_in_this_session() -> None:
    at = open_page("mix")
    own = "def mix_values(pattern, v):\n    return v\n"
    at.text_area(key="code_mix").set_value(own).run()
    report(at, {"mix": {"code": "def mix_values(pattern, v):\n    return []\n"}})
    assert at.text_area(key="code_mix").value == own
    assert at.session_state[progress.WORK]["mix"] == {"code": own}


def test_kept_code_outlasts_the_browsers_old_editor_and_start_again_clears_it() -> None:
    own = "def mix_values(pattern, v):\n    return v\n"
    template = CELLS["mix"]["en"]["template"]
    at = report(open_page("mix"), {"mix": {"code": own}})
    assert at.text_area(key="code_mix").value == own
    # a run the browser asked for before the restore reached it: its editor as it was, the
    # template; the kept code is put back, and the browser is not told to forget it
    at.text_area(key="code_mix").set_value(template).run()
    assert at.text_area(key="code_mix").value == own
    assert at.session_state[progress.WORK]["mix"] == {"code": own}
    assert "mix" not in at.session_state[progress.PUT]
    # Start again is the learner's: the template stays, and the browser forgets the code
    at.button(key="reset_mix").click().run()
    assert at.text_area(key="code_mix").value == template
    assert "mix" not in at.session_state[progress.WORK]
    at.run()
    assert at.text_area(key="code_mix").value == template
    # an edit after a restore is the learner's own work, kept as any edit
    at = report(open_page("mix"), {"mix": {"code": own}})
    edited = own.replace("v\n", "pattern\n")
    at.text_area(key="code_mix").set_value(edited).run()
    assert at.session_state[progress.WORK]["mix"] == {"code": edited}
    at.text_area(key="code_mix").set_value(template).run()
    assert at.text_area(key="code_mix").value == template
    assert "mix" not in at.session_state[progress.WORK]


def test_an_empty_or_broken_copy_changes_nothing() -> None:
    for entries in ({}, None, [], "x"):
        at = report(open_page("qkv"), entries)
        assert at.text_area(key="code_qkv").value == CELLS["qkv"]["en"]["template"]
        assert "0 of" in sidebar_text(at)
        assert at.session_state[progress.ASK] == ""


def test_a_client_that_never_reports_is_asked_a_few_runs_only() -> None:
    at = open_page("qkv")
    for _ in range(progress.ASK_RUNS):
        at.run()
    assert at.session_state[progress.ASK] == ""
    assert "0 of" in sidebar_text(at)
    # its work is still offered to the browser's store, as it changes
    at.text_area(key="code_qkv").set_value(OWN_QKV).run()
    assert at.session_state[progress.WORK]["qkv"] == {"code": OWN_QKV}
    assert at.session_state[progress.PUT] == {}  # sent with that run


def store_batches(at: AppTest) -> list[dict]:
    """What each store element of the last run sends the browser: its numbered batch."""
    batches = []
    for element in at.get("bidi_component"):
        if element.proto.component_name == "attention_lab.local_store":
            data = json.loads(element.proto.json)
            batches.append({"put": json.loads(data["put"]), "seq": data["seq"]})
    return batches


def test_a_change_is_written_in_its_run_and_once_more_with_the_next_at_its_current_value() -> None:
    at = open_page("qkv")
    for _ in range(progress.ASK_RUNS):  # past the runs that ask for the browser's copy
        at.run()
    assert store_batches(at) == []
    at.text_area(key="code_qkv").set_value(OWN_QKV).run()
    (first,) = store_batches(at)
    assert first["put"] == {"qkv": {"code": OWN_QKV}}
    at.run()
    (again,) = store_batches(at)
    assert again == {"put": {"qkv": {"code": OWN_QKV}}, "seq": first["seq"] + 1}
    at.run()
    assert store_batches(at) == []  # once only
    # back to the template: the entry is removed, and the removal sent once more too
    at.text_area(key="code_qkv").set_value(CELLS["qkv"]["en"]["template"]).run()
    assert [b["put"] for b in store_batches(at)] == [{"qkv": None}]
    at.run()
    assert [b["put"] for b in store_batches(at)] == [{"qkv": None}]


def test_the_depth_page_checks_the_recipe_on_its_own_layers() -> None:
    solution = ex.BY_ID["depth"].solution_source()
    pre_ln = solution.replace(
        "layer_norm(add(x, matmul(x, w)), eps)", "add(x, matmul(layer_norm(x, eps), w))"
    )
    assert pre_ln != solution
    at = check(open_page("depth", layers="3"), "depth", pre_ln)
    (error,) = at.error
    assert "Case 1 of 5, the current settings of the page: x [5 × 8], ws 3 × [8 × 8]" in (
        shown(error)
    )
    assert "Pre-LN" in shown(error)
    check(at, "depth", solution)
    assert [e.value for e in at.success] == [
        "Correct: all 5 cases pass, the current settings of the page and 4 hidden cases of "
        "other shapes."
    ]
    assert f"1 of {len(ex.CELLS)}" in sidebar_text(at)


def test_the_editor_grows_with_its_starter_codes_lines() -> None:
    from ui.turn.panel import (
        CHROME_PX,
        EDITOR_PX,
        LINE_PX,
        WRAP_CHARS,
        editor_height,
        wrapped_lines,
    )

    short, longer = (
        "def f(x):\n    return x",
        "def f(x):\n" + "    # a note\n" * 20 + "    return x",
    )
    assert editor_height(longer) > editor_height(short) == EDITOR_PX[0]  # a few lines: the least
    assert editor_height("\n".join(["x = 1"] * 200)) == EDITOR_PX[1]  # longer: it scrolls
    # a line longer than the narrowest column wraps there, and takes its lines
    wide = "def f(x):\n" + ("    # " + "word " * 30 + "\n") * 8 + "    return x"
    narrow = "def f(x):\n" + "    # word\n" * 8 + "    return x"
    assert wrapped_lines(wide) == 2 + 8 * 3  # 156 characters: 3 lines of at most 57
    assert editor_height(wide) >= CHROME_PX + LINE_PX * wrapped_lines(wide) > 320
    assert editor_height(wide) > editor_height(narrow)
    assert WRAP_CHARS == 57


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_editor_is_as_tall_as_its_starter_code(lang: str) -> None:
    """Every line of the template shows, ``return`` included: on a 1280 × 720 screen at 150 %
    (its lines wrapped at 57 characters, 20.16 px each) and in presenter mode (25.2 px);
    tests/e2e/test_e2e_fit.py measures the boxes in the browser."""
    from ui.turn.panel import CHROME_PX, EDITOR_PX, editor_height, wrapped_lines

    for cell_id in CELLS:
        template = CELLS[cell_id][lang]["template"]
        height, lines = editor_height(template), len(template.splitlines())
        assert height >= CHROME_PX + 20.16 * wrapped_lines(template), cell_id
        assert height >= 1.25 * CHROME_PX + 25.2 * lines, cell_id
        assert height < EDITOR_PX[1], cell_id  # none of them scrolls
        assert height > 320 or lines < 12, cell_id  # the old box cut 13 lines or more
