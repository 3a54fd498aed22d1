"""A link's values read as the app reads them: each one valid, or its default (never an error).

The rules are the app's (the URL's repair on a first visit): ``d_model`` a whole number 2..64,
``n_heads`` one dividing it (default 4, or the largest divisor below 4), ``head`` below
``n_heads``, ``seed`` 0..2**32-1, ``causal``/``scale`` ``true``/``false``, ``embeddings``
``seeded``/``handmade`` (hand-made only at d_model 4), ``text`` a sentence ``llm.tokenize``
reads, ``token`` a position (default the last), ``temperature`` a finite number in [0.05, 20],
``eps`` one of the LayerNorm page's offered values, ``layers`` 1..24, ``variant`` one of the four
wirings, and /learned's ``sentence`` (the model's words), ``step`` (a checkpoint), ``position``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

import llm

DEFAULT_TEXT = "the cat sat on mat"
D_MODEL_MAX = 64  # the app's slider top
EPS_OPTIONS = (1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
LAYERS_DEFAULT = 12
VARIANT_DEFAULT = "none"
LEARNED_SENTENCE = "the cat sat on the mat . the cat sat on the mat"


def default_heads(d_model: int) -> int:
    """4 when it divides d_model, else the largest divisor below 4."""
    return max(h for h in llm.divisors(d_model) if h <= 4)


def whole(raw: str | None, low: int, high: int) -> int | None:
    """A whole number in [low, high] as the app reads it (``int(raw.strip())``), else None."""
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        return None
    return value if low <= value <= high else None


def real(raw: str | None, low: float, high: float) -> float | None:
    """A finite number in [low, high] (``float(raw.strip())``), else None."""
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and low <= value <= high else None


def flag(raw: str | None, default: bool) -> bool:
    """``true`` / ``false``, else the default."""
    return {"true": True, "false": False}.get(raw, default) if raw is not None else default


@dataclass(frozen=True)
class Setting:
    """Every value a page's numbers depend on, each valid (scalars only: a cache key)."""

    text: str
    d_model: int
    n_heads: int
    seed: int
    causal: bool
    embeddings: str
    head: int
    token: int
    temperature: float
    scale: bool
    eps: float
    layers: int
    variant: str
    sentence: str
    step: int | None
    position: int

    @property
    def tokens(self) -> list[str]:
        return llm.tokenize(self.text)

    @property
    def labels(self) -> list[str]:
        return llm.token_labels(self.tokens)

    @property
    def cfg(self) -> llm.AttentionConfig:
        return llm.AttentionConfig(
            d_model=self.d_model, n_heads=self.n_heads, seed=self.seed, embeddings=self.embeddings
        )

    def link(self) -> dict[str, str]:
        """The setting as a link writes it (the values the answer was computed at)."""
        return {
            "text": self.text,
            "d_model": str(self.d_model),
            "n_heads": str(self.n_heads),
            "seed": str(self.seed),
            "causal": "true" if self.causal else "false",
            "embeddings": self.embeddings,
            "head": str(self.head),
            "token": str(self.token),
            "temperature": f"{self.temperature:g}",
            "scale": "true" if self.scale else "false",
            "eps": f"{self.eps:g}",
            "layers": str(self.layers),
            "variant": self.variant,
            "sentence": self.sentence,
            "step": "" if self.step is None else str(self.step),
            "position": str(self.position),
        }


def _text(raw: str | None) -> str:
    if raw is None:
        return DEFAULT_TEXT
    try:
        llm.tokenize(raw)
    except (llm.LabError, ValueError):
        return DEFAULT_TEXT
    return raw


def _strings(values: Mapping[str, object] | None) -> dict[str, str]:
    """The values as strings (a link's are; anything else is written as text first)."""
    if not isinstance(values, Mapping):
        return {}
    return {str(k): v if isinstance(v, str) else str(v) for k, v in values.items() if v is not None}


