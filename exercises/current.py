"""The setting a cell is checked on first: the app's computed run and the page's own choices.

``Run`` is what a cell reads of the app's run (``ui.lab.compute.Lab`` is one, and so is any object
with these attributes); ``Current`` adds what the page chose on top of it: the head shown, the
mask, LayerNorm's eps and, on the depth page, the number of layers. ``setting`` computes a run
without the app (for a check outside a page: a pass given back by the browser, the benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from llm.config import LN_EPS, AttentionConfig
from llm.data import Params, embed, init_params, tokenize
from llm.engine import Trace, multi_head_attention

CHAPTER_SENTENCE = "the cat sat on mat"  # the chapters' sentence


class Run(Protocol):
    """The settings, X, the weights and the traced sublayer of one computed setting."""

    @property
    def cfg(self) -> AttentionConfig: ...

    @property
    def x(self) -> np.ndarray: ...  # [T, d_model]

    @property
    def params(self) -> Params: ...

    @property
    def trace(self) -> Trace: ...


@dataclass(frozen=True)
class Current:
    """The page's current setting: its run and what the page shows of it."""

    run: Run
    head: int = 0
    causal: bool = True
    eps: float = LN_EPS
    layers: int = 1  # the depth page's number of layers


@dataclass(frozen=True)
class PlainRun:
    """A run computed outside the app: the same four attributes ``ui.lab.compute.Lab`` has."""

    cfg: AttentionConfig
    x: np.ndarray  # [T, d_model]
    params: Params
    trace: Trace


def setting(
    cfg: AttentionConfig | None = None, text: str = CHAPTER_SENTENCE, causal: bool = True
) -> Current:
    """The current setting of a page at ``cfg`` (chapter 9's by default), computed here."""
    cfg = cfg or AttentionConfig()
    x = embed(tokenize(text), cfg)
    params = init_params(cfg)
    trace = multi_head_attention(x, params, causal=causal)
    return Current(run=PlainRun(cfg, x, params, trace), causal=causal)
