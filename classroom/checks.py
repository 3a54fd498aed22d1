"""The shapes of what a page hands the class: a page's slug and URL values (name -> text)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from classroom.errors import ClassError

MAX_VALUES = 40  # URL values in one setting
MAX_NAME = 40  # characters of a value's name
MAX_VALUE = 500  # characters of a value (a sentence is at most 400)
PAGE = re.compile(r"[a-z0-9_]{0,64}")  # a page's slug as in its URL; "" = home


def page(slug: object) -> str:
    """``slug`` if it is a page's slug, else ClassError("bad_value")."""
    if isinstance(slug, str) and PAGE.fullmatch(slug):
        return slug
    raise ClassError("bad_value", what="page")


def url_values(values: object, what: str = "settings") -> dict[str, str]:
    """``values`` as a dict of short strings, else ClassError("bad_value", what=what)."""
    if values is None:
        return {}
    if not isinstance(values, Mapping) or len(values) > MAX_VALUES:
        raise ClassError("bad_value", what=what)
    for name, value in values.items():
        if not (isinstance(name, str) and isinstance(value, str)):
            raise ClassError("bad_value", what=what)
        if not (0 < len(name) <= MAX_NAME and len(value) <= MAX_VALUE):
            raise ClassError("bad_value", what=what)
    return dict(values)
