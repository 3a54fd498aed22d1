"""Core: the vectorized engine against the readable list-of-lists code, and against PyTorch.

Three implementations of one causal attention sublayer on the same float64 inputs:

- engine    ``llm.multi_head_attention`` + ``llm.residual_layer_norm`` (numpy, keeps every step)
- readable  ``llm.nn.multi_head_attention`` + ``llm.nn.residual_layer_norm`` (plain lists)
- torch     when importable, on the CPU: projections by ``torch.matmul``,
            ``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)`` on
            q, k, v stacked ``[H, T, d_head]``, concat, W_O, residual, ``layer_norm``.

Two comparisons with PyTorch, each side doing the same work:

- *attention part*: from q, k, v ``[H, T, d_head]`` to z ``[H, T, d_head]``. The engine side runs
  the engine's own per-head steps (``scores``, ``scaled``, ``masked``, ``softmax``, ``z``: the
  lines of ``llm.attention_head`` after the projections); the torch side is one SDPA call.
- *whole sublayer*: x and the weights in, ``ln_out`` out, projections and W_O included.

The engine keeps every intermediate of the trace (``scores``, ``scaled``, ``masked``, ``pattern``)
because the app shows them; SDPA keeps none. That difference is part of what is measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

import llm
from bench.common import check, loadavg, summary
from llm import nn

T_VALUES = (5, 16, 32, 64)
D_MODELS = (8, 64, 512)
HEADS = (1, 4, 16)


def timeit(
    fn: Callable[[], object], budget_s: float, min_n: int, max_n: int, warmup: int = 1
) -> list[float]:
    """Run fn at least min_n and at most max_n times, stopping after budget_s; seconds per call."""
    for _ in range(warmup):
        fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < max_n and (len(times) < min_n or time.perf_counter() - start < budget_s):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


# The speed probe: the readable sublayer at T 16, d_model 64, 4 heads is plain Python, as most
# of a page rerun is (Streamlit's elements, the readable code). Its median on the machine where
# every target was first met, in the run whose table the README kept: a host whose probe takes
# twice as long halves every target's margin.
SPEED_REFERENCE_MS = 12.87


def speed_probe(runs: int = 15) -> float:
    """Median milliseconds of the readable sublayer at T 16, d_model 64, 4 heads on this machine."""
    x, p = _inputs(16, 64, 4)
    wq, wk, wv = ([w.tolist() for w in ws] for ws in (p.W_Q, p.W_K, p.W_V))
    xl, wo = x.tolist(), p.W_O.tolist()
    times = timeit(lambda: readable_sublayer(xl, wq, wk, wv, wo), 5.0, runs, runs, warmup=2)
    return float(np.median(times) * 1e3)


def _inputs(t: int, d_model: int, n_heads: int) -> tuple[np.ndarray, llm.Params]:
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=0)
    x = np.random.default_rng(1).standard_normal((t, d_model))  # [T, d_model]
    return x, llm.init_params(cfg)


def engine_sublayer(x: np.ndarray, params: llm.Params) -> np.ndarray:
    """The app's path: traced sublayer, then residual + LayerNorm. Shapes: [T, d] -> [T, d]."""
    trace = llm.multi_head_attention(x, params, causal=True)
    return llm.residual_layer_norm(x, trace.attn_out)[1]


def readable_sublayer(x: list, wq: list, wk: list, wv: list, wo: list) -> list:
    """Chapter 9's list-of-lists path. Shapes: [T × d] -> [T × d]."""
    _, _, attn_out = nn.multi_head_attention(x, wq, wk, wv, wo, causal=True)
    return nn.residual_layer_norm(x, attn_out)[1]


def engine_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray) -> list:
    """The engine's per-head steps after the projections (as in ``llm.attention_head``).

    Shapes: q, k, v [H, T, d_head], mask [T, T] -> H × z [T, d_head].
    """
    out = []
    for h in range(q.shape[0]):
        scores = q[h] @ k[h].T  # [T, d_head] @ [d_head, T] -> [T, T]
        scaled = scores / np.sqrt(q.shape[-1])
        masked = np.where(mask, scaled, -np.inf)
        pattern = llm.softmax(masked)
        out.append(pattern @ v[h])  # [T, T] @ [T, d_head] -> [T, d_head]
    return out


