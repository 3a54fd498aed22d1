"""The class session's refusals in English and French, by their stable code (the UI shows them)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "no_code": {
        "en": "Type the class code shown beside the QR code.",
        "fr": "Tapez le code de la classe affiché à côté du code QR.",
    },
    "bad_length": {
        "en": "A class code has {length} characters; this one has {got}.",
        "fr": "Un code de classe a {length} caractères ; celui-ci en a {got}.",
    },
    "look_alike": {
        "en": "Class codes never contain {chars} (they look like other characters): "
        "check the code on the screen.",
        "fr": "Les codes de classe ne contiennent jamais {chars} (ils ressemblent à d'autres "
        "caractères) : vérifiez le code à l'écran.",
    },
    "bad_characters": {
        "en": "A class code has only letters and digits; {chars} cannot be in one.",
        "fr": "Un code de classe n'a que des lettres et des chiffres ; {chars} n'y est jamais.",
    },
    "unknown_class": {
        "en": "There is no class {class_code}: check the code, or ask the teacher for the link.",
        "fr": "Il n'y a pas de classe {class_code} : vérifiez le code, ou demandez le lien au "
        "professeur.",
    },
    "ended": {
        "en": "The class {class_code} has ended and its data has been deleted.",
        "fr": "La classe {class_code} est terminée et ses données ont été effacées.",
    },
    "bad_key": {
        "en": "Only the teacher of this class can do that.",
        "fr": "Seul le professeur de cette classe peut faire cela.",
    },
    "full": {
        "en": "The class {class_code} is full ({limit} students).",
        "fr": "La classe {class_code} est complète ({limit} élèves).",
    },
    "too_many_classes": {
        "en": "This server already holds {limit} open classes: try again later.",
        "fr": "Ce serveur a déjà {limit} classes ouvertes : réessayez plus tard.",
    },
    "rate_limited": {
        "en": "Too many requests from this browser: wait a minute.",
        "fr": "Trop de demandes depuis ce navigateur : attendez une minute.",
    },
    "no_such_cell": {
        "en": "There is no exercise cell {cell}.",
        "fr": "Il n'y a pas de cellule d'exercice {cell}.",
    },
    "no_such_mistake": {
        "en": "The checker knows no mistake {mistake} for the cell {cell}.",
        "fr": "Le correcteur ne connaît pas d'erreur {mistake} pour la cellule {cell}.",
    },
    "not_open": {
        "en": "No question is open for answers.",
        "fr": "Aucune question n'est ouverte aux réponses.",
    },
    "not_revealed": {
        "en": "Reveal the answers before asking again.",
        "fr": "Révélez les réponses avant de reposer la question.",
    },
    "no_such_choice": {
        "en": "This question has no choice {choice}.",
        "fr": "Cette question n'a pas de choix {choice}.",
    },
    "bad_value": {
        "en": "The class cannot take this {what}.",
        "fr": "La classe ne peut pas prendre cette valeur ({what}).",
    },
    "unavailable": {
        "en": "The class is unavailable for now; the lab works as usual and the class comes "
        "back by itself.",
        "fr": "La classe est indisponible pour l'instant ; le labo fonctionne comme d'habitude "
        "et la classe reviendra d'elle-même.",
    },
}


def message(code: str, lang: str = "en", **fields: object) -> str:
    """The refusal ``code`` in ``lang`` ("en" or "fr"; English otherwise), its fields filled in."""
    texts = MESSAGES.get(code, MESSAGES["unavailable"])
    return texts.get(lang, texts["en"]).format_map(_Fields(fields))


class _Fields(dict):
    """The fields of a message; one that is missing reads as "?" rather than failing."""

    def __missing__(self, key: str) -> str:
        return "?"
