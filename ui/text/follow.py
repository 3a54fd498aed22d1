"""Texts of following one token through a page: the chips, and what they outline (pages 3, 4, 5)."""

TEXT = {
    "en": {
        "pick": "Follow one token",
        "help": "Its row is outlined in every heatmap of the page (row = the token as a query). Arrow keys move between the chips, Enter or Space picks one.",
        "following": "Following **{label}** (position {i}): its row is outlined.",
        "reset": "**token** = {value} is outside 0–{high}, the positions of this sentence; using {used}.",
    },
    "fr": {
        "pick": "Suivre un token",
        "help": "Sa ligne est entourée dans chaque heatmap de la page (ligne = le token en query). Les flèches passent d’une pastille à l’autre, Entrée ou Espace en choisit une.",
        "following": "On suit **{label}** (position {i}) : sa ligne est entourée.",
        "reset": "**token** = {value} sort de 0–{high}, les positions de cette phrase ; on prend {used}.",
    },
}
