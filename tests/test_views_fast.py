"""The fast paths of ``ui.draw.wire`` and ``ui.draw.tables`` send exactly what plotly and pyarrow
send.

Figures are plain dicts sent through ``show_figure`` without plotly building a figure object;
tables are Arrow tables built straight from the array. Each test compares the result with
the library's own conversion of the same input, and reads the numbers back.
"""

from __future__ import annotations

import copy
import io
import json
import re
import zlib

import numpy as np
import orjson
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.io._json import _safe, _swap_orjson

from tests.apptest_pages import array_of, number_of, read_table
from ui.draw import charts, grids, heatmaps, style, tables, wire
from ui.draw.contrast import shown_number
from ui.frame import follow
from ui.text import num

LABELS = ["the", "cat", "sat", "on", "mat"]
RNG = np.random.default_rng(7)
SCORES = RNG.normal(size=(5, 5))
CAUSAL = np.tril(np.ones((5, 5), dtype=bool))
PATTERN = np.where(CAUSAL, RNG.random((5, 5)), 0.0)


def sent(spec: dict) -> dict:
    """The JSON ``st.plotly_chart`` sends for one of this module's figures."""
    return json.loads(pio.to_json(wire._Sendable(spec).to_dict(), validate=False))


def plotly_sent(spec: dict) -> dict:
    """The JSON it sends when plotly builds the figure from the same dicts, in the chart style
    and with no template (the slow path)."""
    layout = {**style.styled(spec["layout"]), "template": {}}
    fig = go.Figure(data=spec["data"], layout=layout, _validate=False)
    out = json.loads(pio.to_json(fig.to_dict(), validate=False))
    assert out["layout"].pop("template") == {}
    return out


def figures() -> dict[str, dict]:
    wide = RNG.normal(size=(32, 64))
    grid_trace, grid_layout = heatmaps.heatmap_spec(PATTERN, LABELS, LABELS, showscale=False)
    return {
        "signed with numbers": heatmaps.heatmap(SCORES, LABELS, LABELS, title="S", signed=True),
        "masked pattern": heatmaps.heatmap(
            PATTERN, LABELS, LABELS, zmin=0, zmax=1, masked=~CAUSAL, masked_label="hidden"
        ),
        "32 x 64, no numbers": heatmaps.heatmap(wide, [f"w{i}" for i in range(32)], list("x" * 64)),
        "blocks": heatmaps.mark_blocks(
            heatmaps.heatmap(SCORES, LABELS, LABELS, signed=True), size=2, count=3, axis="y"
        ),
        "grid of four on one colour axis": grids.grid_figure(
            [SCORES, PATTERN, -SCORES, PATTERN.T],
            LABELS,
            [LABELS] * 4,
            ["a", "b", "c", "d"],
            signed=True,
            masked=~CAUSAL,
            x_title="key",
            y_title="query",
            scale_title="value",
            per_row=3,
        ),
        "bars with lines": charts.bar_chart(
            {"sharp": [0.2, None, 0.9], "diffuse": [None, 1.5, None]},
            ["h0", "h1", "h2"],
            title="H",
            lines=[(1.609, "ln 5")],
            barmode="relative",
        ),
        "grid cell": wire.fast_figure([grid_trace], grid_layout),
    }


@pytest.mark.parametrize("name", list(figures()))
def test_sent_json_equals_plotlys_own(name: str) -> None:
    spec = figures()[name]
    mine, theirs = sent(spec), plotly_sent(spec)
    assert mine["layout"].pop("datarevision") == revision(mine["data"])
    assert mine == theirs
    assert "template" not in mine["layout"], "a template makes plotly.js draw the chart twice"


