"""The app's longest modules and functions, longest first; exit status 1 when one is over its limit.

Usage: ``python scripts/longest.py [--limit-module 400] [--limit-function 60] [--top 15] [PATH]``

A module's length is its number of lines; a function's (or a method's, ``Class.method``; a
nested one's, ``outer.inner``) runs from its ``def`` line to its last line, its decorators left
out. PATHs (files or folders, from the project's root) default to the app's code: ``app.py``,
``pages/``, ``ui/``, ``llm/``, ``exercises/``, ``sandbox/`` and ``classroom/`` (tests and
benchmarks are not the app).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_CODE = ("app.py", "pages", "ui", "llm", "exercises", "sandbox", "classroom")
LIMIT_MODULE = 400
LIMIT_FUNCTION = 60


@dataclass(frozen=True)
class Length:
    """One measured part: ``name`` (a module's path, or ``path:qualified.name``), the line it
    starts at, and how many lines it takes."""

    name: str
    line: int
    lines: int


def function_lengths(source: str, path: str = "<source>") -> list[Length]:
    """Every function and method of ``source``, nested ones included, with its length: from its
    ``def`` line to its last line. A source that does not parse raises SyntaxError."""
    tree = ast.parse(source, filename=path)
    return [
        Length(f"{path}:{name}", node.lineno, node.end_lineno - node.lineno + 1)
        for name, node in _functions(tree.body, "")
    ]


def _functions(nodes: Sequence[ast.AST], prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """The functions among ``nodes`` and inside them, named from ``prefix`` (where they
    stand: ``Class.``, ``outer.``), in classes and in any block (``if``, ``try``, ...)."""
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
            yield from _functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")
        else:
            yield from _functions(list(ast.iter_child_nodes(node)), prefix)


def python_files(paths: Sequence[str], root: Path = ROOT) -> list[Path]:
    """The ``.py`` files of ``paths`` under ``root`` (a folder's, at any depth, caches left
    out), sorted; a path that does not exist is skipped (``classroom/`` may not yet)."""
    found: set[Path] = set()
    for name in paths:
        path = root / name
        if path.is_file() and path.suffix == ".py":
            found.add(path)
        elif path.is_dir():
            found.update(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    return sorted(found)


def measure(
    paths: Sequence[str] = APP_CODE, root: Path = ROOT
) -> tuple[list[Length], list[Length]]:
    """The modules and the functions of ``paths``, each list longest first (then by name)."""
    modules, functions = [], []
    for file in python_files(paths, root):
        source = file.read_text(encoding="utf-8")
        name = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
        modules.append(Length(name, 1, len(source.splitlines())))
        functions += function_lengths(source, name)
    return sorted(modules, key=_longest_first), sorted(functions, key=_longest_first)


def _longest_first(length: Length) -> tuple[int, str]:
    """The sort key: the longest first, then by name."""
    return -length.lines, length.name


def over(lengths: Sequence[Length], limit: int) -> list[Length]:
    """The parts longer than ``limit`` lines."""
    return [length for length in lengths if length.lines > limit]


def report(
    modules: Sequence[Length], functions: Sequence[Length], limits: tuple[int, int], top: int
) -> list[str]:
    """The lines to print: the ``top`` longest modules and functions (and every one over its
    limit), each with its length, its start and ``OVER`` where it passes its limit."""
    out = []
    for title, parts, limit in (
        ("modules", modules, limits[0]),
        ("functions", functions, limits[1]),
    ):
        shown = [p for k, p in enumerate(parts) if k < top or p.lines > limit]
        out.append(f"longest {title} (limit {limit} lines):")
        for part in shown:
            flag = "  OVER" if part.lines > limit else ""
            where = part.name if title == "modules" else f"{part.name} (line {part.line})"
            out.append(f"  {part.lines:5d}  {where}{flag}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the longest parts; 1 when one is over its limit, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=list(APP_CODE), help="files or folders")
    parser.add_argument("--limit-module", type=int, default=LIMIT_MODULE, metavar="LINES")
    parser.add_argument("--limit-function", type=int, default=LIMIT_FUNCTION, metavar="LINES")
    parser.add_argument("--top", type=int, default=15, help="how many of each to list")
    args = parser.parse_args(argv)
    try:
        modules, functions = measure(args.paths)
    except SyntaxError as error:
        print(f"cannot read {error.filename}, line {error.lineno}: {error.msg}", file=sys.stderr)
        return 2
    limits = (args.limit_module, args.limit_function)
    print("\n".join(report(modules, functions, limits, args.top)))
    passing = over(modules, limits[0]) + over(functions, limits[1])
    print(f"{len(passing)} over the limits" if passing else "nothing over the limits")
    return 1 if passing else 0


if __name__ == "__main__":
    sys.exit(main())
