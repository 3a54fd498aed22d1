"""The language's vocabulary: its operators, math functions, list methods, refused constructs.

The refused constructs come with their names in messages; ``is_math_attribute`` and
``is_list_method`` recognise the two accepted attribute forms.
"""

from __future__ import annotations

import ast

MATH_FUNCTIONS = ("exp", "log", "sqrt")
LIST_METHODS = ("append",)  # the list methods the chapters' code calls
ARITHMETIC = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
OTHER_OPERATORS = {
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}
REFUSED_STATEMENTS = {
    ast.ClassDef: "`class`",
    ast.AsyncFunctionDef: "`async def`",
    ast.AsyncFor: "`async for`",
    ast.AsyncWith: "`async with`",
    ast.With: "`with`",
    ast.Try: "`try`",
    ast.Raise: "`raise`",
    ast.Assert: "`assert`",
    ast.Delete: "`del`",
    ast.Global: "`global`",
    ast.Nonlocal: "`nonlocal`",
    ast.Match: "`match`",
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    REFUSED_STATEMENTS[ast.TryStar] = "`try`"
REFUSED_EXPRESSIONS = {
    ast.Lambda: "`lambda`",
    ast.NamedExpr: "`:=`",
    ast.Await: "`await`",
    ast.Yield: "`yield`",
    ast.YieldFrom: "`yield from`",
    ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string",
    ast.Set: "set `{...}`",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
}


def is_math_attribute(node: ast.AST) -> bool:
    """``math.exp``, ``math.log`` or ``math.sqrt``, read (not assigned)."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "math"
        and node.attr in MATH_FUNCTIONS
        and isinstance(node.ctx, ast.Load)
    )


def is_list_method(node: ast.AST) -> bool:
    """``xs.append``: a list method on anything but ``math`` (only called; checked when run)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in LIST_METHODS
        and isinstance(node.ctx, ast.Load)
        and not (isinstance(node.value, ast.Name) and node.value.id == "math")
    )


def is_text(node: ast.AST) -> bool:
    """A text literal or an f-string."""
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )
