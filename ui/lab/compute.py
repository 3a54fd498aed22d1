"""The one place the app calls the engine: a bounded cache keyed on a ``Setting`` of scalars.

The cached lab is one shared object, not a copy per rerun (``shared``, in a store bounded by
bytes, ``ui.lab.shared_cache``; not ``st.cache_data``, which would unpickle a fresh copy on every
hit, a cost paid on every rerun of a busy server: docs/performance.md). Its arrays are made
read-only, so no page can change what another session reads: a write raises instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import streamlit as st

import llm
from llm import engine, readable
from llm.compare import head_differences, layer_norm_differences, max_differences, outputs, run
from llm.scaling import Scaling, scaling_sweep
from ui.draw.style import FittedLook, Look
from ui.lab.shared_cache import cached


@dataclass(frozen=True)
class Lab:
    """What every page reads: the tokens, X, the weights and the traced sublayer."""

    cfg: llm.AttentionConfig
    tokens: list[str]
    labels: list[str]  # repeated tokens told apart: the, cat, the·2
    x: np.ndarray  # [T, d_model]
    params: llm.Params
    trace: llm.Trace


@dataclass(frozen=True)
class Setting:
    """What a lab is computed from, the key of every cache below: the sentence, the sizes, the
    seed, the mask and the embeddings (scalars only, so a cache key stays a few bytes)."""

    text: str
    d_model: int
    n_heads: int
    seed: int
    causal: bool
    embeddings: str = "seeded"


T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

# a cache key's dataclasses by their repr (every field, in order): Streamlit's own hash walks
# their fields through pickle: 0.27 ms a look-up with a Setting and a Look, 0.08 ms by repr
# (``copied``), a few microseconds in the shared store (``shared``)
KEYS: dict[type, Callable[[Any], Any]] = {Setting: repr, Look: repr, FittedLook: repr}


def shared(max_entries: int) -> Callable[[F], F]:
    """One object for every session, which none changes (a lab, a kept figure): at most
    ``max_entries`` of a function's, and what all of them weigh bounded
    (``ui.lab.shared_cache``), keyed as KEYS says."""
    return cached(max_entries, KEYS)


def copied(max_entries: int) -> Callable[[F], F]:
    """``st.cache_data`` for small results each rerun gets a copy of, keyed as KEYS says."""
    return st.cache_data(max_entries=max_entries, show_spinner=False, hash_funcs=KEYS)


def frozen(value: T) -> T:
    """``value`` with every numpy array in it (through dataclasses, tuples and dicts) made
    read-only, in place; returns it. Lists are not searched: here they hold words and the
    readable run's plain numbers (tens of thousands at the largest setting), never arrays."""
    seen: Any = value
    if isinstance(seen, np.ndarray):
        seen.setflags(write=False)
    elif dataclasses.is_dataclass(seen) and not isinstance(seen, type):
        for field in dataclasses.fields(seen):
            frozen(getattr(seen, field.name))
    elif isinstance(seen, tuple):
        for item in seen:
            frozen(item)
    elif isinstance(seen, dict):
        for item in seen.values():
            frozen(item)
    return value


def compute_lab(setting: Setting, temperature: float = 1.0, scale: bool = True) -> Lab:
    """Tokenize, embed, draw the weights and run the sublayer once per distinct setting
    (page 3's what-ifs, the temperature and the √d_k switch, included). Every argument reaches
    the cache in the same order and by name (Streamlit looks a positional argument's name up in
    the signature on every call), so a call that leaves the defaults out and one that spells
    them find the same lab."""
    return _lab(setting=setting, temperature=float(temperature), scale=bool(scale))


@shared(128)
def _lab(setting: Setting, temperature: float, scale: bool) -> Lab:
    cfg = llm.AttentionConfig(
        d_model=setting.d_model,
        n_heads=setting.n_heads,
        seed=setting.seed,
        embeddings=setting.embeddings,
    )
    tokens = llm.tokenize(setting.text)
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, setting.causal, temperature, scale)
    return frozen(Lab(cfg, tokens, llm.token_labels(tokens), x, params, trace))


# what /code prints of the readable run, beside the engine's numbers
READABLE_SHOWN = ("pattern", "ln_out")


@shared(32)
def compare_lab(setting: Setting, eps: float) -> tuple[dict, dict, dict[str, float]]:
    """/code's two runs of one setting and their largest differences, once per setting.

    The readable run is plain Python, the slowest step of the app at the largest setting
    (docs/performance.md), so a rerun that keeps the setting (another head, the language)
    reuses it. The engine's side is the lab's own trace, the one every other page shows, not a
    second run. Of the readable run only what the page prints is kept (``READABLE_SHOWN``: every
    head's pattern and ln_out, its own plain numbers); the whole run is about 2 MB of lists at
    the largest setting.
    Returns (readable run's shown quantities, engine run, max_differences) of ``llm.compare``.
    """
    lab = compute_lab(setting)
    readable_out = run(readable, lab.x, lab.params, setting.causal, eps)
    engine_out = outputs(engine, lab.x, lab.trace, eps)
    differences = max_differences(readable_out, engine_out)
    shown = {name: readable_out[name] for name in READABLE_SHOWN}
    return frozen((shown, engine_out, differences))


@copied(128)
def head_agreement(
    setting: Setting, head: int, temperature: float = 1.0, scale: bool = True
) -> dict[str, float]:
    """How far the readable code's run of one head is from the engine's numbers a page shows:
    the largest difference of q, k, v, scores, pattern and z (``llm.compare.head_differences``).
    One head of the readable code, not the whole sublayer: only what pages 3 and 4 show."""
    lab = compute_lab(setting, temperature, scale)
    return head_differences(lab.x, lab.params, lab.trace, head)


@copied(128)
def layer_norm_agreement(setting: Setting, eps: float) -> dict[str, float]:
    """How far the readable residual and LayerNorm are from the engine's on the lab's X and
    attn_out, at this eps: the largest difference of resid and ln_out."""
    lab = compute_lab(setting)
    return layer_norm_differences(lab.x, lab.trace.attn_out, eps)


@shared(32)
def scaling_lab(setting: Setting) -> Scaling:
    """Page 3's √d_k measurement on the lab's X and seed (``llm.scaling``), read-only."""
    lab = compute_lab(setting)
    return frozen(scaling_sweep(lab.x, setting.seed, setting.causal))
