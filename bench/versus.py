"""Two checkouts' page reruns in the same minutes: what the code between them did to each page.

    .venv/bin/python -m bench.versus OTHER_CHECKOUT [--pages home,qkv,heads] [--rounds 3]

Runs the page benchmark's AppTest reruns (``bench.pages``: 20 with the same settings, 20 with a
new seed, after two warm-up runs, at chapter 9's preset and the largest) for each page in this
checkout (A) and in OTHER_CHECKOUT (B), each in a process of its own started with this Python, in
turns (A then B, then B then A, ...). A page's time on a shared machine moves with the load and
with the machine itself from one day to the next; two checkouts timed in turns share both, so the
ratio A/B of their medians says what the code did. A page that B does not have is left out.
Not part of ``python -m bench``: it compares code, it does not measure the lab against targets.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.common import ROOT

# runs inside a checkout's own process: its bench.pages, its pages, its engine
DRIVER = """
import json, logging, sys
logging.disable(logging.ERROR)
from bench import pages
from bench.common import page_files, page_slug
files = {page_slug(p) or "home": p for p in page_files()}
slug, preset, reruns, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if slug not in files:
    print(json.dumps(None))
    raise SystemExit
with pages.timed_apptest() as runner:
    row = pages._apptest_page(files[slug], preset, reruns, seed, runner)
print(json.dumps({mode: row[mode]["script_ms"]["median"] for mode in ("hit", "miss")}))
"""
SLUGS = "home,qkv,scores,softmax,mix,heads,concat,layernorm,depth,code,learned"


def _one(checkout: Path, slug: str, preset: str, reruns: int, seed: int) -> dict | None:
    env = os.environ | {"PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, slug, preset, str(reruns), str(seed)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def versus(other: Path, slugs: list[str], rounds: int, reruns: int) -> list[str]:
    """Lines: per page, preset and mode, A's and B's medians over the rounds and their ratio."""
    sides = {"A": ROOT, "B": other}
    times: dict[tuple[str, str, str, str], list[float]] = {}
    for r in range(rounds):
        order = ("A", "B") if r % 2 == 0 else ("B", "A")
        for slug in slugs:
            for preset in ("chapter9", "largest"):
                for side in order:
                    seed = 600_000 + 10_000 * r
                    row = _one(sides[side], slug, preset, reruns, seed)
                    for mode, ms in (row or {}).items():
                        times.setdefault((slug, preset, mode, side), []).append(ms)
    lines = [f"A = {ROOT}, B = {other}; medians of {rounds} rounds, ms"]
    for slug in slugs:
        for preset in ("chapter9", "largest"):
            for mode in ("hit", "miss"):
                a = times.get((slug, preset, mode, "A"))
                b = times.get((slug, preset, mode, "B"))
                if not a:
                    continue
                am = statistics.median(a)
                if b:
                    bm = statistics.median(b)
                    row = f"/{slug:10} {preset:9} {mode:4} A {am:6.1f}  B {bm:6.1f}"
                    lines.append(f"{row}  A/B {am / bm:4.2f}")
                else:
                    lines.append(f"/{slug:10} {preset:9} {mode:4} A {am:6.1f}  B  (no such page)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="another checkout of the lab (git worktree add)")
    parser.add_argument("--pages", default=SLUGS, help=f"comma list of slugs (default {SLUGS})")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reruns", type=int, default=20)
    args = parser.parse_args(argv)
    other = args.other.resolve()
    print("\n".join(versus(other, args.pages.split(","), args.rounds, args.reruns)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
