"""The class store as the pages meet it: one ``Classes`` and one follower cache per process, and
every call made safe (a refusal or a store that does not answer becomes a message, never a crash).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

import classroom
from classroom import ClassCache, ClassError
from ui.text import md_escape

if TYPE_CHECKING:
    from classroom.session import Classes

T = TypeVar("T")
log = logging.getLogger(__name__)
POLL_SECONDS = 1.0  # the teacher's screen is published twice as often (ui.classroom.session)
READ_SECONDS = 0.25  # the process's caches read a class from the store at most this often


@functools.cache
def room() -> Classes:
    """This process's class session over the configured store."""
    return classroom.classes()


@functools.cache
def followers() -> ClassCache:
    """This process's cache of the teachers' screens: every session's poll, one store read."""
    return ClassCache(room().teacher_state, interval=READ_SECONDS)


@functools.cache
def asked() -> ClassCache:
    """This process's cache of the classes' current questions (what a student's page shows):
    ``state(code)[0]`` is the question, or None (the cache holds a value, never None)."""
    return ClassCache(lambda code: (room().current_question(code),), interval=READ_SECONDS)


def attempt(call: Callable[[], T]) -> tuple[T | None, ClassError | None]:
    """(the call's value, None), or (None, the refusal): a store that fails in any other way is
    "unavailable", logged, so that no page ever shows a traceback for the class."""
    try:
        return call(), None
    except ClassError as err:
        return None, err
    except Exception:  # noqa: BLE001 (the store's own failure: the lab goes on without the class)
        log.exception("class store call failed")
        return None, ClassError("unavailable")


def words(err: ClassError, lang: str) -> str:
    """A refusal in ``lang``, as literal text for markdown (it may quote what was typed)."""
    return md_escape(err.text(lang))


def say(err: ClassError, lang: str) -> None:
    """A refusal shown to the person it concerns: a warning, in their language, as text."""
    st.warning(words(err, lang), icon=":material/group_off:")
