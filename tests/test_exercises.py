"""The exercise cells: our solutions pass, the usual wrong answers fail with the right verdict."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import exercises as ex
import llm
import sandbox
from tests.learner_code import LEARNER_MATMUL


def current(
    d_model=8, n_heads=4, seed=0, text="the cat sat on mat", causal=True, head=0, layers=1, **kw
):
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, **kw)
    x = llm.embed(llm.tokenize(text), cfg)
    params = llm.init_params(cfg)
    trace = llm.multi_head_attention(x, params, causal=causal)
    run = SimpleNamespace(cfg=cfg, x=x, params=params, trace=trace)
    return ex.Current(run=run, head=head, causal=causal, layers=layers)


def check(cell_id: str, source: str, cur: ex.Current | None = None) -> ex.Verdict:
    return ex.check(cell_id, source, cur or current(), isolate=False)


SETTINGS = {
    "chapter8": {"d_model": 4, "n_heads": 1, "embeddings": "handmade"},
    "chapter9": {},
    "no_mask_head3": {"causal": False, "head": 3},
    "one_token": {"text": "cat"},
    "largest_1_head": {"d_model": 64, "n_heads": 1, "text": " ".join(["w"] * 32), "seed": 7},
}


@pytest.mark.parametrize("cell_id", [cell.id for cell in ex.CELLS])
@pytest.mark.parametrize("setting", list(SETTINGS))
def test_our_solution_passes(cell_id: str, setting: str) -> None:
    verdict = check(cell_id, ex.BY_ID[cell_id].solution_source(), current(**SETTINGS[setting]))
    assert verdict.passed, verdict
    assert verdict.code == "pass"
    assert verdict.cases >= 3  # the current setting and at least two hidden cases


def test_cases_start_with_the_current_setting() -> None:
    cur = current(head=2)
    cases = ex.BY_ID["qkv"].cases(cur)
    # Q, then K and V with the same routine, on the head shown; then the hidden cases
    assert [case.hidden for case in cases] == [False] * 3 + [True] * 3
    head = cur.run.trace.heads[2]
    for case, w, out in zip(cases, ("W_Q", "W_K", "W_V"), (head.q, head.k, head.v)):
        np.testing.assert_array_equal(case.args[1], getattr(cur.run.params, w)[2])
        np.testing.assert_allclose(case.expected, out, rtol=0, atol=1e-15)
    assert [case.shapes for case in cases[:3]] == [
        "x [5 × 8], w [8 × 2]",
        "x [5 × 8], w [8 × 2] (w = W_K)",
        "x [5 × 8], w [8 × 2] (w = W_V)",
    ]
    # the hidden cases are random but the same on every check
    again = ex.BY_ID["qkv"].cases(cur)
    for a, b in zip(cases, again, strict=True):
        np.testing.assert_array_equal(a.expected, b.expected)


def test_hidden_layer_norm_case_has_a_constant_and_a_tiny_variance_row() -> None:
    x, sub, eps = ex.BY_ID["add_norm"].cases(current())[1].args
    resid = x + sub
    assert np.ptp(resid[1]) == 0.0
    assert 0 < resid[2].var() < 1e-5  # where eps inside or outside the sqrt differ


SOFTMAX = """
import math

def scale_mask_softmax(scores, d_k, causal):
    out = []
    for i, row in enumerate(scores):
        s = [{value} if ({keep}) else -1e9 for j, v in enumerate(row)]
        m = max(s)
        e = [math.exp(a - m) for a in s]
        out += [[a / sum(e) for a in e]]
    return out
"""

ENTROPY = """
def head_entropies(patterns):
    result = []
    for p in patterns:
        rows = [{row} for row in p]
        result += [{combine}]
    return result
"""

LAYER_NORM = """
def add_and_norm(x, sublayer_out, eps):
    out = []
    for a, b in zip(x, sublayer_out):
        r = [u + v for u, v in zip(a, b)]
        n = len(r)
        mean = sum(r) / n
        var = sum((u - mean) ** 2 for u in r) / {divisor}
        out += [[(u - mean) / {denominator} for u in r]]
    return out
