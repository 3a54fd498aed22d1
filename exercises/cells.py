"""The chapters' exercise cells: the function each asks for, its cases, solution and mistakes.

Each cell names the function the learner writes (``matmul``, ``attention_scores``, ...), the host
helpers it may call, our readable solution (functions of ``llm.attention`` / ``llm.nn``), how its
first case is read from the page's current setting, and its hidden random cases. The expected
values come from the numpy engine.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exercises import cases as hidden
from exercises import mistakes, solutions
from exercises.cases import Case, describe, rng_for
from exercises.current import Current
from exercises.mistakes import Mistake
from llm import attention, engine, nn
from llm.depth import layer_params

MAX_CHECKED_LAYERS = 6  # the depth cell checks the page's first layers: more only take longer


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
        calls = [(False, self.current_args(current), "")]
        calls += [(False, more(current), name) for name, more in self.more_current]
        calls += [(True, args, "") for args in self.hidden_args(rng_for(self.id))]
        return [
            Case(
                is_hidden,
                args,
                np.asarray(self.reference(*args), dtype=float),
                self._shapes(args) + (f" ({name})" if name else ""),
            )
            for is_hidden, args, name in calls
        ]

    def _shapes(self, args: tuple[Any, ...]) -> str:
        return ", ".join(f"{name} {describe(value)}" for name, value in zip(self.params, args))


@functools.cache
def _sources(functions: tuple[Callable[..., Any], ...]) -> str:
    """The source of the functions, read once per process."""
    return "\n\n".join(inspect.getsource(f) for f in functions)


def _head(c: Current) -> engine.HeadTrace:
    return c.run.trace.heads[c.head]


def _layers(c: Current) -> tuple[Any, ...]:
    """The page's X and the W_O of its first layers (as the depth page draws them), its eps."""
    params = layer_params(c.run.cfg, max(1, min(c.layers, MAX_CHECKED_LAYERS)))
    return c.run.x, [p.W_O for p in params], c.eps


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
        current_args=lambda c: (c.run.x, c.run.params.W_Q[c.head]),
        hidden_args=hidden.matmul,
        more_current=(
            ("w = W_K", lambda c: (c.run.x, c.run.params.W_K[c.head])),
            ("w = W_V", lambda c: (c.run.x, c.run.params.W_V[c.head])),
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
        current_args=lambda c: (_head(c).q, _head(c).k),
        hidden_args=hidden.scores,
        mistakes=mistakes.SCORES,
    ),
    Cell(
        id="softmax",
        chapter=8,
        page="softmax",
        function="scale_mask_softmax",
        params=("scores", "d_k", "causal"),
        helpers=(),
        solution=(attention.softmax, attention.scale_mask_softmax),
        reference=mistakes.pattern_of,
        current_args=lambda c: (_head(c).scores, _head(c).q.shape[1], c.causal),
        hidden_args=hidden.softmax,
        mistakes=mistakes.SOFTMAX,
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
        current_args=lambda c: (_head(c).pattern, _head(c).v),
        hidden_args=hidden.mix,
        mistakes=mistakes.MIX,
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
        current_args=lambda c: ([h.pattern for h in c.run.trace.heads],),
        hidden_args=hidden.entropy,
        mistakes=mistakes.ENTROPY,
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
        current_args=lambda c: ([h.z for h in c.run.trace.heads], c.run.params.W_O),
        hidden_args=hidden.combine,
        mistakes=mistakes.COMBINE,
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
        current_args=lambda c: (c.run.x, c.run.trace.attn_out, c.eps),
        hidden_args=hidden.add_norm,
        mistakes=mistakes.ADD_NORM,
    ),
    Cell(
        id="attention",
        chapter=8,
        page="code",
        function="causal_attention",
        params=("x", "wq", "wk", "wv"),
        helpers=("dot", "softmax", "matmul"),
        solution=(attention.causal_attention,),
        reference=mistakes.attention,
        current_args=lambda c: (
            c.run.x,
            c.run.params.W_Q[c.head],
            c.run.params.W_K[c.head],
            c.run.params.W_V[c.head],
        ),
        hidden_args=hidden.attention,
        mistakes=mistakes.ATTENTION,
    ),
    Cell(
        id="depth",
        chapter=9,
        page="depth",
        function="stack_post_ln",
        params=("x", "ws", "eps"),
        helpers=("matmul",),
        solution=(nn.add, nn.layer_norm, solutions.stack_post_ln),
        reference=mistakes.stack,
        current_args=_layers,
        hidden_args=hidden.depth,
        mistakes=mistakes.DEPTH,
    ),
)

BY_ID: dict[str, Cell] = {cell.id: cell for cell in CELLS}
BY_PAGE: dict[str, Cell] = {cell.page: cell for cell in CELLS}
