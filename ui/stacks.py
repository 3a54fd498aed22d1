"""The depth page's call into llm: the four wirings of one setting, cached on scalars only.

Defined in a module, not in the page script, so the cache's wrapper is built once per process
instead of on every rerun. Like ``ui.compute``'s lab, the stacks are one shared, read-only object.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import llm
from ui.compute import frozen


@st.cache_resource(max_entries=32, show_spinner=False)
def compute_stacks(
    text: str, d_model: int, n_heads: int, seed: int, embeddings: str, n_layers: int
) -> dict[str, llm.DepthStack]:
    """The four variants of one setting, computed once and shared read-only between sessions.

    Kept without the layers' weights, which the page never shows: at 24 layers of d_model 64
    they are 3.1 MB a setting, the rest 1.6 MB.
    """
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, embeddings=embeddings)
    runs = llm.depth_stacks(cfg, llm.tokenize(text), n_layers, llm.VARIANTS)
    return frozen({v: dataclasses.replace(run, params=()) for v, run in runs.items()})
