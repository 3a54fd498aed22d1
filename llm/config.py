"""The settings of one attention sublayer, checked once so every other function can trust them."""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_D_MODEL = 512  # the engine's limit; the app's slider stops at 64 to keep tables readable
MAX_HEADS = 64
MAX_SEED = 2**32 - 1  # numpy's SeedSequence takes any int; 32 bits keeps links short
EMBEDDINGS = ("seeded", "handmade")
HANDMADE_D_MODEL = 4  # chapter 8's hand-made table has four features
LN_EPS = 1e-5  # LayerNorm's eps inside the sqrt, chapter 9's value
MIN_TEMPERATURE = 0.05  # below this nearly every row is one-hot: nothing left to see
MAX_TEMPERATURE = 20.0  # above this nearly every row is uniform


class LabError(ValueError):
    """A ValueError that also carries a stable ``code`` and its ``params``.

    The message is plain English for anyone calling ``llm`` directly; the app uses the code and
    params to say the same thing in the reader's language.
    """

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def check_temperature(temperature: float) -> float:
    """The softmax temperature as a float, or a LabError if it is NaN, infinite or out of range.

    Example: check_temperature(1) == 1.0
    """
    try:
        value = float(temperature)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and MIN_TEMPERATURE <= value <= MAX_TEMPERATURE):
        raise LabError(
            "temperature_range",
            f"temperature must be a number between {MIN_TEMPERATURE} and {MAX_TEMPERATURE:g}, "
            f"got {temperature!r}.",
            value=temperature,
            low=MIN_TEMPERATURE,
            high=MAX_TEMPERATURE,
        )
    return value


def divisors(n: int, limit: int = MAX_HEADS) -> list[int]:
    """The head counts that split n features evenly, up to ``limit``.

    Example: divisors(8) == [1, 2, 4, 8]
    """
    return [h for h in range(1, min(n, limit) + 1) if n % h == 0]


@dataclass(frozen=True)
class AttentionConfig:
    """Shapes and seed of one multi-head attention sublayer (chapter 9's defaults)."""

    d_model: int = 8  # features per token; chapter 9 uses 8
    n_heads: int = 4  # heads run in parallel; d_model must split evenly between them
    seed: int = 0  # draws W_Q, W_K, W_V, W_O and the seeded embeddings
    embeddings: str = (
        "seeded"  # "seeded" (hashed, any d_model) or chapter 8's "handmade" (d_model 4)
    )

    def __post_init__(self) -> None:
        for name in ("d_model", "n_heads", "seed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise LabError(
                    "not_int", f"{name} must be a whole number, got {value!r}.", name=name
                )
        if not 1 <= self.d_model <= MAX_D_MODEL:
            raise LabError(
                "d_model_range",
                f"d_model must be between 1 and {MAX_D_MODEL}, got {self.d_model}.",
                value=self.d_model,
                max=MAX_D_MODEL,
            )
        if not 1 <= self.n_heads <= MAX_HEADS:
            raise LabError(
                "n_heads_range",
                f"n_heads must be between 1 and {MAX_HEADS}, got {self.n_heads}.",
                value=self.n_heads,
                max=MAX_HEADS,
            )
        if self.d_model % self.n_heads:
            options = divisors(self.d_model)
            raise LabError(
                "not_divisible",
                f"d_model {self.d_model} does not split into {self.n_heads} equal heads; "
                f"choose n_heads among {', '.join(map(str, options))}.",
                d_model=self.d_model,
                n_heads=self.n_heads,
                options=options,
            )
        if not 0 <= self.seed <= MAX_SEED:
            raise LabError(
                "seed_range",
                f"seed must be between 0 and {MAX_SEED}, got {self.seed}.",
                value=self.seed,
                max=MAX_SEED,
            )
        if self.embeddings not in EMBEDDINGS:
            raise LabError(
                "embeddings_name",
                f"embeddings must be 'seeded' or 'handmade', got {self.embeddings!r}.",
                value=self.embeddings,
            )
        if self.embeddings == "handmade" and self.d_model != HANDMADE_D_MODEL:
            raise LabError(
                "handmade_d_model",
                f"the hand-made embeddings have {HANDMADE_D_MODEL} features, so they need "
                f"d_model {HANDMADE_D_MODEL}, got {self.d_model}.",
                value=self.d_model,
            )

    @property
    def d_head(self) -> int:
        """Features per head: d_model / n_heads."""
        return self.d_model // self.n_heads
