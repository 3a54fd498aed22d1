"""AttentionConfig's checks, tokenize, token labels and divisors: codes, params and messages."""

from __future__ import annotations

import pytest

import llm


def _error(**kwargs: object) -> llm.LabError:
    with pytest.raises(llm.LabError) as err:
        llm.AttentionConfig(**kwargs)
    assert isinstance(err.value, ValueError)  # callers may catch ValueError
    return err.value


def test_defaults_and_d_head() -> None:
    cfg = llm.AttentionConfig()
    assert (cfg.d_model, cfg.n_heads, cfg.seed, cfg.embeddings, cfg.d_head) == (
        8,
        4,
        0,
        "seeded",
        2,
    )
    assert llm.AttentionConfig(d_model=512, n_heads=64).d_head == 8
    assert llm.AttentionConfig(d_model=1, n_heads=1).d_head == 1
    assert llm.AttentionConfig(seed=llm.MAX_SEED).seed == 2**32 - 1
    assert llm.AttentionConfig(4, 2, 0, "handmade").embeddings == "handmade"
    assert llm.AttentionConfig(8, 4, 1) == llm.AttentionConfig(d_model=8, n_heads=4, seed=1)
    with pytest.raises(AttributeError):  # frozen: a checked config stays checked
        cfg.d_model = 7  # type: ignore[misc]


@pytest.mark.parametrize("d_model", [0, -8, 513, 1024])
def test_d_model_range(d_model: int) -> None:
    err = _error(d_model=d_model, n_heads=1)
    assert err.code == "d_model_range"
    assert err.params == {"value": d_model, "max": 512}
    assert str(err) == f"d_model must be between 1 and 512, got {d_model}."


@pytest.mark.parametrize("n_heads", [0, -1, 65, 128])
def test_n_heads_range(n_heads: int) -> None:
    err = _error(d_model=512, n_heads=n_heads)
    assert err.code == "n_heads_range"
    assert err.params == {"value": n_heads, "max": 64}
    assert str(err) == f"n_heads must be between 1 and 64, got {n_heads}."


@pytest.mark.parametrize(
    ("d_model", "n_heads", "options"),
    [
        (8, 3, [1, 2, 4, 8]),
        (7, 2, [1, 7]),
        (12, 5, [1, 2, 3, 4, 6, 12]),
        (4, 8, [1, 2, 4]),
        (512, 3, [1, 2, 4, 8, 16, 32, 64]),
        (96, 7, [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48]),
    ],
)
def test_not_divisible_lists_working_head_counts(
    d_model: int, n_heads: int, options: list[int]
) -> None:
    err = _error(d_model=d_model, n_heads=n_heads)
    assert err.code == "not_divisible"
    assert err.params == {"d_model": d_model, "n_heads": n_heads, "options": options}
    message = str(err)
    assert f"d_model {d_model} does not split into {n_heads} equal heads" in message
    assert message.endswith(f"choose n_heads among {', '.join(map(str, options))}.")
    for h in options:  # every listed count really works
        assert llm.AttentionConfig(d_model=d_model, n_heads=h).d_head * h == d_model


@pytest.mark.parametrize("seed", [-1, 2**32, 2**64])
def test_seed_range(seed: int) -> None:
    err = _error(seed=seed)
    assert err.code == "seed_range"
    assert err.params == {"value": seed, "max": 2**32 - 1}
    assert str(err) == f"seed must be between 0 and 4294967295, got {seed}."


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("d_model", True),
        ("d_model", 8.0),
        ("d_model", "8"),
        ("n_heads", False),
        ("n_heads", 2.5),
        ("seed", True),
        ("seed", 0.0),
        ("seed", None),
    ],
)
def test_not_int(name: str, value: object) -> None:
    err = _error(**{name: value})
    assert err.code == "not_int"
    assert err.params == {"name": name}
    assert str(err) == f"{name} must be a whole number, got {value!r}."


@pytest.mark.parametrize("embeddings", ["random", "Seeded", "", "hand-made"])
def test_unknown_embeddings(embeddings: str) -> None:
    err = _error(embeddings=embeddings)
    assert err.code == "embeddings_name"
    assert err.params == {"value": embeddings}
    assert "embeddings must be 'seeded' or 'handmade'" in str(err)
    assert repr(embeddings) in str(err)


