"""Hypothesis strategies the property tests share: a random lab setting, its tokens and its mask."""

from __future__ import annotations

from hypothesis import strategies as st

import llm

VOCAB = ["the", "cat", "sat", "on", "mat", ".", "a", "dog", "ran", "it"]


@st.composite
def lab_runs(
    draw: st.DrawFn, max_d_model: int = 32, max_tokens: int = 12, vocab: int = len(VOCAB)
) -> tuple[llm.AttentionConfig, list[str], bool]:
    """(config, tokens, causal): d_model 1 … ``max_d_model`` with any head count dividing it, any
    seed, 1 … ``max_tokens`` words of the first ``vocab`` of VOCAB, the mask on or off."""
    d_model = draw(st.integers(1, max_d_model))
    n_heads = draw(st.sampled_from(llm.divisors(d_model)))
    seed = draw(st.integers(0, llm.MAX_SEED))
    tokens = draw(st.lists(st.sampled_from(VOCAB[:vocab]), min_size=1, max_size=max_tokens))
    return llm.AttentionConfig(d_model, n_heads, seed), tokens, draw(st.booleans())
