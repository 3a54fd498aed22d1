"""Deterministic toy data: tokens, embeddings and weights that a link can reproduce anywhere.

Embeddings. A seeded token's row depends only on (token, d_model, seed) through blake2b, never
Python's salted ``hash()``, so ``the`` gets the same row wherever it appears and on every machine.
Chapter 8's hand-made table gives the five toy words four readable features instead.

Weights. ``init_params`` draws every matrix from ``numpy.random.default_rng(seed)`` (PCG64, the same
stream on every platform), entries N(0, 1) scaled as follows:

    W_Q, W_K : QK_GAIN / sqrt(d_model)    W_V, W_O : 1 / sqrt(d_model)

With unit-variance embeddings, 1/sqrt(d_model) keeps every projected feature near unit variance
whatever d_model is (Xavier-style). For W_Q and W_K, a gain of 1 would make the scaled scores
q·k/sqrt(d_head) of order 1, and nearly every head comes out diffuse (measured over 200 seeds at
chapter 9's shapes: 92% of heads above two thirds of the maximum entropy). A gain g scales them by
g²; QK_GAIN = 2 gives about 25% sharp heads (below a third of the maximum), 55% in between and
20% diffuse, so most seeds show the contrast chapter 9 asks the learner to measure with entropy.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np

from llm.config import AttentionConfig, LabError

MAX_TOKENS = 32  # more rows than this no longer fit a readable heatmap
MAX_CHARS = 400  # a sentence longer than this is not a sentence
QK_GAIN = 2.0  # see the module docstring: the spread of sharp and diffuse heads

_TOKEN = re.compile(r"\w+|[^\w\s]")  # a run of letters/digits, or one punctuation mark

# chapter 8's hand-made 4-D embeddings: one readable feature per column
HANDMADE_FEATURES = ("noun", "verb", "little word", "alive")
HANDMADE_TABLE: dict[str, tuple[float, float, float, float]] = {
    "the": (0.0, 0.0, 1.0, 0.0),
    "cat": (1.0, 0.0, 0.0, 1.0),
    "sat": (0.0, 1.0, 0.0, 0.5),
    "on": (0.0, 0.5, 1.0, 0.0),
    "mat": (1.0, 0.0, 0.0, 0.0),
}


def tokenize(text: str) -> list[str]:
    """Lower-case the text and split it into words and punctuation marks.

    Example: tokenize("The cat sat.") == ["the", "cat", "sat", "."]
    Raises LabError (a ValueError) for an empty sentence, or one too long to show.
    """
    if len(text) > MAX_CHARS:
        raise LabError(
            "text_too_long",
            f"The sentence has {len(text)} characters; the lab takes at most {MAX_CHARS}.",
            count=len(text),
            max=MAX_CHARS,
        )
    tokens = _TOKEN.findall(text.lower())
    if not tokens:
        raise LabError("text_empty", "The sentence is empty: type at least one word.")
    if len(tokens) > MAX_TOKENS:
        raise LabError(
            "too_many_tokens",
            f"The sentence has {len(tokens)} tokens; the lab shows at most {MAX_TOKENS}.",
            count=len(tokens),
            max=MAX_TOKENS,
        )
    return tokens


def token_labels(tokens: list[str]) -> list[str]:
    """Axis labels that tell repeated tokens apart: the second ``the`` becomes ``the·2``.

    Example: token_labels(["the", "cat", "the"]) == ["the", "cat", "the·2"]
    """
    seen: dict[str, int] = {}
    labels = []
    for token in tokens:
        seen[token] = seen.get(token, 0) + 1
        labels.append(token if seen[token] == 1 else f"{token}·{seen[token]}")
    return labels


def token_vector(token: str, d_model: int, seed: int) -> np.ndarray:
    """One seeded token's embedding: N(0, 1) entries from a stable hash of (token, d_model, seed).

    Shapes: -> [d_model].
    """
    digest = hashlib.blake2b(f"{seed}|{d_model}|{token}".encode(), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little")).standard_normal(d_model)


def unknown_handmade(tokens: list[str]) -> list[str]:
    """The tokens that chapter 8's hand-made table does not know (they get seeded rows)."""
    return sorted({t for t in tokens if t not in HANDMADE_TABLE})


def embed(tokens: list[str], cfg: AttentionConfig) -> np.ndarray:
    """The input matrix X: one row per token, the same token always the same row.

    Shapes: T tokens -> X [T × d_model], float64.
    With ``cfg.embeddings == "handmade"`` the five toy words take their hand-made rows; any other
    token falls back to its seeded row.
    """
    rows = []
    for token in tokens:
        if cfg.embeddings == "handmade" and token in HANDMADE_TABLE:
            rows.append(np.array(HANDMADE_TABLE[token], dtype=np.float64))
        else:
            rows.append(token_vector(token, cfg.d_model, cfg.seed))
    return np.stack(rows)  # T × [d_model] -> [T, d_model]


@dataclass(frozen=True)
class Params:
    """The learned matrices of one multi-head attention sublayer.

    Shapes: W_Q, W_K, W_V [n_heads, d_model, d_head]; W_O [d_model, d_model].
    """

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray


def init_params(cfg: AttentionConfig) -> Params:
    """Draw W_Q, W_K, W_V, W_O from ``default_rng(cfg.seed)``: same seed, same numbers, anywhere.

    Shapes: -> W_Q, W_K, W_V [n_heads, d_model, d_head], W_O [d_model, d_model].
    """
    rng = np.random.default_rng(cfg.seed)
    shape = (cfg.n_heads, cfg.d_model, cfg.d_head)
    scale = 1.0 / np.sqrt(cfg.d_model)
    w_q = rng.standard_normal(shape) * (QK_GAIN * scale)
    w_k = rng.standard_normal(shape) * (QK_GAIN * scale)
    w_v = rng.standard_normal(shape) * scale
    w_o = rng.standard_normal((cfg.d_model, cfg.d_model)) * scale
    return Params(W_Q=w_q, W_K=w_k, W_V=w_v, W_O=w_o)
