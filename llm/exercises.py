"""The chapters' exercise cells: what the learner writes, the cases it is checked on, the verdict.

Each cell names the function the learner writes (``matmul``, ``attention_scores``, ...), the host
helpers it may call, our readable solution (functions of ``llm.attention`` / ``llm.nn``), and the
cases it is checked on: the current setting of the app, then hidden random cases of other shapes.
The expected values come from the numpy engine; a wrong result is compared against the usual
mistakes (no scale, softmax over columns, sample std, ...) so the verdict can name the mistake.

This module only judges values: running the learner's code is the ``sandbox`` package's job, and
``judge`` takes its outcomes (anything with ``.value`` and ``.error``, the error having ``.code``
and ``.params``).
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm import attention, engine, nn
from llm.data import Params
from llm.engine import Trace

RTOL = 1e-7  # a learner may sum in another order: agree to 7 significant digits
ATOL = 1e-9
HIDDEN_SEED = 20_261_129  # hidden cases are random but the same on every check


@dataclass(frozen=True)
class Current:
    """The setting the app shows: the first case every cell is checked on."""

    x: np.ndarray  # [T, d_model]
    params: Params
    trace: Trace
    head: int = 0
    causal: bool = True
    eps: float = 1e-5


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: its arguments and the expected result."""

    hidden: bool
    args: tuple[Any, ...]  # numpy arrays, lists of arrays, numbers, booleans
    expected: np.ndarray
    shapes: str  # "x [5 × 8], w [8 × 2]"

    def plain_args(self) -> tuple[Any, ...]:
        """The arguments as the learner sees them: lists of lists of floats, as in the chapters."""
        return tuple(_plain(a) for a in self.args)


@dataclass(frozen=True)
class Mistake:
    """A usual wrong answer: ``wrong(*args)`` is what that mistake returns."""

    code: str
    wrong: Callable[..., np.ndarray]


@dataclass(frozen=True)
class Cell:
    """One exercise cell of a chapter."""

    id: str
    chapter: int
    page: str  # the page's slug: qkv, scores, ...
    function: str
    params: tuple[str, ...]
    # host functions the learner may call (the chapters' "the script defines")
    helpers: tuple[str, ...]
    solution: tuple[Callable[..., Any], ...]  # our readable functions, in order
    reference: Callable[..., np.ndarray]  # the engine's answer for one case's args
    current_args: Callable[[Current], tuple[Any, ...]]
    hidden_args: Callable[[np.random.Generator], list[tuple[Any, ...]]]
    mistakes: tuple[Mistake, ...] = field(default_factory=tuple)
    # more calls on the current setting, each named: the same routine for K and V
    more_current: tuple[tuple[str, Callable[[Current], tuple[Any, ...]]], ...] = ()

    def signature(self) -> str:
        return f"def {self.function}({', '.join(self.params)}):"

    def solution_source(self) -> str:
        """Our readable code for this cell, as shown by "show solution" and checked by the tests."""
        return _sources(self.solution)

    def cases(self, current: Current) -> list[Case]:
        """The current setting first, then the hidden random cases."""
        rng = np.random.default_rng([HIDDEN_SEED, sum(map(ord, self.id))])
        calls = [(False, self.current_args(current), "")]
        calls += [(False, more(current), name) for name, more in self.more_current]
        calls += [(True, args, "") for args in self.hidden_args(rng)]
        return [
            Case(
                hidden,
                args,
                np.asarray(self.reference(*args), dtype=float),
                self._shapes(args) + (f" ({name})" if name else ""),
            )
            for hidden, args, name in calls
        ]

    def _shapes(self, args: tuple[Any, ...]) -> str:
        return ", ".join(f"{name} {describe(value)}" for name, value in zip(self.params, args))


@dataclass(frozen=True)
class Verdict:
    """The result of one check. ``code`` is ``pass``, a failure kind or a named mistake.

    ``case`` is the 1-based case that failed (1 = the current setting), ``params`` the values the
    message needs (shapes, row, column, numbers, or the sandbox error's own params).
    """

    passed: bool
    code: str
    params: dict[str, Any]
    case: int = 0
    hidden: bool = False
    shapes: str = ""
    cases: int = 0


