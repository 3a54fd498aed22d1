"""Turn the results of ``python -m bench`` into ``bench/results/latest.md``."""

from __future__ import annotations

from bench.checks import render as _checks
from bench.classes import render as _class
from bench.common import shown as _p
from bench.core import SPEED_REFERENCE_MS
from bench.fragments import render as _fragments
from bench.hosts import render as _hosts


def _ms(value: object, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, dict):
        value = value.get("median")
        if value is None:
            return "–"
    return f"{value:.{digits}f}"


def _kb(value: float | None) -> str:
    return "–" if value is None else f"{value / 1024:.1f}"


def _value(v: object, unit: str) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if abs(v) < 1e-3 and v != 0.0:
            return f"{v:.1e}{unit}"
        return f"{v:.2f}{unit}" if abs(v) < 10 else f"{v:.0f}{unit}"
    return f"{v}{unit}"


def _checks_table(checks: list[dict]) -> list[str]:
    lines = ["| result | measured | target | met |", "|---|---:|---:|:---:|"]
    for c in checks:
        met = {True: "yes", False: "**no**", None: "–"}[c["met"]]
        target = (
            "–"
            if c["target"] is None
            else f"{c['op']} {_value(c['target'], ' ' + c['unit'] if c['unit'] else '')}"
        )
        unit = " " + c["unit"] if c["unit"] else ""
        name = c["name"].replace("|", "\\|")  # a | inside a cell would end it
        lines.append(f"| {name} | {_value(c['value'], unit)} | {target} | {met} |")
    return lines


def _machine(m: dict) -> list[str]:
    v = m.get("versions", {})
    pools = m.get("threadpools")
    if isinstance(pools, list):
        pools_text = "; ".join(
            f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads, "
            f"{p.get('architecture')})"
            for p in pools
        )
    else:
        pools_text = str(pools)
    return [
        f"- commit `{m.get('commit')}` ({m.get('dirty_files')} files changed since), "
        f"Python {m.get('python')}, {m.get('cpus')} CPUs ({m.get('cpu_model')})",
        f"- numpy {v.get('numpy')}, streamlit {v.get('streamlit')}, plotly {v.get('plotly')}, "
        f"pandas {v.get('pandas')}, torch {v.get('torch') or 'not installed'}, "
        f"playwright {v.get('playwright')}",
        f"- BLAS threads: {pools_text}; environment: {m.get('env') or 'no BLAS/OMP variables'}",
        *_speed(m.get("speed_ms")),
    ]


def _speed(ms: float | None) -> list[str]:
    """The speed probe against the machine where the targets were first met."""
    if ms is None:
        return []
    return [
        f"- speed probe (the readable sublayer, plain Python, T 16, d_model 64, 4 heads): "
        f"{ms:.1f} ms, {ms / SPEED_REFERENCE_MS:.2f} × the {SPEED_REFERENCE_MS} ms of the machine "
        "where every target was first met; a machine slower by that factor leaves each target "
        "that much less margin"
    ]


def _core_rows(cases: list[dict]) -> list[str]:
    rows = []
    for c in cases:
        readable = (
            f"{_p(c['readable_ms'], digits=2)} | {c['readable_over_engine']:.0f}×"
            if "readable_ms" in c
            else "– | –"
        )
        rows.append(
            f"| {c['T']} | {c['d_model']} | {c['n_heads']} | {_p(c['engine_ms'], digits=3)} | "
            f"{readable} | {_p(c.get('engine_attention_ms'), digits=3)} | "
            f"{_p(c.get('torch_attention_ms'), digits=3)} | "
            f"{_ratio(c.get('engine_over_torch_attention'))} | "
            f"{_p(c.get('torch_sublayer_ms'), digits=3)} | "
            f"{_ratio(c.get('engine_over_torch_sublayer'))} | "
            f"{_sci(c.get('max_abs_diff_z_torch'))} | {c['loadavg'][0]:.1f} |"
        )
    return rows


CORE_HEADER = [
    "| T | d_model | heads | engine | readable | readable / engine | engine attn | torch "
    "attn | engine / torch attn | torch sublayer | engine / torch sublayer | max abs Δz | "
    "load |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
]


