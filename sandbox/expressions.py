"""Compile expressions into closures ``run(call) -> value`` (and assignment targets).

An assignment target becomes ``assign(call, value)``. Only ``math.exp/log/sqrt`` and
``xs.append`` are attributes; ``list[float]`` and the like are type aliases, never indexed.
Comprehensions run in their own names (renamed apart from the function's).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from sandbox.builtin_functions import BUILTINS
from sandbox.calls import Calls
from sandbox.errors import MAX_INT, refuse, type_error, value_error
from sandbox.functions import Call, Run
from sandbox.keys import dict_key
from sandbox.kinds import TYPE_ALIAS, a_type, check_int, check_size
from sandbox.meter import NARROW
from sandbox.scopes import Scope, target_names
from sandbox.values import INTS, NATIVE, settle
from sandbox.vocabulary import ARITHMETIC, is_math_attribute

# one `for` clause compiled: items, assign, conditions, the key of a plain name ("" if not)
Loop = tuple[Run, Callable[[Call, Any], None], list[Run], str]
TYPE_NAMES = frozenset({"list", "tuple", "dict", "float", "int", "str", "bool"})


class Expressions(Calls):
    """The expression half of the compiler: ``expr(node, scope) -> run``."""

    # ---- assignment targets ------------------------------------------------------------------
    def target(self, node: ast.expr, scope: Scope) -> Callable[[Call, Any], None]:
        line = node.lineno
        if isinstance(node, ast.Name):
            key = self.store_key(node.id, scope)

            def assign_name(call: Call, v: Any) -> None:
                call[key] = v

            return assign_name
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [self.target(element, scope) for element in node.elts]
            count, meter = len(parts), self.meter
            width = count if count > NARROW else 0

            def assign_many(call: Call, v: Any) -> None:
                if width:
                    meter.charge(width)
                if type(v) not in (list, tuple, range, str):
                    raise type_error(line, f"cannot unpack {a_type(v)} into {count} names")
                if len(v) != count:
                    detail = f"expected {count} values to unpack, got {len(v)}"
                    raise value_error(line, detail)
                for part, item in zip(parts, tuple(v)):  # unpack first, as Python does
                    part(call, item)

            return assign_many
        assert isinstance(node, ast.Subscript)
        container = self.expr(node.value, scope)
        index = self.expr(node.slice, scope)
        put = self.store_index

        def assign_item(call: Call, v: Any) -> None:
            put(container(call), index(call), v, line)

        return assign_item

    # ---- expressions -------------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope) -> Run:
        return getattr(self, "e_" + type(node).__name__)(node, scope)

    def e_Constant(self, node: ast.Constant, scope: Scope) -> Run:
        value = node.value
        return lambda call: value

    def e_Name(self, node: ast.Name, scope: Scope) -> Run:
        return self.load(node.id, scope, node.lineno)

    def e_Attribute(self, node: ast.Attribute, scope: Scope) -> Run:
        assert is_math_attribute(node)
        function = BUILTINS[node.attr]
        return lambda call: function

    def e_List(self, node: ast.List, scope: Scope) -> Run:
        parts = [self.expr(element, scope) for element in node.elts]
        if len(parts) <= NARROW:
            return lambda call: [part(call) for part in parts]
        width, meter = len(parts), self.meter

        def run_wide_list(call: Call) -> list:
            meter.charge(width)
            return [part(call) for part in parts]

        return run_wide_list

    def e_Tuple(self, node: ast.Tuple, scope: Scope) -> Run:
        parts = [self.expr(element, scope) for element in node.elts]
        if len(parts) == 2:
            first, second = parts
            return lambda call: (first(call), second(call))
        listed = self.e_List(node, scope)  # type: ignore[arg-type]
        return lambda call: tuple(listed(call))

    def e_Dict(self, node: ast.Dict, scope: Scope) -> Run:
        pairs = [(self.expr(k, scope), self.expr(v, scope)) for k, v in zip(node.keys, node.values)]
        line, meter = node.lineno, self.meter

        def run_dict(call: Call) -> dict:
            out = {}
            meter.charge(len(pairs))
            for key, value in pairs:
                out[dict_key(meter, key(call), line)] = value(call)
            return out

        return run_dict

    def e_IfExp(self, node: ast.IfExp, scope: Scope) -> Run:
        test, body, orelse = (self.expr(n, scope) for n in (node.test, node.body, node.orelse))
        return lambda call: body(call) if test(call) else orelse(call)

    def e_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Run:
        values = [self.expr(v, scope) for v in node.values]
        meter = self.meter
        if isinstance(node.op, ast.And):
            if len(values) == 2:
                first, second = values
                return lambda call: first(call) and second(call)

            def run_and(call: Call) -> Any:
                result = None
                for value in values:
                    meter.charge(1)
                    result = value(call)
                    if not result:
                        return result
                return result

            return run_and
        if len(values) == 2:
            first, second = values
            return lambda call: first(call) or second(call)

        def run_or(call: Call) -> Any:
            result = None
            for value in values:
                meter.charge(1)
                result = value(call)
                if result:
                    return result
            return result

        return run_or

    def e_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Run:
        operand = self.expr(node.operand, scope)
        line = node.lineno
        if isinstance(node.op, ast.Not):
            return lambda call: not operand(call)
        negate = isinstance(node.op, ast.USub)
        symbol = "-" if negate else "+"

        def run_sign(call: Call) -> Any:
            v = operand(call)
            if type(v) is float:
                return -v if negate else v
            if type(v) in INTS:
                return check_int(-v if negate else +v, line)
            if type(v) is str:
                raise refuse(f"text operation `{symbol}`", line=line)
            raise type_error(line, f"cannot use `{symbol}` on {a_type(v)}")

        return run_sign

    def e_BinOp(self, node: ast.BinOp, scope: Scope) -> Run:
        op = ARITHMETIC[type(node.op)]
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        line, checked = node.lineno, self.fast[op]
        native = NATIVE.get(op) if op != "/" else None
        if native is None:
            return lambda call: checked(left(call), right(call), line)

        def run_binary(call: Call) -> Any:
            a, b = left(call), right(call)
            ta, tb = type(a), type(b)
            if ta is float and tb is float:
                r = native(a, b)
                if -math.inf < r < math.inf:
                    return r
                return settle(r, a, b, line)
            if ta is int and tb is int:
                r = native(a, b)
                if -MAX_INT < r < MAX_INT:
                    return r
                return settle(r, a, b, line)
            return checked(a, b, line)

        return run_binary

    def e_Compare(self, node: ast.Compare, scope: Scope) -> Run:
        left = self.expr(node.left, scope)
        ops = [type(op).__name__ for op in node.ops]
        rights = [self.expr(v, scope) for v in node.comparators]
        line, compare = node.lineno, self.compare
        if len(ops) == 1:
            op, right = ops[0], rights[0]
            if op in ("Lt", "LtE", "Gt", "GtE"):
                fast = {
                    "Lt": operator.lt,
                    "LtE": operator.le,
                    "Gt": operator.gt,
                    "GtE": operator.ge,
                }[op]

                def run_order(call: Call) -> bool:
                    a, b = left(call), right(call)
                    if (type(a) is int or type(a) is float) and (
                        type(b) is int or type(b) is float
                    ):
                        return fast(a, b)
                    return compare(op, a, b, line)

                return run_order
            return lambda call: compare(op, left(call), right(call), line)

        meter = self.meter

        def run_chain(call: Call) -> bool:
            a = left(call)
            for op, right in zip(ops, rights):
                meter.charge(1)
                b = right(call)
                if not compare(op, a, b, line):
                    return False
                a = b
            return True

        return run_chain

    def e_Subscript(self, node: ast.Subscript, scope: Scope) -> Run:
        value, line = node.value, node.lineno
        if isinstance(value, ast.Name) and value.id in TYPE_NAMES:
            kind, _ = self.resolve(value.id, scope)
            if kind in ("const", "missing"):  # list[float]: a type alias, never indexed
                return lambda call: TYPE_ALIAS
        container = self.expr(value, scope)
        part = node.slice
        if isinstance(part, ast.Slice):
            bounds = [
                None if p is None else self.expr(p, scope)
                for p in (part.lower, part.upper, part.step)
            ]
            cut = self.slice

            def run_slice(call: Call) -> Any:
                c = container(call)
                lo, hi, step = (None if b is None else b(call) for b in bounds)
                return cut(c, lo, hi, step, line)

            return run_slice
        index, get = self.expr(part, scope), self.index

        def run_index(call: Call) -> Any:
            c, i = container(call), index(call)
            if type(i) is int and type(c) is list:
                try:
                    return c[i]
                except IndexError:
                    pass
            return get(c, i, line)

        return run_index

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, scope: Scope) -> Run:
        """A list comprehension or a generator expression: both build a list, one step an
        element; one ``for`` over a name without ``if`` takes the short path."""
        loops, element = self.comprehension_loops(node, scope)
        if len(loops) == 1 and loops[0][3] and not loops[0][2]:
            items, _, _, key = loops[0]
            return self.simple_comprehension(items, key, element, node.lineno)
        return self.nested_comprehension(loops, element, node.lineno)

    def comprehension_loops(
        self, node: ast.ListComp | ast.GeneratorExp, scope: Scope
    ) -> tuple[list[Loop], Run]:
        """Compile the ``for`` clauses (items, assign, conditions, the key of a plain name) and
        the element, with the loop names renamed apart from the function's."""
        generators = node.generators
        first = self.expr(generators[0].iter, scope)  # before the renames: it is outside
        renames: dict[str, str] = {}
        scope.renames.append(renames)
        try:
            loops: list[Loop] = []
            for position, generator in enumerate(generators):
                items = first if position == 0 else self.expr(generator.iter, scope)
                for name in target_names(generator.target):
                    self.counter += 1
                    renames[name] = f"{name}\x00{self.counter}"
                assign = self.target(generator.target, scope)
                conditions = [self.expr(c, scope) for c in generator.ifs]
                simple = isinstance(generator.target, ast.Name)
                key = renames[generator.target.id] if simple else ""
                loops.append((items, assign, conditions, key))
            element = self.expr(node.elt, scope)
        finally:
            scope.renames.pop()
        return loops, element

    def simple_comprehension(self, items: Run, key: str, element: Run, line: int) -> Run:
        """``[e for x in xs]``: one loop storing each item under ``key``."""
        meter, iterable = self.meter, self.iterable

        def run_simple(call: Call) -> list:
            out: list = []
            append = out.append
            for v in iterable(items(call), line):
                meter.left -= 1
                if meter.left <= 0:
                    meter.refill()
                call[key] = v
                append(element(call))
            return out

        return run_simple

    def nested_comprehension(self, loops: list[Loop], element: Run, line: int) -> Run:
        """Several ``for`` clauses or ``if`` conditions: each loop runs the next one inside it."""
        meter, iterable = self.meter, self.iterable

        def nest(position: int) -> Callable[[Call, list], None]:
            items, assign, conditions, _ = loops[position]
            inner = nest(position + 1) if position + 1 < len(loops) else None
            steps = 1 if len(conditions) <= NARROW else 1 + len(conditions)

            def run_loop(call: Call, out: list) -> None:
                for v in iterable(items(call), line):
                    meter.left -= steps
                    if meter.left <= 0:
                        meter.refill()
                    assign(call, v)
                    if all(condition(call) for condition in conditions):
                        if inner is None:
                            out.append(element(call))
                        else:
                            inner(call, out)

            return run_loop

        outer = nest(0)

        def run_comprehension(call: Call) -> list:
            out: list = []
            outer(call, out)
            check_size(len(out), line)
            return out

        return run_comprehension

    e_ListComp = e_GeneratorExp = comprehension
