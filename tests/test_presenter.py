"""Presenter mode: the class link (address, query, encoding), its QR code read back, the bar."""

from __future__ import annotations

import base64
import re
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
import segno
import zxingcpp
from streamlit.testing.v1 import AppTest

import llm
from tests.apptest_pages import hidden_keys, open_link, shown_settings
from ui.frame.navigation import neighbour_names
from ui.frame.presenter import base_address, class_link, link_params
from ui.frame.qr import qr_svg
from ui.text import translator
from ui.text.common import TEXT

MIX = "../pages/4_mix.py"
HOME = "../app.py"
LEARNED = "../pages/10_learned.py"


def test_the_browser_address_wins_over_the_headers() -> None:
    headers = {"Host": "127.0.0.1:8501", "X-Forwarded-Host": "lab.example.org"}
    url = "https://lab.example.org/attention/mix"
    assert base_address(url, headers, "/mix") == "https://lab.example.org/attention/mix"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Host": "teacher.local:8501"}, "http://teacher.local:8501/mix"),
        (  # behind nginx: the name and scheme the browser used, first of a proxy chain
            {
                "host": "127.0.0.1:8502",
                "x-forwarded-host": "lab.school.fr, 10.0.0.2",
                "x-forwarded-proto": "https",
            },
            "https://lab.school.fr/mix",
        ),
        ({"Host": "[::1]:8501"}, "http://[::1]:8501/mix"),
        # a header that is no host name never reaches the students' link
        (
            {"Host": "evil.org/<script>", "X-Forwarded-Proto": "javascript"},
            "http://localhost:8501/mix",
        ),
        ({}, "http://localhost:8501/mix"),
    ],
)
def test_without_the_browser_address_the_headers_decide(headers, expected) -> None:
    assert base_address(None, headers, "/mix") == expected


def test_a_browser_address_that_is_not_http_is_not_used() -> None:
    assert base_address("javascript:alert(1)", {"Host": "a.b"}, "/") == "http://a.b/"


def test_the_link_leaves_defaults_out_and_keeps_the_language() -> None:
    cfg = llm.AttentionConfig(d_model=8, n_heads=4, seed=0, embeddings="seeded")
    assert link_params("en", "the cat sat on mat", cfg, True, 0, {}) == {"lang": "en"}
    # 6 features start on 3 heads: n_heads=3 is the default there, n_heads=2 is not
    six = llm.AttentionConfig(d_model=6, n_heads=3, seed=5, embeddings="seeded")
    assert link_params("fr", "le chat", six, False, 2, {"token": "1"}) == {
        "lang": "fr",
        "text": "le chat",
        "d_model": "6",
        "seed": "5",
        "causal": "false",
        "head": "2",
        "token": "1",
    }
    hand = llm.AttentionConfig(d_model=4, n_heads=1, seed=0, embeddings="handmade")
    assert link_params("en", "the cat sat on mat", hand, True, 0, {}) == {
        "lang": "en",
        "d_model": "4",
        "n_heads": "1",
        "embeddings": "handmade",
    }


def test_a_sentence_of_any_characters_comes_back_from_the_link() -> None:
    sentence = "l’été & #1 = 50% ? /x+y"
    link = class_link("http://h:1/mix", {"lang": "fr", "text": sentence})
    assert link == (
        "http://h:1/mix?lang=fr&text=l%E2%80%99%C3%A9t%C3%A9%20%26%20%231%20%3D%2050%25%20%3F%20%2Fx%2By"
    )
    assert parse_qs(urlsplit(link).query) == {"lang": ["fr"], "text": [sentence]}


def modules(svg: str) -> np.ndarray:
    """The dark modules of a segno SVG, read from its path: ``M x y`` and ``m dx dy`` move,
    ``h n`` draws n modules along the row the pen is on (y is the row's middle, row + 0.5)."""
    size = int(re.search(r'd="M0 0h(\d+)v', svg).group(1))
    grid = np.zeros((size, size), dtype=np.uint8)
    path = re.search(r'class="qrline"[^>]* d="([^"]+)"', svg).group(1)
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            grid[int(y), int(x) : int(x + float(a))] = 1
            x += float(a)
    return grid


def read_qr(grid: np.ndarray) -> str:
    """What a QR reader finds in a module grid drawn 6 px a module, black on white."""
    pixels = np.where(np.kron(grid, np.ones((6, 6), dtype=np.uint8)) == 1, 0, 255)
    (found,) = zxingcpp.read_barcodes(pixels.astype(np.uint8))
    return found.text


def shown_qr(at: AppTest) -> tuple[str, np.ndarray]:
    (image,) = at.get("image")
    url = image.proto.imgs[0].url
    assert url.startswith("data:image/svg+xml;base64,")
    svg = base64.b64decode(url.partition(",")[2]).decode()
    return svg, modules(svg)


