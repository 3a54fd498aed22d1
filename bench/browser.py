"""Browser: what a student waits for, in headless chromium (playwright).

- **First load** on a freshly started server: from ``page.goto`` to every chart drawn with the right
  numbers (the first run also imports numpy, pandas and plotly on the server); then the same page
  in a new browser context on the now warm server.
- **A change**: on the page with the most heatmaps a new seed redraws, at chapter 9's preset (the
  learned-heads page's model does not read the seed), type a new seed and press
  Enter (and, separately, press an arrow key on the focused d_model slider); the clock stops when
  every plotly chart in the DOM holds the new numbers and the app says it is no longer running.

"The new numbers" are known before the change: AppTest runs the same page with the same settings
and gives every chart's data; the browser side compares a checksum of each chart's z over all its
traces (or the bar heights) in the DOM's plotly graph divs with them.
"""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

import numpy as np

from bench.common import (
    CHAPTER9_LINK,
    check,
    has_control,
    loadavg,
    nginx_path,
    page_files,
    page_slug,
    streamlit_cluster,
    streamlit_server,
    summary,
)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
]
TARGET_MS = 200.0
# a first visit over a class's wifi as one student gets it: 10 Mbit/s down, 40 ms round trips
SLOW_NETWORK = {
    "offline": False,
    "latency": 40,
    "downloadThroughput": 10e6 / 8,
    "uploadThroughput": 5e6 / 8,
}

# stamps, in the page's own clock: the key press, each websocket frame sent and received
TIMING_JS = """
window.__bench = {key: null, sent: [], recv: [], settled: null};
document.addEventListener('keydown', () => { window.__bench.key = performance.now(); }, true);
const NativeWebSocket = window.WebSocket;
class TimedWebSocket extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', () => window.__bench.recv.push(performance.now()));
  }
  send(data) {
    window.__bench.sent.push(performance.now());
    return super.send(data);
  }
}
window.WebSocket = TimedWebSocket;
"""

# the app's script state, stamped at every change (a fragment's run flips it too)
STATE_JS = """
(() => {
  let last = null;
  const look = () => {
    const app = document.querySelector('.stApp');
    const now = app ? app.getAttribute('data-test-script-state') : null;
    if (now !== last && window.__bench) {
      window.__bench.states = window.__bench.states || [];
      window.__bench.states.push([performance.now(), now]);
      last = now;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""

# the app has been idle for a second and a half: the load's own reruns (the browser store's
# answer) are over, and a change starts from a quiet page
QUIET_JS = """
() => {
  const s = (window.__bench && window.__bench.states) || [];
  const last = s[s.length - 1];
  return !!last && last[1] === 'notRunning' && performance.now() - last[0] > 1500;
}
"""

GRACE_S = 0.15  # a change's CPU is read this long after its screen settled (the run's end)

# the split of the last change: key -> first frame sent -> last frame received -> settled
SPLIT_JS = """
() => {
  const b = window.__bench;
  const sent = b.sent.filter(t => t >= b.key);
  const recv = b.recv.filter(t => t >= b.key && t <= b.settled);
  if (!sent.length || !recv.length) return null;
  return {total: b.settled - b.key, to_send: sent[0] - b.key,
          server: recv[recv.length - 1] - sent[0], render: b.settled - recv[recv.length - 1]};
}
"""

# every chart's checksum in page order as ``checksums`` reads it: each plotly chart's sum of its
# finite z (or bar y) values, null for one plotly has not drawn yet; then each figure of markup's
# sum of its finite ``data-z``. Each sum is kept with what it was read from (the chart's data,
# the figure's data-z) and read again only when that changes: the check runs every frame while
# a change is timed, on the page's own thread, and /learned's training charts alone took 3.6 ms
# to decode a frame.
CHART_SUMS_JS = """
() => {
  const sum = (values) => values.reduce((a, v) => a + (Number.isFinite(v) ? v : 0), 0);
  const flat = (v) => (v == null ? [] : typeof v === 'number' ? [v] : [...v].flatMap(flat));
  const kept = window.__chartSums || (window.__chartSums = new WeakMap());
  const read = (el, source, compute) => {
    const hit = kept.get(el);
    if (hit && hit[0] === source) return hit[1];
    const value = compute();
    kept.set(el, [source, value]);
    return value;
  };
  const traces = (data) => sum(data.flatMap((t) => flat(t.type === 'bar' ? t.y : t.z)));
  const decoded = (z) => new Float64Array(Uint8Array.from(atob(z), (c) => c.charCodeAt(0)).buffer);
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map((gd) =>
    gd._fullData && gd._fullData[0] ? read(gd, gd._fullData, () => traces(gd._fullData)) : null);
  const maps = [...document.querySelectorAll('figure[data-z]')].map((el) =>
    read(el, el.dataset.z, () => sum([...decoded(el.dataset.z)])));
  return charts.concat(maps);
}
"""

# true when every chart holds its expected checksum
CHARTS_HOLD_JS = """
(expected) => {
  const sums = (CHART_SUMS)();
  if (sums.length !== expected.length) return false;
  return sums.every((sum, i) => sum !== null
    && Math.abs(sum - expected[i]) <= 1e-6 * Math.max(1, Math.abs(expected[i])));
}
""".replace("CHART_SUMS", CHART_SUMS_JS)

# true when the app is idle and every chart holds the expected checksum
SETTLED_JS = (
    """
