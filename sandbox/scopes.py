"""Scopes: the names a function (or the module) assigns, which are its locals.

A scope also holds the comprehensions open inside it: their loop names are renamed apart.
"""

from __future__ import annotations

import ast


class Scope:
    """The names a function (or the module) assigns, and the comprehensions open inside it."""

    def __init__(self, parent: Scope | None, names: set[str]) -> None:
        self.parent = parent
        self.names = names
        self.renames: list[dict[str, str]] = []

    @property
    def is_module(self) -> bool:
        return self.parent is None


def target_names(node: ast.expr) -> list[str]:
    """The names an assignment target binds (``a``, ``a, (b, c)``; none for ``m[i]``)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [name for element in node.elts for name in target_names(element)]
    return []


def assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names a block binds (not looking inside nested functions): they are its locals."""
    names: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(target_names(target))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            names.update(target_names(node.target))
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        if isinstance(node, (ast.For, ast.While, ast.If)):
            stack.extend(node.body)
            stack.extend(node.orelse)
    return names
