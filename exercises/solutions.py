"""Readable solutions of the cells whose code the lessons do not otherwise hold.

Written like ``llm.nn``, on plain lists, with its ``add`` and ``layer_norm``: the "Show the
solution" section shows this source, and the tests run it through the checker.
"""

from __future__ import annotations

from llm.attention import Matrix, matmul
from llm.nn import add, layer_norm


def stack_post_ln(x: Matrix, ws: list[Matrix], eps: float = 1e-5) -> Matrix:
    """Chapter 9's recipe, layer after layer: x = LayerNorm(x + sublayer(x)).

    Layer l's sublayer here is the linear map x · ws[l]. Each layer reads the output of the one
    before it. Shapes: x [T, d_model], ws L × [d_model, d_model] -> [T, d_model].
    """
    for w in ws:
        x = layer_norm(add(x, matmul(x, w)), eps)
    return x