@pytest.mark.parametrize("name", list(figures()))
def test_a_kept_figure_sends_the_same_json_built_once(name: str) -> None:
    """A kept figure (one a cache shares) sends byte for byte the JSON it sent before being
    kept, from one wire form built on its first send; it cannot be changed, a copy can."""
    spec = figures()[name]
    before = pio.to_json(wire._Sendable(spec).to_dict(), validate=False)
    kept = wire.keep(spec)
    first, second = wire._Sendable(kept).to_dict(), wire._Sendable(kept).to_dict()
    assert pio.to_json(first, validate=False) == before
    assert pio.to_json(second, validate=False) == before
    assert first["data"] is second["data"], "the traces' wire form is built once"
    assert first["layout"] is not second["layout"]  # each send its own top level
    with pytest.raises(TypeError):
        kept["layout"]["height"] = 1
    with pytest.raises(TypeError):
        kept["data"].append({})
    copied = copy.deepcopy(kept)
    copied["layout"]["height"] = 1  # a copy is a plain figure again
    assert type(copied["data"]) is list and kept["layout"]["height"] != 1


def test_an_outline_on_a_kept_grid_shares_its_traces_wire_form() -> None:
    spec = figures()["grid of four on one colour axis"]
    kept = wire.keep(spec)
    outlined = wire.keep(follow.outline_row(kept, 2, plots=4))
    assert outlined["data"] is kept["data"]
    # the layout's values it did not replace: the kept one's written form, not written again
    base, derived = wire._wired_layout(kept["layout"]), wire._wired_layout(outlined["layout"])
    assert set(derived) == set(base)
    assert all(derived[k] is base[k] for k in base if k != "shapes")
    plain = pio.to_json(
        wire._Sendable(follow.outline_row(spec, 2, plots=4)).to_dict(), validate=False
    )
    assert pio.to_json(wire._Sendable(outlined).to_dict(), validate=False) == plain
    sent_kept, sent_outlined = wire._Sendable(kept).to_dict(), wire._Sendable(outlined).to_dict()
    assert sent_kept["data"] is sent_outlined["data"]
    shapes = [
        json.loads(pio.to_json(sent, validate=False))["layout"]["shapes"]
        for sent in (sent_kept, sent_outlined)
    ]
    assert len(shapes[1]) == len(shapes[0]) + 4


def revision(data: list) -> int:
    """The digest of a figure's traces as sent: CRC-32 of their JSON as the app writes it, each
    trace's lists and dicts by orjson with plotly's escapes (of <, > and /), its words and
    numbers as they are."""
    options = orjson.OPT_NON_STR_KEYS

    def written(v: object) -> object:
        if not isinstance(v, dict | list):
            return v
        return orjson.Fragment(_safe(orjson.dumps(v, option=options).decode(), _swap_orjson))

    traces = [{k: written(v) for k, v in trace.items()} for trace in data]
    return zlib.crc32(orjson.dumps(traces, option=options))


def test_data_revision_follows_every_number_and_label() -> None:
    """plotly.js redraws a chart's data only when its revision changes: the same figure built
    twice keeps it, the last bit of one number or one label changes it."""
    base = sent(heatmaps.heatmap(SCORES, LABELS, LABELS))["layout"]["datarevision"]
    again = sent(heatmaps.heatmap(SCORES.copy(), list(LABELS), LABELS))["layout"]["datarevision"]
    nudged = SCORES.copy()
    nudged[4, 4] = np.nextafter(nudged[4, 4], np.inf)
    other = sent(heatmaps.heatmap(nudged, LABELS, LABELS))["layout"]["datarevision"]
    relabelled = sent(heatmaps.heatmap(SCORES, LABELS[:4] + ["rug"], LABELS))["layout"]
    assert base == again
    assert len({base, other, relabelled["datarevision"]}) == 3


