"""Streamlit's own floor for a section that reruns alone: a bare app, a slider and the same charts.

What a change of /softmax's temperature cannot go under, measured beside it (``bench.fragments``):
a page that holds nothing but an ``st.fragment`` with a slider (``st.slider``; the page's τ is a
``select_slider`` over stops) and charts. Each key press changes every chart's spec (its
``layout.meta`` takes the slider's value, which plotly does not draw), so Streamlit mounts each
chart again, as it does on the lab's page, where a new τ changes every number of the section.
Two apps: one chart (the section's first), and the section's charts, the very figures the page
draws at chapter 9's setting (read with AppTest).

Then the same two apps with each chart drawn **in place**: a keyed components-v2 element whose
script hands every new figure to ``Plotly.react`` in the chart it drew before (plotly.js from the
plotly package's own copy, served by Streamlit's component file route). It answers "would a chart
of our own that updates instead of mounting anew meet 100 ms?".

Then the section as **markup**: the page's own heatmap tables (``ui.draw.heatmap_table``) and
bars (``ui.draw.bars_markup``) in one ``st.html``: the floor of the section as the page draws it
now.

- **Time**: from the key event to the frame after which every chart holds the new value and the
  app is idle again (the page's own clock, as ``bench.fragments``).
- **Server CPU**: the process's CPU time per change, key to 150 ms after the screen settled.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from bench.browser import GRACE_S, QUIET_JS, SPLIT_JS, STATE_JS, TIMING_JS, _split_summary
from bench.common import ROOT, streamlit_server, summary

# what both apps that send plotly charts start with: the figures, sent as the lab sends them (the
# figure's own dict, no plotly object, no template)
SENT = """
import json
from pathlib import Path

import streamlit as st
from plotly.basedatatypes import BaseFigure


class Sent(BaseFigure):
    def __init__(self, spec):
        self._spec = spec

    def to_dict(self):
        return self._spec


SPECS = json.loads((Path(__file__).parent / "specs.json").read_text())
CONFIG = {"displayModeBar": False}


"""

# the bare app: one slider in a fragment, the charts under it, nothing else on the page
_SECTION = """
@st.fragment
def section():
    tau = st.slider("temperature", 0.05, 20.0, 1.0, step=0.05, key="temperature")
    count = int(st.query_params.get("charts", len(SPECS)))
    for i, spec in enumerate(SPECS[:count]):
        layout = {**spec["layout"], "meta": tau}
        st.plotly_chart(Sent({"data": spec["data"], "layout": layout}), key=f"chart{i}",
                        config=CONFIG, theme=None)


section()
"""
APP = SENT + _SECTION

# the in-place variant: the same section, each chart a keyed components-v2 element that keeps
# its div from one rerun to the next and redraws it with Plotly.react
IN_PLACE = '''
import json
from pathlib import Path

import plotly
import streamlit as st
import streamlit.components.v1 as v1

v1.declare_component("plotlyjs", path=str(Path(plotly.__file__).parent / "package_data"))
JS = """
export default function (component) {
  const { data, parentElement } = component;
  window.__plotly ??= new Promise((ok, fail) => {
    const tag = document.createElement("script");
    tag.src = data.src;
    tag.onload = () => ok(window.Plotly);
    tag.onerror = fail;
    document.head.appendChild(tag);
  });
  let gd = parentElement.querySelector(".in-place");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "in-place";
    parentElement.appendChild(gd);
  }
  window.__plotly.then((P) => P.react(gd, data.figure.data, data.figure.layout, data.config));
}
"""
chart = st.components.v2.component("in_place_chart", html="", js=JS, isolate_styles=False)
SPECS = json.loads((Path(__file__).parent / "specs.json").read_text())
CONFIG = {"displayModeBar": False}
SRC = "/component/app.plotlyjs/plotly.min.js"  # the component's name: the script's, then its own


@st.fragment
def section():
    tau = st.slider("temperature", 0.05, 20.0, 1.0, step=0.05, key="temperature")
    count = int(st.query_params.get("charts", len(SPECS)))
    for i, spec in enumerate(SPECS[:count]):
        figure = {"data": spec["data"], "layout": {**spec["layout"], "meta": tau}}
        chart(key=f"chart{i}", data={"src": SRC, "figure": figure, "config": CONFIG})


section()
'''

# the markup variant: the same section as the page draws it, its heatmaps heatmap tables
# (``ui.draw.heatmap_table``) and its bars ``ui.draw.bars_markup``'s, in one ``st.html``
_TABLES = '''
import base64
import sys

import numpy as np

sys.path.insert(0, ROOT)
from ui.draw.bars_markup import BARS_CSS, bars_markup  # noqa: E402
from ui.draw.heatmap_table import HEATMAP_CSS, figures_box, heatmap_table  # noqa: E402


def values(z):
    """A typed array of plotly's wire format as a numpy matrix."""
    if not isinstance(z, dict):
        return np.array(z, dtype=float)
    flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
    return flat.reshape([int(n) for n in str(z["shape"]).split(",")])


def figure(spec):
    """A heatmap of the specs, its z as numbers again."""
    trace = {**spec["data"][0], "z": values(spec["data"][0]["z"])}
    return {"data": [trace], "layout": spec["layout"]}


st.html(HEATMAP_CSS + BARS_CSS)


@st.fragment
def section():
    tau = st.slider("temperature", 0.05, 20.0, 1.0, step=0.05, key="temperature")
    shown = SPECS[: int(st.query_params.get("charts", len(SPECS)))]
    parts = [
        heatmap_table(figure(spec), key=f"map{i}", alt="")
        if spec["data"][0]["type"] == "heatmap"
        else bars_markup(spec, key=f"bars{i}")
        for i, spec in enumerate(shown)
    ]
    st.html(f"<div data-meta='{tau}'>{figures_box(parts, label='section')}</div>")