def _torch_parts(torch, x: np.ndarray, params: llm.Params):
    """Torch float64 tensors of x and the weights, and the two torch functions."""
    fn = torch.nn.functional
    tx = torch.from_numpy(x)
    w_q, w_k, w_v = (torch.from_numpy(w) for w in (params.W_Q, params.W_K, params.W_V))
    w_o = torch.from_numpy(params.W_O)

    def attention(q, k, v):
        return fn.scaled_dot_product_attention(q, k, v, is_causal=True)  # [H, T, d_head]

    def sublayer():
        # [T, d_model] @ [H, d_model, d_head] -> [H, T, d_head]
        q, k, v = (torch.matmul(tx, w) for w in (w_q, w_k, w_v))
        z = attention(q, k, v)
        concat = z.transpose(0, 1).reshape(tx.shape[0], -1)  # [H, T, dh] -> [T, H*dh]
        resid = tx + concat @ w_o
        return fn.layer_norm(resid, (resid.shape[-1],), eps=1e-5)

    return attention, sublayer


@contextmanager
def threads(n: int | None, torch) -> Iterator[dict]:
    """BLAS (through threadpoolctl, when installed) and PyTorch limited to n threads; None keeps
    the libraries' defaults. Yields what was set."""
    saved = torch.get_num_threads() if torch is not None else None
    limiter = None
    info: dict = {"requested": n}
    if n is not None:
        try:
            from threadpoolctl import threadpool_limits

            limiter = threadpool_limits(limits=n)
            info["blas"] = n
        except ImportError:
            info["blas"] = "default (threadpoolctl not installed)"
        if torch is not None:
            torch.set_num_threads(n)
    if torch is not None:
        info["torch"] = torch.get_num_threads()
    try:
        yield info
    finally:
        if limiter is not None:
            limiter.restore_original_limits()
        if torch is not None:
            torch.set_num_threads(saved)


def run(quick: bool = False, with_torch: bool = True) -> dict:
    """Every (T, d_model, heads) case with one thread on each side, then the largest cases with
    the libraries' default threads: medians, ratios and cross-checks.

    One thread is the like-for-like comparison and the steadier one on a shared machine (a
    multi-threaded BLAS or PyTorch whose threads wait for a busy core can run 100× slower); it
    is also how a server of many small reruns is best run.
    """
    torch = None
    if with_torch:
        try:
            import torch  # noqa: F811 — optional: the project does not require it
        except ImportError:
            torch = None
    t_values = (5, 64) if quick else T_VALUES
    budget = 0.15 if quick else 0.5
    grid = [
        (t, d_model, n_heads)
        for t in t_values
        for d_model in D_MODELS
        for n_heads in HEADS
        if d_model % n_heads == 0
    ]
    with threads(1, torch) as one:
        cases = [_case(t, d, h, budget, quick, torch) for t, d, h in grid]
    with threads(None, torch) as default:
        cases_default = [
            _case(t, d, h, budget, quick, torch, readable=False)
            for t, d, h in grid
            if t == 64 and d == 512
        ]
    result: dict = {
        "cases": cases,
        "cases_default_threads": cases_default,
        "threads": {"one": one, "default": default},
        "loadavg_end": loadavg(),
    }
    result["torch"] = {"version": torch.__version__} if torch is not None else None
    result["checks"] = _checks(cases, cases_default)
    return result


def interleaved(
    fns: dict[str, Callable[[], object]], budget_s: float, min_n: int, max_n: int
) -> dict[str, list[float]]:
    """Time several functions in alternation, one call each per round, so that a burst of load
    on a shared machine hits all of them alike; seconds per call for each name."""
    for fn in fns.values():
        fn()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in fns}
    start = time.perf_counter()
    rounds = 0
    while rounds < max_n and (rounds < min_n or time.perf_counter() - start < budget_s):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
        rounds += 1
    return times