@pytest.mark.parametrize("d_model", [1, 2, 8, 16])
def test_handmade_needs_d_model_4(d_model: int) -> None:
    err = _error(d_model=d_model, n_heads=1, embeddings="handmade")
    assert err.code == "handmade_d_model"
    assert err.params == {"value": d_model}
    assert "need d_model 4" in str(err) and f"got {d_model}" in str(err)


def test_lab_error_carries_code_and_params() -> None:
    err = llm.LabError("some_code", "A message.", a=1, b="x")
    assert isinstance(err, ValueError)
    assert (err.code, err.params, str(err)) == ("some_code", {"a": 1, "b": "x"}, "A message.")


# ---------------------------------------------------------------- tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The cat sat.", ["the", "cat", "sat", "."]),
        ("the cat sat on mat", ["the", "cat", "sat", "on", "mat"]),
        ("  Hello,   WORLD!  ", ["hello", ",", "world", "!"]),
        ("don't", ["don", "'", "t"]),
        ("x2 = 3", ["x2", "=", "3"]),
        ("Café à Paris", ["café", "à", "paris"]),
        ("...", [".", ".", "."]),
        ("a\tb\nc", ["a", "b", "c"]),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert llm.tokenize(text) == tokens


@pytest.mark.parametrize("text", ["", " ", "   \t\n  "])
def test_tokenize_empty(text: str) -> None:
    with pytest.raises(llm.LabError) as err:
        llm.tokenize(text)
    assert err.value.code == "text_empty"
    assert "empty" in str(err.value)


def test_tokenize_token_limit() -> None:
    assert llm.MAX_TOKENS == 32
    assert len(llm.tokenize(" ".join(["w"] * 32))) == 32
    with pytest.raises(llm.LabError) as err:
        llm.tokenize(" ".join(["w"] * 33))
    assert err.value.code == "too_many_tokens"
    assert err.value.params == {"count": 33, "max": 32}
    assert str(err.value) == "The sentence has 33 tokens; the lab shows at most 32."
    with pytest.raises(llm.LabError) as err:  # punctuation marks count as tokens too
        llm.tokenize("a" + "!" * 32)
    assert err.value.params["count"] == 33


def test_tokenize_character_limit() -> None:
    assert llm.MAX_CHARS == 400
    assert llm.tokenize("a" * 400) == ["a" * 400]
    with pytest.raises(llm.LabError) as err:
        llm.tokenize("a" * 401)
    assert err.value.code == "text_too_long"
    assert err.value.params == {"count": 401, "max": 400}
    assert str(err.value) == "The sentence has 401 characters; the lab takes at most 400."
    with pytest.raises(llm.LabError) as err:  # checked before the (costly) split
        llm.tokenize(" " * 1000)
    assert err.value.code == "text_too_long"


def test_token_labels_number_repeats() -> None:
    assert llm.token_labels(["the", "cat", "the"]) == ["the", "cat", "the·2"]
    assert llm.token_labels(["a", "a", "b", "a", "b"]) == ["a", "a·2", "b", "a·3", "b·2"]
    assert llm.token_labels(["x"]) == ["x"]
    labels = llm.token_labels(llm.tokenize("the the the the the the the the the the the"))
    assert labels[-1] == "the·11"
    assert len(set(labels)) == len(labels)  # all told apart


def test_divisors() -> None:
    assert llm.divisors(8) == [1, 2, 4, 8]
    assert llm.divisors(1) == [1]
    assert llm.divisors(7) == [1, 7]
    assert llm.divisors(12) == [1, 2, 3, 4, 6, 12]
    assert llm.divisors(512) == [1, 2, 4, 8, 16, 32, 64]  # stops at MAX_HEADS
    assert llm.divisors(128, limit=4) == [1, 2, 4]
    for n in range(1, 130):
        for h in range(1, 70):
            valid = h in llm.divisors(n)
            assert valid == (n % h == 0 and h <= llm.MAX_HEADS)
            if valid:
                assert llm.AttentionConfig(d_model=n, n_heads=h).d_head == n // h
            else:
                with pytest.raises(llm.LabError):
                    llm.AttentionConfig(d_model=n, n_heads=h)
