"""The tiny model's loss and its gradient on a batch of sequences at once, for training.

The same forward pass as ``llm.model.run_model`` (tested equal to it, head by head), written over a
batch axis B so that one numpy call serves every sequence, and its backward pass by the chain rule:

    loss      = mean over b, i < T-1 of  -ln softmax(logits[b, i])[ids[b, i + 1]]
    d logits  = (softmax(logits) - onehot(next id)) / N                    N = B (T - 1)
    LN        n = (x - mean) / s,  s = sqrt(var + eps):   dx = (dn - mean(dn) - n mean(dn n)) / s
    softmax   d scaled = pattern * (d pattern - rowsum(d pattern * pattern))
    attention d q = d scores @ k,  d k = d scoresᵀ @ q,  d v = patternᵀ @ d z     (per head)
    embedding d W_E[w] = sum of d x_0 where the word is w;   d W_P[i] = sum over b of d x_0[b, i]

Shapes: ids [B, T]; the parameters by name as ``ModelParams.arrays()`` gives them.
"""

from __future__ import annotations

import numpy as np

from llm.config import LN_EPS


def _layer_norm(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows to mean 0, std 1, and each row's 1/s. Shapes: [..., d] -> [..., d], [..., 1]."""
    centred = x - x.mean(axis=-1, keepdims=True)
    inv = 1.0 / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + LN_EPS)
    return centred * inv, inv


def _layer_norm_back(n: np.ndarray, inv: np.ndarray, d_n: np.ndarray) -> np.ndarray:
    """The gradient through LayerNorm from its output n. Shapes: [..., d] -> [..., d]."""
    return inv * (
        d_n - d_n.mean(axis=-1, keepdims=True) - n * (d_n * n).mean(axis=-1, keepdims=True)
    )


def _side_by_side(w: np.ndarray) -> np.ndarray:
    """Every head's matrix side by side, head 0 first. Shapes: [H, d, d_head] -> [d, H d_head]."""
    return w.transpose(1, 0, 2).reshape(w.shape[1], -1)


def _split_heads(m: np.ndarray, n_heads: int) -> np.ndarray:
    """Shapes: [B, T, H d_head] -> [B, H, T, d_head]."""
    b, t, _ = m.shape
    return m.reshape(b, t, n_heads, -1).transpose(0, 2, 1, 3)


def _join_heads(m: np.ndarray) -> np.ndarray:
    """The heads' blocks side by side, as in the engine. Shapes: [B, H, T, e] -> [B, T, H e]."""
    b, _, t, _ = m.shape
    return m.transpose(0, 2, 1, 3).reshape(b, t, -1)


def forward(arrays: dict[str, np.ndarray], ids: np.ndarray) -> dict[str, object]:
    """Every intermediate of the batched forward pass, kept for the backward pass.

    Shapes: ids [B, T] -> cache with 'logits' [B, T, V] and, per layer l, 'pattern{l}' [B, H, T, T].
    """
    b, t = ids.shape
    n_layers = sum(1 for name in arrays if name.endswith(".W_Q"))
    x = arrays["W_E"][ids] + arrays["W_P"][:t]  # [B, T, d]
    mask = np.tril(np.ones((t, t), dtype=bool))
    cache: dict[str, object] = {"ids": ids, "n_layers": n_layers}
    for layer in range(n_layers):
        w_q, w_k, w_v, w_o = (arrays[f"L{layer}.{w}"] for w in ("W_Q", "W_K", "W_V", "W_O"))
        n, inv = _layer_norm(x)
        qkv = n @ np.concatenate([_side_by_side(w) for w in (w_q, w_k, w_v)], axis=1)
        q, k, v = (_split_heads(part, w_q.shape[0]) for part in np.split(qkv, 3, axis=-1))
        scaled = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])  # [B, H, T, T]
        scaled = np.where(mask, scaled, -np.inf)
        pattern = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
        pattern /= pattern.sum(axis=-1, keepdims=True)
        z = pattern @ v  # [B, H, T, T] @ [B, H, T, d_head] -> [B, H, T, d_head]
        concat = _join_heads(z)  # [B, H, T, d_head] -> [B, T, H * d_head]
        cache.update({f"x{layer}": x, f"n{layer}": n, f"inv{layer}": inv, f"q{layer}": q})
        cache.update({f"k{layer}": k, f"v{layer}": v, f"pattern{layer}": pattern})
        cache[f"concat{layer}"] = concat
        x = x + concat @ w_o  # [B, T, d] @ [d, d] -> [B, T, d]
    n, inv = _layer_norm(x)
    cache.update({"nf": n, "invf": inv, "logits": n @ arrays["W_U"]})  # [B, T, V]
    return cache


