"""What the page tests share: pages opened as a shared link opens them, and ``llm`` run directly.

A page is opened the way a link opens it: URL parameters set before the first run. Each
(page, link) pair runs once per test session. ``Expected`` runs the same settings through ``llm``
so a test can compare what a page shows (tables, plotly specs) with the numbers it must show.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from collections.abc import Callable
from html.parser import HTMLParser

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

import llm
from ui.draw.tables import TABLE_START

PAGES = {
    "qkv": "../pages/1_qkv.py",
    "scores": "../pages/2_scores.py",
    "softmax": "../pages/3_softmax.py",
    "mix": "../pages/4_mix.py",
    "heads": "../pages/5_heads.py",
    "concat": "../pages/6_concat.py",
    "layernorm": "../pages/7_layernorm.py",
    "code": "../pages/9_code.py",
}
SENTENCE_32 = " ".join(f"w{n % 20}" for n in range(32))  # 32 tokens, w0..w11 twice
LINKS: dict[str, dict[str, str]] = {
    "chapter8": {"d_model": "4", "n_heads": "1", "embeddings": "handmade"},
    "chapter9": {},
    "wide": {"d_model": "64", "n_heads": "16", "head": "13", "text": SENTENCE_32},
    "no_mask": {"causal": "false", "seed": "5"},
    "repeats": {"text": "the cat saw the other cat, the end", "head": "2", "seed": "11"},
    "handmade_unknown": {
        "d_model": "4",
        "n_heads": "2",
        "head": "1",
        "embeddings": "handmade",
        "text": "the dog sat on the mat",
    },
    "seed3": {"seed": "3"},
    "head1": {"head": "1"},
    "d_model6": {"d_model": "6", "n_heads": "3"},
}


@functools.cache
def _opened(
    page: str, link: tuple[tuple[str, str], ...], state: tuple[tuple[str, object], ...]
) -> AppTest:
    at = AppTest.from_file(PAGES[page], default_timeout=30)
    for key, value in link:
        at.query_params[key] = value
    for key, value in state:  # a section the student opened, a tab chosen
        at.session_state[key] = value
    at.run()
    return at


def opened(page: str, link: dict[str, str], **state: object) -> AppTest:
    """The page after its first run on this link, with ``state`` in the session before it (an
    open section: ``concat_tables=True``; a tab: ``qkv_weights="W_K"``); it must not raise."""
    at = _opened(page, tuple(sorted(link.items())), tuple(sorted(state.items())))
    assert not at.exception, at.exception
    return at


class Expected:
    """The same settings run through ``llm`` directly, as the page should have."""

    def __init__(self, link: dict[str, str]) -> None:
        self.cfg = llm.AttentionConfig(
            d_model=int(link.get("d_model", 8)),
            n_heads=int(link.get("n_heads", 4)),
            seed=int(link.get("seed", 0)),
            embeddings=link.get("embeddings", "seeded"),
        )
        self.tokens = llm.tokenize(link.get("text", "the cat sat on mat"))
        self.labels = llm.token_labels(self.tokens)
        self.x = llm.embed(self.tokens, self.cfg)
        self.params = llm.init_params(self.cfg)
        self.causal = link.get("causal", "true") == "true"
        self.h = int(link.get("head", 0))
        self.trace = llm.multi_head_attention(self.x, self.params, causal=self.causal)
        self.head = self.trace.heads[self.h]


def figure(at: AppTest, key: str) -> dict:
    """The plotly spec of the chart drawn with ``show_figure(..., key=key)``, or what a figure of
    markup with ``data-key`` ``key`` shows, read back in the same shape: a heatmap table's
    (``heatmap_shown``), a bar chart's (``bars_shown``)."""
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    if charts:
        (chart,) = charts
        return json.loads(chart.proto.spec)
    marker = f'data-key="{key}"'
    (body,) = [e.proto.body for e in at.main.get("html") if marker in e.proto.body]
    start = body.rindex("<figure", 0, body.index(marker))
    markup = body[start : body.index("</figure>", start) + len("</figure>")]
    if 'class="lab-small"' in markup:
        return small_shown(markup)
    if 'class="lab-lines"' in markup:
        return lines_shown(markup)
    return bars_shown(markup) if 'class="lab-bars"' in markup else heatmap_shown(markup)


FIGURE_DATA = re.compile(r'data-z="([^"]*)" data-shape="(\d+),(\d+)" data-range="([^"]*)"')
FOLLOWED = re.compile(
    r'class="followed" data-row="(\d+)" style="[^"]*border:(\d+)px solid ([^"]+)"'
)


