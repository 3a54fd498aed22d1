"""llm: the math of one attention sublayer, in two implementations that agree to 1e-12.

- ``llm.attention`` — chapter 8's readable list-of-lists attention (dot, softmax, matmul, ...).
- ``llm.nn``        — chapter 9's readable helpers (add, layer_norm, combine_heads, entropy, ...).
- ``llm.engine``    — the vectorized numpy engine the app runs, with a trace of every step.
- ``llm.config``    — ``AttentionConfig`` and its checks.
- ``llm.data``      — tokens, embeddings and seeded weights.
- ``llm.compare``   — runs both implementations and reports their largest differences.

Imports only the standard library and numpy.
"""

from llm.config import (
    EMBEDDINGS,
    HANDMADE_D_MODEL,
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_SEED,
    AttentionConfig,
    LabError,
    divisors,
)
from llm.data import (
    HANDMADE_FEATURES,
    HANDMADE_TABLE,
    MAX_CHARS,
    MAX_TOKENS,
    QK_GAIN,
    Params,
    embed,
    init_params,
    token_labels,
    token_vector,
    tokenize,
    unknown_handmade,
)
from llm.engine import (
    HeadTrace,
    Trace,
    add,
    asymmetry,
    attention_head,
    causal_mask,
    classify_head,
    column_sums,
    head_entropy,
    head_sharpness,
    layer_norm,
    max_abs_diff,
    max_head_entropy,
    max_row_entropy,
    most_asymmetric_pair,
    multi_head_attention,
    residual_layer_norm,
    row_entropy,
    row_stats,
    row_sums,
    softmax,
    value_contributions,
)

__all__ = [
    "EMBEDDINGS",
    "HANDMADE_D_MODEL",
    "HANDMADE_FEATURES",
    "HANDMADE_TABLE",
    "MAX_CHARS",
    "MAX_D_MODEL",
    "MAX_HEADS",
    "MAX_SEED",
    "MAX_TOKENS",
    "QK_GAIN",
    "AttentionConfig",
    "HeadTrace",
    "LabError",
    "Params",
    "Trace",
    "add",
    "asymmetry",
    "attention_head",
    "causal_mask",
    "classify_head",
    "column_sums",
    "divisors",
    "embed",
    "head_entropy",
    "head_sharpness",
    "init_params",
    "layer_norm",
    "max_abs_diff",
    "max_head_entropy",
    "max_row_entropy",
    "most_asymmetric_pair",
    "multi_head_attention",
    "residual_layer_norm",
    "row_entropy",
    "row_stats",
    "row_sums",
    "softmax",
    "token_labels",
    "token_vector",
    "tokenize",
    "unknown_handmade",
    "value_contributions",
]
