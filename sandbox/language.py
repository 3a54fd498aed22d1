"""The checker's small language: parse learner code and accept only a short list of constructs.

What is accepted: ``def`` (plain parameters, defaults, annotations), ``return``, assignment (plain,
augmented, annotated, tuple unpacking, ``m[i][j] = v``), ``for``, ``while``, ``if``, ``break``,
``continue``, ``pass``, list comprehensions and generator expressions, conditional expressions,
arithmetic (``+ - * / // % **``), comparisons, ``and or not in is``, lists, tuples, dicts,
indexing and slicing, calls to names (with ``*`` unpacking and keyword arguments), the three
attribute forms ``math.exp``, ``math.log``, ``math.sqrt``, the list method ``xs.append(v)`` (called,
one argument: the chapters build their rows with it), ``import math``, ``from math import exp,
log, sqrt``, ``from __future__ import annotations``, docstrings and ``...``.

Everything else is refused with ``SandboxError("not_allowed", {construct, line})``; names that
start with ``_`` (except ``_`` itself) are refused everywhere. The walk is sandbox/validator.py,
the operators and refused constructs are in sandbox/vocabulary.py. Nothing here runs the code.
"""

from __future__ import annotations

import ast
import re

from sandbox.errors import MAX_NESTING, MAX_SOURCE, SandboxError, short
from sandbox.validator import Validator

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(source: str) -> list[str]:
    """The lines of ``source`` as Python's parser counts them (``lineno`` 1 is item 0).

    Only ``\\n``, ``\\r\\n`` and ``\\r`` end a line: ``str.splitlines`` also breaks at
    U+2028, U+2029, form feed, ``\\x1c``-``\\x1e``, ``\\x85`` and ``\\x0b``, which Python keeps
    inside a line (in text or a comment), so its numbers would shift the verdict's line.
    """
    return _LINE_BREAK.split(source)


def parse(source: str) -> ast.Module:
    """Parse and validate learner code; raise SandboxError for anything outside the language."""
    if not isinstance(source, str):
        raise TypeError("source must be a str")
    if len(source) > MAX_SOURCE:
        raise SandboxError("too_long", {"length": len(source), "limit": MAX_SOURCE})
    if "\x00" in source:
        line = len(source_lines(source[: source.index("\x00")]))
        raise SandboxError("syntax", {"line": line, "message": "the code contains a NUL character"})
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as err:
        message = str(err.msg or "invalid syntax")
        raise SandboxError("syntax", {"line": int(err.lineno or 1), "message": message}) from None
    except (RecursionError, MemoryError):
        raise SandboxError("too_deep", {"line": 1, "limit": MAX_NESTING}) from None
    except ValueError as err:  # e.g. an int literal with too many digits
        raise SandboxError("syntax", {"line": 1, "message": short(str(err), 120)}) from None
    check_nesting(tree)
    Validator().module(tree)
    return tree


def check_nesting(tree: ast.AST) -> None:
    """Refuse trees deeper than MAX_NESTING, without recursion (deep trees are the attack)."""
    stack: list[tuple[ast.AST, int, int]] = [(tree, 0, 1)]
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > MAX_NESTING:
            raise SandboxError("too_deep", {"line": line, "limit": MAX_NESTING})
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))


def nesting_depth(tree: ast.AST) -> int:
    """The depth of a syntax tree (how many nodes inside each other), without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def check_source(source: str) -> None:
    """Static checks only (length, syntax, the language); raise SandboxError on the first problem.

    Names are not resolved here: a name the code does not define is reported when it runs.
    """
    parse(source)