def bars_shown(markup: str) -> dict:
    """A bar chart of ``ui.draw.bars_markup`` read back as a plotly spec holds it: a bar trace
    per series (its legend name, its values, the categories' labels as shown), its title and
    its name (``alt``)."""
    z, n_series, n_bars = re.search(r'data-z="([^"]*)" data-shape="(\d+),(\d+)"', markup).groups()
    values = array_of({"bdata": z, "dtype": "f8", "shape": f"{n_series}, {n_bars}"})
    labels = re.search(r'<div class="bars-x[^"]*"[^>]*>(.*?)</div>', markup, re.S).group(1)
    x = [
        html.unescape(re.sub(r"</?b>", "", t))
        for t in re.findall(r"<span[^>]*>(.*?)</span>", labels)
    ]
    names = [html.unescape(n) for n in re.findall(r"<i [^>]*></i>([^<]*)</span>", markup)]
    names = names or [""]
    caption = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", markup, re.S)
    # each series' colour: its first bar's (a category's bars stand in the series' order)
    colours = re.findall(r'class="bar[^"]*" style="[^"]*background:([^";]+)', markup)
    data = [
        {"type": "bar", "name": name, "x": x, "y": [None if v != v else v for v in row.tolist()]}
        | {"marker": {"color": colours[n]}}
        for n, (name, row) in enumerate(zip(names, values, strict=True))
    ]
    lines = [float(y) for y in re.findall(r'class="line" data-y="([^"]+)"', markup)]
    layout = {"title": {"text": caption.group(1) if caption else ""}}
    layout["shapes"] = [{"type": "line", "y0": y, "y1": y, "yref": "y"} for y in lines]
    return {"data": data, "layout": layout, "alt": re.search(r'aria-label="([^"]*)"', markup)[1]}


def heatmap_shown(markup: str) -> dict:
    """A heatmap table read back as a plotly spec holds it: its values (``z``, NaN where
    masked) and colour range, its column and row labels, its cells' numbers (``text``), its
    title (lines joined by ``<br>``), its name (``alt``) and its followed row (a ``followed``
    shape)."""
    table = read_table(markup)
    z, rows, cols, span = FIGURE_DATA.search(markup).groups()
    lo, hi = (float(v) for v in span.split(","))
    caption = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", markup, re.S)
    shapes = [
        {
            "type": "rect",
            "name": "followed",
            "yref": "y",
            "y0": int(r) - 0.5,
            "y1": int(r) + 0.5,
            "line": {"color": colour, "width": int(width)},
        }
        for r, width, colour in FOLLOWED.findall(markup)
    ]
    trace = {
        "type": "heatmap",
        "z": {"bdata": z, "dtype": "f8", "shape": f"{rows}, {cols}"},
        "x": table.cols,
        "y": table.rows,
        "text": table.cells,
        "zmin": lo,
        "zmax": hi,
    }
    title = caption.group(1) if caption else ""
    # the title as a figure's (a heatmap's) and as a grid's plot's (an annotation) has it; the
    # colour range as a trace's and as a grid's shared colour axis's; the cells' side (px), a
    # lying colour bar's title
    layout = {"title": {"text": title}, "annotations": [{"text": title}], "shapes": shapes}
    layout["coloraxis"] = {"cmin": lo, "cmax": hi}
    sizes = re.search(r"--cell:([\d.]+)px;--number:(\d+)px", markup)
    layout["cell_px"] = float(sizes[1]) + 1  # a cell and its 1 px gap
    trace["textfont"] = {"size": int(sizes[2])}
    if lying := re.search(r'class="hm-lying".*?class="bar-title">(.*?)</div>', markup, re.S):
        layout["lying_bar"] = {"title": lying[1]}
    return {"data": [trace], "layout": layout, "alt": re.search(r'aria-label="([^"]*)"', markup)[1]}


