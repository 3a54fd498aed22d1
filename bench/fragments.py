"""Fragments: a control that reruns only its own section, in real chromium, against a full rerun.

Two page-local controls, each inside an ``st.fragment``: the temperature slider on /softmax (one
arrow key: τ's next stop, from its lowest, a new value each time, so each change computes) and
the training step on /learned (one arrow key: the step before). Beside each, in turns in the
same minutes, a full rerun of the same page: on /softmax a new seed typed (every chart
recomputed) and the language switched (the whole page again, the same numbers); on /learned,
which has no seed, the language.

- **Time**: from the key event to the frame after which every chart in the DOM (a plotly chart,
  a heatmap table) holds the numbers AppTest computes for the new settings and the app has gone
  from running back to idle (the page's own clock, ``browser.TIMING_JS``'s stamps; the
  language changes no number, so the clock waits for the run itself). Each change starts from
  a page idle for 1.5 s.
- **Server CPU**: the server process's CPU time (``/proc/<pid>/stat``) from just before the key
  to 150 ms after the screen settled, added up over the changes of one kind, divided by their
  number. One Streamlit process, one browser tab: nothing else runs on the server.
"""

from __future__ import annotations

import json
import time

from bench import floor
from bench.browser import (
    ARGS,
    CHART_SUMS_JS,
    CHARTS_HOLD_JS,
    CHROMIUM,
    GRACE_S,
    QUIET_JS,
    SPLIT_JS,
    STATE_JS,
    TIMING_JS,
    _split_summary,
    _url,
    checksums,
)
from bench.common import (
    CHAPTER9_LINK,
    ROOT,
    check,
    context,
    loadavg,
    streamlit_server,
    summary,
)

TARGET_MS = 100.0
TARGET_CPU_RATIO = 1 / 3

# true once every chart holds its checksum and the app is idle; with ``run``, once the app has
# also run since the key (a change that moves no number: the language)
DONE_JS = """
([expected, run]) => {
  const b = window.__bench;
  const states = b.states || [];
  if (run && !states.some(s => s[0] >= b.key && s[1] === 'running')) return false;
  const last = states[states.length - 1];
  if (!last || last[1] !== 'notRunning') return false;
  if (!(CHARTS_HOLD)(expected)) return false;
  b.settled = performance.now();
  return true;
}
""".replace("CHARTS_HOLD", CHARTS_HOLD_JS)


PAGES = {
    # slug: (file, the fragment's control, the full reruns beside it)
    "softmax": ("pages/3_softmax.py", "temperature", ("seed", "lang")),
    "learned": ("pages/10_learned.py", "step", ("lang",)),
}


