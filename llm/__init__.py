"""llm: the math of one attention sublayer, in two implementations that agree to 1e-12.

- ``llm.attention`` — chapter 8's readable list-of-lists attention (dot, softmax, matmul, ...).
- ``llm.nn``        — chapter 9's readable helpers (add, layer_norm, combine_heads, entropy, ...).
- ``llm.engine``    — the vectorized numpy engine the app runs, with a trace of every step.
- ``llm.readable``  — the readable code behind the engine's interface: same calls, a trace of lists.
- ``llm.analysis``  — what the pages read off a trace: entropy ceilings, sharpness, asymmetry.
- ``llm.backward``  — the gradients of attention and LayerNorm, by the chain rule.
- ``llm.depth``     — the sublayer stacked 1 to 24 times in four ways, measured at init.
- ``llm.model``     — the tiny two-layer model the lab trains (``python -m llm.train``), its run.
- ``llm.config``    — ``AttentionConfig`` and its checks.
- ``llm.data``      — tokens, embeddings and seeded weights.
- ``llm.compare``   — runs both implementations and reports their largest differences.

Imports only the standard library and numpy.
"""

from llm.analysis import (
    asymmetry,
    classify_head,
    column_sums,
    head_sharpness,
    max_head_entropy,
    max_row_entropy,
    most_asymmetric_pair,
    row_sums,
    value_contributions,
)
from llm.backward import (
    AttentionGrads,
    attention_backward,
    layer_norm_backward,
    softmax_backward,
)
from llm.checkpoints import load_model
from llm.config import (
    EMBEDDINGS,
    HANDMADE_D_MODEL,
    LN_EPS,
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_SEED,
    MAX_TEMPERATURE,
    MIN_TEMPERATURE,
    AttentionConfig,
    LabError,
    check_temperature,
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
from llm.depth import (
    MAX_LAYERS,
    VARIANTS,
    DepthStack,
    depth_stack,
    depth_stacks,
    mean_cosine,
    rank_one_distance,
)
from llm.engine import (
    HeadTrace,
    Trace,
    add,
    attention_head,
    causal_mask,
    head_entropy,
    layer_norm,
    max_abs_diff,
    multi_head_attention,
    residual_layer_norm,
    row_entropy,
    row_stats,
    score_divisor,
    softmax,
)
from llm.head_scores import first_token_score, head_role, induction_score, previous_token_score
from llm.model import ModelRun, TinyModel, run_model, top_predictions

__all__ = [
    "EMBEDDINGS",
    "HANDMADE_D_MODEL",
    "HANDMADE_FEATURES",
    "HANDMADE_TABLE",
    "LN_EPS",
    "MAX_CHARS",
    "MAX_D_MODEL",
    "MAX_HEADS",
    "MAX_LAYERS",
    "MAX_SEED",
    "MAX_TEMPERATURE",
    "MAX_TOKENS",
    "MIN_TEMPERATURE",
    "QK_GAIN",
    "VARIANTS",
    "AttentionConfig",
    "AttentionGrads",
    "ModelRun",
    "TinyModel",
    "DepthStack",
    "HeadTrace",
    "LabError",
    "Params",
    "Trace",
    "add",
    "asymmetry",
    "attention_backward",
    "attention_head",
    "causal_mask",
    "check_temperature",
    "classify_head",
    "column_sums",
    "depth_stack",
    "depth_stacks",
    "divisors",
    "embed",
    "first_token_score",
    "head_role",
    "induction_score",
    "load_model",
    "previous_token_score",
    "run_model",
    "top_predictions",
    "head_entropy",
    "head_sharpness",
    "init_params",
    "layer_norm",
    "layer_norm_backward",
    "max_abs_diff",
    "max_head_entropy",
    "max_row_entropy",
    "mean_cosine",
    "most_asymmetric_pair",
    "multi_head_attention",
    "rank_one_distance",
    "residual_layer_norm",
    "row_entropy",
    "row_stats",
    "row_sums",
    "score_divisor",
    "softmax",
    "softmax_backward",
    "token_labels",
    "token_vector",
    "tokenize",
    "unknown_handmade",
    "value_contributions",
]
