"""A polite live region: after a control changes the numbers it says once, in one sentence,
what changed ("Seed 7: the pattern is recomputed; head 0 now looks most at “the”.").

The frame passes the settings that decide the numbers on every run; the sentence is made when
they differ from the last run's, with a count that goes up by one, and the browser speaks each
count once. The region is drawn by the page's document element (``ui.frame.components.page_lang``,
one element a run for both); its JavaScript ships in this folder and runs in the app's own
document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import streamlit as st

from ui.lab.compute import Lab

JS = (Path(__file__).parent / "announce.js").read_text(encoding="utf-8")
STATE = "_announce"  # session state: (settings, count, sentence) of the last run

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "sentence": (
            "{changes}: the pattern is recomputed; head {head} now looks most at “{token}”."
        ),
        "seed": "Seed {value}",
        "d_model": "d_model {value}",
        "n_heads": "{value} heads",
        "text": "New text",
        "causal_on": "Causal mask on",
        "causal_off": "Causal mask off",
        "embeddings": "Other embeddings",
        "head": "Head {value}",
    },
    "fr": {
        "sentence": (
            "{changes} : le motif est recalculé ; la tête {head} regarde maintenant surtout "
            "« {token} »."
        ),
        "seed": "Graine {value}",
        "d_model": "d_model {value}",
        "n_heads": "{value} têtes",
        "text": "Nouveau texte",
        "causal_on": "Masque causal activé",
        "causal_off": "Masque causal désactivé",
        "embeddings": "Autres embeddings",
        "head": "Tête {value}",
    },
}
ORDER = ("seed", "d_model", "n_heads", "text", "causal", "embeddings", "head")


def most_looked_at(pattern: np.ndarray, labels: Sequence[str]) -> str:
    """The token that gets the most attention in a head's pattern (its column's sum; masked
    cells, 0 or NaN, count as 0; the first one on a tie). Shapes: pattern [T, T], labels [T]."""
    received = np.nansum(np.asarray(pattern, dtype=np.float64), axis=0)
    return labels[int(np.argmax(received))]


def sentence(
    lang: str, before: Mapping[str, object], after: Mapping[str, object], head: int, token: str
) -> str:
    """What changed from ``before`` to ``after`` (the settings, keyed like the URL), then what
    the shown head looks at now, in ``lang``."""
    text = TEXT[lang]
    changes = []
    for name in ORDER:
        if name in after and before.get(name) != after[name]:
            if name == "causal":
                changes.append(text["causal_on" if after[name] else "causal_off"])
            else:
                changes.append(text[name].format(value=after[name]))
    return text["sentence"].format(changes=", ".join(changes), head=head, token=token)


def announce(
    lang: str,
    settings: Mapping[str, object],
    head: int,
    pattern: np.ndarray,
    labels: Sequence[str],
) -> dict[str, object]:
    """What the live region holds after this run: ``{"text": sentence, "count": n}``.
    ``settings``: what decides the numbers (seed, d_model, n_heads, text, causal, embeddings,
    head); a visit's first run says nothing, a run whose settings differ from the last one's
    says what changed (the count goes up by one), one that changes nothing keeps the last
    sentence and its count, so it is not said again. Shapes: pattern [T, T], labels [T]."""
    ss = st.session_state
    now = dict(settings)
    last = ss.get(STATE)
    if last is None:
        count, said = 0, ""
    elif last[0] == now:
        _, count, said = last
    else:
        count = last[1] + 1
        said = sentence(lang, last[0], now, head, most_looked_at(pattern, labels))
    ss[STATE] = (now, count, said)
    return {"text": said, "count": count}


def announce_lab(lang: str, lab: Lab, text: str, causal: bool, head: int) -> dict[str, object]:
    """``announce`` with the lab's settings: the frame's one call, after the lab is computed."""
    cfg = lab.cfg
    settings = {"seed": cfg.seed, "d_model": cfg.d_model, "n_heads": cfg.n_heads, "text": text}
    settings |= {"causal": causal, "embeddings": cfg.embeddings, "head": head}
    return announce(lang, settings, head, lab.trace.heads[head].pattern, lab.labels)
