"""The chapters' own code, typed as printed, passes its cell: chapter 8's ``causal_attention``
(with ``out.append``) and chapter 9's ``add`` and ``layer_norm``, run in the checker's child.

The copies below are the chapters' text line for line (their blank lines hold one space, as
printed); a test holds them to the chapters' files when those are at hand.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import exercises as ex
import llm

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
CHAPTER_8 = SEEDS / "002_b9a3801f795889e8.txt"
CHAPTER_9 = SEEDS / "000_19faa64d6b64ceef.txt"

CHAPTER_8_MODULE = "\n".join(
    [
        '"""Readable attention helpers before the PyTorch version."""',
        "from __future__ import annotations",
        " ",
        "import math",
        " ",
        " ",
        "Vector = list[float]",
        "Matrix = list[Vector]",
        " ",
        " ",
        "def dot(a: Vector, b: Vector) -> float:",
        "    return sum(x * y for x, y in zip(a, b))",
        " ",
        " ",
        "def softmax(values: Vector) -> Vector:",
        "    m = max(values)",
        "    exps = [math.exp(v - m) for v in values]",
        "    total = sum(exps)",
        "    return [v / total for v in exps]",
        " ",
        " ",
        "def matmul(x: Matrix, w: Matrix) -> Matrix:",
        "    columns = list(zip(*w))",
        "    return [[dot(row, list(col)) for col in columns] for row in x]",
        " ",
        " ",
        "def causal_attention(x: Matrix, wq: Matrix, wk: Matrix, wv: Matrix) -> Matrix:",
        "    # [1]",
        "    q = matmul(x, wq)",
        "    k = matmul(x, wk)",
        "    v = matmul(x, wv)",
        "    scale = math.sqrt(len(k[0]))",
        " ",
        "    out: Matrix = []",
        "    for i, query in enumerate(q):",
        "        # [2]",
        "        scores = [",
        "            dot(query, key) / scale if j <= i else -1e9",
        "            for j, key in enumerate(k)",
        "        ]",
        "        # [3]",
        "        weights = softmax(scores)",
        "        # [4]",
        "        out.append([",
        "            sum(weight * value[d] for weight, value in zip(weights, v))",
        "            for d in range(len(v[0]))",
        "        ])",
        "    return out",
        "",
    ]
)

CHAPTER_9_HELPERS = "\n".join(
    [
        "import math",
        " ",
        " ",
        "def add(a: Matrix, b: Matrix) -> Matrix:",
        "    return [",
        "        [x + y for x, y in zip(row_a, row_b)]",
        "        for row_a, row_b in zip(a, b)",
        "    ]",
        " ",
        " ",
        "def layer_norm(x: Matrix, eps: float = 1e-5) -> Matrix:",
        "    out: Matrix = []",
        "    for row in x:",
        "        mean = sum(row) / len(row)",
        "        var = sum((value - mean) ** 2 for value in row) / len(row)",
        "        denom = math.sqrt(var + eps)",
        "        out.append([(value - mean) / denom for value in row])",
        "    return out",
        "",
    ]
)

# chapter 8's last function alone: the cell hands dot, softmax and matmul to the learner
CAUSAL_ATTENTION = CHAPTER_8_MODULE[CHAPTER_8_MODULE.index("def causal_attention") :]
# chapter 9's helpers, and the one line the cell asks for on top of them
ADD_AND_NORM = (
    CHAPTER_9_HELPERS
    + "\n\ndef add_and_norm(x, sublayer_out, eps):\n"
    + "    return layer_norm(add(x, sublayer_out), eps)\n"
)
SETTINGS = {
    "chapter8": {"d_model": 4, "n_heads": 1, "embeddings": "handmade"},
    "chapter9": {"d_model": 8, "n_heads": 4},
    "wide_one_head": {"d_model": 32, "n_heads": 1, "text": "the cat sat on the mat again"},
}


def current(d_model: int, n_heads: int, text: str = "the cat sat on mat", **kw: str) -> ex.Current:
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=0, **kw)
    x = llm.embed(llm.tokenize(text), cfg)
    params = llm.init_params(cfg)
    run = SimpleNamespace(cfg=cfg, x=x, params=params, trace=llm.multi_head_attention(x, params))
    return ex.Current(run=run)


def _printed(path: Path, start: str) -> str:
    """The code block of a chapter that starts with ``start``, up to its first ``return out``."""
    text = path.read_text(encoding="utf-8")
    begin = text.index(start)
    end = text.index("    return out\n", begin) + len("    return out\n")
    return text[begin:end]


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the chapters' text is not on this machine")
def test_the_copies_are_the_chapters_text() -> None:
    assert _printed(CHAPTER_8, '"""Readable attention helpers') == CHAPTER_8_MODULE
    assert _printed(CHAPTER_9, "import math\n \n \ndef add(") == CHAPTER_9_HELPERS
    assert "out.append([" in CAUSAL_ATTENTION and "out.append([" in CHAPTER_9_HELPERS


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize(
    ("cell_id", "code"),
    [
        ("attention", CAUSAL_ATTENTION),
        ("attention", CHAPTER_8_MODULE),
        ("add_norm", ADD_AND_NORM),
    ],
    ids=["causal_attention_alone", "chapter_8_module", "add_and_layer_norm"],
)
def test_the_chapters_code_passes_its_cell(cell_id: str, code: str, setting: str) -> None:
    verdict = ex.check(cell_id, code, current(**SETTINGS[setting]), isolate=True)
    assert verdict.passed, verdict
    assert verdict.code == "pass" and verdict.cases >= 3
