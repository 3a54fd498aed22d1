"""The floor's markup variant draws what /softmax's section draws: the page's own heatmap tables
and bars, with the numbers of the figures it was given."""

from __future__ import annotations

import json
import shutil

import numpy as np
from streamlit.testing.v1 import AppTest

from bench import floor
from bench.common import CHAPTER9_LINK
from tests.apptest_pages import array_of, bars_shown, heatmap_shown
from ui.draw.contrast import shown_number


def test_the_markup_variant_carries_the_pages_numbers(tmp_path) -> None:
    specs = floor.section_specs(CHAPTER9_LINK)
    (tmp_path / "specs.json").write_text(json.dumps(specs))
    (tmp_path / "app.py").write_text(floor.MARKUP)
    shutil.copytree(floor.ROOT / ".streamlit", tmp_path / ".streamlit")
    at = AppTest.from_file(str(tmp_path / "app.py"), default_timeout=60)
    at.query_params["charts"] = "4"
    at.run()
    assert not at.exception
    (body,) = [e.proto.body for e in at.get("html") if "data-meta='1.0'" in e.proto.body]
    figures = body.split("<figure")[1:]
    heatmaps = [s for s in specs if s["data"][0]["type"] == "heatmap"]
    assert len(figures) == len(specs) == 4 and len(heatmaps) == 3  # S, masked S, A; the bars
    assert not at.get("plotly_chart")
    bars = bars_shown("<figure" + figures[3])["data"]
    assert [b["y"] for b in bars] == [t["y"] for t in specs[3]["data"]]
    for markup, spec in zip(figures, heatmaps):
        shown, trace = heatmap_shown("<figure" + markup)["data"][0], spec["data"][0]
        assert shown["text"] == [[shown_number(t) for t in row] for row in trace["text"]]
        assert shown["x"] == trace["x"] and shown["y"] == trace["y"]
        np.testing.assert_array_equal(array_of(shown["z"]), array_of(trace["z"]))