(expected) => {
  const app = document.querySelector('.stApp');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!(CHARTS_HOLD)(expected)) return false;
  if (window.__bench) window.__bench.settled = performance.now();
  return true;
}
"""
).replace("CHARTS_HOLD", CHARTS_HOLD_JS)


def _array(value: object) -> np.ndarray:
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return flat.astype(np.float64)
    if value is None:
        return np.zeros(0)
    return np.array(value, dtype=np.float64).ravel()


def expected_checksums(path: Path, query: dict[str, object], change: dict | None = None) -> list:
    """Every chart's checksum (sum of finite z, or of bar heights) as AppTest renders the page."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(path), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = str(value).lower() if isinstance(value, bool) else str(value)
    at.run()
    for key, value in (change or {}).items():
        widget = at.number_input(key=key) if key == "seed" else at.slider(key=key)
        widget.set_value(value)
    if change:
        at.run()
    return checksums(at)


MARKUP_Z = re.compile(r'data-z="([A-Za-z0-9+/=]*)"')
FIGURE_Z = re.compile(r'<figure class="(lab-[a-z]+)"[^>]*? data-z="([A-Za-z0-9+/=]*)"')


def checksums(at) -> list[float]:
    """Every chart's checksum as CHARTS_HOLD_JS reads it in the browser: each plotly chart's
    (the sum of its finite z, or of its bar heights; every plot of a grid), then each figure
    of markup's (a heatmap table, bars: its ``data-z``), in page order."""
    sums = []
    for chart in at.get("plotly_chart"):
        total = 0.0
        for trace in json.loads(chart.proto.spec)["data"]:  # every plot of a grid
            values = _array(trace.get("y") if trace.get("type") == "bar" else trace.get("z"))
            total += float(np.nansum(values[np.isfinite(values)]))
        sums.append(total)
    for element in at.get("html"):
        for found in MARKUP_Z.finditer(element.proto.body):
            values = np.frombuffer(base64.b64decode(found.group(1)), dtype=np.float64)
            sums.append(float(np.nansum(values[np.isfinite(values)])))
    return sums


def heaviest_page() -> tuple[Path, dict[str, int]]:
    """The page whose heatmaps a new seed redraws most at chapter 9's preset (AppTest counts the
    heatmaps that differ between seed 0 and seed 1: each plot of a grid counts, a plotly trace
    or a heatmap table of markup alike; a page with a model of its own, which the seed does not
    change, counts none), between equals the one with more charts (each chart is drawn anew on
    a change), then more traces; and each page's heatmaps and charts."""
    from streamlit.testing.v1 import AppTest

    counts: dict[str, dict[str, int]] = {}
    best, most = page_files()[0], (-1, -1, -1)
    for path in page_files():
        at = AppTest.from_file(str(path), default_timeout=60)
        at.run()
        before = {key for key, _, _ in _drawn(at)}
        if has_control(at, "seed"):  # a page without the seed: its heatmaps count none
            at.number_input(key="seed").set_value(1).run()
        charts = _drawn(at)
        heatmaps = sum(kind == "heatmap" and key not in before for key, kind, _ in charts)
        figures = len({chart for _, _, chart in charts})
        counts[page_slug(path) or "home"] = {"heatmaps": heatmaps, "charts": figures}
        # the most heatmaps; between equals, the most charts, then the most traces (bars too)
        if (heatmaps, figures, len(charts)) > most:
            best, most = path, (heatmaps, figures, len(charts))
    return best, counts


def _drawn(at) -> list[tuple[str, str, int]]:
    """Every trace of every plotly chart and every figure of markup on the page, as (what it
    holds, its kind, its chart's number): a heatmap table is a heatmap, its key its values."""
    out = []
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    for n, spec in enumerate(specs):
        out += [(json.dumps(t, sort_keys=True), t.get("type", ""), n) for t in spec["data"]]
    bodies = "".join(element.proto.body for element in at.get("html"))
    for n, found in enumerate(FIGURE_Z.finditer(bodies), start=len(specs)):
        out.append((found.group(2), "heatmap" if found.group(1) == "lab-heatmap" else "", n))
    return out