def lines_shown(markup: str) -> dict:
    """A line chart of ``ui.draw.lines_markup`` read back as a plotly spec holds it: a trace a
    series with its name and values, the plots' titles (``annotations``), the legend's dotted
    and dashed entries and the marks (``shapes``: a named line each, then each mark at its x,
    once a plot) and its name (``alt``)."""
    z, n_series, n_points = re.search(r'data-z="([^"]*)" data-shape="(\d+),(\d+)"', markup).groups()
    values = array_of({"bdata": z, "dtype": "f8", "shape": f"{n_series}, {n_points}"})
    x = array_of({"bdata": re.search(r'data-x="([^"]*)"', markup)[1], "dtype": "f8"}).tolist()
    names = json.loads(html.unescape(re.search(r'data-names="([^"]*)"', markup)[1]))
    data = [
        {"type": "scatter", "name": name, "x": x, "y": [None if v != v else v for v in row]}
        for name, row in zip(names, values, strict=True)
    ]
    titles = re.findall(r'<div class="ln-title"[^>]*>(.*?)</div>', markup)
    entries = re.findall(r'<i style="border-top:1px (?:dotted|dashed)[^"]*"></i>([^<]*)<', markup)
    shapes = [{"type": "line", "name": html.unescape(name)} for name in entries]
    marks = re.findall(r'class="mark" data-x="([^"]+)"', markup)
    shapes += [{"type": "line", "x0": float(at)} for at in marks]
    layout = {"annotations": [{"text": t} for t in titles], "shapes": shapes}
    return {"data": data, "layout": layout, "alt": re.search(r'aria-label="([^"]*)"', markup)[1]}


def small_shown(markup: str) -> dict:
    """A small head of /learned (``ui.lessons.learned_maps``) read back: its values (``z``,
    NaN where masked), its title (lines joined by ``<br>``, the first in ``<b>``), its cells'
    side (px) and whether it is outlined (the head drawn large)."""
    z, rows, cols = re.search(r'data-z="([^"]*)" data-shape="(\d+),(\d+)"', markup).groups()
    title = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", markup, re.S)[1]
    cell = float(re.search(r'class="cells[^"]*" style="--cell:([\d.]+)px', markup)[1])
    trace = {"type": "heatmap", "z": {"bdata": z, "dtype": "f8", "shape": f"{rows}, {cols}"}}
    layout = {"annotations": [{"text": title}], "cell_px": cell}
    layout["outlined"] = 'data-focus="true"' in markup
    return {"data": [trace], "layout": layout, "alt": re.search(r'aria-label="([^"]*)"', markup)[1]}


def head_view_of(at: AppTest) -> str:
    """The SVG drawing of page 5's head view (``ui.draw.headview.show_head_view``)."""
    (view,) = [m.value for m in at.main.markdown if 'class="head-view"' in m.value]
    return view[view.index("<svg") : view.rindex("</svg>") + len("</svg>")]


def figure_pieces(at: AppTest, key: str) -> list[dict]:
    """The plotly specs of a grid shown in pieces that wrap (``ui.draw.grids.grid_figures``: keys
    ``key``, ``key-1``, ``key-2``, ...), in order; one spec for a grid in one figure; or the
    heatmap tables of a grid drawn as markup, one a plot, read back by ``figure``."""
    ids = {c.proto.id: c for c in at.get("plotly_chart")}
    pieces = []
    while found := [
        c for i, c in ids.items() if i.endswith(f"-{key}-{len(pieces)}" if pieces else f"-{key}")
    ]:
        pieces.append(json.loads(found[0].proto.spec))
    if pieces:
        return pieces
    # a grid as heatmap tables (``ui.draw.grid_tables``): a figure a plot, keys key, key-1, ...
    bodies = "".join(e.proto.body for e in at.main.get("html"))
    count = len(re.findall(rf'data-key="{re.escape(key)}(?:-\d+)?"', bodies))
    return [figure(at, f"{key}-{k}" if k else key) for k in range(count)]


def array_of(value: object) -> np.ndarray:
    """A plotly data array as floats (plotly may send it base64-encoded; null = NaN)."""
    if isinstance(value, dict):
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape", str(len(flat)))  # "5, 5"
        return flat.reshape([int(n) for n in str(shape).split(",")]).astype(np.float64)
    return np.array(value, dtype=np.float64)


def z_of(spec: dict, trace: int = 0) -> np.ndarray:
    """A heatmap's z as floats (of trace ``trace``: plot ``trace`` of a grid)."""
    return array_of(spec["data"][trace]["z"])


class _TableReader(HTMLParser):
    """The header, the row labels and the cells of one table of ``ui.draw.tables.html_table``."""

    def __init__(self) -> None:
        super().__init__()
        self.cols: list[str] = []
        self.rows: list[str] = []
        self.cells: list[list[str]] = []
        self.caption = ""
        self._in: tuple[str, str] | None = None  # (part, tag) of the cell being read
        self._part = ""
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr" and self._part == "tbody":
            self.cells.append([])
        elif tag in ("th", "td", "caption"):
            self._in, self._text = (self._part, tag), ""

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("th", "td", "caption") or self._in is None:
            return
        part, kind = self._in
        if kind == "caption":
            self.caption = self._text
        elif part == "thead" and kind == "th":
            self.cols.append(self._text)
        elif part == "tbody" and kind == "th":
            self.rows.append(self._text)
        elif part == "tbody":
            self.cells[-1].append(self._text)
        self._in = None


