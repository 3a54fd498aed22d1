"""The floor's markup variant draws what /softmax's section draws: each heatmap's numbers as the
page writes them, in their colours, on cells of the figure's colour scale."""

from __future__ import annotations

import json
import re
import shutil

from streamlit.testing.v1 import AppTest

from bench import floor
from bench.common import CHAPTER9_LINK
from bench.fragments import FLOOR_KEYS, FLOOR_PAGE
from ui.draw.contrast import shown_number


def test_the_markup_heatmaps_carry_the_pages_numbers_and_colours(tmp_path) -> None:
    specs = floor.section_specs(FLOOR_PAGE, CHAPTER9_LINK, FLOOR_KEYS)
    (tmp_path / "specs.json").write_text(json.dumps(specs))
    (tmp_path / "app.py").write_text(floor.MARKUP)
    shutil.copytree(floor.ROOT / ".streamlit", tmp_path / ".streamlit")
    at = AppTest.from_file(str(tmp_path / "app.py"), default_timeout=60)
    at.query_params["charts"] = "4"
    at.run()
    assert not at.exception
    svgs = re.findall(r"<svg.*?</svg>", at.markdown[0].value)
    heatmaps = [s for s in specs if s["data"][0]["type"] == "heatmap"]
    assert len(svgs) == len(heatmaps) == 3  # scaled, masked, pattern
    assert len(at.get("plotly_chart")) == 1  # the entropy bars stay a chart
    for svg, spec in zip(svgs, heatmaps):
        trace = spec["data"][0]
        texts = [t for row in trace["text"] for t in row]
        drawn = re.findall(r"text-anchor='middle'>([^<]*)</text>", svg)
        cells = drawn[: len(texts)]  # the cells' numbers, row by row, then the key labels
        assert cells == [shown_number(t) for t in texts]
        assert drawn[len(texts) :] == trace["x"]
        assert "data-meta='1.0'" in svg
    # the pattern's 1.00 (first row) is viridis' top colour; its masked cells are the page's grey
    pattern = svgs[2]
    fills = re.findall(r"fill='([^']+)'/>", pattern)
    assert fills[0] == "rgb(253,231,37)"  # #fde725
    assert fills[1] == "#c5c8d2"
    # a number that the page writes white is white here too
    white = [t for row in heatmaps[2]["data"][0]["text"] for t in row if "color:#fff" in t]
    assert white and f"fill='#fff' text-anchor='middle'>{shown_number(white[0])}<" in pattern
