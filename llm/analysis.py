"""What the lesson pages read off a trace: entropy ceilings, sharpness, lopsided pairs, mixing.

The forward pass lives in ``llm.engine``; these functions only analyse its arrays (patterns [T, T],
scores [T, T], values [T, d_head]) and never change them.
"""

from __future__ import annotations

import numpy as np

from llm.engine import causal_mask, head_entropy


def max_row_entropy(t: int, causal: bool = True) -> np.ndarray:
    """The largest possible entropy of each row: ln(number of keys the row may look at).

    Shapes: -> [T]. Without the mask every row can reach ln T (ln 5 ≈ 1.61 for five tokens).
    """
    return np.log(causal_mask(t, causal).sum(axis=-1).astype(np.float64))


def max_head_entropy(t: int, causal: bool = True) -> float:
    """The largest average entropy a head can reach: the mean of the rows' ceilings.

    Shapes: -> scalar. ln T without the mask; lower under it, since row i has only i + 1 keys
    (five tokens: ln 5 ≈ 1.61 without, (ln 1 + ... + ln 5) / 5 = ln(120) / 5 ≈ 0.96 with).
    """
    return float(max_row_entropy(t, causal).mean())


def head_sharpness(pattern: np.ndarray, causal: bool = True) -> float:
    """Head entropy as a fraction of its maximum: 0 = every row on one key, 1 = uniform rows.

    Shapes: [T, T] -> scalar in [0, 1]. A one-token sentence (no choice at all) counts as 0.
    """
    top = float(max_row_entropy(pattern.shape[0], causal).mean())
    # uniform rows can round an ulp above ln n (1.0000000000000002 for T = 12): clip to 1
    return min(head_entropy(pattern) / top, 1.0) if top > 0.0 else 0.0


def classify_head(pattern: np.ndarray, causal: bool = True) -> str:
    """'sharp' below a third of the maximum entropy, 'diffuse' above two thirds, else 'mixed'."""
    fraction = head_sharpness(pattern, causal)
    if fraction < 1 / 3:
        return "sharp"
    return "diffuse" if fraction > 2 / 3 else "mixed"


def asymmetry(scores: np.ndarray) -> float:
    """How far a square matrix is from symmetric: ||S - Sᵀ|| / (||S|| + ||Sᵀ||), Frobenius.

    Shapes: [T, T] -> scalar in [0, 1]; 0 = symmetric, 1 = antisymmetric, 0 for an all-zero S.
    """
    norm = 2.0 * np.linalg.norm(scores)
    return float(np.linalg.norm(scores - scores.T) / norm) if norm > 0.0 else 0.0


def most_asymmetric_pair(scores: np.ndarray) -> tuple[int, int, float]:
    """The pair (i, j), i <= j, with the largest gap |S[i, j] - S[j, i]|, and that gap.

    Shapes: [T, T] -> (i, j, gap). The first such pair in row order wins a tie; a symmetric
    (or one-token) matrix gives (0, 0, 0.0).
    Example: most_asymmetric_pair(np.array([[0.0, 3.0], [1.0, 0.0]])) == (0, 1, 2.0)
    """
    gap = np.triu(np.abs(scores - scores.T))  # [T, T], each pair counted once
    i, j = np.unravel_index(np.argmax(gap), gap.shape)
    return int(i), int(j), float(gap[i, j])


def value_contributions(pattern: np.ndarray, v: np.ndarray, i: int) -> np.ndarray:
    """What each key j adds to query i's output: pattern[i, j] * v[j]; the rows sum to z[i].

    Shapes: pattern [T, T], v [T, d_head] -> [T, d_head].
    """
    return pattern[i][:, None] * v


def column_sums(m: np.ndarray) -> np.ndarray:
    """The sum of every column: the sum of the rows. Shapes: [T, d] -> [d]."""
    return m.sum(axis=0)


def row_sums(m: np.ndarray) -> np.ndarray:
    """The sum of every row (1 for every row of a pattern). Shapes: [T, d] -> [T]."""
    return m.sum(axis=-1)