@functools.cache
def _sources(functions: tuple[Callable[..., Any], ...]) -> str:
    """The source of the functions, read once per process."""
    return "\n\n".join(inspect.getsource(f) for f in functions)


def describe(value: Any) -> str:
    """A shape as the pages write it: "[5 × 8]", "4 × [5 × 2]", a number as itself."""
    if isinstance(value, (list, tuple)):
        inner = {describe(v) for v in value}
        return f"{len(value)} × {inner.pop()}" if len(inner) == 1 else f"{len(value)} items"
    if isinstance(value, np.ndarray):
        return "[" + " × ".join(str(n) for n in value.shape) + "]"
    return repr(value)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + " × ".join(str(n) for n in shape) + "]" if shape else "a number"


def to_array(value: Any, ndim: int) -> tuple[np.ndarray | None, str, dict[str, Any]]:
    """The learner's result as a float array, or why it is not a list of the right depth.

    Returns (array, "", {}) or (None, code, params) with code ``not_list``, ``ragged``,
    ``not_number``. ``ndim`` is 1 for a list of numbers, 2 for a list of rows.
    """
    if not isinstance(value, (list, tuple)):
        return None, "not_list", {"received": type(value).__name__}
    rows = value if ndim == 2 else [value]
    for i, row in enumerate(rows):
        if ndim == 2 and not isinstance(row, (list, tuple)):
            return None, "not_rows", {"row": i, "received": type(row).__name__}
        for j, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, (int, float)):
                where = {"row": i, "col": j} if ndim == 2 else {"row": j, "col": -1}
                return None, "not_number", {**where, "received": type(cell).__name__}
    if ndim == 2 and len({len(row) for row in rows}) > 1:
        return None, "ragged", {"lengths": ", ".join(str(len(row)) for row in rows)}
    return np.array(value, dtype=float).reshape(-1) if ndim == 1 else _matrix(value), "", {}


def _matrix(rows: Sequence[Sequence[float]]) -> np.ndarray:
    return np.array(rows, dtype=float).reshape(len(rows), len(rows[0]) if rows else 0)


def _close(received: np.ndarray, expected: np.ndarray) -> bool:
    return received.shape == expected.shape and bool(
        np.allclose(received, expected, rtol=RTOL, atol=ATOL)
    )


def first_difference(received: np.ndarray, expected: np.ndarray) -> dict[str, Any]:
    """Row, column and both values of the first cell (row by row) that differs."""
    bad = ~np.isclose(received, expected, rtol=RTOL, atol=ATOL)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    row, col = (index[0], -1) if len(index) == 1 else index
    return {
        "row": row,
        "col": col,
        "expected": float(expected[index]),
        "received": float(received[index]),
    }


def judge(cell: Cell, cases: Sequence[Case], outcomes: Sequence[Any]) -> Verdict:
    """Compare the learner's outcomes with the expected values, case by case; first failure wins."""
    for number, (case, outcome) in enumerate(zip(cases, outcomes, strict=True), start=1):
        where = {"case": number, "hidden": case.hidden, "shapes": case.shapes, "cases": len(cases)}
        if outcome.error is not None:
            params = {"error": outcome.error.code, **outcome.error.params}
            return Verdict(False, "error", params, **where)
        received, code, params = to_array(outcome.value, case.expected.ndim)
        if received is None:
            return Verdict(False, code, params, **where)
        if _close(received, case.expected):
            continue
        for mistake in cell.mistakes:
            wrong = np.asarray(mistake.wrong(*case.args), dtype=float)
            if _close(received, wrong) and not _close(wrong, case.expected):
                return Verdict(False, mistake.code, {}, **where)
        if received.shape != case.expected.shape:
            shapes = {
                "expected": _shape_text(case.expected.shape),
                "received": _shape_text(received.shape),
            }
            return Verdict(False, "shape", shapes, **where)
        if np.isnan(received).any():
            first = tuple(int(i) for i in np.argwhere(np.isnan(received))[0])
            row, col = (first[0], -1) if len(first) == 1 else first
            return Verdict(False, "nan", {"row": row, "col": col}, **where)
        return Verdict(False, "value", first_difference(received, case.expected), **where)
    hidden = sum(case.hidden for case in cases)
    return Verdict(True, "pass", {"hidden": hidden}, cases=len(cases))


