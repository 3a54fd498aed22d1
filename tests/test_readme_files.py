"""The README's file list matches the tree: every path it names exists, and every module of ui/'s
packages is named in it (under its package's line)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed(readme: str) -> list[str]:
    """The paths the "The files" block names, an indented name joined to its package's path.

    Example: "ui/frame/            ..." then "  page.py   ..." gives "ui/frame/" and
    "ui/frame/page.py".
    """
    block = readme.split("## The files\n\n```\n", 1)[1].split("```", 1)[0]
    paths, package = [], ""
    for line in block.splitlines():
        if not line.strip() or line.startswith(" " * 6):
            continue  # an empty line, or the rest of a description
        indented = line.startswith("  ")
        name = line.split()[0]
        if not re.fullmatch(r"[\w./*-]+", name) or "*" in name:
            continue  # a pattern (tests/test_llm_*) names no single path
        if indented:
            paths.append(package + name)
        else:
            paths.append(name)
            package = name if name.endswith("/") else package
    return paths


def test_the_listing_reads_indented_names_under_their_package() -> None:
    readme = "## The files\n\n```\nui/frame/      the frame\n  page.py     p\n" + (
        "                 more words\napp.py   home\n```\n"
    )
    assert listed(readme) == ["ui/frame/", "ui/frame/page.py", "app.py"]


def test_every_listed_path_exists() -> None:
    paths = listed((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(paths) > 60
    missing = [p for p in paths if not (ROOT / p.replace("N_slug", "1_qkv")).exists()]
    assert missing == []


def test_every_module_of_ui_packages_is_listed() -> None:
    paths = set(listed((ROOT / "README.md").read_text(encoding="utf-8")))
    modules = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "ui").glob("*/*.py")
        if p.name != "__init__.py" and p.parent.name != "text"
    }
    assert modules - paths == set()
    packages = {f"ui/{p.parent.name}/" for p in (ROOT / "ui").glob("*/__init__.py")}
    assert packages - paths == set()