section()
'''
MARKUP = SENT + f"ROOT = {str(ROOT)!r}\n" + _TABLES

# true once every chart holds the slider's value and the app is idle again
HOLDS_JS = """
(want) => {
  const b = window.__bench;
  const states = b.states || [];
  const last = states[states.length - 1];
  if (!last || last[1] !== 'notRunning') return false;
  const gds = [...document.querySelectorAll('.js-plotly-plot')];
  const holds = (gd) => gd._fullLayout && Math.abs(gd._fullLayout.meta - want) < 1e-9;
  const maps = [...document.querySelectorAll('[data-meta]')];  // MARKUP's heatmap tables
  const marked = (box) => Math.abs(parseFloat(box.dataset.meta) - want) < 1e-9;
  if (!gds.length && !maps.length) return false;
  if (!gds.every(holds) || !maps.every(marked)) return false;
  b.settled = performance.now();
  return true;
}
"""


def section_specs(link: dict) -> list[dict]:
    """/softmax's section figures at ``link``'s setting (τ 1, with √d_k, the last token
    followed), as the page builds them, in page order: S, masked S, A, the entropy bars; in
    plotly's JSON (its typed arrays)."""
    import plotly.io as pio

    from ui.draw.style import Look
    from ui.lab.compute import Setting, compute_lab
    from ui.lessons.softmax import MAPS, softmax_figures

    setting = Setting(link["text"], int(link["d_model"]), int(link["n_heads"]), link["seed"], True)
    last = len(compute_lab(setting).labels) - 1  # the token the page follows at first
    figures = softmax_figures(setting, Look(), 0, 1.0, True, last)
    keys = [k for k in (*MAPS, "row_entropy") if k in figures]
    return [
        json.loads(
            pio.to_json({"data": list(figures[k]["data"]), "layout": dict(figures[k]["layout"])})
        )
        for k in keys
    ]


def run(browser, specs: list[dict], rounds: int) -> dict:
    """The bare app with one chart, then with every chart of ``specs``, drawn anew
    (``st.plotly_chart``), then in place (``IN_PLACE``): each ``rounds`` arrow keys on the
    slider, timed as ``bench.fragments`` times the page's."""
    waits = (STATE_JS, QUIET_JS, GRACE_S)
    folder = Path(tempfile.mkdtemp(prefix="attention-lab-floor-"))
    try:
        (folder / "specs.json").write_text(json.dumps(specs))
        shutil.copytree(ROOT / ".streamlit", folder / ".streamlit")
        out = {"charts": len(specs), "apps": []}
        for drawn, app in (("anew", APP), ("in place", IN_PLACE), ("as markup", MARKUP)):
            (folder / "app.py").write_text(app)
            with streamlit_server(root=folder) as server:
                for count in sorted({1, len(specs)}):
                    timed = _app_run(browser, server, count, rounds, waits)
                    out["apps"].append({**timed, "drawn": drawn})
        return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _app_run(browser, server, count: int, rounds: int, waits: tuple[str, str, float]) -> dict:
    """One app: ``rounds`` changes of the slider, each timed and its server CPU read;
    ``waits``: ``bench.fragments``' script-state stamps, its quiet page, its grace after."""
    state_js, quiet_js, grace_s = waits
    context_ = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    context_.add_init_script(TIMING_JS + state_js)
    page = context_.new_page()
    ms, splits, cpu_s = [], [], 0.0
    try:
        page.goto(f"{server.url}/?charts={count}")
        page.wait_for_function(HOLDS_JS, arg=1.0, polling="raf", timeout=120e3)
        tau = 1.0
        for _ in range(rounds):
            page.wait_for_function(quiet_js, polling=100, timeout=60e3)
            tau = round(tau + 0.05, 2)
            cpu0 = server.cpu()
            slider = '.st-key-temperature input[type="range"], .st-key-temperature [role="slider"]'
            page.locator(slider).first.focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(HOLDS_JS, arg=tau, polling="raf", timeout=20e3)
            time.sleep(grace_s)
            cpu_s += server.cpu() - cpu0
            split = page.evaluate(SPLIT_JS)
            if split:
                ms.append(split["total"])
                splits.append(split)
    finally:
        context_.close()
    return {
        "charts": count,
        "n": len(ms),
        "ms": summary(ms),
        "split_ms": _split_summary(splits),
        "server_cpu_ms": cpu_s * 1e3 / max(1, rounds),
    }


def what_app(app: dict, section: str = "the section's") -> str:
    """What a bare app draws, in words: "1 chart" or "the section's 4 charts", and how."""
    what = "1 chart" if app["charts"] == 1 else f"{section} {app['charts']} charts"
    drawn = app.get("drawn", "anew")
    if drawn == "as markup":
        return "1 heatmap table" if app["charts"] == 1 else what + " as markup"
    return what + (", drawn in place" if drawn == "in place" else "")


def render_rows(floor: dict) -> list[str]:
    """The floor's rows for the fragments table: the bare app with one chart and with all."""
    rows = []
    for app in floor["apps"]:
        ms, sp = app["ms"], app.get("split_ms", {})
        parts = " | ".join(
            f"{sp.get(k, {}).get('median', 0):.0f}" for k in ("to_send", "server", "render")
        )
        rows.append(
            f"| bare app | slider + {what_app(app)} (fragment) | {app['n']} | "
            f"{ms.get('median', 0):.0f} | {ms.get('p95', 0):.0f} | {parts} | – | "
            f"{app['server_cpu_ms']:.1f} |"
        )
    return rows