def test_presenter_mode_shows_the_class_link_and_its_qr_code() -> None:
    sentence = "le chat & la souris"
    at = open_link(
        MIX, present="true", lang="fr", d_model="6", n_heads="2", token="1", text=sentence
    )
    # AppTest has no browser address and no headers: the link falls back to localhost
    expected = (
        "http://localhost:8501/mix?lang=fr&text=le%20chat%20%26%20la%20souris"
        "&d_model=6&n_heads=2&token=1"
    )
    (code,) = at.code
    assert code.value == expected  # written under the code, as text
    svg, grid = shown_qr(at)
    assert read_qr(grid) == expected  # decoded back from the served picture
    want = np.pad(np.array(segno.make(expected, error="m").matrix, dtype=np.uint8), 4)
    np.testing.assert_array_equal(grid, want)
    assert "present" not in parse_qs(urlsplit(expected).query)
    # the link opens the same numbers: the same settings, without presenter mode
    again = open_link(MIX, **{k: v[0] for k, v in parse_qs(urlsplit(expected).query).items()})
    assert again.session_state["text"] == sentence and again.session_state["token"] == 1
    assert not again.get("image") and not again.warning


def test_the_bar_carries_the_four_controls_and_the_pages_around() -> None:
    at = open_link(MIX, present="true")
    (bar, *_) = at.main.children.values()
    keys = {w.key for w in (*bar.slider, *bar.selectbox, *bar.number_input, *bar.toggle)}
    assert keys == {"d_model", "n_heads", "seed", "present"}
    assert [b.label for b in bar.button][:2] == ["Ch. 8", "Ch. 9"]
    assert not at.sidebar.slider and not at.sidebar.number_input
    # a page run on its own has no page list: the neighbours are named, not linked
    assert [c.value for c in bar.caption][:2] == ["3. Scale, mask, softmax", "5. Many heads"]
    # the bar's slider is the lab's d_model: moving it changes the numbers
    at.slider(key="d_model").set_value(4).run()
    assert at.session_state["d_model"] == 4 and at.session_state["n_heads"] == 4
    assert "d_model=4" in at.code[0].value and read_qr(shown_qr(at)[1]) == at.code[0].value


@pytest.mark.parametrize(
    ("lang", "current", "expected"),
    [
        (
            "en",
            "pages/4_mix.py",
            {
                "softmax": "Previous page: 3. Scale, mask, softmax",
                "heads": "Next page: 5. Many heads",
            },
        ),
        ("fr", "app.py", {"qkv": "Page suivante : 1. Q, K, V"}),
        ("en", "pages/10_learned.py", {"code": "Previous page: 9. The code"}),
    ],
)
def test_the_bars_page_links_are_spoken_with_their_pages_name(
    lang: str, current: str, expected: dict[str, str]
) -> None:
    # the link shows the number alone ("3"); a screen reader says the page it opens
    assert neighbour_names(translator(TEXT, lang), current) == expected


def test_a_page_with_its_own_model_keeps_the_settings_out_of_the_bar() -> None:
    at = open_link(LEARNED, present="true", d_model="16", seed="7")
    (bar, *_) = at.main.children.values()
    drawn = {w.key for w in (*bar.slider, *bar.selectbox, *bar.number_input, *bar.button)}
    assert drawn - hidden_keys(at) == set()  # drawn in their place, hidden: the link keeps them
    assert [w.key for w in bar.toggle] == ["present"]
    # nor in the sidebar; they stay in the session and the links, for the lesson pages after
    assert not shown_settings(at)
    assert at.session_state["d_model"] == 16 and at.session_state["seed"] == 7
    assert at.query_params["d_model"] == "16" and at.query_params["seed"] == "7"
    link = parse_qs(urlsplit(at.code[0].value).query)
    assert link["d_model"] == ["16"] and link["seed"] == ["7"]


def test_presenter_mode_goes_off_with_its_switch() -> None:
    at = open_link(HOME, present="true")
    assert at.get("image")
    at.toggle(key="present").set_value(False).run()
    assert not at.get("image") and at.sidebar.slider(key="d_model")
    assert at.session_state["present"] is False


@pytest.mark.parametrize(
    ("lang", "fragment"),
    [
        ("en", "“yes” is not one of true, false; using false"),
        ("fr", "«\u00a0yes\u00a0» n’est pas parmi true, false\u00a0; on prend false"),
    ],
)
def test_a_bad_present_value_is_repaired_like_the_others(lang: str, fragment: str) -> None:
    at = open_link(HOME, present="yes", lang=lang)
    assert fragment in "\n".join(w.value for w in at.warning)
    assert at.session_state["present"] is False and not at.get("image")


def test_a_link_too_long_for_a_qr_code_is_still_written_out() -> None:
    # 30 words of 12 CJK letters: 389 characters, 30 tokens, and each letter 9 in the link
    long_words = " ".join(["漢字漢字漢字漢字漢字漢字"] * 30)
    at = open_link(MIX, present="true", lang="fr", text=long_words)
    assert not at.get("image")
    (note,) = [i.value for i in at.info if "trop long pour un QR code" in i.value]
    (code,) = at.code
    assert parse_qs(urlsplit(code.value).query)["text"] == [long_words]
    assert qr_svg(code.value) is None and qr_svg(code.value[:1000]) is not None
