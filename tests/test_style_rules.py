"""The app's style rules stay cheap for the browser: no ``:has()`` on the document's root.

A rule such as ``body:has(X) Y`` asks chromium to look again at the whole document at every
change of the page: on /softmax each new temperature restyled the page for about 80 ms of the
browser's main thread (``Performance.getMetrics``' RecalcStyleDuration, 100 ms a change with
the rule, 25 without). A ``:has()`` on an element near what it looks for costs nothing
measurable; one on ``html``, ``body``, ``:root`` or the app's own root is refused here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the document's root, ``body``, or Streamlit's app element, directly before ``:has(``
ROOT_HAS = re.compile(
    r"(?<![\w-])(?:html|body|:root|\.stApp|\[data-testid=[\"']?stApp[\"']?\])"
    r"(?:\[[^\]]*\])*:has\("
)


def root_has_rules(text: str) -> list[str]:
    """The lines of ``text`` that put ``:has()`` on the document's root."""
    return [line.strip() for line in text.splitlines() if ROOT_HAS.search(line)]


@pytest.mark.parametrize(
    ("rule", "found"),
    [
        ('body:has([data-testid="stConnectionStatus"]) .switch { display: none; }', True),
        ("html:has(.x) .y { color: red; }", True),
        (".stApp:has(dialog) main { overflow: hidden; }", True),
        ('[data-testid="stApp"]:has(.x) .y {}', True),
        (".stApp label:has(input:focus-visible) { outline: 2px solid; }", False),
        ('[data-testid="stColumn"]:has([class*="st-key-figs-"]) { min-width: 0; }', False),
        ("html[data-offline] .st-key-present_switch { display: none; }", False),
        (".tbody:has(td) {}", False),
    ],
)
def test_the_check_tells_a_root_has_from_a_near_one(rule: str, found: bool) -> None:
    assert bool(root_has_rules(rule)) is found


def test_no_style_of_the_app_puts_has_on_the_document_root() -> None:
    sources = [*ROOT.glob("ui/**/*.py"), *ROOT.glob("ui/**/*.js"), *ROOT.glob("pages/*.py")]
    assert len(sources) > 50  # the app's modules and scripts were found
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if (lines := root_has_rules(path.read_text(encoding="utf-8")))
    }
    assert found == {}