def test_chart_style_lies_under_the_figures_own_layout() -> None:
    """Every axis of a grid gets the style, the figure's own values win, a title is bold."""
    spec = grids.grid_figure(
        [SCORES, PATTERN], LABELS, [LABELS] * 2, ["a", "b"], x_title="key", per_row=2
    )
    layout = style.styled(spec["layout"])
    # the page shows between the cells: the masked cells' grey (a shape) is never a frame
    assert layout["paper_bgcolor"] == style.CLEAR and layout["plot_bgcolor"] == style.CLEAR
    for axis in ("xaxis", "xaxis2", "yaxis", "yaxis2"):
        assert layout[axis]["tickfont"] == style.FONT
        assert layout[axis]["domain"] == spec["layout"][axis]["domain"]
    assert layout["xaxis"]["title"] == {
        "text": "key",
        "standoff": 20,
        "font": {**style.FONT, "size": 14},
    }
    assert layout["margin"] == {"pad": 8, **spec["layout"]["margin"]}
    assert layout["coloraxis"]["colorbar"]["thickness"] == 14  # the figure's own
    assert layout["coloraxis"]["colorbar"]["tickfont"] == style.FONT
    bars = style.styled(
        charts.bar_chart({"H": [1.0, 2.0]}, ["h0", "h1"], title="Entropy")["layout"]
    )
    assert bars["title"]["text"] == "<b>Entropy</b>" and bars["title"]["font"]["size"] == 14
    assert bars["title"]["x"] == 0 and bars["yaxis"]["gridcolor"] == style.FAINT


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""

    def lum(colour: str) -> float:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_chart_text_reads_on_the_light_and_the_dark_background() -> None:
    """The grey sent with every figure reads on both backgrounds (a browser without CSS
    light-dark() keeps it), and each theme's colours in CHART_CSS read on their own."""
    light, dark = "#ffffff", "#171614"  # Streamlit's two backgrounds
    assert min(contrast(style.MUTED, light), contrast(style.MUTED, dark)) >= 3.7
    pairs = re.findall(r"fill: light-dark\((#\w{6}), (#\w{6})\)", style.CHART_CSS)
    texts = [p for p in pairs if p != (light, dark)]  # the hover box's own fill is a background
    assert len(texts) == 6  # the charts' four, and the head view's labels and titles
    for on_light, on_dark in texts:
        assert contrast(on_light, light) >= 3.7 and contrast(on_dark, dark) >= 3.7


def test_sent_heatmap_holds_the_matrix_and_the_mask() -> None:
    fig = sent(
        heatmaps.heatmap(PATTERN, LABELS, LABELS, zmin=0, zmax=1, masked=~CAUSAL, masked_label="m")
    )
    (trace,) = fig["data"]
    z = array_of(trace["z"])
    np.testing.assert_array_equal(z[CAUSAL], PATTERN[CAUSAL])  # bit for bit, base64 of float64
    assert np.isnan(z[~CAUSAL]).all()
    assert trace["customdata"][0][1] == "m" and shown_number(trace["text"][0][1]) == "×"
    assert trace["customdata"][1][0] == f"{PATTERN[1, 0]:.6g}"
    assert shown_number(trace["text"][1][0]) == f"{PATTERN[1, 0]:.2f}"
    assert trace["x"] == LABELS and trace["y"] == LABELS
    (grey,) = fig["layout"]["shapes"]  # under the cells, in a grey of its own
    assert grey["fillcolor"] == style.MASKED_COLOUR and grey["layer"] == "below"
    assert grey["path"].count("M") == int((~CAUSAL).sum())  # one square a masked cell


def test_french_cells_hover_and_bars_take_the_decimal_comma() -> None:
    look = style.Look(lang="fr")
    fig = sent(heatmaps.heatmap(PATTERN, LABELS, LABELS, masked=~CAUSAL, look=look))
    (trace,) = fig["data"]
    assert shown_number(trace["text"][1][0]) == f"{PATTERN[1, 0]:.2f}".replace(".", ",")
    assert trace["customdata"][1][0] == f"{PATTERN[1, 0]:.6g}".replace(".", ",")
    assert fig["layout"]["separators"] == ", "  # plotly's own numbers: hover, colour bar
    bars = charts.bar_chart({"H": [1.609, 0.5]}, ["h0", "h1"], look=look)
    assert bars["data"][0]["text"] == ["1,61", "0,50"]
    # a number that rounds to zero reads 0,00, never -0,00
    tiny = heatmaps.heatmap(np.array([[-0.001, -0.5]]), ["a"], ["x", "y"], signed=True, look=look)
    # and a negative one takes the true minus sign, U+2212
    assert [shown_number(t) for t in tiny["data"][0]["text"][0]] == ["0,00", "\u22120,50"]
    english = sent(heatmaps.heatmap(PATTERN, LABELS, LABELS))
    assert shown_number(english["data"][0]["text"][1][0]) == f"{PATTERN[1, 0]:.2f}"
    assert english["layout"]["separators"] == ".,"


