"""What a head does, read off its pattern: previous-token, induction and first-token scores, a role.

Every score is an average of attention probabilities, so it lies in [0, 1]; a head that spreads
each row evenly scores about 1 / (number of keys) on all of them.

    previous_token_score = mean over i >= 1       of pattern[i, i - 1]
    induction_score      = mean over i >= period  of pattern[i, i - period + 1]
    first_token_score    = mean over i >= 1       of pattern[i, 0]

The induction score reads a sequence whose tokens repeat with the given period
(t[i] = t[i - period] for i >= period): a head that, at the second A of ``A B ... A``, looks at the
B that followed the first A, attends from i to i - period + 1 (Olsson et al. 2022).

Shapes: every pattern is [T, T], rows = query, cols = key.
"""

from __future__ import annotations

import numpy as np

ROLES = ("previous token", "induction", "first token", "diffuse")
ROLE_THRESHOLD = 0.3  # a head takes the role of its largest score when that score reaches this


def previous_token_score(pattern: np.ndarray) -> float:
    """Mean of pattern[i, i - 1] over i >= 1; 0.0 for a one-token pattern.

    Shapes: [T, T] -> scalar in [0, 1].
    Example: previous_token_score(np.eye(3, k=-1) + np.eye(3) * [1, 0, 0]) == 1.0
    """
    t = pattern.shape[0]
    return float(np.diagonal(pattern, offset=-1).mean()) if t > 1 else 0.0


def induction_score(pattern: np.ndarray, period: int) -> float:
    """Mean of pattern[i, i - period + 1] over i >= period; 0.0 when T <= period.

    Shapes: [T, T] -> scalar in [0, 1].
    Example: on  A B C A B C  (period 3) the row of the second A looks at the first B: [3, 1].
    """
    t = pattern.shape[0]
    if period < 1 or t <= period:
        return 0.0
    # pattern[i, i - period + 1] for i = period .. T-1 is the diagonal at offset 1 - period
    return float(np.diagonal(pattern, offset=1 - period)[1:].mean())


def first_token_score(pattern: np.ndarray) -> float:
    """Mean of pattern[i, 0] over i >= 1: a head that parks its attention on the first token.

    Shapes: [T, T] -> scalar in [0, 1]; 0.0 for a one-token pattern.
    """
    return float(pattern[1:, 0].mean()) if pattern.shape[0] > 1 else 0.0


def head_role(previous: float, induction: float, first: float) -> str:
    """The role of the largest of the three scores if it reaches ROLE_THRESHOLD, else 'diffuse'.

    Example: head_role(0.9, 0.1, 0.0) == "previous token"; head_role(0.1, 0.1, 0.1) == "diffuse"
    """
    scores = {"previous token": previous, "induction": induction, "first token": first}
    role = max(scores, key=lambda name: scores[name])  # ties: the order of ROLES
    return role if scores[role] >= ROLE_THRESHOLD else "diffuse"


def induction_target(ids: list[int] | tuple[int, ...], i: int) -> int | None:
    """Where an induction head at position i looks: one place after the latest earlier occurrence
    of ids[i], or None when ids[i] has not occurred before.

    Example: induction_target([5, 7, 9, 5], 3) == 1   (the 7 that followed the first 5)
    """
    for j in range(i - 1, -1, -1):
        if ids[j] == ids[i]:
            return j + 1
    return None