def _case(
    t: int, d_model: int, n_heads: int, budget: float, quick: bool, torch, readable: bool = True
) -> dict:
    x, params = _inputs(t, d_model, n_heads)
    case: dict = {"T": t, "d_model": d_model, "n_heads": n_heads, "loadavg": loadavg()}
    trace = llm.multi_head_attention(x, params, causal=True)
    q = np.stack([h.q for h in trace.heads])  # H × [T, d_head] -> [H, T, d_head]
    k = np.stack([h.k for h in trace.heads])
    v = np.stack([h.v for h in trace.heads])
    fns: dict[str, Callable[[], object]] = {
        "engine": lambda: engine_sublayer(x, params),
        "engine_attention": lambda: engine_attention(q, k, v, trace.mask),
    }
    if torch is not None:
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
        attention, sublayer = _torch_parts(torch, x, params)
        fns["torch_attention"] = lambda: attention(tq, tk, tv)
        fns["torch_sublayer"] = sublayer
        with torch.inference_mode():
            times = interleaved(fns, budget, 5, 500)
            z_torch = attention(tq, tk, tv).numpy()
            ln_torch = sublayer().numpy()
    else:
        times = interleaved(fns, budget, 5, 500)
    for name, values in times.items():
        case[f"{name}_ms"] = summary([s * 1e3 for s in values])

    ln_engine = engine_sublayer(x, params)
    if readable:
        _readable(case, x, params, budget, quick, ln_engine)
    if torch is not None:
        case["engine_over_torch_attention"] = (
            case["engine_attention_ms"]["median"] / case["torch_attention_ms"]["median"]
        )
        case["engine_over_torch_sublayer"] = (
            case["engine_ms"]["median"] / case["torch_sublayer_ms"]["median"]
        )
        z_engine = np.stack([h.z for h in trace.heads])
        case["max_abs_diff_z_torch"] = float(np.max(np.abs(z_engine - z_torch)))
        case["max_abs_diff_ln_torch"] = float(np.max(np.abs(ln_engine - ln_torch)))
    return case


def _readable(case: dict, x, params, budget: float, quick: bool, ln_engine) -> None:
    """The readable code, on lists made outside the timed call; slow at large shapes: few runs."""
    t, d_model = x.shape
    xl = x.tolist()
    wq, wk, wv = ([w.tolist() for w in ws] for ws in (params.W_Q, params.W_K, params.W_V))
    wo = params.W_O.tolist()
    big = t * d_model * d_model >= (32 * 512 * 512 if not quick else 16 * 64 * 64)
    t0 = time.perf_counter()
    ln_readable = np.array(readable_sublayer(xl, wq, wk, wv, wo))  # also the cross-check
    times = [time.perf_counter() - t0]
    if not big:  # seconds a call at the largest shapes: one run is enough there
        times += timeit(lambda: readable_sublayer(xl, wq, wk, wv, wo), budget * 2, 2, 49, 0)
    case["readable_ms"] = summary([s * 1e3 for s in times])
    case["readable_over_engine"] = case["readable_ms"]["median"] / case["engine_ms"]["median"]
    case["max_abs_diff_readable"] = float(np.max(np.abs(ln_engine - ln_readable)))


def _checks(cases: list[dict], cases_default: list[dict] = ()) -> list[dict]:
    checks = []
    for label, rows in (("1 thread each", cases), ("default threads", cases_default)):
        for c in rows:
            if c["T"] == 64 and c["d_model"] == 512 and "engine_over_torch_attention" in c:
                checks.append(
                    check(
                        f"engine / torch SDPA, attention part, T 64, d_model 512, "
                        f"{c['n_heads']} head{'s' if c['n_heads'] > 1 else ''}, {label}",
                        c["engine_over_torch_attention"],
                        2.0,
                        "×",
                    )
                )
    worst = max(
        (c["max_abs_diff_z_torch"] for c in cases if "max_abs_diff_z_torch" in c), default=None
    )
    if worst is not None:
        checks.append(check("max |z_engine - z_torch| over all cases", worst, 1e-12, ""))
    worst_r = max(c["max_abs_diff_readable"] for c in cases)
    checks.append(check("max |ln_out engine - readable| over all cases", worst_r, 1e-12, ""))
    return checks
