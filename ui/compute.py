"""The one place the app calls the engine: a bounded cache keyed on scalars only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import llm


@dataclass(frozen=True)
class Lab:
    """What every page reads: the tokens, X, the weights and the traced sublayer."""

    cfg: llm.AttentionConfig
    tokens: list[str]
    labels: list[str]  # repeated tokens told apart: the, cat, the·2
    x: np.ndarray  # [T, d_model]
    params: llm.Params
    trace: llm.Trace


@st.cache_data(max_entries=128, show_spinner=False)
def compute_lab(
    text: str, d_model: int, n_heads: int, seed: int, causal: bool, embeddings: str
) -> Lab:
    """Tokenize, embed, draw the weights and run the sublayer once per distinct setting."""
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, embeddings=embeddings)
    tokens = llm.tokenize(text)
    x = llm.embed(tokens, cfg)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, causal=causal)
    return Lab(cfg, tokens, llm.token_labels(tokens), x, params, trace)
