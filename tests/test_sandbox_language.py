"""The checker's language on real values: what learners write works, mistakes get a clear error.

Runs in-process (``isolate=False``) for speed; the child process is covered by the runner tests.
Our readable solutions (every function of ``llm.attention`` and ``llm.nn``) must stay inside the
language and give exactly the numbers Python gives.
"""

from __future__ import annotations

import ast
import inspect
import math
import random

import pytest

from llm import attention, nn
from sandbox import ALLOWED_CALLS, HELPERS, SandboxError, check_source, run_cases
from tests.learner_code import LEARNER_MATMUL


def run(source: str, *args: object, function: str = "f", helpers: tuple[str, ...] = ()) -> object:
    """The value of one call, or raise the error of that case."""
    [outcome] = run_cases(source, function, [args], helpers, isolate=False)
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


def error_of(source: str, *args: object, function: str = "f") -> SandboxError:
    with pytest.raises(SandboxError) as caught:
        run(source, *args, function=function)
    return caught.value


# ---- a learner's code, hand-computed numbers -----------------------------------------------

LEARNER_SOFTMAX = """
import math

def softmax(row):
    m = max(row)
    e = [math.exp(v - m) for v in row]
    total = sum(e)
    return [v / total for v in e]
"""


def test_a_learner_matmul_gives_the_hand_computed_product() -> None:
    # [1 2] [5 6]   [1·5+2·7  1·6+2·8]   [19 22]
    # [3 4] [7 8] = [3·5+4·7  3·6+4·8] = [43 50]
    product = run(LEARNER_MATMUL, [[1, 2], [3, 4]], [[5, 6], [7, 8]], function="matmul")
    assert product == [[19.0, 22.0], [43.0, 50.0]]


def test_a_learner_softmax_gives_the_hand_computed_distribution() -> None:
    # exp(0) : exp(ln 3) = 1 : 3 -> [1/4, 3/4]; the max is subtracted first
    probs = run(LEARNER_SOFTMAX, [0.0, math.log(3.0)], function="softmax")
    assert probs == pytest.approx([0.25, 0.75], abs=1e-15)
    assert run(LEARNER_SOFTMAX, [1000.0, 1000.0], function="softmax") == [0.5, 0.5]
    masked = run(LEARNER_SOFTMAX, [2.0, float("-inf")], function="softmax")
    assert masked == [1.0, 0.0]


def test_the_host_helpers_compute_and_check_shapes() -> None:
    helpers = ("dot", "matmul", "softmax", "transpose")
    source = (
        "def f(a, b):\n"
        "    return [dot(a[0], b[0]), matmul(a, b), transpose(a), softmax([0.0, 0.0])]"
    )
    value = run(source, [[1, 2]], [[3, 4], [5, 6]], helpers=helpers)
    assert value == [11, [[13, 16]], [[1], [2]], [0.5, 0.5]]
    source = "def f(x, w):\n    return matmul(x, w)"
    with pytest.raises(SandboxError) as caught:
        run(source, [[1.0] * 2] * 10, [[1.0] * 8] * 8, helpers=("matmul",))
    assert caught.value.code == "shape"
    assert caught.value.params["function"] == "matmul"
    assert caught.value.params["line"] == 2
    assert "[10 × 2] · [8 × 8]" in str(caught.value.params["detail"])
    with pytest.raises(SandboxError) as caught:
        run("def f(a):\n    return dot(a, [1, 2])", [1, 2, 3], helpers=("dot",))
    assert (caught.value.code, caught.value.params["detail"]) == (
        "shape",
        "vectors of lengths 3 and 2",
    )


# ---- our readable solutions run inside the language -----------------------------------------
def _functions(module: object) -> dict[str, object]:
    return {
        name: f
        for name, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__
    }


POOL = {**_functions(attention), **_functions(nn)}
SOURCES = {name: inspect.getsource(f) for name, f in POOL.items()}


def _needs(name: str, skip: tuple[str, ...]) -> list[str]:
    """The other pool functions ``name`` calls, transitively, callees first."""
    order: list[str] = []

    def visit(current: str) -> None:
        for node in ast.walk(ast.parse(SOURCES[current])):
            called = getattr(node, "id", None)
            if called in POOL and called != current and called not in order and called not in skip:
                visit(called)
                if called not in order:
                    order.append(called)

    visit(name)
    return order


