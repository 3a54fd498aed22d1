"""The tiny trained transformer: two attention-only layers of the lab's own sublayer, and its run.

    x_0     = W_E[ids] + W_P[:T]             token + learned position embeddings
    x_{l+1} = x_l + attn_l(LN(x_l))         pre-LN residual block around the engine's sublayer
    logits  = LN(x_L) @ W_U                 next-token logits at every position

LN has no gain or bias (chapter 9's LayerNorm, eps 1e-5); attention is causal and scaled by
sqrt(d_head). There is no MLP: what the model does, its heads do (Elhage et al. 2021). Each layer
runs ``llm.multi_head_attention`` on ``llm.Params``, so every layer yields the same ``Trace`` the
lesson pages draw.

Shapes: W_E [V, d_model], W_P [max_len, d_model], W_U [d_model, V]; each layer's Params as in
``llm.data`` (W_Q, W_K, W_V [n_heads, d_model, d_head], W_O [d_model, d_model]).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from llm.config import LN_EPS, LabError
from llm.data import Params, tokenize
from llm.engine import Trace, layer_norm, multi_head_attention


@dataclass(frozen=True)
class ModelSpec:
    """The tiny model's shapes and seed (one comment per default, chosen by measurement)."""

    n_vocab: int  # words in the vocabulary
    d_model: int = 32  # features per token
    n_heads: int = 4  # heads per layer, d_head = d_model / n_heads
    n_layers: int = 2  # the fewest that can compose a previous-token head and an induction head
    max_len: int = 32  # the longest sequence the position embeddings cover
    seed: int = 0  # draws the initial weights

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


@dataclass(frozen=True)
class ModelParams:
    """Every learned matrix. Shapes: W_E [V, d], W_P [max_len, d], layers[l] Params, W_U [d, V]."""

    W_E: np.ndarray
    W_P: np.ndarray
    layers: tuple[Params, ...]
    W_U: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        """The matrices by name ('W_E', 'W_P', 'W_U', 'L0.W_Q', ...), the form training updates."""
        named = {"W_E": self.W_E, "W_P": self.W_P, "W_U": self.W_U}
        for index, layer in enumerate(self.layers):
            for name in ("W_Q", "W_K", "W_V", "W_O"):
                named[f"L{index}.{name}"] = getattr(layer, name)
        return named

    @staticmethod
    def from_arrays(named: dict[str, np.ndarray]) -> ModelParams:
        """The inverse of ``arrays``; every array becomes float64."""
        n_layers = sum(1 for name in named if name.endswith(".W_Q"))
        layers = tuple(
            Params(**{w: np.asarray(named[f"L{i}.{w}"], dtype=np.float64) for w in _LAYER_W})
            for i in range(n_layers)
        )
        return ModelParams(
            W_E=np.asarray(named["W_E"], dtype=np.float64),
            W_P=np.asarray(named["W_P"], dtype=np.float64),
            layers=layers,
            W_U=np.asarray(named["W_U"], dtype=np.float64),
        )


_LAYER_W = ("W_Q", "W_K", "W_V", "W_O")


@dataclass(frozen=True)
class TrainingHistory:
    """What training recorded. Shapes: loss [N] at loss_steps [N]; scores [S, n_layers, n_heads]."""

    loss_steps: np.ndarray
    loss: np.ndarray  # training cross-entropy (nats) of the batch at that step
    score_steps: np.ndarray  # the steps at which every head was measured
    previous: np.ndarray  # previous-token score of every head at each score step
    induction: np.ndarray  # induction score of every head at each score step
    first: np.ndarray  # first-token score of every head at each score step
    behaviour: dict[str, float] = field(default_factory=dict)  # the final measurements


@dataclass(frozen=True)
class TinyModel:
    """The vocabulary, the weights at one checkpoint, and the list of checkpoints shipped."""

    vocab: tuple[str, ...]
    spec: ModelSpec
    params: ModelParams
    step: int  # the training step of these weights (0 = initialization)
    steps: tuple[int, ...] = ()  # every checkpoint the file holds
    history: TrainingHistory | None = None

    @property
    def n_layers(self) -> int:
        return self.spec.n_layers

    @property
    def n_heads(self) -> int:
        return self.spec.n_heads

    @property
    def d_model(self) -> int:
        return self.spec.d_model

    @property
    def max_len(self) -> int:
        return self.spec.max_len

    def encode(self, text: str | list[str]) -> list[int]:
        """The ids of the sentence's words in ``vocab``, no BOS added.

        A text goes through ``llm.tokenize`` (lower case, words and punctuation marks); a list is
        taken as words. An unknown word, an empty sentence or one longer than max_len -> LabError.
        Example: model.encode("the cat") == [0, 1]
        """
        words = tokenize(text) if isinstance(text, str) else list(text)
        if not words:
            raise LabError("text_empty", "The sentence is empty: type at least one word.")
        unknown = sorted({w for w in words if w not in self.vocab})
        if unknown:
            raise LabError(
                "unknown_words",
                f"The model does not know {', '.join(map(repr, unknown))}; "
                f"its words are: {' '.join(self.vocab)}",
                words=unknown,
                vocab=self.vocab,
            )
        if len(words) > self.max_len:
            raise LabError(
                "too_long_for_model",
                f"The sentence has {len(words)} words; the model reads at most {self.max_len}.",
                count=len(words),
                max=self.max_len,
            )
        index = {word: i for i, word in enumerate(self.vocab)}
        return [index[w] for w in words]