"""


def softmax_source(value: str = "v / sqrt(d_k)", keep: str = "j <= i or not causal") -> str:
    return SOFTMAX.format(value=value, keep=keep)


def entropy_source(row: str, combine: str = "sum(rows) / len(rows)") -> str:
    return ENTROPY.format(row=row, combine=combine)


def layer_norm_source(divisor: str = "n", denominator: str = "sqrt(var + eps)") -> str:
    return LAYER_NORM.format(divisor=divisor, denominator=denominator)


ENTROPY_ROW = "-sum(q * log(q) for q in row if q > 0)"

DEPTH = """
def norm(m, eps):
    out = []
    for row in m:
        n = len(row)
        mean = sum(row) / n
        var = sum((v - mean) ** 2 for v in row) / {divisor}
        out.append([(v - mean) / {denominator} for v in row])
    return out

def plus(a, b):
    return [[u + v for u, v in zip(r, s)] for r, s in zip(a, b)]

def stack_post_ln(x, ws, eps):
    first = x
    for w in ws:
        x = {step}
    return {result}
"""


def depth_source(
    step: str = "norm(plus(x, matmul(x, w)), eps)",
    result: str = "x",
    divisor: str = "n",
    denominator: str = "sqrt(var + eps)",
) -> str:
    return DEPTH.format(step=step, result=result, divisor=divisor, denominator=denominator)


WRONG = [
    # (cell, source, verdict code, sandbox error code or None)
    ("qkv", "def matmul(x, w):\n    return []\n", "shape", None),
    ("qkv", "def matmul(x, w):\n    return x\n", "shape", None),
    ("qkv", "def matmul(x, w):\n    return 3\n", "not_list", None),
    (
        "scores",
        "def attention_scores(q, k):\n    return [[dot(a, b) for a in q] for b in k]\n",
        "scores_transposed",
        None,
    ),
    (
        "scores",
        "def attention_scores(q, k):\n"
        "    return [[dot(a, b) / sqrt(len(a)) for b in k] for a in q]\n",
        "scores_scaled",
        None,
    ),
    ("softmax", softmax_source(value="v"), "no_scale", None),
    ("softmax", softmax_source(value="v / d_k"), "scale_by_dk", None),
    ("softmax", softmax_source(keep="True"), "no_mask", None),
    ("softmax", softmax_source(keep="j <= i"), "mask_when_off", None),
    (
        "softmax",
        "def scale_mask_softmax(scores, d_k, causal):\n"
        "    n = len(scores)\n"
        "    s = [[v / sqrt(d_k) if (j <= i or not causal) else float('-inf')\n"
        "          for j, v in enumerate(row)] for i, row in enumerate(scores)]\n"
        "    cols = [[s[i][j] for i in range(n)] for j in range(n)]\n"
        "    e = [[exp(v - max(c)) for v in c] for c in cols]\n"
        "    return [[e[j][i] / sum(e[j]) for j in range(n)] for i in range(n)]\n",
        "softmax_columns",
        None,
    ),
    (
        "mix",
        "def mix_values(pattern, v):\n"
        "    n = len(pattern)\n"
        "    return [[sum(pattern[j][i] * v[j][d] for j in range(n)) for d in range(len(v[0]))]\n"
        "            for i in range(n)]\n",
        "pattern_transposed",
        None,
    ),
    ("entropy", entropy_source("-sum(q * log(q) for q in row)"), "error", "math_domain"),
    ("entropy", entropy_source(ENTROPY_ROW.replace("-sum", "sum")), "entropy_sign", None),
    (
        "entropy",
        entropy_source(ENTROPY_ROW.replace("log(q)", "log(q) / log(2)")),
        "entropy_log2",
        None,
    ),
    ("entropy", entropy_source(ENTROPY_ROW, combine="sum(rows)"), "entropy_sum", None),
    (
        "combine",
        "def combine_heads(head_outputs, w_o):\n"
        "    return [sum((h[i] for h in head_outputs), []) for i in range(len(head_outputs[0]))]\n",
        "no_w_o",
        None,
    ),
    (
        "combine",
        "def combine_heads(head_outputs, w_o):\n"
        "    rows = []\n"
        "    for h in head_outputs:\n"
        "        rows += h\n"
        "    return matmul(rows, w_o)\n",
        "error",
        "shape",
    ),
    (
        "combine",
        "def combine_heads(head_outputs, w_o):\n"
        "    rows = [sum((h[i] for h in head_outputs), []) for i in range(len(head_outputs[0]))]\n"
        "    return matmul(rows, [list(c) for c in zip(*w_o)])\n",
        "w_o_transposed",
        None,
    ),
    ("add_norm", layer_norm_source(divisor="(n - 1)"), "sample_std", None),
    ("add_norm", layer_norm_source(denominator="(sqrt(var) + eps)"), "eps_outside", None),
    ("add_norm", layer_norm_source(denominator="sqrt(var)"), "no_eps", None),
    (
        "add_norm",
        "def add_and_norm(x, sublayer_out, eps):\n    return sublayer_out\n",
        "value",
        None,
    ),
    ("depth", depth_source(step="plus(x, matmul(norm(x, eps), w))"), "depth_pre_ln", None),
    ("depth", depth_source(step="plus(norm(x, eps), matmul(x, w))"), "depth_norm_first", None),
    ("depth", depth_source(step="norm(matmul(x, w), eps)"), "depth_no_residual", None),
    ("depth", depth_source(step="plus(x, matmul(x, w))"), "depth_no_norm", None),
    (
        "depth",
        depth_source(step="plus(x, matmul(x, w))", result="norm(x, eps)"),
        "depth_norm_once",
        None,
    ),
    (
        "depth",
        depth_source(step="norm(plus(first, matmul(first, w)), eps)"),
        "depth_not_chained",
        None,
    ),
    ("depth", depth_source(divisor="(n - 1)"), "sample_std", None),
    ("depth", depth_source(denominator="(sqrt(var) + eps)"), "eps_outside", None),
    ("depth", "def stack_post_ln(x, ws, eps):\n    return x\n", "value", None),
    (
        "attention",
        "def causal_attention(x, wq, wk, wv):\n"
        "    q, k, v = matmul(x, wq), matmul(x, wk), matmul(x, wv)\n"
        "    out = []\n"
        "    for i in range(len(q)):\n"
        "        p = softmax([dot(q[i], k[j]) if j <= i else -1e9 for j in range(len(k))])\n"
        "        out += [[sum(p[j] * v[j][d] for j in range(len(v))) for d in range(len(v[0]))]]\n"
        "    return out\n",
        "no_scale",
        None,
    ),
]


@pytest.mark.parametrize(("cell_id", "source", "code", "error"), WRONG)
def test_usual_wrong_answers_get_their_verdict(cell_id, source, code, error) -> None:
    verdict = check(cell_id, source)
    assert not verdict.passed
    assert verdict.code == code, verdict
    if error is not None:
        assert verdict.params["error"] == error, verdict
        assert verdict.params.get("line", 0) >= 1  # a runtime error points at the learner's line


def test_a_learner_matmul_with_three_loops_passes() -> None:
    assert check("qkv", LEARNER_MATMUL).passed
    assert check("qkv", LEARNER_MATMUL, current(d_model=64, n_heads=1, seed=3)).passed


def test_the_first_differing_cell_is_reported_with_both_values() -> None:
    # right everywhere except one cell of the current case: row 3, column 1 is off by 0.5
    source = LEARNER_MATMUL.replace(
        "    return out", "    if len(x) == 5:\n        out[3][1] += 0.5\n    return out"
    )
    cur = current()
    verdict = check("qkv", source, cur)
    assert (verdict.code, verdict.case, verdict.hidden) == ("value", 1, False)
    expected = float(cur.run.trace.heads[0].q[3, 1])
    assert verdict.params == {
        "row": 3,
        "col": 1,
        "expected": pytest.approx(expected, abs=1e-12),
        "received": pytest.approx(expected + 0.5, abs=1e-12),
    }


def test_a_wrong_hidden_case_says_it_is_hidden_and_gives_its_shapes() -> None:
    source = LEARNER_MATMUL.replace(
        "    return out", "    if len(x) == 1:\n        return [[0.0]]\n    return out"
    )
    verdict = check("qkv", source)
    assert verdict.hidden and verdict.case == 5 and verdict.cases == 6
    assert verdict.code == "shape"
    assert verdict.shapes == "x [1 × 4], w [4 × 3]"
    assert verdict.params == {"expected": "[1 × 3]", "received": "[1 × 1]"}


def test_nan_is_reported_where_it_first_appears() -> None:
    source = LEARNER_MATMUL.replace(
        "    return out", "    out[0][1] = float('nan')\n    return out"
    )
    verdict = check("qkv", source)
    assert (verdict.code, verdict.params) == ("nan", {"row": 0, "col": 1})


@pytest.mark.parametrize(
    ("value", "ndim", "code", "params"),
    [
        (3.0, 2, "not_list", {"received": "float"}),
        ([1.0, 2.0], 2, "not_rows", {"row": 0, "received": "float"}),
        ([[1.0], [2.0, 3.0]], 2, "ragged", {"lengths": "1, 2"}),
        ([[1.0, None]], 2, "not_number", {"row": 0, "col": 1, "received": "NoneType"}),
        ([[True]], 2, "not_number", {"row": 0, "col": 0, "received": "bool"}),
        ([0.5, "a"], 1, "not_number", {"row": 1, "col": -1, "received": "str"}),
    ],
)
def test_results_that_are_not_matrices_are_named(value, ndim, code, params) -> None:
    assert ex.to_array(value, ndim)[1:] == (code, params)


def test_to_array_keeps_ints_and_tuples() -> None:
    array, code, _ = ex.to_array(((1, 2), [3, 4.5]), 2)
    assert code == ""
    np.testing.assert_array_equal(array, [[1.0, 2.0], [3.0, 4.5]])


def test_judge_accepts_a_different_summation_order_but_not_a_1e_6_error() -> None:
    cell = ex.BY_ID["mix"]
    cases = cell.cases(current())
    near = [SimpleNamespace(value=(c.expected * (1 + 1e-12)).tolist(), error=None) for c in cases]
    assert ex.judge(cell, cases, near).passed
    far = [SimpleNamespace(value=(c.expected + 1e-6).tolist(), error=None) for c in cases]
    assert ex.judge(cell, cases, far).code == "value"


def test_every_cell_is_on_its_own_page_and_names_its_solution() -> None:
    assert len({cell.page for cell in ex.CELLS}) == len(ex.CELLS) == 9
    for cell in ex.CELLS:
        assert f"def {cell.function}(" in cell.solution_source()
        assert cell.signature().startswith(f"def {cell.function}(")
        sandbox.check_source(cell.solution_source())


def test_a_learner_stack_with_its_own_layer_norm_passes_at_the_page_depths() -> None:
    for layers in (1, 2, 12):
        assert check("depth", depth_source(), current(layers=layers)).passed, layers
    largest = current(d_model=64, n_heads=16, text=" ".join(["w"] * 32), layers=24)
    assert check("depth", depth_source(), largest).passed


def test_the_depth_cell_reads_the_pages_x_and_its_first_layers() -> None:
    cur = current(seed=3, layers=12)
    x, ws, eps = ex.BY_ID["depth"].cases(cur)[0].args
    np.testing.assert_array_equal(x, cur.run.x)
    assert eps == 1e-5 and len(ws) == ex.cells.MAX_CHECKED_LAYERS == 6  # of the page's 12
    for layer, w in enumerate(ws):  # layer l's weights are drawn with seed + l, as on the page
        cfg = llm.AttentionConfig(seed=3 + layer)
        np.testing.assert_array_equal(w, llm.init_params(cfg).W_O)
    # the expected output, recomputed by hand: LayerNorm(x + x @ w), layer after layer
    out = x
    for w in ws:
        resid = out + out @ w
        mean, var = resid.mean(axis=1, keepdims=True), resid.var(axis=1, keepdims=True)
        out = (resid - mean) / np.sqrt(var + eps)
    np.testing.assert_allclose(ex.BY_ID["depth"].cases(cur)[0].expected, out, rtol=0, atol=1e-12)
    assert ex.BY_ID["depth"].cases(current(layers=1))[0].shapes == (
        "x [5 × 8], ws 1 × [8 × 8], eps 1e-05"
    )


def test_every_usual_mistake_of_the_depth_cell_shows_on_a_hidden_case() -> None:
    cell = ex.BY_ID["depth"]
    cases = cell.cases(current())  # one layer on the page: the hidden cases must tell them apart
    for mistake in cell.mistakes:
        assert any(
            not np.allclose(mistake.wrong(*case.args), case.expected) for case in cases[1:]
        ), mistake.code
