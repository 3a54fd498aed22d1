"""axe-core for the browser tests: fetched once with ``npm pack``, checked, injected, run.

The pinned ``axe.min.js`` is kept in ``.cache/axe/`` (not in git): the first run fetches the npm
package ``axe-core`` at ``AXE_VERSION`` from the registry, takes ``axe.min.js`` out of it and
checks its sha256 against ``AXE_SHA256``; a file that does not match is refused, never run.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "axe"
AXE_VERSION = "4.14.1"
# sha256 of package/axe.min.js in axe-core-4.14.1.tgz, as the npm registry serves it
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")

# What a node is (``where``) and, for a text axe could not decide, the contrast of its colour
# (faded by its ancestors' opacity) against the opaque backgrounds under it, walked up its
# ancestors (``ratio``), and what it needs (``needs``: 3 for large text, 4.5 for the rest, WCAG
# 1.4.3). "cell": a text on a plotly chart's plot area, a cell's number (its cell's colour is
# drawn, not an ancestor's); "chart": a chart's axes, titles, legend, hover text; "math": KaTeX;
# "code": code; "frame": a node in a frame; "page": anything else.
_RUN = """async (tags) => {
    const rgba = (c) => { const n = (c.match(/[\\d.]+/g) || ['0', '0', '0', '0']).map(Number);
        return [n[0], n[1], n[2], n.length > 3 ? n[3] : 1]; };
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]))
        .concat([1]);
    const lum = (c) => { const l = c.slice(0, 3).map((v) => { v /= 255;
        return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
    const where = (el) => !el ? 'frame' : el.closest('.katex') ? 'math'
        : el.closest('svg') ? (el.closest('.js-plotly-plot') && !el.closest(
            '.xaxislayer-above, .yaxislayer-above, .infolayer, .hoverlayer') ? 'cell' : 'chart')
        : el.closest('code, pre') ? 'code' : 'page';
    const contrast = (el) => {
        if (!el) return [0, 4.5];
        const layers = [];
        let opacity = 1;  // an ancestor's opacity fades the text over what lies under it
        for (let a = el; a && a.nodeType === 1; a = a.parentElement) {
            const style = getComputedStyle(a);
            const bg = rgba(style.backgroundColor);
            if (bg[3] > 0) layers.push(bg);
            if (bg[3] >= 1) break;
            opacity *= Number(style.opacity);
        }
        let bg = [255, 255, 255, 1];
        for (const layer of layers.reverse()) bg = over(layer, bg);
        const style = getComputedStyle(el);
        const svg = el instanceof SVGElement;
        const fg = rgba(svg ? style.fill : style.color);
        fg[3] *= opacity * (svg ? Number(style.fillOpacity || 1) : 1);
        const a = lum(over(fg, bg)) + 0.05, b = lum(bg) + 0.05;
        const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
        return [Math.max(a, b) / Math.min(a, b), size >= 24 || (bold && size >= 18.66) ? 3 : 4.5];
    };
    const result = await axe.run(document,
        {runOnly: {type: 'tag', values: tags}, elementRef: true});
    const brief = (items) => items.map((rule) => ({
        id: rule.id,
        impact: rule.impact || '',
        targets: rule.nodes.map((node) => node.target.map(String).join(' >>> ')),
        messages: rule.nodes.map((node) =>
            [...node.any, ...node.all, ...node.none].map((check) => check.message).join(' | ')),
        html: rule.nodes.map((node) => Array.from(node.html).slice(0, 300).join('')),
        where: rule.nodes.map((node) => where(node.element)),
        ratio: rule.nodes.map((node) => contrast(node.element)),
    }));
    return {violations: brief(result.violations), incomplete: brief(result.incomplete)};
}"""


@dataclass(frozen=True)
class Finding:
    """One rule that axe reports: its id, impact, and a node's target selector, message and
    HTML (its first 300 characters), one of each a node.

    A target inside a frame reads ``iframe selector >>> selector in the frame``."""

    rule: str
    impact: str
    targets: tuple[str, ...]
    messages: tuple[str, ...]
    html: tuple[str, ...]
    where: tuple[str, ...]  # what each node is: cell, chart, math, code, frame, page
    ratio: tuple[tuple[float, float], ...]  # each node's text contrast and what it needs

    def line(self) -> str:
        """One line a report can print: rule, impact, how many nodes, which."""
        return f"{self.rule} ({self.impact}, {len(self.targets)}): {', '.join(self.targets)}"


@dataclass(frozen=True)
class Result:
    """What one ``axe.run`` found: the violations and the items it could not decide."""

    violations: tuple[Finding, ...]
    incomplete: tuple[Finding, ...]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _from_npm(destination: Path) -> bytes:
    """``axe.min.js`` out of ``npm pack axe-core@AXE_VERSION``, fetched into a temporary folder."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is missing: scripts/test.sh installs it (apt-get install npm)")
    with tempfile.TemporaryDirectory(dir=destination) as tmp:
        done = subprocess.run(
            [npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp, "--silent"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"npm pack axe-core@{AXE_VERSION} failed:\n{done.stderr[-2000:]}")
        tgz = Path(tmp) / f"axe-core-{AXE_VERSION}.tgz"
        with tarfile.open(tgz, "r:gz") as archive:
            member = archive.extractfile("package/axe.min.js")
            if member is None:
                raise RuntimeError(f"{tgz.name} has no package/axe.min.js")
            return member.read()


def axe_script() -> Path:
    """The checked ``axe.min.js`` of ``AXE_VERSION`` in the cache, fetched first if missing.

    Raises RuntimeError when npm cannot fetch it or its sha256 is not the pinned one."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"axe-{AXE_VERSION}.min.js"
    if path.exists() and _sha256(path.read_bytes()) == AXE_SHA256:
        return path
    data = _from_npm(CACHE)
    if (digest := _sha256(data)) != AXE_SHA256:
        raise RuntimeError(
            f"axe-core {AXE_VERSION}'s axe.min.js has sha256 {digest}, not the pinned "
            f"{AXE_SHA256}: refused"
        )
    partial = path.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def inject(page: Page) -> None:
    """Load axe into every document and frame the page opens from now on (before their
    scripts), so that axe in the top document can check the frames' content too."""
    page.add_init_script(path=axe_script())


def run_axe(page: Page, tags: tuple[str, ...] = WCAG_TAGS) -> Result:
    """Run axe on the page's top document with the WCAG 2.0/2.1/2.2 A and AA rules."""
    raw = page.evaluate(_RUN, list(tags))

    def findings(items: list[dict]) -> tuple[Finding, ...]:
        return tuple(
            Finding(
                i["id"],
                i["impact"],
                *(tuple(i[k]) for k in ("targets", "messages", "html", "where")),
                tuple((float(r), float(n)) for r, n in i["ratio"]),
            )
            for i in items
        )

    return Result(findings(raw["violations"]), findings(raw["incomplete"]))