def _url(base: str, slug: str, query: dict[str, object]) -> str:
    from urllib.parse import urlencode

    return f"{base}/{slug}?{urlencode(query)}"


def _split_summary(splits: list[dict | None]) -> dict:
    """Medians of the in-page split of each change (ms): key to settled, and its three parts."""
    rows = [s for s in splits if s]
    return {k: summary([r[k] for r in rows]) for k in ("total", "to_send", "server", "render")}


def _wait(page, expected: list, timeout_s: float = 60.0) -> None:
    page.wait_for_function(SETTLED_JS, arg=expected, polling="raf", timeout=timeout_s * 1e3)


def run(quick: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    changes = 8 if quick else 20
    slider_changes = 4 if quick else 10
    target, counts = heaviest_page()
    slug = page_slug(target)
    query = dict(CHAPTER9_LINK)
    result: dict = {"page": slug, "heatmaps_per_page": counts, "loadavg_start": loadavg()}
    first_expected = expected_checksums(target, query)
    seeds = [1000 + i for i in range(changes)]
    seed_expected = [expected_checksums(target, query, {"seed": s}) for s in seeds]
    # the slider goes 8 -> 9 -> 8 ...: d_model 9 means 3 heads (the largest divisor below 4)
    slider_values = [9 if i % 2 == 0 else 8 for i in range(slider_changes)]
    slider_expected = [
        expected_checksums(target, query | {"seed": seeds[-1]}, {"d_model": v})
        for v in slider_values
    ]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            with streamlit_server() as server:
                result["server_start_s"] = server.started_s
                context = browser.new_context(locale="en-US")
                page = context.new_page()
                t0 = time.perf_counter()
                page.goto(_url(server.url, slug, query))
                _wait(page, first_expected, 120)
                result["first_load_fresh_server_ms"] = (time.perf_counter() - t0) * 1e3
                context.close()

                context = browser.new_context(locale="en-US")
                context.add_init_script(TIMING_JS)
                page = context.new_page()
                t0 = time.perf_counter()
                page.goto(_url(server.url, slug, query))
                _wait(page, first_expected, 60)
                result["load_warm_server_ms"] = (time.perf_counter() - t0) * 1e3
                nav = page.evaluate(
                    "() => { const n = performance.getEntriesByType('navigation')[0];"
                    " return {dom: n.domContentLoadedEventEnd, load: n.loadEventEnd}; }"
                )
                result["warm_navigation_timing_ms"] = nav

                seed_box = page.locator('input[data-testid="stNumberInputField"]').first
                times, splits = [], []
                for seed, expected in zip(seeds, seed_expected):
                    seed_box.fill(str(seed))
                    t0 = time.perf_counter()
                    seed_box.press("Enter")
                    _wait(page, expected)
                    times.append((time.perf_counter() - t0) * 1e3)
                    splits.append(page.evaluate(SPLIT_JS))
                result["seed_change_ms"] = summary(times)
                result["seed_change_split_ms"] = _split_summary(splits)
                result["seed_change_loadavg"] = loadavg()

                slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
                times, splits = [], []
                for value, expected in zip(slider_values, slider_expected):
                    slider.focus()
                    t0 = time.perf_counter()
                    page.keyboard.press("ArrowRight" if value == 9 else "ArrowLeft")
                    _wait(page, expected)
                    times.append((time.perf_counter() - t0) * 1e3)
                    splits.append(page.evaluate(SPLIT_JS))
                result["slider_change_ms"] = summary(times)
                result["slider_change_split_ms"] = _split_summary(splits)
                result["errors"] = page.locator('[data-testid="stException"]').count()
                context.close()
                result["server_rss_mb"] = server.rss()
            path = _url("", slug, query)
            result["first_visit"] = first_visits(browser, path, first_expected, quick)
        finally:
            browser.close()
    result["loadavg_end"] = loadavg()
    result["checks"] = [
        check(
            f"seed typed -> new heatmaps in the DOM, /{slug}, chapter 9 (median, page's clock)",
            result["seed_change_split_ms"]["total"]["median"],
            TARGET_MS,
            "ms",
        ),
        check(
            f"d_model slider key -> new heatmaps in the DOM, /{slug} (median, page's clock)",
            result["slider_change_split_ms"]["total"]["median"],
            TARGET_MS,
            "ms",
        ),
        check("exceptions shown in the browser", result["errors"], 0, ""),
    ]
    return result


def _visit(browser, url: str, expected: list) -> tuple[float, int]:
    """A first visit over SLOW_NETWORK in a new browser context: (ms to every chart drawn with
    the expected numbers, bytes of every response body)."""
    context = browser.new_context(locale="en-US")
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_NETWORK)
        received = []
        page.on("requestfinished", lambda r: received.append(r.sizes()["responseBodySize"]))
        t0 = time.perf_counter()
        page.goto(url)
        _wait(page, expected, 120)
        return (time.perf_counter() - t0) * 1e3, sum(received)
    finally:
        context.close()


