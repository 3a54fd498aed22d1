"""The gradient tests' reference: d f / d a by central finite differences, one entry at a time."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

STEP = 1e-3  # five-point central differences: truncation ~ STEP⁴, rounding ~ 1e-16 / STEP


def numeric_gradient(f: Callable[[], float], a: np.ndarray, step: float = STEP) -> np.ndarray:
    """d f / d a by the central five-point stencil, ``a`` changed in place and restored after.

    f'(a) ≈ (f(a - 2h) - 8 f(a - h) + 8 f(a + h) - f(a + 2h)) / 12h: a plain (f(a+h) - f(a-h)) / 2h
    cannot reach 1e-6 relative on the gradients that are 1e-5 of the loss (a nearly saturated head).
    ``f`` reads ``a`` each time it is called. Shapes: a [any] -> [same].
    """
    grad = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        keep = a[idx]
        values = []
        for k in (-2, -1, 1, 2):
            a[idx] = keep + k * step
            values.append(f())
        a[idx] = keep
        grad[idx] = (values[0] - 8 * values[1] + 8 * values[2] - values[3]) / (12 * step)
    return grad