def _plan(slug: str, rounds: int) -> tuple[dict, list[float], list[tuple[str, object, list]]]:
    """The page's query, its first checksums, and the changes in turns: (kind, value, the
    checksums after it), computed by AppTest in the same order as the browser makes them."""
    from streamlit.testing.v1 import AppTest

    path, local, fulls = PAGES[slug]
    # /softmax from τ's lowest stop, so that each round's arrow key reaches a stop not yet shown
    query = dict(CHAPTER9_LINK) | ({"temperature": 0.05} if slug == "softmax" else {})
    at = AppTest.from_file(str(ROOT / path), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = str(value)
    at.run()
    first = checksums(at)
    control = at.select_slider(key=local)  # the training step, or τ's stops
    options = list(control.options)
    value = options.index(str(control.value) if slug == "learned" else f"{control.value:g}")
    changes: list[tuple[str, object, list]] = []
    for r in range(rounds):
        if slug == "learned":
            value = max(0, value - 1)  # ArrowLeft: the step before
            at.select_slider(key="step").set_value(options[value]).run()
        else:
            value = min(len(options) - 1, value + 1)  # ArrowRight: τ's next stop
            at.select_slider(key="temperature").set_value(float(options[value])).run()
        changes.append((local, options[value], checksums(at)))
        for kind in fulls:
            seed = 3000 + r
            if kind == "seed":
                at.number_input(key="seed").set_value(seed).run()
            value_ = seed if kind == "seed" else ("fr" if r % 2 == 0 else "en")
            changes.append((kind, value_, checksums(at)))  # the language moves no number
    return query, first, changes


def _press(page, slug: str, kind: str, value: object) -> None:
    """Make one change as a student does: an arrow key, a seed and Enter, or a language."""
    if kind == "seed":
        box = page.locator('input[data-testid="stNumberInputField"]').first
        box.fill(str(value))
        box.press("Enter")
    elif kind == "lang":
        button = page.locator(".st-key-lang button").filter(has_text=str(value)).first
        button.focus()
        page.keyboard.press("Enter")
    else:
        found = f'.st-key-{kind} input[type="range"], .st-key-{kind} [role="slider"]'
        slider = page.locator(found).first
        slider.focus()
        page.keyboard.press("ArrowLeft" if slug == "learned" else "ArrowRight")


def _page_run(browser, server, slug: str, rounds: int) -> dict:
    """One page: every change in turns, each timed and its server CPU read."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    query, first, changes = _plan(slug, rounds)
    context_ = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    context_.add_init_script(TIMING_JS + STATE_JS)
    page = context_.new_page()
    try:
        page.goto(_url(server.url, slug, query))
        page.wait_for_function(DONE_JS, arg=[first, False], polling="raf", timeout=120e3)
        kinds: dict[str, dict] = {}
        misses: list[str] = []
        for kind, value, expected in changes:
            row = kinds.setdefault(kind, {"ms": [], "driver_ms": [], "cpu_s": 0.0, "n": 0})
            page.wait_for_function(QUIET_JS, polling=100, timeout=60e3)
            cpu0, t0 = server.cpu(), time.perf_counter()
            _press(page, slug, kind, value)
            try:
                arg = [expected, kind == "lang"]
                page.wait_for_function(DONE_JS, arg=arg, polling="raf", timeout=20e3)
            except PlaywrightTimeout:  # a result to report, not a crash
                row["timeouts"] = row.get("timeouts", 0) + 1
                shown = page.evaluate(CHART_SUMS_JS)
                misses.append(f"{kind} {value}: charts {shown}, AppTest {expected}")
                continue
            row["driver_ms"].append((time.perf_counter() - t0) * 1e3)
            time.sleep(GRACE_S)
            row["cpu_s"] += server.cpu() - cpu0
            row["n"] += 1
            split = page.evaluate(SPLIT_JS)
            if split:
                row["ms"].append(split["total"])
                row.setdefault("splits", []).append(split)
        errors = page.locator('[data-testid="stException"]').count()
    finally:
        context_.close()
    return {
        "page": slug,
        "errors": errors,
        "timeouts": misses[:5],
        "kinds": {
            k: {
                "n": v["n"],
                "timeouts": v.get("timeouts", 0),
                "ms": summary(v["ms"]),
                "split_ms": _split_summary(v.get("splits", [])),
                "driver_ms": summary(v["driver_ms"]),
                "server_cpu_ms": v["cpu_s"] * 1e3 / max(1, v["n"]),
            }
            for k, v in kinds.items()
        },
    }


def run(quick: bool = False) -> dict:
    """Both pages on one fresh server, one tab each in turn."""
    from playwright.sync_api import sync_playwright

    rounds = 5 if quick else 10
    result: dict = {"loadavg_start": loadavg(), "rounds": rounds, "pages": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            with streamlit_server() as server:
                for slug in PAGES:
                    result["pages"].append(_page_run(browser, server, slug, rounds))
            specs = floor.section_specs(CHAPTER9_LINK)  # Streamlit's floor beside them
            result["floor"] = floor.run(browser, specs, rounds)
        finally:
            browser.close()
    result["loadavg_end"] = loadavg()
    result["checks"] = _checks(result)
    return result


def _checks(result: dict) -> list[dict]:
    out = []
    for p in result["pages"]:
        slug, kinds = p["page"], p["kinds"]
        local = PAGES[slug][1]
        full = PAGES[slug][2][0]
        out.append(
            check(
                f"/{slug}: {local} key -> redrawn charts (median, page's clock)",
                kinds[local]["ms"].get("median"),
                TARGET_MS,
                "ms",
            )
        )
        ratio = kinds[local]["server_cpu_ms"] / max(1e-9, kinds[full]["server_cpu_ms"])
        out.append(
            check(
                f"/{slug}: server CPU of a {local} change / a full rerun ({full})",
                ratio,
                round(TARGET_CPU_RATIO, 2),
                "",
            )
        )
        if "lang" in kinds and full != "lang":
            same = kinds[local]["server_cpu_ms"] / max(1e-9, kinds["lang"]["server_cpu_ms"])
            out.append(
                context(f"/{slug}: server CPU of a {local} change / a language switch", same, "")
            )
        out.append(check(f"/{slug}: exceptions shown", p["errors"], 0, ""))
    for app in result.get("floor", {}).get("apps", []):
        what = floor.what_app(app, "/softmax's")
        name = f"bare Streamlit fragment, slider + {what}: key -> redrawn (median)"
        out.append(context(name, app["ms"].get("median"), "ms"))
    return out


def render(r: dict) -> list[str]:
    """The fragments section of latest.md."""
    names = {"seed": "full rerun, a new seed", "lang": "full rerun, the language (same numbers)"}
    lines = [
        f"One Streamlit process, one chromium tab per page; {r['rounds']} rounds, each a "
        "change of the section's own control and then the page's full reruns. *page's clock* = "
        "key event to every chart showing the new numbers with the app idle again (median, "
        "p95); *driver* = the same on the test driver's clock; *server CPU* = the process's CPU "
        "time per change, key to 150 ms after the screen settled.",
        "",
        "| page | change | n | page's clock median | p95 | key → sent | server | browser | "
        "driver median | server CPU ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in r["pages"]:
        for kind, v in p["kinds"].items():
            label = names.get(kind, f"{kind} (fragment)")
            ms, drv, sp = v["ms"], v["driver_ms"], v.get("split_ms", {})
            parts = " | ".join(
                f"{sp.get(k, {}).get('median', 0):.0f}" for k in ("to_send", "server", "render")
            )
            lines.append(
                f"| /{p['page']} | {label} | {v['n']} | {ms.get('median', 0):.0f} | "
                f"{ms.get('p95', 0):.0f} | {parts} | {drv.get('median', 0):.0f} | "
                f"{v['server_cpu_ms']:.1f} |"
            )
    if "floor" in r:
        lines += floor.render_rows(r["floor"])
        lines += [
            "",
            "*bare app*: Streamlit's own floor (`bench/floor.py`), a page that holds only an "
            "`st.fragment` with a slider and charts: the first of /softmax's section, then all "
            "of them, the same figures. A changed chart is a new element to Streamlit 1.67 (its "
            "id hashes the figure), so the browser draws it anew; the section's charts change "
            "with every τ. *drawn in place*: the same charts as a keyed components-v2 element "
            "that hands each new figure to `Plotly.react` in the chart it drew before. *as "
            "markup*: the section as the page draws it now, its heatmaps and bars markup the "
            "server writes (`ui/draw/heatmap_table.py`, `ui/draw/bars_markup.py`) in one "
            "`st.html`.",
        ]
    lines += ["", f"Load average {r['loadavg_start']} → {r['loadavg_end']}."]
    return lines


if __name__ == "__main__":  # a quick look without the report: python -m bench.fragments
    print(json.dumps(run(quick=True), indent=1))
