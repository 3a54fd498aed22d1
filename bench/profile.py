"""Where a page's rerun time goes: cProfile inside the script thread of AppTest reruns.

    .venv/bin/python -m bench.profile pages/6_concat.py --preset largest --reruns 10
    .venv/bin/python -m bench.profile pages/5_heads.py --sort tottime --top 40
    .venv/bin/python -m bench.profile pages/4_mix.py --same --callers filtered_state

Profiles only the script runs (after two warm-up runs), one new seed per rerun (a cache miss;
on the learned page a new training step instead, as bench.pages moves it) unless ``--same`` is
given. Profiles with cProfile and pstats.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path

from bench.common import PRESETS, ROOT, page_slug


def profile_page(
    path: Path,
    preset: str,
    reruns: int,
    same: bool,
    sort: str,
    top: int,
    filters: list[str],
    callers: str | None = None,
) -> str:
    from streamlit.testing.v1 import AppTest, app_test, local_script_runner
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    from bench.pages import move_miss

    profiler = cProfile.Profile()
    state = {"on": False}

    class ProfiledRunner(LocalScriptRunner):
        def _run_script_thread(self) -> None:
            if state["on"]:
                profiler.enable()
            try:
                super()._run_script_thread()
            finally:
                if state["on"]:
                    profiler.disable()

    saved = app_test.LocalScriptRunner, app_test.ScriptCache, local_script_runner.ScriptCache
    app_test.LocalScriptRunner = ProfiledRunner
    shared = app_test.ScriptCache()  # compile each page once, as a server does
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    try:
        at = AppTest.from_file(str(path), default_timeout=60)
        for key in ("text", "d_model", "n_heads"):
            at.query_params[key] = str(PRESETS[preset][key])
        at.run()
        at.run()
        state["on"] = True
        for i in range(reruns):
            if not same:
                move_miss(at, page_slug(path), i, 900_000 + i)
            at.run()
    finally:
        app_test.LocalScriptRunner, app_test.ScriptCache, local_script_runner.ScriptCache = saved
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(sort)
    if callers:  # who calls the functions whose name matches, and what each call cost there
        stats.print_callers(callers)
    else:
        stats.print_stats(*filters, top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="a page file, e.g. pages/5_heads.py")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="chapter9")
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument("--same", action="store_true", help="same settings (cache hit)")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--filter", action="append", default=[], help="pstats name filter")
    parser.add_argument("--callers", help="print the callers of the functions this matches")
    args = parser.parse_args(argv)
    path = Path(args.page)
    if not path.is_absolute():
        path = ROOT / path
    text = profile_page(
        path, args.preset, args.reruns, args.same, args.sort, args.top, args.filter, args.callers
    )
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