def _matrix(rng: random.Random, rows: int, cols: int) -> list[list[float]]:
    return [[rng.uniform(-2.0, 2.0) for _ in range(cols)] for _ in range(rows)]


def _pattern(rng: random.Random, t: int) -> list[list[float]]:
    return attention.scale_mask_softmax(_matrix(rng, t, t), 2, causal=True)


def _arguments(name: str) -> tuple[object, ...]:
    rng = random.Random(name)
    x, heads = _matrix(rng, 5, 8), [_matrix(rng, 5, 2) for _ in range(4)]
    ws = [[_matrix(rng, 8, 2) for _ in range(4)] for _ in range(3)]
    constant_row = [[1.5] * 8] + _matrix(rng, 4, 8)
    table = {
        "dot": ([1.0, 2.0, -3.0], [4.0, 0.5, 2.0]),
        "softmax": ([0.3, float("-inf"), -1.2, 2.0],),
        "matmul": (_matrix(rng, 3, 4), _matrix(rng, 4, 2)),
        "transpose": (_matrix(rng, 3, 4),),
        "attention_scores": (_matrix(rng, 5, 2), _matrix(rng, 5, 2)),
        "scale_mask_softmax": (_matrix(rng, 5, 5), 2, True),
        "mix_values": (_pattern(rng, 5), _matrix(rng, 5, 2)),
        "causal_attention": (_matrix(rng, 5, 4), *(_matrix(rng, 4, 2) for _ in range(3))),
        "add": (x, _matrix(rng, 5, 8)),
        "layer_norm": (constant_row, 1e-5),
        "residual_layer_norm": (x, _matrix(rng, 5, 8), 1e-5),
        "row_stats": (x,),
        "concat_heads": (heads,),
        "combine_heads": (heads, _matrix(rng, 8, 8)),
        "row_entropy": (_pattern(rng, 5),),
        "head_entropy": (_pattern(rng, 5),),
        "attention_head": (x, ws[0][0], ws[1][0], ws[2][0], False),
        "multi_head_attention": (x, *ws, _matrix(rng, 8, 8), True),
        "head_entropies": ([_pattern(rng, 5) for _ in range(4)],),
        "add_and_norm": (constant_row, x, 1e-5),
    }
    return table[name]