def test_sending_leaves_the_spec_as_it_was() -> None:
    spec = heatmaps.heatmap(SCORES, LABELS, LABELS, signed=True)
    z = spec["data"][0]["z"]
    sent(spec)
    sent(spec)
    assert spec["data"][0]["z"] is z and isinstance(z, np.ndarray)
    assert "template" not in spec["layout"]


def test_typed_arrays_match_plotly() -> None:
    from _plotly_utils.utils import to_typed_array_spec

    for a in (
        np.arange(6, dtype=np.int64).reshape(2, 3),
        np.array([70_000, -3], dtype=np.int64),
        np.array([2**40], dtype=np.int64),
        np.linspace(0, 1, 7, dtype=np.float32),
        SCORES[:, 1],  # a strided column
    ):
        theirs = to_typed_array_spec(a)
        theirs = theirs.tolist() if isinstance(theirs, np.ndarray) else theirs
        assert wire._typed_array(a) == theirs


def pandas_texts(m: np.ndarray, digits: int, lang: str) -> list[list[str]]:
    """The cells as pandas writes a rounded table (``DataFrame.round`` then a printf format), a
    decimal comma in French, an empty cell for a NaN:
    a second way to the texts ``tables.cell_texts`` writes."""
    frame = pd.DataFrame(m).round(digits) + 0.0  # adding 0.0 turns -0.0 into 0.0
    texts = frame.map(lambda v: "" if np.isnan(v) else f"{v:.{digits}f}")
    return texts.map(lambda t: t.replace(".", ",") if lang == "fr" else t).values.tolist()


@pytest.mark.parametrize(
    ("m", "rows", "cols", "digits"),
    [
        (SCORES, LABELS, LABELS, 3),
        (
            RNG.normal(size=(32, 64)) * 1e3,
            [f"w{i}" for i in range(32)],
            list(map(str, range(64))),
            6,
        ),
        (np.array([[np.nan, 1.23456789], [-0.0, np.inf]]), ["a", "a·2"], ["H", "max"], 2),
        (np.array([[-1e-17, -0.004], [0.0, -0.006]]), ["the", "cat"], ["H", "max"], 2),
    ],
)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_table_reads_back_as_pandas_writes_its_numbers(m, rows, cols, digits, lang) -> None:
    """The HTML table, read back with a parser, holds the header, the row labels and every
    cell as pandas writes the rounded numbers; no rounded zero carries a sign."""
    table = read_table(tables.table_html(m, rows, cols, lang=lang, label="S", digits=digits))
    assert table.cols == [str(c) for c in cols]
    assert table.rows == [str(r) for r in rows]
    assert table.cells == pandas_texts(m, digits, lang)
    shown = np.array([[number_of(c) for c in row] for row in table.cells])
    np.testing.assert_allclose(shown, np.round(m, digits), rtol=0, atol=0)
    assert not any(c.startswith("-") and number_of(c) == 0 for r in table.cells for c in r)


def test_a_column_in_other_notation_writes_each_number_as_num_does() -> None:
    """A column given its own notation (``kinds``): each cell as ``num`` writes it; the other
    columns at the table's digits."""
    m = np.array([[-0.108079123, 2.8e-17, 1234.5], [0.2, 0.0, -0.00051]])
    kinds = {"mean after": (1, "e"), "rms": (3, "g")}
    for lang in ("en", "fr"):
        texts = tables.cell_texts(m, ["mean", "mean after", "rms"], lang, 6, kinds)
        for row, values in zip(texts, m):
            want = [
                num(values[0], 6, lang),
                num(values[1], 1, lang, "e"),
                num(values[2], 3, lang, "g"),
            ]
            assert row == want
    assert tables.cell_texts(m, ["mean", "mean after", "rms"], "en", 6, kinds)[1][1] == "0"