def loss_and_grad(
    arrays: dict[str, np.ndarray], ids: np.ndarray
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean next-token cross-entropy of the batch and its gradient for every matrix.

    Shapes: ids [B, T] (T >= 2) -> (scalar, {name: array of that matrix's shape}).
    """
    cache = forward(arrays, ids)
    logits = cache["logits"][:, :-1]  # [B, T-1, V]: position i predicts id i + 1
    target = ids[:, 1:]  # [B, T-1]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_probs, target[..., None], axis=-1)  # [B, T-1, 1]
    count = target.size
    loss = float(-picked.sum() / count)

    d_logits = np.exp(log_probs)  # softmax, minus 1 at the target
    rows, cols = np.indices(target.shape)
    d_logits[rows, cols, target] -= 1.0
    d_logits /= count
    d_logits = np.concatenate([d_logits, np.zeros_like(cache["logits"][:, :1])], axis=1)
    return loss, backward(arrays, cache, d_logits)


def backward(
    arrays: dict[str, np.ndarray], cache: dict[str, object], d_logits: np.ndarray
) -> dict[str, np.ndarray]:
    """The gradient of every matrix, given the gradient of the logits.

    Shapes: d_logits [B, T, V] -> {name: array of that matrix's shape}.
    """
    ids = cache["ids"]
    b, t = ids.shape
    grads: dict[str, np.ndarray] = {}
    grads["W_U"] = cache["nf"].reshape(b * t, -1).T @ d_logits.reshape(b * t, -1)  # [d, V]
    dx = _layer_norm_back(cache["nf"], cache["invf"], d_logits @ arrays["W_U"].T)  # [B, T, d]
    for layer in reversed(range(cache["n_layers"])):
        w_q, w_k, w_v, w_o = (arrays[f"L{layer}.{w}"] for w in ("W_Q", "W_K", "W_V", "W_O"))
        n, q, k, v = (cache[f"{name}{layer}"] for name in ("n", "q", "k", "v"))
        pattern = cache[f"pattern{layer}"]
        concat = cache[f"concat{layer}"].reshape(b * t, -1)
        grads[f"L{layer}.W_O"] = concat.T @ dx.reshape(b * t, -1)  # [d, B T] @ [B T, d]
        d_concat = dx @ w_o.T  # [B, T, d]
        d_z = _split_heads(d_concat, w_q.shape[0])  # [B, T, d] -> [B, H, T, d_head]
        d_pattern = d_z @ v.transpose(0, 1, 3, 2)  # [B, H, T, T]
        d_v = pattern.transpose(0, 1, 3, 2) @ d_z  # [B, H, T, d_head]
        d_scaled = pattern * (d_pattern - (d_pattern * pattern).sum(axis=-1, keepdims=True))
        d_scores = d_scaled / np.sqrt(q.shape[-1])  # masked entries: pattern 0 -> gradient 0
        d_q = d_scores @ k  # [B, H, T, d_head]
        d_k = d_scores.transpose(0, 1, 3, 2) @ q
        d_qkv = np.concatenate([_join_heads(g) for g in (d_q, d_k, d_v)], axis=-1)  # [B, T, 3d]
        flat_n = n.reshape(b * t, -1)
        parts = np.split(d_qkv, 3, axis=-1)
        for name, part, w in zip(("W_Q", "W_K", "W_V"), parts, (w_q, w_k, w_v)):
            # [d, B T] @ [B T, H d_head] -> [d, H d_head] -> [H, d, d_head]
            side = flat_n.T @ part.reshape(b * t, -1)
            grads[f"L{layer}.{name}"] = side.reshape(w.shape[1], w.shape[0], -1).transpose(1, 0, 2)
        d_n = d_qkv @ np.concatenate([_side_by_side(w) for w in (w_q, w_k, w_v)], axis=1).T
        dx = dx + _layer_norm_back(n, cache[f"inv{layer}"], d_n)
    grads["W_P"] = np.zeros_like(arrays["W_P"])
    grads["W_P"][:t] = dx.sum(axis=0)
    grads["W_E"] = np.zeros_like(arrays["W_E"])
    np.add.at(grads["W_E"], ids.reshape(-1), dx.reshape(b * t, -1))
    return grads