def _plain(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def test_every_readable_function_has_arguments_here() -> None:
    assert set(POOL) == {name for name in POOL if _arguments(name)}
    assert {"dot", "softmax", "matmul", "transpose", "layer_norm", "add_and_norm"} <= set(POOL)


@pytest.mark.parametrize("name", sorted(POOL))
def test_our_readable_function_passes_the_static_check(name: str) -> None:
    check_source(SOURCES[name])


@pytest.mark.parametrize("with_helpers", [True, False], ids=["host_helpers", "own_functions"])
@pytest.mark.parametrize("name", sorted(POOL))
def test_our_readable_function_gives_the_same_numbers_in_the_checker(
    name: str, with_helpers: bool
) -> None:
    helpers = tuple(h for h in HELPERS if h != name) if with_helpers else ()
    source = "\n\n".join([SOURCES[n] for n in _needs(name, helpers)] + [SOURCES[name]])
    args = _arguments(name)
    expected = _plain(POOL[name](*args))
    assert run(source, *args, function=name, helpers=helpers) == expected


def test_a_whole_module_header_is_accepted() -> None:
    source = (
        '"""A docstring."""\n\nfrom __future__ import annotations\n\nimport math\n'
        "from math import exp, sqrt\n\nVector = list[float]\nMatrix = list[Vector]\n"
        "Pair = tuple[Matrix, dict[str, Matrix]]\n\n"
        "def f(x: Matrix, eps: float = 1e-5) -> Vector:\n"
        '    """Row means."""\n'
        "    out: Vector = []\n"
        "    for row in x:\n"
        "        out += [sum(row) / len(row) + 0 * exp(eps) * sqrt(eps)]\n"
        "    return out\n"
    )
    assert run(source, [[1.0, 3.0], [2.0, 2.0]]) == [2.0, 2.0]


# ---- the language, construct by construct ---------------------------------------------------
@pytest.mark.parametrize(
    ("source", "args", "expected"),
    [
        ("def f(a, b=10, c=100):\n    return a + b + c", (1,), 111),
        ("def g(a, b=10, c=100):\n    return a + b + c\ndef f():\n    return g(1, c=2)", (), 13),
        (
            "def f(a, b):\n    return [i * y for i, y in enumerate(b, start=1)]",
            (0, [5, 6]),
            [5, 12],
        ),
        ("def f(w):\n    return [list(c) for c in zip(*w)]", ([[1, 2], [3, 4]],), [[1, 3], [2, 4]]),
        ("def f(a, b):\n    return list(zip(a, b, strict=True))", ([1], [2]), [[1, 2]]),
        ("def f(x):\n    a, (b, c) = x\n    return c, b, a", ([1, [2, 3]],), [3, 2, 1]),
        (
            "def f(m):\n    m[0][1] = 7\n    m[1][0] += 5\n    return m",
            ([[1, 2], [3, 4]],),
            [[1, 7], [8, 4]],
        ),
        (
            "def f(n):\n    def sq(k):\n        return k * k + n\n"
            "    return [sq(i) for i in range(3)]",
            (10,),
            [10, 11, 14],
        ),
        (
            "def f(n):\n    if n <= 1:\n        return 1\n    return n * f(n - 1)",
            (20,),
            math.factorial(20),
        ),
        (
            "def f(xs):\n    total = 0\n    for x in xs:\n        if x < 0:\n            continue\n"
            "        if x > 100:\n            break\n        total += x\n    return total",
            ([1, -5, 2, 200, 3],),
            3,
        ),
        ("def f(n):\n    i = 0\n    while i * i < n:\n        i += 1\n    return i", (50,), 8),
        ("def f(x):\n    return 0 <= x < 10, x if x > 5 else -x, not x", (7,), [True, 7, False]),
        (
            "def f(a, b):\n    return a and b, a or b, 3 in [1, 2, 3], 4 not in [4]",
            (0, 2),
            [0, 2, True, False],
        ),
        (
            "def f(x):\n    return x[-1], x[1:3], x[::-1], x[:-1]",
            ([1, 2, 3, 4],),
            [4, [2, 3], [4, 3, 2, 1], [1, 2, 3]],
        ),
        ("def f():\n    return float('-inf') < -1e308 < float('inf')", (), True),
        (
            "def f():\n    m = float('-inf')\n    return m / 2.0, m + 1e308, sum([m, 1.0])",
            (),
            [-math.inf] * 3,
        ),
        (
            "def f():\n    return [sum((r for r in [[1], [2, 3]]), []), sum([0.5, 1.5])]",
            (),
            [[1, 2, 3], 2.0],
        ),
        (
            "def f():\n    return math.sqrt(16), exp(0), log(math.exp(2)), log(8, 2), abs(-2)",
            (),
            [4.0, 1.0, 2.0, 3.0, 2],
        ),
        (
            "def f():\n    return min([3, 1, 2]), max(4, 9), len(range(2, 10, 3)), list(range(3))",
            (),
            [1, 9, 3, [0, 1, 2]],
        ),
        ("def f():\n    return [x * y for x in range(3) if x for y in range(x)]", (), [0, 0, 2]),
        (
            "def f():\n    d = {'q': 1}\n    d['k'] = 2\n    return d, 'q' in d, d['k']",
            (),
            [{"q": 1, "k": 2}, True, 2],
        ),
        ("def f():\n    for _ in range(3):\n        pass\n    return _", (), 2),
        ("def f(x):\n    ...", (1,), None),
        ("def f():\n    x = [1, 2]\n    y = x\n    y += [3]\n    return x", (), [1, 2, 3]),
        (
            "def f():\n    return 7 // 2, 7 % 3, -7 // 2, 2 ** -1, 2 ** 10, (-8) ** 2",
            (),
            [3, 1, -4, 0.5, 1024, 64],
        ),
        ("def f(a):\n    return a is None, a is not None, a == None", (None,), [True, False, True]),
        (
            "def f():\n    return [[0] * 2] * 2 == [[0, 0], [0, 0]], (1, 2) == (1, 2)",
            (),
            [True, True],
        ),
        ("def f(s):\n    return s == 'on', len(s), s[0]", ("on",), [True, 2, "o"]),
    ],
)
def test_the_language_computes_like_python(source: str, args: tuple, expected: object) -> None:
    assert run(source, *args) == expected


def test_comprehension_variables_stay_inside_the_comprehension() -> None:
    source = (
        "def f():\n    i = 'outer'\n    xs = [i for i in range(3)]\n"
        "    return i, xs, [i for i in [i]]"
    )
    assert run(source) == ["outer", [0, 1, 2], ["outer"]]


def test_a_mutation_of_the_arguments_does_not_reach_the_caller() -> None:
    rows = [[1.0, 2.0]]
    assert run("def f(m):\n    m[0][0] = 9.0\n    return m", rows) == [[9.0, 2.0]]
    assert rows == [[1.0, 2.0]]


def test_results_are_plain_python_values() -> None:
    value = run("def f():\n    return (1, [2.5, (True, None)]), range(2), {'a': (1,)}")
    assert value == [[1, [2.5, [True, None]]], [0, 1], {"a": [1]}]
    assert type(value[0]) is list and type(value[1]) is list

    with pytest.raises(SandboxError) as caught:
        run("def f():\n    return len")
    assert caught.value.code == "type"


def test_nan_and_infinities_come_back() -> None:
    value = run("def f():\n    return [float('nan'), float('inf'), float('-inf'), -0.0]")
    assert math.isnan(value[0]) and value[1:3] == [math.inf, -math.inf]
    assert math.copysign(1.0, value[3]) == -1.0


# ---- ordinary mistakes: code, line and params ------------------------------------------------
@pytest.mark.parametrize(
    ("source", "args", "code", "params"),
    [
        ("def f(x):\n    return x[3]", ([1, 2, 3],), "index", {"line": 2, "index": 3, "length": 3}),
        (
            "def f(p):\n    total = 0.0\n    for q in p:\n"
            "        total += q * log(q)\n    return total",
            ([0.5, 0.0],),
            "math_domain",
            {"line": 4, "function": "log"},
        ),
        (
            "def f(x):\n    return math.sqrt(x)",
            (-1.0,),
            "math_domain",
            {"line": 2, "function": "sqrt"},
        ),
        ("def f(x):\n    y = 1\n    return y / x", (0,), "zero_division", {"line": 3}),
        ("def f(x):\n    return x / 0.0", (1.5,), "zero_division", {"line": 2}),
        ("def f(x):\n    return exp(x)", (1000.0,), "overflow", {"line": 2}),
        ("def f(x):\n    return 10.0 ** x", (400,), "overflow", {"line": 2}),
        ("def f(x):\n    y = x * 10.0\n    return y", (1e308,), "overflow", {"line": 2}),
        ("def f(x):\n    s = x\n    s += x\n    return s", (1e308,), "overflow", {"line": 3}),
        ("def f(x):\n    return sum([x, x])", (1e308,), "overflow", {"line": 2}),
        (
            "def f(x):\n    for v in x:\n        total += v\n    return total",
            ([1],),
            "unbound",
            {"name": "total", "line": 3},
        ),
        ("def f(x):\n    return x + [1]", (1.0,), "type", {"line": 2}),
        ("def f(x):\n    return x[0.5]", ([1],), "type", {"line": 2}),
        ("def f(x):\n    a, b = x\n    return a", ([1, 2, 3],), "value", {"line": 2}),
        ("def f(x):\n    return (-x) ** 0.5", (4.0,), "math_domain", {"line": 2, "function": "**"}),
        ("def f(x):\n    return max([])", (1,), "value", {"line": 2}),
        ("def f(x):\n    return len(x)", (1,), "type", {"line": 2}),
        ("def f(x):\n    return x[0]['k']", ([{"a": 1}],), "value", {"line": 2}),
        (
            "def g(a, b):\n    return a\ndef f(x):\n    return g(x)",
            (1,),
            "arguments",
            {"name": "g", "expected": "2", "given": 1, "line": 4},
        ),
        (
            "def f(x):\n    return range(1, 2, 3, 4)",
            (1,),
            "arguments",
            {"name": "range", "expected": "1 to 3", "given": 4, "line": 2},
        ),
        ("def f(x):\n    return f(x)", (1,), "recursion", {"line": 2, "limit": 100}),
    ],
)
def test_a_runtime_mistake_names_its_line(
    source: str, args: tuple, code: str, params: dict
) -> None:
    err = error_of(source, *args)
    assert err.code == code, err
    assert {k: err.params.get(k) for k in params} == params
    assert str(err)  # a readable English fallback


def test_wrong_number_of_case_arguments_is_an_arguments_error() -> None:
    err = error_of("def f(a, b=1):\n    return a", 1, 2, 3)
    assert (err.code, err.params) == (
        "arguments",
        {"name": "f", "expected": "1 to 2", "given": 3, "line": 1},
    )


@pytest.mark.parametrize(
    ("source", "code", "params"),
    [
        ("def f(x):\n    return x +\n", "syntax", {"line": 2}),
        ("def f(x):\nreturn x\n", "syntax", {"line": 2}),
        ("def f(x):\n    print(x)\n    return x", "unknown_name", {"name": "print", "line": 2}),
        ("def f(x):\n    return int(x)", "unknown_name", {"name": "int", "line": 2}),
        ("def g(x):\n    return x", "no_function", {"name": "f"}),
        ("f = 3", "no_function", {"name": "f"}),
        ("x = 1 / 0\ndef f():\n    return x", "zero_division", {"line": 1}),
    ],
)
def test_a_static_mistake_stops_the_whole_run(source: str, code: str, params: dict) -> None:
    with pytest.raises(SandboxError) as caught:
        run_cases(source, "f", [(1,), (2,)], isolate=False)
    err = caught.value
    assert err.code == code, err
    assert {k: err.params.get(k) for k in params} == params


def test_unknown_names_list_what_is_available() -> None:
    with pytest.raises(SandboxError) as caught:
        run_cases("def f(x):\n    return sorted(x)", "f", [([1],)], ("dot",), isolate=False)
    available = str(caught.value.params["available"]).split(", ")
    assert available == [*ALLOWED_CALLS, "dot"]


def test_an_error_in_one_case_does_not_stop_the_next() -> None:
    outcomes = run_cases("def f(x):\n    return 1 / x", "f", [(2,), (0,), (4,)], isolate=False)
    assert [o.value for o in outcomes] == [0.5, None, 0.25]
    assert [o.error.code if o.error else None for o in outcomes] == [None, "zero_division", None]


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("def f():\n    return (1).real", "attribute `.real`"),
        ("def f():\n    x = 1\n    x.y = 2", "attribute `.y`"),
        ("def f():\n    return math.pi", "attribute `math.pi`"),
        ("def f():\n    return math", "`math` on its own"),
        ("def f():\n    return lambda: 1", "`lambda`"),
        ("def f():\n    return {1, 2}", "set `{...}`"),
        ("def f():\n    return {k: 1 for k in range(2)}", "dict comprehension"),
        ("def f():\n    return 1 << 3", "operator `<<`"),
        ("def f():\n    x = 1\n    x |= 2", "operator `|=`"),
        ("def f():\n    return ~1", "operator `~`"),
        ("def f():\n    return 'a' + 'b'", "text operation `+`"),
        ("def f():\n    return 1j", "complex number `j`"),
        ("def f():\n    return b'x'", "bytes `b'...'`"),
        ("def f(*args):\n    return 1", "`*args` parameter"),
        ("def f(**kw):\n    return 1", "`**kw` parameter"),
        ("def f(a, *, b):\n    return 1", "keyword-only parameters (after `*`)"),
        ("def f(x):\n    x[0:1] = [2]", "slice assignment `a[i:j] = ...`"),
        (
            "def f(x):\n    for v in x:\n        pass\n    else:\n        pass",
            "`else` after a loop",
        ),
        ("def f(x):\n    assert x", "`assert`"),
        ("def f(x):\n    raise x", "`raise`"),
        ("def f(x):\n    return [*x]", "`*` unpacking outside a call"),
        ("def f(_x):\n    return 1", "name `_x`"),
        ("def f(x):\n    return g(**x)", "`**` in a call"),
        ("def f(x):\n    return x[0](1)", "calling `x[0]` (only names can be called)"),
        ("def f(x: typing.Any):\n    return 1", "attribute `.Any`"),
    ],
)
def test_a_construct_outside_the_language_is_named(source: str, construct: str) -> None:
    with pytest.raises(SandboxError) as caught:
        check_source(source)
    assert caught.value.code == "not_allowed"
    assert caught.value.params["construct"] == construct
    assert caught.value.params["line"] >= 1


def test_break_and_return_outside_their_place_are_syntax_errors() -> None:
    for source, line in (
        ("break", 1),
        ("def f():\n    return 1\nreturn 2", 3),
        ("def f():\n    continue", 2),
    ):
        with pytest.raises(SandboxError) as caught:
            check_source(source)
        assert (caught.value.code, caught.value.params["line"]) == ("syntax", line)
