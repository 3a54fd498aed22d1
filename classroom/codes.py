"""Join codes a student can type, teacher keys kept only as hashes, and random student ids.

A join code is ``CODE_LENGTH`` characters of ``ALPHABET``: upper-case letters and digits without
the look-alikes 0 O 1 I L. ``normalise`` upper-cases what a student typed and drops spaces and
dashes ("kxr4-tz" -> "KXR4TZ"); it refuses a look-alike rather than guessing, because none of
0 O 1 I L is in a code, so each stands for a character misread and no mapping is safe (an "O"
may be a "D" or a "Q"). Example: ``normalise(" kxr 4tz ")`` -> ``"KXR4TZ"``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata

from classroom.errors import ClassError

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # 31 characters: no 0 O 1 I L
LOOK_ALIKES = "0O1IL"
CODE_LENGTH = 6  # 31**6 ≈ 8.9e8 codes
MAX_TYPED = 64  # longer input is refused before it is read
KEY_BYTES = 24  # 192 random bits (at least 128)
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


def new_code() -> str:
    """A random join code."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise(raw: object) -> str:
    """The join code in ``raw`` (upper case, without spaces and dashes), or a ClassError.

    Refusals: "no_code" (empty), "bad_length", "look_alike" (0 O 1 I L), "bad_characters".
    """
    text = raw if isinstance(raw, str) else ""
    if len(text) > MAX_TYPED:
        raise ClassError("bad_length", length=CODE_LENGTH, got=len(text))
    cleaned = re.sub(r"[\s\-‐-―]", "", unicodedata.normalize("NFKC", text)).upper()
    if not cleaned:
        raise ClassError("no_code")
    alike = sorted(set(cleaned) & set(LOOK_ALIKES), key=LOOK_ALIKES.index)
    if alike:
        raise ClassError("look_alike", chars=", ".join(alike))
    bad = sorted(set(cleaned) - set(ALPHABET))
    if bad:
        raise ClassError("bad_characters", chars=" ".join(repr(c) for c in bad))
    if len(cleaned) != CODE_LENGTH:
        raise ClassError("bad_length", length=CODE_LENGTH, got=len(cleaned))
    return cleaned


def new_key() -> str:
    """A teacher key: ``KEY_BYTES`` random bytes, URL-safe text. Never stored, never logged."""
    return secrets.token_urlsafe(KEY_BYTES)


def hash_key(key: str) -> str:
    """What the store keeps of a teacher key: its SHA-256, in hex."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_matches(key: object, stored_hash: str) -> bool:
    """Whether ``key`` is the one whose hash is ``stored_hash`` (in constant time)."""
    if not isinstance(key, str) or not key or len(key) > 256:
        return False
    return hmac.compare_digest(hash_key(key), stored_hash)


def new_student_id() -> str:
    """A random student id (128 bits), kept in the student's browser; no name, no account."""
    return secrets.token_urlsafe(16)


def check_student_id(student_id: object) -> str:
    """``student_id`` if it has the form of one (8-64 of A-Z a-z 0-9 _ -), else a ClassError."""
    if isinstance(student_id, str) and STUDENT_ID.fullmatch(student_id):
        return student_id
    raise ClassError("bad_value", what="student id")