def _core(r: dict) -> list[str]:
    threads = r.get("threads", {})
    out = [
        "Each side on the same float64 inputs, causal mask, medians of interleaved calls "
        "(ms). *engine* = `llm.multi_head_attention` + `llm.residual_layer_norm` (keeps "
        "every step of the trace); *readable* = `llm.nn` on lists; *attention part* = q, k, v "
        "`[H, T, d_head]` to z (engine: its own per-head steps; torch: one "
        "`scaled_dot_product_attention(is_causal=True)`); *torch sublayer* = projections, SDPA, "
        "concat, W_O, residual, `layer_norm`.",
        "",
        f"One thread on each side (BLAS: {threads.get('one', {}).get('blas', '?')}, torch: "
        f"{threads.get('one', {}).get('torch', '–')}):",
        "",
        *CORE_HEADER,
        *_core_rows(r["cases"]),
    ]
    if r.get("cases_default_threads"):
        out += [
            "",
            f"The libraries' default threads (torch: {threads.get('default', {}).get('torch')}; "
            "BLAS: see the machine line above); a busy machine hurts these most:",
            "",
            *CORE_HEADER,
            *_core_rows(r["cases_default_threads"]),
        ]
    t = r.get("torch")
    out.append("")
    out.append(
        f"PyTorch {t['version']}."
        if t
        else "PyTorch is not installed: the comparison with it was skipped."
    )
    return out