@dataclass(frozen=True)
class ModelRun:
    """One run of the model. Shapes: resid [n_layers + 1, T, d_model]; logits [T, V]."""

    ids: tuple[int, ...]
    resid: np.ndarray  # resid[l] = the input x_l of layer l; resid[-1] = the last layer's output
    layers: tuple[Trace, ...]  # one Trace per layer, on LN(x_l)
    logits: np.ndarray  # logits[i] scores the word after position i


def init_model(spec: ModelSpec) -> ModelParams:
    """Seeded initial weights: embeddings N(0, 1), every other matrix N(0, 1/d_model).

    LayerNorm hands each layer unit-variance rows, so the scaled scores start with a standard
    deviation near 1: every pattern is only mildly uneven, and at step 0 no head prefers the
    previous token (measured: every head's previous-token and induction scores below 0.15).
    Shapes: -> ModelParams of ``spec``'s sizes.
    """
    rng = np.random.default_rng(spec.seed)
    d, h, dh = spec.d_model, spec.n_heads, spec.d_head
    scale = 1.0 / np.sqrt(d)
    w_e = rng.standard_normal((spec.n_vocab, d))
    w_p = rng.standard_normal((spec.max_len, d))
    layers = tuple(
        Params(
            W_Q=rng.standard_normal((h, d, dh)) * scale,
            W_K=rng.standard_normal((h, d, dh)) * scale,
            W_V=rng.standard_normal((h, d, dh)) * scale,
            W_O=rng.standard_normal((d, d)) * scale,
        )
        for _ in range(spec.n_layers)
    )
    w_u = rng.standard_normal((d, spec.n_vocab)) * scale
    return ModelParams(W_E=w_e, W_P=w_p, layers=layers, W_U=w_u)


def run_model(model: TinyModel, ids: list[int] | tuple[int, ...] | np.ndarray) -> ModelRun:
    """Run the model on one sequence of ids, every layer through the engine's traced sublayer.

    Shapes: ids [T] (1 <= T <= max_len, each in [0, V)) -> ModelRun (logits [T, V]).
    """
    ids = tuple(int(i) for i in ids)
    if not 1 <= len(ids) <= model.max_len:
        raise LabError(
            "too_long_for_model",
            f"The model reads 1 to {model.max_len} words, got {len(ids)}.",
            count=len(ids),
            max=model.max_len,
        )
    if any(not 0 <= i < len(model.vocab) for i in ids):
        raise LabError("bad_id", f"Every id must be in 0..{len(model.vocab) - 1}.", ids=ids)
    p = model.params
    x = p.W_E[list(ids)] + p.W_P[: len(ids)]  # [T, d_model]
    resid, traces = [x], []
    for layer in p.layers:
        trace = multi_head_attention(layer_norm(x, LN_EPS), layer, causal=True)
        x = x + trace.attn_out  # [T, d_model] + [T, d_model]
        resid.append(x)
        traces.append(trace)
    logits = layer_norm(x, LN_EPS) @ p.W_U  # [T, d_model] @ [d_model, V] -> [T, V]
    return ModelRun(ids=ids, resid=np.stack(resid), layers=tuple(traces), logits=logits)


def next_token_probs(logits: np.ndarray) -> np.ndarray:
    """Softmax of each position's logits: the model's guess for the next word.

    Shapes: [T, V] -> [T, V], rows sum to 1.
    """
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exps = np.exp(shifted)
    return exps / exps.sum(axis=-1, keepdims=True)


def top_predictions(
    model: TinyModel, run: ModelRun, position: int, k: int = 5
) -> list[tuple[str, float]]:
    """The k likeliest next words after ``position``, with their probabilities, likeliest first."""
    probs = next_token_probs(run.logits[position])  # [V]
    order = np.argsort(-probs, kind="stable")[:k]
    return [(model.vocab[i], float(probs[i])) for i in order]