def first_visits(browser, path: str, expected: list, quick: bool = False) -> dict:
    """First visits to ``path`` over SLOW_NETWORK, from one Streamlit process and from one behind
    nginx as scripts/serve.sh runs it (Streamlit's front-end files sent compressed by nginx),
    alternating: time and bytes. Empty without nginx."""
    if nginx_path() is None:
        return {}
    visits = 2 if quick else 3
    out: dict = {}
    with streamlit_server() as direct, streamlit_cluster(1) as behind:
        for _ in range(visits):
            for name, server in (("direct", direct), ("nginx", behind)):
                ms, size = _visit(browser, server.url + path, expected)
                out.setdefault(name, {"ms": [], "bytes": []})
                out[name]["ms"].append(ms)
                out[name]["bytes"].append(size)
    return {
        name: {"ms": summary(v["ms"]), "mb": float(np.median(v["bytes"])) / 1e6}
        for name, v in out.items()
    } | {
        "network": {
            "mbit": SLOW_NETWORK["downloadThroughput"] * 8 / 1e6,
            "latency_ms": SLOW_NETWORK["latency"],
        }
    }


def prepare_probe(changes: int = 8, contexts: int = 2) -> dict:
    """What the browser probe of a load run needs, computed before the run (AppTest is slow)."""
    target, _ = heaviest_page()
    query = dict(CHAPTER9_LINK)
    seeds = [[7000 + 100 * c + i for i in range(changes)] for c in range(contexts)]
    return {
        "slug": page_slug(target),
        "query": query,
        "first": expected_checksums(target, query),
        "seeds": seeds,
        "expected": [
            [expected_checksums(target, query, {"seed": s}) for s in row] for row in seeds
        ],
    }


async def probe_under_load(
    base_url: str, probe: dict, ready, seconds: float, pace_s: float = 2.0
) -> dict:
    """Real browser tabs in a load run: each opens its page, then (once ``ready`` is set, when
    every tab has loaded) types a new seed about every ``pace_s`` for ``seconds`` and times the
    new heatmaps into the DOM."""
    import asyncio

    from playwright.async_api import async_playwright

    times: list[float] = []
    loads: list[float] = []
    errors: list[str] = []
    loaded = 0

    async def tab(browser, seeds: list[int], expected: list[list[float]]) -> None:
        nonlocal loaded
        context = await browser.new_context(locale="en-US")
        try:
            page = await context.new_page()
            t0 = time.perf_counter()
            await page.goto(_url(base_url, probe["slug"], probe["query"]))
            await page.wait_for_function(
                SETTLED_JS, arg=probe["first"], polling="raf", timeout=120e3
            )
            loads.append((time.perf_counter() - t0) * 1e3)
            loaded += 1
            if loaded == len(probe["seeds"]):
                ready.set()
            await ready.wait()
            deadline = time.perf_counter() + seconds
            box = page.locator('input[data-testid="stNumberInputField"]').first
            for seed, want in zip(seeds, expected):
                await asyncio.sleep(pace_s)
                if time.perf_counter() >= deadline:
                    break
                await box.fill(str(seed))
                t0 = time.perf_counter()
                await box.press("Enter")
                await page.wait_for_function(SETTLED_JS, arg=want, polling="raf", timeout=60e3)
                times.append((time.perf_counter() - t0) * 1e3)
            shown = await page.locator('[data-testid="stException"]').count()
            if shown:
                errors.append(f"{shown} exception(s) shown")
        except Exception as err:  # a timeout is a result here, not a crash
            errors.append(f"{type(err).__name__}: {err}"[:200])
            ready.set()  # never hold the class back
        finally:
            await context.close()

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            await asyncio.gather(
                *(tab(browser, s, e) for s, e in zip(probe["seeds"], probe["expected"]))
            )
        finally:
            await browser.close()
    return {
        "page": probe["slug"],
        "tabs": len(probe["seeds"]),
        "first_load_ms": summary(loads),
        "seed_change_ms": summary(times),
        "errors": errors,
    }
