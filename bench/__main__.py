"""Run the benchmarks and write bench/results/latest.md and latest.json.

.venv/bin/python -m bench                       # everything (about 10 minutes)
.venv/bin/python -m bench --quick               # fewer repeats, smaller grids
.venv/bin/python -m bench --only core,pages     # some sections; the others keep their
                                                # last results in latest.json
.venv/bin/python -m bench --only load --pages qkv,scores,softmax --out /tmp/load
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from bench.common import ROOT, dump_json, loadavg, machine
from bench.core import speed_probe

SECTION_NAMES = ("core", "pages", "browser", "fragments", "load", "class", "checks", "hosts")


def _quiet_streamlit() -> None:
    """AppTest runs pages in this process: keep Streamlit's log lines (a warning per run, a
    traceback per failing page) out of the output; the results record every page error."""
    logging.disable(logging.ERROR)


def _run_section(name: str, args: argparse.Namespace) -> dict:
    if name == "core":
        from bench import core

        return core.run(quick=args.quick, with_torch=not args.no_torch)
    if name == "pages":
        from bench import pages

        return pages.run(quick=args.quick, with_ws=not args.no_ws)
    if name == "browser":
        from bench import browser

        return browser.run(quick=args.quick)
    if name == "fragments":
        from bench import fragments

        return fragments.run(quick=args.quick)
    if name == "class":
        from bench import classes

        return classes.run(quick=args.quick)
    if name == "checks":
        from bench import checks

        return checks.run(quick=args.quick)
    if name == "hosts":
        from bench import hosts

        return hosts.run(quick=args.quick)
    from bench import load

    pages = [p.strip() for p in args.pages.split(",") if p.strip()] if args.pages else None
    return load.run(quick=args.quick, browser_probe=not args.no_probe, pages=pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller grids")
    parser.add_argument(
        "--only", default=",".join(SECTION_NAMES), help="comma list of " + ",".join(SECTION_NAMES)
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch comparison")
    parser.add_argument("--no-ws", action="store_true", help="pages: AppTest only, no server")
    parser.add_argument("--no-probe", action="store_true", help="load: no browser tabs")
    parser.add_argument(
        "--pages",
        help="load: the students' pages, a comma list of slugs (default: every lesson page), "
        "to compare with a checkout that has fewer pages",
    )
    parser.add_argument(
        "--render", action="store_true", help="only rewrite latest.md from latest.json"
    )
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(wanted) - set(SECTION_NAMES))
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    _quiet_streamlit()

    from bench import report

    json_path, md_path = args.out / "latest.json", args.out / "latest.md"
    if args.render:
        md_path.write_text(report.render(json.loads(json_path.read_text())))
        print(f"[bench] wrote {md_path}")
        return 0
    results: dict = {}
    if json_path.exists() and set(wanted) != set(SECTION_NAMES):
        results = json.loads(json_path.read_text())  # keep the sections not run this time
    started = time.perf_counter()
    results["machine"] = machine()
    results["machine"]["speed_ms"] = speed_probe()
    results["command"] = "python -m bench " + " ".join(argv if argv is not None else sys.argv[1:])
    for name in wanted:
        print(f"[bench] {name} ... (load average {loadavg()})", flush=True)
        t0 = time.perf_counter()
        try:
            section = _run_section(name, args)
        except Exception as err:  # one section failing must not lose the others
            traceback.print_exc()
            section = {"error": f"{type(err).__name__}: {err}"}
        section["measured_at"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        section["seconds"] = time.perf_counter() - t0
        section["quick"] = args.quick
        results[name] = section
        results["finished"] = section["measured_at"]
        results["elapsed_s"] = time.perf_counter() - started
        dump_json(results, json_path)  # after every section, so a long run keeps what it has
        md_path.write_text(report.render(results))
        for c in section.get("checks", []):
            met = {True: "met", False: "MISSED", None: "n/a"}[c["met"]]
            target = "no target" if c["target"] is None else f"target {c['op']} {c['target']}"
            print(f"  {met:6} {c['name']}: {c['value']} ({target})")
    print(f"[bench] wrote {md_path} and {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
