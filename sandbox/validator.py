"""The validator: refuses the first construct of learner code outside the checker's language.

It walks the tree in source order and reports the construct with its line; sandbox/language.py
lists what is accepted. Names that start with ``_`` (except ``_`` itself) are refused
everywhere; annotations are checked, never evaluated. Nothing here runs the code.
"""

from __future__ import annotations

import ast

from sandbox.errors import MAX_INT, SandboxError, refuse, short
from sandbox.vocabulary import (
    ARITHMETIC,
    MATH_FUNCTIONS,
    OTHER_OPERATORS,
    REFUSED_EXPRESSIONS,
    REFUSED_STATEMENTS,
    is_list_method,
    is_math_attribute,
    is_text,
)


class Validator:
    """Walks the tree in source order and raises on the first construct outside the language."""

    def __init__(self) -> None:
        self.in_function = False
        self.in_loop = False

    # ---- names -------------------------------------------------------------------------------
    def name(self, name: str, node: ast.AST, line: int | None = None) -> None:
        if name.startswith("_") and name != "_":
            raise refuse(f"name `{name}`", node, line)

    # ---- statements --------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> None:
        self.block(tree.body)

    def block(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        kind = type(node)
        if kind in REFUSED_STATEMENTS:
            raise refuse(REFUSED_STATEMENTS[kind], node)
        method = getattr(self, "s_" + kind.__name__, None)
        if method is None:
            raise refuse(f"`{kind.__name__}` statement", node)
        method(node)

    def s_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.decorator_list:
            first = node.decorator_list[0]
            raise refuse(f"decorator `@{short(ast.unparse(first), 40)}`", first)
        self.name(node.name, node)
        if node.name == "math":
            raise refuse("a function named `math`", node)
        args = node.args
        if args.posonlyargs:
            raise refuse("positional-only parameters (`/`)", node)
        if args.vararg is not None:
            raise refuse(f"`*{args.vararg.arg}` parameter", args.vararg)
        if args.kwonlyargs:
            raise refuse("keyword-only parameters (after `*`)", node)
        if args.kwarg is not None:
            raise refuse(f"`**{args.kwarg.arg}` parameter", args.kwarg)
        seen: set[str] = set()
        for arg in args.args:
            self.name(arg.arg, arg)
            if arg.arg == "math":
                raise refuse("a parameter named `math`", arg)
            if arg.arg in seen:
                message = f"duplicate parameter '{arg.arg}' in function definition"
                raise SandboxError("syntax", {"line": arg.lineno, "message": message})
            seen.add(arg.arg)
            if arg.annotation is not None:
                self.annotation(arg.annotation)
        for default in args.defaults:
            self.expression(default)
        if node.returns is not None:
            self.annotation(node.returns)
        outer = (self.in_function, self.in_loop)
        self.in_function, self.in_loop = True, False
        self.block(node.body)
        self.in_function, self.in_loop = outer

    def s_Return(self, node: ast.Return) -> None:
        if not self.in_function:
            raise SandboxError(
                "syntax", {"line": node.lineno, "message": "'return' outside function"}
            )
        if node.value is not None:
            self.expression(node.value)

    def s_Assign(self, node: ast.Assign) -> None:
        self.expression(node.value)
        for target in node.targets:
            self.target(target)

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        self.operator(node.op, node, "=")
        if not isinstance(node.target, (ast.Name, ast.Subscript)):
            self.target(node.target)  # raises with the right description
        self.expression(node.value)
        self.target(node.target)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise refuse("an annotation on something that is not a name", node)
        self.annotation(node.annotation)
        if node.value is not None:
            self.expression(node.value)
        self.target(node.target)

    def s_For(self, node: ast.For) -> None:
        if node.orelse:
            raise refuse("`else` after a loop", node.orelse[0])
        self.expression(node.iter)
        self.target(node.target)
        self.loop_body(node.body)

    def s_While(self, node: ast.While) -> None:
        if node.orelse:
            raise refuse("`else` after a loop", node.orelse[0])
        self.expression(node.test)
        self.loop_body(node.body)

    def loop_body(self, body: list[ast.stmt]) -> None:
        outer = self.in_loop
        self.in_loop = True
        self.block(body)
        self.in_loop = outer

    def s_If(self, node: ast.If) -> None:
        self.expression(node.test)
        self.block(node.body)
        self.block(node.orelse)

    def s_Expr(self, node: ast.Expr) -> None:
        value = node.value
        if isinstance(value, ast.Constant) and (isinstance(value.value, str) or value.value is ...):
            return  # a docstring or a `...` placeholder
        self.expression(value)

    def s_Pass(self, node: ast.Pass) -> None:
        pass

    def s_Break(self, node: ast.Break) -> None:
        if not self.in_loop:
            raise SandboxError("syntax", {"line": node.lineno, "message": "'break' outside loop"})

    def s_Continue(self, node: ast.Continue) -> None:
        if not self.in_loop:
            message = "'continue' not properly in loop"
            raise SandboxError("syntax", {"line": node.lineno, "message": message})

    def s_Import(self, node: ast.Import) -> None:
        if all(alias.name == "math" and alias.asname is None for alias in node.names):
            return
        names = ", ".join(
            alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names
        )
        raise refuse(f"`import {names}`", node)

    def s_ImportFrom(self, node: ast.ImportFrom) -> None:
        names = [alias.name for alias in node.names]
        plain = all(alias.asname is None for alias in node.names) and node.level == 0
        if plain and node.module == "__future__" and names == ["annotations"]:
            return
        if plain and node.module == "math" and set(names) <= set(MATH_FUNCTIONS):
            return
        module = "." * node.level + (node.module or "")
        listed = ", ".join(
            alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in node.names
        )
        raise refuse(f"`from {module} import {listed}`", node)

    # ---- targets -----------------------------------------------------------------------------
    def target(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            self.name(node.id, node)
            if node.id == "math":
                raise refuse("assignment to `math`", node)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                raise refuse("slice assignment `a[i:j] = ...`", node)
            self.expression(node.value)
            self.expression(node.slice)
        elif isinstance(node, ast.Starred):
            raise refuse(f"starred assignment `*{short(ast.unparse(node.value), 30)}`", node)
        elif isinstance(node, ast.Attribute):
            self.expression(node.value)
            raise refuse(f"attribute `.{node.attr}`", node)
        else:
            raise refuse(f"assignment to `{short(ast.unparse(node), 30)}`", node)

    # ---- annotations (checked, never evaluated) ----------------------------------------------
    def annotation(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            self.name(node.id, node)
        elif isinstance(node, ast.Constant):
            if not (node.value is None or node.value is ... or isinstance(node.value, str)):
                raise refuse(f"annotation `{short(ast.unparse(node), 30)}`", node)
        elif isinstance(node, ast.Subscript):
            self.annotation(node.value)
            self.annotation(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.annotation(element)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.annotation(node.left)
            self.annotation(node.right)
        elif isinstance(node, ast.Attribute):
            self.annotation(node.value)
            raise refuse(f"attribute `.{node.attr}`", node)
        else:
            raise refuse(f"annotation `{short(ast.unparse(node), 30)}`", node)

    # ---- expressions -------------------------------------------------------------------------
    def operator(self, op: ast.operator, node: ast.AST, suffix: str = "") -> None:
        if type(op) not in ARITHMETIC:
            symbol = OTHER_OPERATORS.get(type(op), type(op).__name__)
            raise refuse(f"operator `{symbol}{suffix}`", node)

    def expression(self, node: ast.expr) -> None:
        kind = type(node)
        if kind in REFUSED_EXPRESSIONS:
            raise refuse(REFUSED_EXPRESSIONS[kind], node)
        method = getattr(self, "e_" + kind.__name__, None)
        if method is None:
            raise refuse(f"`{short(ast.unparse(node), 30)}`", node)
        method(node)

    def e_BoolOp(self, node: ast.BoolOp) -> None:
        for value in node.values:
            self.expression(value)

    def e_BinOp(self, node: ast.BinOp) -> None:
        self.operator(node.op, node)
        symbol = ARITHMETIC[type(node.op)]
        if isinstance(node.op, ast.Mod) and is_text(node.left):
            raise refuse("`%` on text", node)
        if is_text(node.left) or is_text(node.right):
            raise refuse(f"text operation `{symbol}`", node)
        self.expression(node.left)
        self.expression(node.right)

    def e_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Invert):
            raise refuse("operator `~`", node)
        self.expression(node.operand)

    def e_IfExp(self, node: ast.IfExp) -> None:
        self.expression(node.test)
        self.expression(node.body)
        self.expression(node.orelse)

    def e_Compare(self, node: ast.Compare) -> None:
        self.expression(node.left)
        for value in node.comparators:
            self.expression(value)

    def e_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            self.e_Name(func)
        elif is_list_method(func):
            self.expression(func.value)
            if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
                raise refuse(f"`.{func.attr}(...)` with other than one value", node)
        elif isinstance(func, ast.Attribute):
            self.e_Attribute(func)
        else:
            raise refuse(
                f"calling `{short(ast.unparse(func), 30)}` (only names can be called)", node
            )
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.expression(arg.value)
            else:
                self.expression(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise refuse("`**` in a call", keyword)
            self.name(keyword.arg, keyword, getattr(keyword, "lineno", node.lineno))
            self.expression(keyword.value)

    def e_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if value is None or isinstance(value, (bool, float, str)):
            return
        if isinstance(value, int):
            if not -MAX_INT < value < MAX_INT:
                params = {"line": node.lineno, "what": "number", "limit": float(MAX_INT)}
                raise SandboxError("too_big", params)
            return
        if isinstance(value, bytes):
            raise refuse("bytes `b'...'`", node)
        if isinstance(value, complex):
            raise refuse("complex number `j`", node)
        if value is ...:
            raise refuse("`...` as a value", node)
        raise refuse(f"constant `{short(repr(value), 30)}`", node)

    def e_Attribute(self, node: ast.Attribute) -> None:
        if is_math_attribute(node):
            return
        if node.attr == "format":
            raise refuse("`.format`", node)
        if not (isinstance(node.value, ast.Name) and node.value.id == "math"):
            self.expression(node.value)  # the first attribute of a chain is the one reported
        if isinstance(node.value, ast.Name) and node.value.id == "math":
            raise refuse(f"attribute `math.{node.attr}`", node)
        raise refuse(f"attribute `.{node.attr}`", node)

    def e_Subscript(self, node: ast.Subscript) -> None:
        self.expression(node.value)
        if isinstance(node.slice, ast.Slice):
            for part in (node.slice.lower, node.slice.upper, node.slice.step):
                if part is not None:
                    self.expression(part)
        else:
            self.expression(node.slice)

    def e_Starred(self, node: ast.Starred) -> None:
        raise refuse("`*` unpacking outside a call", node)

    def e_Name(self, node: ast.Name) -> None:
        self.name(node.id, node)
        if node.id == "math":
            raise refuse("`math` on its own", node)

    def e_List(self, node: ast.List) -> None:
        for element in node.elts:
            self.expression(element)

    e_Tuple = e_List

    def e_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise refuse("`**` in a dict", value)
            self.expression(key)
            self.expression(value)

    def e_ListComp(self, node: ast.ListComp | ast.GeneratorExp) -> None:
        for generator in node.generators:
            if generator.is_async:
                raise refuse("`async for`", node)
            self.expression(generator.iter)
            self.target(generator.target)
            for condition in generator.ifs:
                self.expression(condition)
        self.expression(node.elt)

    e_GeneratorExp = e_ListComp