def _ratio(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _sci(v: float | None) -> str:
    return "–" if v is None else f"{v:.1e}"


def _pages(r: dict) -> list[str]:
    out = [
        f"AppTest, {r['reruns']} reruns per mode after {r['warmup']} warm-up runs: *script* = "
        "the script's run on the server, wall clock (CPU time of the script thread in "
        "brackets); *hit* = same settings again (`compute_lab` cached), *miss* = a new seed each "
        "rerun; *bytes* = the serialized ForwardMsgs of one rerun (a browser with an empty "
        "cache).",
        "",
        "| page | preset | hit median (cpu) | hit p95 | miss median (cpu) | miss p95 "
        "| kB / rerun | charts | tables | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in r["apptest"]:
        out.append(
            f"| /{a['page']} | {a['preset']} | {_p(a['hit']['script_ms'])} "
            f"({_p(a['hit'].get('script_cpu_ms'))}) | {_p(a['hit']['script_ms'], 'p95')} | "
            f"{_p(a['miss']['script_ms'])} ({_p(a['miss'].get('script_cpu_ms'))}) | "
            f"{_p(a['miss']['script_ms'], 'p95')} | {_kb(a['miss']['bytes'].get('median'))} | "
            f"{a['charts']} | {a['tables']} | {len(a['errors'])} |"
        )
    if r.get("ws"):
        out += [
            "",
            "The same reruns on a real server over its websocket (`bench.wsclient`): round trip "
            "from `rerun_script` to `script_finished`, and the bytes off the socket with the "
            "browser's message cache (an unchanged element of 10 kB or more comes back as a "
            "reference). *server CPU* = the server process's CPU time over the miss reruns, "
            "divided by their number (sockets and queues included). *deflated* = the same bytes "
            "through zlib, about what `server.enableWebsocketCompression` would send.",
            "",
            "| page | preset | hit RTT median | hit p95 | miss RTT median | miss p95 | server CPU "
            "ms / miss | kB hit | kB miss | kB miss deflated | errors |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for w in r["ws"]:
            out.append(
                f"| /{w['page']} | {w['preset']} | {_p(w['hit']['rtt_ms'])} | "
                f"{_p(w['hit']['rtt_ms'], 'p95')} | {_p(w['miss']['rtt_ms'])} | "
                f"{_p(w['miss']['rtt_ms'], 'p95')} | "
                f"{_ms(w['miss'].get('server_cpu_ms_per_rerun'))} | "
                f"{_kb(w['hit']['bytes'].get('median'))} | "
                f"{_kb(w['miss']['bytes'].get('median'))} | "
                f"{_kb(w['miss']['deflated_bytes'].get('median'))} | {len(w['errors'])} |"
            )
    errors = sorted({e for a in r["apptest"] + r.get("ws", []) for e in a["errors"]})
    if errors:
        out += ["", "Errors seen:", *(f"- `{e}`" for e in errors[:10])]
    return out


def _browser(r: dict) -> list[str]:
    split = r.get("seed_change_split_ms", {})
    sl = r.get("slider_change_split_ms", {})
    counts = ", ".join(
        f"/{k} {v['heatmaps']} in {v['charts']}" if isinstance(v, dict) else f"/{k} {v}"
        for k, v in r.get("heatmaps_per_page", {}).items()
    )
    return [
        f"Page with the most heatmaps a new seed redraws at chapter 9: **/{r['page']}** "
        f"(redrawn heatmaps in charts, per page: {counts}).",
        "",
        f"- server start to healthy: {r['server_start_s'] * 1e3:.0f} ms; first load on that "
        f"fresh server (goto to every chart drawn with the right numbers): "
        f"{r['first_load_fresh_server_ms']:.0f} ms; the same in a new browser context on the "
        f"warm server: {r['load_warm_server_ms']:.0f} ms "
        f"(DOMContentLoaded {r['warm_navigation_timing_ms'].get('dom', 0):.0f} ms).",
        f"- seed typed + Enter to new heatmaps in the DOM, in the page's clock (the key event "
        f"to the frame that shows every chart's new numbers): median "
        f"{_p(split.get('total'))} ms, p95 {_p(split.get('total'), 'p95')} ms over "
        f"{r['seed_change_ms']['n']} changes: key to first frame sent "
        f"{_p(split.get('to_send'))} ms, frame sent to last frame received (server, and the "
        f"browser drawing the first messages meanwhile) {_p(split.get('server'))} ms, last "
        f"frame to charts updated (browser) {_p(split.get('render'))} ms. On the test "
        f"driver's clock, which adds its round trips to the browser: median "
        f"{_p(r['seed_change_ms'])} ms, p95 {_p(r['seed_change_ms'], 'p95')} ms.",
        f"- arrow key on the d_model slider (8 ↔ 9, so the head count changes too), page's "
        f"clock: median {_p(sl.get('total'))} ms, p95 {_p(sl.get('total'), 'p95')} ms over "
        f"{r['slider_change_ms']['n']} changes (server {_p(sl.get('server'))} ms, browser "
        f"{_p(sl.get('render'))} ms); driver's clock: median {_p(r['slider_change_ms'])} ms.",
        *_first_visit(r.get("first_visit") or {}),
        f"- exceptions shown: {r['errors']}; load average {r['loadavg_start']} → "
        f"{r['loadavg_end']}.",
    ]


def _first_visit(v: dict) -> list[str]:
    if "direct" not in v:
        return ["- first visit over a slow network: not measured (nginx is not installed)."]
    net, direct, nginx = v["network"], v["direct"], v["nginx"]
    return [
        f"- first visit over a class's wifi ({net['mbit']:g} Mbit/s, {net['latency_ms']:g} ms "
        f"round trips, new browser context each time, {direct['ms']['n']} visits each): "
        f"one process straight, {direct['mb']:.2f} MB in {_p(direct['ms'])} ms (median); "
        f"one process behind nginx as `scripts/serve.sh` runs it (Streamlit's files "
        f"compressed), {nginx['mb']:.2f} MB in {_p(nginx['ms'])} ms."
    ]


def _load(r: dict) -> list[str]:
    out = [
        "Websocket sessions on the lesson pages in turn, chapter 9's preset; a change is a new "
        "seed half the time, else the causal toggle or the head. Latency = `rerun_script` to "
        "`script_finished`; reruns/s counts the changes finished between the end of the "
        "2 s ramp and the deadline; *first load* = each session's first run; *server CPU* = "
        "the server process's CPU time over all runs (first loads included) / their number. "
        "A fresh server per row; the load generator runs on the same machine."
        + (f" Pages: {', '.join('/' + p for p in r['pages'])}." if r.get("pages") else ""),
        "",
        "| processes | sessions | pace | reruns/s | p50 | p95 | max | first load p95 | errors | "
        "RSS start → peak → after close (MB) | server CPU ms / rerun | kB / rerun | load |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    cluster = r.get("cluster") or {}
    for row in (
        r["classes"] + r["saturation"] + cluster.get("classes", []) + cluster.get("saturation", [])
    ):
        pace = f"{row['pace_s']:.0f} s" if row["pace_s"] else "none"
        lat = row["latency_ms"]
        procs = row.get("processes", 1)
        procs = f"{procs} + nginx" if procs > 1 else "1"
        out.append(
            f"| {procs} | {row['sessions']} | {pace} | {row['reruns_per_s']:.1f} | {_p(lat)} | "
            f"{_p(lat, 'p95')} | {_p(lat, 'max')} | {_p(row['first_load_ms'], 'p95')} | "
            f"{row['errors']} | {_ms(row['rss_start_mb'], 0)} → {_ms(row['rss_hwm_mb'], 0)} → "
            f"{_ms(row['rss_after_close_mb'], 0)} | {row['server_cpu_ms_per_rerun']:.1f} | "
            f"{_kb(row['bytes_per_rerun'].get('median'))} | {row['loadavg'][0]:.1f} |"
        )
    probes = [row["browser_probe"] for row in r["classes"] if "browser_probe" in row]
    for row in r["classes"] + cluster.get("classes", []):
        p = row.get("browser_probe")
        if p:
            procs = row.get("processes", 1)
            where = f", {procs} processes behind nginx" if procs > 1 else ""
            out.append(
                f"\nWith {row['sessions']} sessions{where}: {p['tabs']} real chromium tabs on /"
                f"{p['page']} opened before the class (load median "
                f"{_p(p['first_load_ms'], digits=0)} ms), then typed a seed every 2 s: new "
                f"heatmaps in the DOM after a median {_p(p['seed_change_ms'], digits=0)} ms, p95 "
                f"{_p(p['seed_change_ms'], 'p95', 0)} ms ({p['seed_change_ms'].get('n', 0)} "
                f"changes); errors: {p['errors'] or 'none'}."
            )
    if not probes:
        out.append("\nNo browser tabs joined these runs.")
    if cluster:
        out.append(
            f"\n*{cluster['processes']} + nginx*: {cluster['processes']} Streamlit processes "
            "behind nginx with sticky sessions (`deploy/nginx.conf.template`, as "
            "`scripts/serve.sh` and the container run them, one a core); memory and CPU add "
            "up every process. The class and saturation targets are read on these rows: one "
            "process uses one core, whatever the machine has, so its rows say what a host with "
            "one CPU gets."
        )
    else:
        out.append("\nnginx is not installed: no run with several processes.")
    samples = sorted({e for row in r["classes"] + r["saturation"] for e in row["error_samples"]})
    if samples:
        out += ["", "Errors seen:", *(f"- `{e}`" for e in samples)]
    return out


SECTIONS = {
    "core": ("Core: engine, readable code, PyTorch", _core),
    "pages": ("Page reruns", _pages),
    "browser": ("Browser", _browser),
    "fragments": ("Sections that rerun alone", _fragments),
    "load": ("Load", _load),
    "class": ("A class following its teacher", _class),
    "checks": ("Exercise checks", _checks),
    "hosts": ("Hosts behind HAProxy", _hosts),
}


def render(results: dict) -> str:
    """The whole report: every target first, then one section per benchmark."""
    lines = [
        "# Benchmark results",
        "",
        f"Measured {results['finished']} with `{results['command']}` in "
        f"{results['elapsed_s']:.0f} s. Load average (1, 5, 15 min) at the start: "
        f"{results['machine']['loadavg_start']}; numbers taken on a busy machine read high, "
        "so each section also gives its own load average. Benchmarks measure; none of them "
        "passes or fails.",
        "",
        *_machine(results["machine"]),
        "",
        "## Targets",
        "",
    ]
    checks = [c for key in SECTIONS for c in results.get(key, {}).get("checks", [])]
    lines += _checks_table(checks) if checks else ["No section ran."]
    for key, (title, fn) in SECTIONS.items():
        section = results.get(key)
        lines += ["", f"## {title}", ""]
        if section is None:
            lines.append("Not run this time.")
        elif "error" in section:
            lines.append(f"Failed: `{section['error']}`")
        else:
            lines.append(f"*Measured {section.get('measured_at', '?')}.*")
            lines.append("")
            lines += fn(section)
    return "\n".join(lines) + "\n"
