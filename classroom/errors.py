"""ClassError: every refusal of the class session, a stable code and its message in EN and FR."""

from __future__ import annotations

from classroom import texts


class ClassError(Exception):
    """A refusal: ``code`` is stable (see ``classroom.texts.MESSAGES``), ``message`` English.

    Example: ``ClassError("full", class_code="KXR4TZ", limit=300).text("fr")``
    -> "La classe KXR4TZ est complète (300 élèves)."
    """

    def __init__(self, code: str, **fields: object) -> None:
        self.code = code
        self.fields = fields
        super().__init__(code, self.message)

    @property
    def message(self) -> str:
        return texts.message(self.code, "en", **self.fields)

    def text(self, lang: str) -> str:
        """The message in ``lang`` ("en" or "fr")."""
        return texts.message(self.code, lang, **self.fields)

    def __str__(self) -> str:
        return self.message