def test_what_a_student_typed_is_text_in_the_table() -> None:
    """A token that looks like markup is escaped: it reads as typed and adds no element."""
    rows = ["<b>bold</b>", "a&b", '"q"']
    markup = tables.table_html(
        np.zeros((3, 1)), rows, ["<i>"], lang="en", label='<x "y">', caption="<u>[3 × 1]"
    )
    assert "<b>" not in markup and "<i>" not in markup and '<x "y">' not in markup
    assert "<u>" not in markup
    table = read_table(markup)
    assert table.rows == rows and table.cols == ["<i>"] and table.caption == "<u>[3 × 1]"
    assert 'aria-label="&lt;x &quot;y&quot;&gt;"' in markup


def test_the_tokens_row_of_the_home_page_has_no_row_labels() -> None:
    """A table without row names (the home page's tokens, a column per position)."""
    table = read_table(tables.html_table(["0", "1"], None, [["the", "cat"]], label="tokens"))
    assert (table.cols, table.rows, table.cells) == (["0", "1"], [], [["the", "cat"]])
    # a token is a cell there: escaped as the labels are
    markup = tables.html_table(["0"], None, [["<img src=x>"]], label="tokens")
    assert "<img" not in markup and read_table(markup).cells == [["<img src=x>"]]


@pytest.mark.parametrize(
    ("m", "rows", "cols"),
    [
        (SCORES, LABELS, LABELS),
        (
            np.array([[np.nan, np.inf, -np.inf], [-0.0, 1e-300, 1 / 3]]),
            ["a, b", 'say "hi"'],
            ["x", "y,z", "é"],
        ),
    ],
)
def test_csv_is_what_pandas_writes(m, rows, cols) -> None:
    """The download: pandas' ``to_csv(float_format="%.17g")`` byte for byte, and read back to
    the same float64 numbers."""
    frame = pd.DataFrame(m, index=rows, columns=cols)
    mine = tables._csv(m, rows, cols)
    assert mine == frame.to_csv(float_format="%.17g")
    back = pd.read_csv(io.StringIO(mine), index_col=0, float_precision="round_trip")
    np.testing.assert_array_equal(back.to_numpy(), m)


@pytest.mark.parametrize("name", list(figures()))
def test_a_layout_derived_from_a_kept_one_sends_what_a_new_one_sends(name: str) -> None:
    """A kept layout with values replaced (``wire.derived_layout``) writes only those: its
    JSON is byte for byte a fresh figure's with the same values."""
    spec = figures()[name]
    kept = wire.keep(spec)
    changes = {"height": 333, "title": {"text": "another"}, "shapes": [{"type": "line"}]}
    derived = wire.keep({**kept, "layout": wire.derived_layout(kept["layout"], **changes)})
    fresh = {**spec, "layout": {**spec["layout"], **changes}}
    assert pio.to_json(wire._Sendable(derived).to_dict(), validate=False) == pio.to_json(
        wire._Sendable(fresh).to_dict(), validate=False
    )
    assert kept["layout"].get("height") != 333  # the kept one is left as it was


def test_the_style_gives_each_layout_key_a_value_from_that_key_alone() -> None:
    """What lets a derived layout reuse its base's wire form: ``styled(layout)[k]`` depends
    on ``layout.get(k)`` only (present or absent), whatever the other keys hold."""
    for spec in figures().values():
        layout = spec["layout"]
        full = style.styled(layout)
        for k in full:
            alone = style.styled({k: layout[k]} if k in layout else {})
            assert json.dumps(alone.get(k), default=str) == json.dumps(full[k], default=str), k


def test_the_style_s_constants_are_sent_as_they_are_and_never_changed() -> None:
    """The chart style's values are JSON already: a figure's wire form takes them as they
    are, so building every figure above leaves them as they were."""
    before = json.dumps(style.JSON_CONSTANTS, sort_keys=True)
    for spec in figures().values():
        wire.keep(spec)
        sent(spec)
    assert json.dumps(style.JSON_CONSTANTS, sort_keys=True) == before
    axis = style.styled({})["xaxis"]
    assert wire._wire(axis["tickfont"]) is style.FONT
