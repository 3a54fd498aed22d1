"""Two checkouts of the lab side by side in one browser: which one shows a change sooner.

    .venv/bin/python -m bench.pair OTHER_CHECKOUT [--page concat] [--changes 16]

Starts this checkout's app (A) and another checkout's (B), each on its own server run by this
Python, opens the same page of each in its own context of one headless chromium at chapter 9's
preset, and types new seeds in turns: A then B, then B then A, and so on. Each change is timed on
the page's own clock, from the key event to the frame where the script is idle and every chart on
the page is a new one holding its data (a new seed redraws every chart).

Runs of ``python -m bench``'s browser section move by about ±30 ms from one to the next on a
shared machine; changes taken in turns, in the same minutes, share that noise, so the median of
the paired differences says what the change between the checkouts did. Not part of
``python -m bench``: it compares code, it does not measure the lab.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from bench.browser import ARGS, CHROMIUM, TIMING_JS, _url
from bench.common import CHAPTER9_LINK, ROOT, streamlit_server

# before a change: remember the charts on the page
MARK_JS = """() => {
  const gds = document.querySelectorAll('.js-plotly-plot');
  window.__pair = {old: new WeakSet(gds), count: gds.length};
}"""
# after it: the app is idle and every chart is a new one, drawn
SETTLED_JS = """() => {
  const app = document.querySelector('.stApp');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const gds = [...document.querySelectorAll('.js-plotly-plot')];
  if (gds.length !== window.__pair.count) return false;
  for (const gd of gds) {
    if (window.__pair.old.has(gd) || !gd._fullData || !gd._fullData[0]) return false;
  }
  window.__bench.settled = performance.now();
  return true;
}"""
# chapter 9's preset, as the browser section opens it
QUERY = CHAPTER9_LINK


def run(other: Path, page: str, changes: int) -> dict[str, list[float]]:
    """Milliseconds of each change, per side ("A": this checkout, "B": ``other``)."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {"A": [], "B": []}
    with (
        streamlit_server(root=ROOT) as a,
        streamlit_server(root=other) as b,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            tabs = {}
            for side, server in (("A", a), ("B", b)):
                context = browser.new_context(
                    locale="en-US", viewport={"width": 1280, "height": 900}
                )
                context.add_init_script(TIMING_JS)
                tab = context.new_page()
                tab.goto(_url(server.url, page, QUERY))
                tab.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
                tab.wait_for_selector(".js-plotly-plot")
                tab.wait_for_timeout(1500)
                tabs[side] = tab
            for i in range(changes):
                for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                    tab = tabs[side]
                    tab.bring_to_front()
                    seed_box = tab.locator('input[data-testid="stNumberInputField"]').first
                    seed_box.fill(str(2000 + i))
                    tab.evaluate(MARK_JS)
                    tab.wait_for_timeout(300)
                    seed_box.press("Enter")
                    tab.wait_for_function(SETTLED_JS, polling="raf", timeout=30_000)
                    times[side].append(tab.evaluate("window.__bench.settled - window.__bench.key"))
                    tab.wait_for_timeout(300)
        finally:
            browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="another checkout of the project (B)")
    parser.add_argument("--page", default="concat", help="the page's path, e.g. concat, qkv")
    parser.add_argument("--changes", type=int, default=16, help="seed changes on each side")
    args = parser.parse_args()
    times = run(args.other.resolve(), args.page, args.changes)
    for side, name in (("A", str(ROOT)), ("B", str(args.other))):
        q = statistics.quantiles(times[side], n=4)
        print(
            f"{side} {name}: median {statistics.median(times[side]):.1f} ms, "
            f"quartiles {q[0]:.1f}-{q[2]:.1f} ms, {len(times[side])} changes"
        )
    paired = [x - y for x, y in zip(times["A"], times["B"], strict=True)]
    print(f"A - B, median of the paired differences: {statistics.median(paired):+.1f} ms")


if __name__ == "__main__":
    main()
