"""The setting a cell is checked on first: the app's computed run and the page's own choices.

``Run`` is what a cell reads of the app's run (``ui.compute.Lab`` is one, and so is any object
with these attributes); ``Current`` adds what the page chose on top of it: the head shown, the
mask, LayerNorm's eps and, on the depth page, the number of layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from llm.config import AttentionConfig
from llm.data import Params
from llm.engine import Trace


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
    eps: float = 1e-5
    layers: int = 3  # the depth page's number of layers
