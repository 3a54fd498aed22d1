"""The tiny model's gradient on one sequence, through the lab's own backward passes.

The chain rule, from the loss down to the embeddings, one sequence at a time:

    d logits = (softmax(logits) - onehot(next id)) / (T - 1)      the last position predicts nothing
    d W_U    = LN(x_L)ᵀ @ d logits;      d x_L = layer_norm_backward(x_L, d logits @ W_Uᵀ)
    layer l  g = attention_backward(LN(x_l), Params_l, trace_l, d x_{l+1})
             d x_l = d x_{l+1} + layer_norm_backward(x_l, g.x)        (the residual passes it on)
    d W_E[w] = sum of d x_0 where the word is w;   d W_P[:T] = d x_0

``llm.batch`` computes the same gradient for a whole batch at once (training uses it, for speed);
the tests hold the two equal, and this one against central finite differences.
Shapes: ids [T]; the gradients by name as ``ModelParams.arrays()`` names the matrices.
"""

from __future__ import annotations

import numpy as np

from llm.backward import attention_backward, layer_norm_backward
from llm.config import LN_EPS
from llm.engine import layer_norm
from llm.model import ModelRun, TinyModel, next_token_probs, run_model


def sequence_loss(run: ModelRun) -> float:
    """Mean next-token cross-entropy (nats) over positions 0 .. T-2. Shapes: run -> scalar."""
    probs = next_token_probs(run.logits[:-1])  # [T-1, V]
    return float(-np.log(probs[np.arange(len(run.ids) - 1), list(run.ids[1:])]).mean())


def sequence_grad(model: TinyModel, ids: list[int]) -> tuple[float, dict[str, np.ndarray]]:
    """The loss of one sequence and the gradient of every matrix of the model.

    Shapes: ids [T] (T >= 2) -> (scalar, {name: array of that matrix's shape}).
    """
    run = run_model(model, ids)
    p, t = model.params, len(ids)
    d_logits = next_token_probs(run.logits)  # [T, V]
    d_logits[np.arange(t - 1), list(ids[1:])] -= 1.0
    d_logits[-1] = 0.0
    d_logits /= t - 1
    grads = {"W_U": layer_norm(run.resid[-1], LN_EPS).T @ d_logits}  # [d, T] @ [T, V]
    dx = layer_norm_backward(run.resid[-1], d_logits @ p.W_U.T, LN_EPS)  # [T, d_model]
    for layer in reversed(range(model.n_layers)):
        x = run.resid[layer]
        g = attention_backward(layer_norm(x, LN_EPS), p.layers[layer], run.layers[layer], dx)
        for name in ("W_Q", "W_K", "W_V", "W_O"):
            grads[f"L{layer}.{name}"] = getattr(g, name)
        dx = dx + layer_norm_backward(x, g.x, LN_EPS)
    grads["W_P"] = np.zeros_like(p.W_P)
    grads["W_P"][:t] = dx
    grads["W_E"] = np.zeros_like(p.W_E)
    np.add.at(grads["W_E"], list(ids), dx)
    return sequence_loss(run), grads