def read_table(markup: str) -> _TableReader:
    """A table of ``ui.draw.tables.html_table`` read back as its text."""
    reader = _TableReader()
    reader.feed(markup)
    return reader


def number_of(text: str) -> float:
    """A cell's number as the page writes it (a decimal comma in French, an empty cell for a
    NaN)."""
    return float(text.replace(",", ".")) if text else float("nan")


def html_tables(at: AppTest) -> list[_TableReader]:
    """The tables of the page body, in page order, read back as their text."""
    bodies = [element.proto.body for element in at.main.get("html")]
    return [read_table(body) for body in bodies if body.startswith(TABLE_START)]


def tables(at: AppTest) -> list[pd.DataFrame]:
    """The tables of the page body, in page order, as numbers (in every language): rows named
    by their labels, columns by their header."""
    return [
        pd.DataFrame([[number_of(c) for c in row] for row in t.cells], index=t.rows, columns=t.cols)
        for t in html_tables(at)
    ]


def shown_cells(at: AppTest, n: int = 0) -> list[list[str]]:
    """The text table ``n`` shows in its cells, row by row (the row labels left out)."""
    return html_tables(at)[n].cells


def close_to_shown(shown, exact: np.ndarray, digits: int = 3) -> None:
    """A table rounded to ``digits`` decimals shows these exact numbers."""
    np.testing.assert_allclose(
        np.asarray(shown, dtype=np.float64), exact, rtol=0, atol=0.51 * 10**-digits
    )


def shown_text(at: AppTest) -> str:
    """Every sentence of the page body: markdown, alerts and headings."""
    parts = [*at.main.markdown, *at.main.info, *at.main.warning, *at.main.subheader]
    return "\n".join(p.value for p in parts)


def open_link(path: str, **params: str) -> AppTest:
    """A page file (``path`` relative to tests/) opened as a shared link opens it: its URL
    values set before the first run, a fresh run each call (its widgets can be moved after);
    the run must not raise."""
    at = AppTest.from_file(path, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


@functools.cache
def _linked(path: str, link: tuple[tuple[str, str], ...]) -> AppTest:
    at = AppTest.from_file(path, default_timeout=60)
    for key, value in link:
        at.query_params[key] = value
    return at.run()


def link_opener(path: str) -> Callable[..., AppTest]:
    """``opened(**link)`` for one page file (``path`` relative to tests/): the page after its
    first run on that link, run once per test session; it must not raise."""

    def opened(**link: str) -> AppTest:
        at = _linked(path, tuple(sorted(link.items())))
        assert not at.exception, at.exception
        return at

    return opened


def markdown_rows(text: str) -> list[list[str]]:
    """The cells of a markdown table, row by row (the header first, the rule left out), each
    as it reads once its escapes are undone."""
    rows = []
    for line in text.splitlines():
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        rows.append([re.sub(r"\\(.)", r"\1", cell).strip() for cell in cells])
    return [rows[0], *rows[2:]]


def hidden_keys(at: AppTest) -> set[str]:
    """The element keys the page hides (``ui.frame.shared.unused_css``: the shared settings it
    does not use, drawn in their place so that the link keeps them)."""
    for element in at.get("html"):
        css = element.proto.body
        if 'id="unused-settings"' in css:
            return set(re.findall(r"\.st-key-([\w-]+)", css.split('id="unused-settings"')[1]))
    return set()


def setting_keys(at: AppTest) -> set[str]:
    """The keys of the sidebar's settings a visitor sees (``hidden_keys`` left out)."""
    side = at.sidebar
    widgets = (*side.slider, *side.selectbox, *side.number_input, *side.text_input, *side.toggle)
    return {w.key for w in widgets} - hidden_keys(at)


def shown_settings(at: AppTest) -> set[str]:
    """``setting_keys`` with the sidebar's buttons and radios a visitor sees."""
    side = at.sidebar
    return setting_keys(at) | ({w.key for w in (*side.button, *side.radio)} - hidden_keys(at))


def page_list(at: AppTest) -> tuple[list[str], str]:
    """The sidebar's page list as the last run sent it (``ui.frame.components.page_list``):
    its links' labels in order, and the line under them."""
    (element,) = [
        e for e in at.get("bidi_component") if e.proto.component_name == "attention_lab.page_list"
    ]
    data = json.loads(element.proto.json)
    return [page["label"] for page in json.loads(data["pages"])], data["note"]