def parse(values: Mapping[str, object] | None) -> Setting:
    """The setting a link's values mean, each bad or missing one replaced by its default."""
    raw = _strings(values)
    d_model = whole(raw.get("d_model"), 2, D_MODEL_MAX) or 8
    n_heads = whole(raw.get("n_heads"), 1, llm.MAX_HEADS)
    if n_heads is None or d_model % n_heads:
        n_heads = default_heads(d_model)
    head = whole(raw.get("head"), 0, n_heads - 1) or 0
    seed = whole(raw.get("seed"), 0, llm.MAX_SEED) or 0
    embeddings = raw.get("embeddings", "seeded")
    if embeddings not in llm.EMBEDDINGS or (
        embeddings == "handmade" and d_model != llm.HANDMADE_D_MODEL
    ):
        embeddings = "seeded"
    text = _text(raw.get("text"))
    n_tokens = len(llm.tokenize(text))
    token = whole(raw.get("token"), 0, n_tokens - 1)
    temperature = real(raw.get("temperature"), llm.MIN_TEMPERATURE, llm.MAX_TEMPERATURE)
    eps = real(raw.get("eps"), 0.0, 1.0)
    sentence, step, position = _learned(raw)
    return Setting(
        text=text,
        d_model=d_model,
        n_heads=n_heads,
        seed=seed,
        causal=flag(raw.get("causal"), True),
        embeddings=embeddings,
        head=head,
        token=n_tokens - 1 if token is None else token,
        temperature=1.0 if temperature is None else temperature,
        scale=flag(raw.get("scale"), True),
        eps=eps if eps in EPS_OPTIONS else llm.LN_EPS,
        layers=whole(raw.get("layers"), 1, llm.MAX_LAYERS) or LAYERS_DEFAULT,
        variant=raw.get("variant") if raw.get("variant") in llm.VARIANTS else VARIANT_DEFAULT,
        sentence=sentence,
        step=step,
        position=position,
    )


def _learned(raw: dict[str, str]) -> tuple[str, int | None, int]:
    """/learned's sentence (a text the model cannot read: the default one), step (a
    checkpoint, default the last; None when no model is shipped) and position (past the last
    word, or missing: the last word)."""
    try:
        model = trained(None)
    except llm.LabError:
        return LEARNED_SENTENCE, None, 0
    sentence = raw.get("sentence", LEARNED_SENTENCE)
    try:
        n_words = len(model.encode(sentence))
    except (llm.LabError, ValueError):
        sentence, n_words = LEARNED_SENTENCE, len(model.encode(LEARNED_SENTENCE))
    if n_words == 0:
        sentence, n_words = LEARNED_SENTENCE, len(model.encode(LEARNED_SENTENCE))
    step = next((s for s in model.steps if str(s) == raw.get("step")), model.steps[-1])
    position = whole(raw.get("position"), 0, model.max_len - 1)
    position = n_words - 1 if position is None else min(position, n_words - 1)
    return sentence, step, position


@lru_cache(maxsize=64)
def trained(step: int | None) -> llm.TinyModel:
    """A shipped checkpoint (the last one for None), read once."""
    return llm.load_model(step=step)


@lru_cache(maxsize=128)
def lab(setting: Setting, temperature: float = 1.0, scale: bool = True):
    """(X, params, trace) of the setting's sublayer at a temperature and √d_k switch."""
    cfg = setting.cfg
    x = llm.embed(setting.tokens, cfg)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, setting.causal, temperature, scale)
    return x, params, trace


@lru_cache(maxsize=32)
def stacks(setting: Setting) -> dict[str, llm.DepthStack]:
    """The four wirings stacked ``setting.layers`` deep (one batched pass)."""
    return llm.depth_stacks(setting.cfg, setting.tokens, setting.layers)


def norms(m: np.ndarray) -> np.ndarray:
    """Every row's Euclidean norm. Shapes: [T, d] -> [T]."""
    return np.sqrt((m**2).sum(axis=-1))