def error_verdict(code: str, params: dict[str, Any], cases: int = 0) -> Verdict:
    """A failure of the whole run (syntax, a construct not allowed, timeout, ...)."""
    return Verdict(False, "error", {"error": code, **params}, cases=cases)


# ---------------------------------------------------------------- hidden random cases


def _normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return np.round(rng.normal(0.0, 1.0, size=shape), 3)


def _pattern(rng: np.random.Generator, t: int, causal: bool) -> np.ndarray:
    return _pattern_of(rng.normal(0.0, 2.0, size=(t, t)), 1.0, causal)


def _hidden_matmul(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        (_normal(rng, n, k), _normal(rng, k, m)) for n, k, m in ((3, 5, 2), (1, 4, 3), (6, 2, 1))
    ]


def _hidden_scores(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [(_normal(rng, t, d), _normal(rng, t, d)) for t, d in ((3, 2), (1, 4), (6, 1))]


def _hidden_softmax(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        (_normal(rng, 4, 4) * 3.0, 2, True),
        (_normal(rng, 3, 3) * 3.0, 4, False),
        (_normal(rng, 1, 1), 1, True),
        (_normal(rng, 6, 6) * 3.0, 3, True),
    ]


def _hidden_mix(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        (_pattern(rng, t, causal), _normal(rng, t, d))
        for t, d, causal in ((4, 3, True), (3, 1, False), (1, 2, True))
    ]


def _hidden_entropy(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    return [
        ([_pattern(rng, 4, True) for _ in range(3)],),
        ([_pattern(rng, 3, False) for _ in range(2)],),
        ([_pattern(rng, 1, True)],),
    ]


def _hidden_combine(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    cases = []
    for t, heads, d_head in ((3, 2, 2), (4, 3, 1), (1, 2, 3)):
        d_model = heads * d_head
        outputs = [_normal(rng, t, d_head) for _ in range(heads)]
        cases.append((outputs, _normal(rng, d_model, d_model)))
    return cases


def _hidden_add_norm(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    x = _normal(rng, 3, 4)
    sub = _normal(rng, 3, 4)
    x[1] = [0.5, 0.5, 0.5, 0.5]  # a constant row: LayerNorm must give zeros, not NaN
    sub[1] = 0.0
    x[2] = [1.0, 1.001, 0.999, 1.0]  # a tiny variance: eps inside the sqrt matters
    sub[2] = 0.0
    return [(x, sub, 1e-5), (_normal(rng, 2, 6), _normal(rng, 2, 6), 1e-3)]


def _hidden_attention(rng: np.random.Generator) -> list[tuple[Any, ...]]:
    cases = []
    for t, d_model, d_head in ((4, 3, 2), (1, 2, 2), (5, 4, 1)):
        x = _normal(rng, t, d_model)
        cases.append((x, *(_normal(rng, d_model, d_head) * 1.5 for _ in range(3))))
    return cases


# ---------------------------------------------------------------- references and mistakes


def _masked(scores: np.ndarray, d_k: float, causal: bool) -> np.ndarray:
    """Scaled scores with -inf where a query may not look, as the engine masks them."""
    return np.where(engine.causal_mask(len(scores), causal), scores / math.sqrt(d_k), -np.inf)


def _pattern_of(scores: np.ndarray, d_k: float, causal: bool, columns: bool = False) -> np.ndarray:
    """The engine's softmax of each row; ``columns`` = the mistake of a softmax over columns."""
    masked = _masked(scores, d_k, causal)
    return engine.softmax(masked.T).T if columns else engine.softmax(masked)


def _attention(
    x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, **kw: Any
) -> np.ndarray:
    """The engine's causal head; ``d_k``, ``causal``, ``columns`` give the usual mistakes."""
    if not kw:
        return engine.attention_head(x, wq, wk, wv, engine.causal_mask(len(x))).z
    q, k, v = x @ wq, x @ wk, x @ wv
    d_k = kw.get("d_k", q.shape[1])
    return _pattern_of(q @ k.T, d_k, kw.get("causal", True), kw.get("columns", False)) @ v


def _entropies(patterns: Sequence[np.ndarray], log: Callable = np.log) -> np.ndarray:
    """Mean row entropy per head with another log: the mistake of a base-2 log."""
    rows = [-(p * log(np.where(p > 0.0, p, 1.0))).sum(axis=-1) for p in patterns]
    return np.array([r.mean() for r in rows])


def _norm(
    m: np.ndarray, eps: float, ddof: int = 0, axis: int = -1, inside: bool = True
) -> np.ndarray:
    """LayerNorm's usual mistakes: n - 1, eps outside the sqrt, no eps, over the columns."""
    mean = m.mean(axis=axis, keepdims=True)
    std = m.std(axis=axis, ddof=ddof, keepdims=True)
    denom = np.sqrt(std**2 + eps) if inside else std + eps
    with np.errstate(divide="ignore", invalid="ignore"):  # no eps: a constant row is 0 / 0
        return (m - mean) / denom


def _head_args(current: Current) -> tuple[np.ndarray, ...]:
    h = current.trace.heads[current.head]
    return h.q, h.k, h.v, h.pattern


CELLS: tuple[Cell, ...] = (
    Cell(
        id="qkv",
        chapter=8,
        page="qkv",
        function="matmul",
        params=("x", "w"),
        helpers=(),
        solution=(attention.dot, attention.matmul),
        reference=lambda x, w: x @ w,
        current_args=lambda c: (c.x, c.params.W_Q[c.head]),
        hidden_args=_hidden_matmul,
        more_current=(
            ("w = W_K", lambda c: (c.x, c.params.W_K[c.head])),
            ("w = W_V", lambda c: (c.x, c.params.W_V[c.head])),
        ),
    ),
    Cell(
        id="scores",
        chapter=8,
        page="scores",
        function="attention_scores",
        params=("q", "k"),
        helpers=("dot",),
        solution=(attention.attention_scores,),
        reference=lambda q, k: q @ k.T,
        current_args=lambda c: _head_args(c)[:2],
        hidden_args=_hidden_scores,
        mistakes=(
            Mistake("scores_transposed", lambda q, k: k @ q.T),
            Mistake("scores_scaled", lambda q, k: q @ k.T / math.sqrt(q.shape[1])),
        ),
    ),
    Cell(
        id="softmax",
        chapter=8,
        page="softmax",
        function="scale_mask_softmax",
        params=("scores", "d_k", "causal"),
        helpers=(),
        solution=(attention.softmax, attention.scale_mask_softmax),
        reference=_pattern_of,
        current_args=lambda c: (
            c.trace.heads[c.head].scores,
            c.trace.heads[c.head].q.shape[1],
            c.causal,
        ),
        hidden_args=_hidden_softmax,
        mistakes=(
            Mistake("no_scale", lambda s, d_k, causal: _pattern_of(s, 1.0, causal)),
            Mistake("scale_by_dk", lambda s, d_k, causal: _pattern_of(s, float(d_k) ** 2, causal)),
            Mistake("no_mask", lambda s, d_k, causal: _pattern_of(s, d_k, False)),
            Mistake("mask_when_off", lambda s, d_k, causal: _pattern_of(s, d_k, True)),
            Mistake(
                "softmax_columns", lambda s, d_k, causal: _pattern_of(s, d_k, causal, columns=True)
            ),
        ),
    ),
    Cell(
        id="mix",
        chapter=8,
        page="mix",
        function="mix_values",
        params=("pattern", "v"),
        helpers=(),
        solution=(attention.mix_values,),
        reference=lambda p, v: p @ v,
        current_args=lambda c: (_head_args(c)[3], _head_args(c)[2]),
        hidden_args=_hidden_mix,
        mistakes=(Mistake("pattern_transposed", lambda p, v: p.T @ v),),
    ),
    Cell(
        id="entropy",
        chapter=9,
        page="heads",
        function="head_entropies",
        params=("patterns",),
        helpers=(),
        solution=(nn.row_entropy, nn.head_entropy, nn.head_entropies),
        reference=lambda ps: np.array([engine.head_entropy(p) for p in ps]),
        current_args=lambda c: ([h.pattern for h in c.trace.heads],),
        hidden_args=_hidden_entropy,
        mistakes=(
            Mistake("entropy_sign", lambda ps: -_entropies(ps)),
            Mistake("entropy_log2", lambda ps: _entropies(ps, np.log2)),
            Mistake("entropy_sum", lambda ps: _entropies(ps) * np.array([len(p) for p in ps])),
        ),
    ),
    Cell(
        id="combine",
        chapter=9,
        page="concat",
        function="combine_heads",
        params=("head_outputs", "w_o"),
        helpers=("matmul",),
        solution=(nn.concat_heads, nn.combine_heads),
        reference=lambda outs, w_o: np.concatenate(outs, axis=1) @ w_o,
        current_args=lambda c: ([h.z for h in c.trace.heads], c.params.W_O),
        hidden_args=_hidden_combine,
        mistakes=(
            Mistake("no_w_o", lambda outs, w_o: np.concatenate(outs, axis=1)),
            Mistake("w_o_transposed", lambda outs, w_o: np.concatenate(outs, axis=1) @ w_o.T),
            Mistake("heads_reversed", lambda outs, w_o: np.concatenate(outs[::-1], axis=1) @ w_o),
            Mistake("concat_tokens", lambda outs, w_o: np.concatenate(outs, axis=0)),
        ),
    ),
    Cell(
        id="add_norm",
        chapter=9,
        page="layernorm",
        function="add_and_norm",
        params=("x", "sublayer_out", "eps"),
        helpers=(),
        solution=(nn.add, nn.layer_norm, nn.add_and_norm),
        reference=lambda x, sub, eps: engine.residual_layer_norm(x, sub, eps)[1],
        current_args=lambda c: (c.x, c.trace.attn_out, c.eps),
        hidden_args=_hidden_add_norm,
        mistakes=(
            Mistake("no_residual", lambda x, sub, eps: _norm(sub, eps)),
            Mistake("residual_only", lambda x, sub, eps: x + sub),
            Mistake("sample_std", lambda x, sub, eps: _norm(x + sub, eps, ddof=1)),
            Mistake("eps_outside", lambda x, sub, eps: _norm(x + sub, eps, inside=False)),
            Mistake("no_eps", lambda x, sub, eps: _norm(x + sub, 0.0)),
            Mistake("norm_columns", lambda x, sub, eps: _norm(x + sub, eps, axis=0)),
        ),
    ),
    Cell(
        id="attention",
        chapter=8,
        page="code",
        function="causal_attention",
        params=("x", "wq", "wk", "wv"),
        helpers=("dot", "softmax", "matmul"),
        solution=(attention.causal_attention,),
        reference=_attention,
        current_args=lambda c: (
            c.x,
            c.params.W_Q[c.head],
            c.params.W_K[c.head],
            c.params.W_V[c.head],
        ),
        hidden_args=_hidden_attention,
        mistakes=(
            Mistake("no_scale", lambda *a: _attention(*a, d_k=1.0)),
            Mistake("no_mask", lambda *a: _attention(*a, causal=False)),
            Mistake("softmax_columns", lambda *a: _attention(*a, columns=True)),
        ),
    ),
)

BY_ID: dict[str, Cell] = {cell.id: cell for cell in CELLS}
BY_PAGE: dict[str, Cell] = {cell.page: cell for cell in CELLS}
