"""Join codes, teacher keys and student ids; the refusals' messages in both languages."""

from __future__ import annotations

import collections
import re

import pytest

from classroom import ClassError, codes, texts


def refusal(raw: object) -> ClassError:
    with pytest.raises(ClassError) as caught:
        codes.normalise(raw)
    return caught.value


def test_alphabet_has_no_look_alikes_and_31_characters():
    assert set(codes.ALPHABET).isdisjoint("0O1IL")
    assert len(set(codes.ALPHABET)) == len(codes.ALPHABET) == 31
    assert codes.CODE_LENGTH >= 6


def test_new_codes_use_the_alphabet_and_spread_over_it():
    drawn = [codes.new_code() for _ in range(2000)]
    assert all(len(c) == codes.CODE_LENGTH and set(c) <= set(codes.ALPHABET) for c in drawn)
    # 2000 of 8.9e8 codes: about 0.0022 repeats expected, so one repeat comes in 0.2 % of runs
    # and two in 3e-6 (a generator of a few million codes would repeat dozens of times)
    assert len(drawn) - len(set(drawn)) <= 1
    letters = collections.Counter("".join(drawn))
    assert set(letters) == set(codes.ALPHABET)  # 12 000 draws reach every character


@pytest.mark.parametrize(
    "raw, code",
    [
        ("KXR4TZ", "KXR4TZ"),
        ("kxr4tz", "KXR4TZ"),  # lower case is upper-cased
        (" kxr 4tz ", "KXR4TZ"),
        ("KXR-4TZ", "KXR4TZ"),
        ("kxr–4tz", "KXR4TZ"),  # an en dash, as phones type it
        ("ＫＸＲ４ＴＺ", "KXR4TZ"),  # full-width, NFKC
    ],
)
def test_normalise_accepts_what_a_student_types(raw, code):
    assert codes.normalise(raw) == code


@pytest.mark.parametrize("raw", ["", "   ", "--", None, 42])
def test_an_empty_code_is_refused(raw):
    assert refusal(raw).code == "no_code"


def test_a_code_too_long_or_too_short_says_its_length():
    err = refusal("KXR4TZW")
    assert (err.code, err.fields) == ("bad_length", {"length": 6, "got": 7})
    assert refusal("KXR").fields["got"] == 3
    huge = refusal("A" * 100_000)  # refused before it is read
    assert huge.code == "bad_length" and huge.fields["got"] == 100_000


@pytest.mark.parametrize("raw, chars", [("KXR0TZ", "0"), ("kxrotz", "O"), ("K1RILZ", "1, I, L")])
def test_look_alikes_are_refused_and_named(raw, chars):
    err = refusal(raw)
    assert err.code == "look_alike" and err.fields["chars"] == chars
    assert chars in err.message and chars in err.text("fr")


def test_other_characters_are_refused():
    err = refusal("KXR4T!")
    assert err.code == "bad_characters" and "'!'" in err.message
    assert refusal("<b>XR4T").code == "bad_characters"


def test_teacher_keys_have_192_bits_and_are_kept_as_sha256():
    key = codes.new_key()
    assert len(key) == 32 and re.fullmatch(r"[A-Za-z0-9_-]+", key)  # 24 bytes in base64
    digest = codes.hash_key(key)
    assert re.fullmatch(r"[0-9a-f]{64}", digest) and key not in digest
    assert codes.hash_key("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2's test
    )
    assert codes.key_matches(key, digest)
    assert not codes.key_matches(key[:-1] + ("A" if key[-1] != "A" else "B"), digest)
    assert not any(codes.key_matches(bad, digest) for bad in (None, "", 7, digest, "x" * 10_000))


def test_student_ids_are_random_and_checked():
    ids = {codes.new_student_id() for _ in range(100)}
    assert len(ids) == 100 and all(codes.check_student_id(i) == i for i in ids)
    for bad in ("", "short", "a" * 65, "has space x", "<script>", None, 12345678):
        with pytest.raises(ClassError) as caught:
            codes.check_student_id(bad)
        assert caught.value.code == "bad_value"


def test_every_refusal_has_an_english_and_a_french_message():
    for code, by_lang in texts.MESSAGES.items():
        assert set(by_lang) == {"en", "fr"}, code
        assert by_lang["en"] != by_lang["fr"], code
        fields = {"class_code": "KXR4TZ", "limit": 300, "length": 6, "got": 7, "chars": "0"}
        fields |= {"cell": "softmax", "mistake": "no_scale", "choice": 7, "what": "page"}
        err = ClassError(code, **fields)
        assert err.text("en") == err.message == str(err) and "?" not in err.message
        assert err.text("fr") != err.message and err.text("de") == err.message


def test_a_message_with_a_missing_field_still_reads():
    assert ClassError("full").message == "The class ? is full (? students)."
    assert ClassError("full", class_code="KXR4TZ", limit=300).text("fr") == (
        "La classe KXR4TZ est complète (300 élèves)."
    )
