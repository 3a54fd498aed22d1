"""The shared settings: the controls every lesson reads (sentence, sizes, seed, mask, head,
embeddings) and the presets, shown only where a page uses them, and kept in the link where not.

A page names the settings that act on it (``frame(..., uses=...)``). A setting is a widget, bound
to the URL and kept for the session, in the same place on every page; one a page does not use is
hidden there (``unused_css``), so that its value stays in the link and a lesson page opened next
from here shows the class's numbers. The widgets are the app's, not a page's (``ui.frame.page``),
and stay where they are from page to page: Streamlit's browser side drops the URL binding of a
widget it draws anew in another place.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import llm
from ui.frame.controls import keep_in_link
from ui.frame.url_check import D_MODEL_MAX, DEFAULT_TEXT, default_heads

PRESETS: dict[str, dict[str, object]] = {
    "chapter8": {"d_model": 4, "n_heads": 1, "embeddings": "handmade", "seed": 0, "causal": True},
    "chapter9": {"d_model": 8, "n_heads": 4, "embeddings": "seeded", "seed": 0, "causal": True},
}
# every shared setting a page may use, in the sidebar's order; the default of ``frame(uses=)``
SHARED: tuple[str, ...] = ("d_model", "n_heads", "seed", "text", "causal", "embeddings", "head")
BOUND = {"bind": "query-params", "persist_state": "session"}
# the element keys of each setting's widgets (the seed's button with it)
KEYS = {name: (name,) for name in SHARED} | {"seed": ("seed", "new_seed")}
# the sidebar's box of the settings' title, the presets and the sizes and seed: hidden where a
# page uses no setting
SIDE = "settings"


def unused_css(uses: Collection[str]) -> str:
    """The style that hides the settings a page does not use (``<style id="unused-settings">``),
    and their whole box, title included, where it uses none; empty where a page uses them all."""
    unused = [key for name in SHARED if name not in uses for key in KEYS[name]]
    if not unused:
        return ""
    box = ""
    if not uses:
        unused.append(SIDE)
        box = f'[data-testid="stLayoutWrapper"]:has(> .st-key-{SIDE}), '
    keys = ", ".join(f".st-key-{key}" for key in unused)
    return f'<style id="unused-settings">{box}{keys} {{ display: none; }}</style>'


@dataclass(frozen=True)
class Shared:
    """The shared settings' values, drawn or kept: what the lab is computed from."""

    text: str
    cfg: llm.AttentionConfig
    causal: bool
    head: int


def shared_controls(
    t: Callable[..., str], bar: DeltaGenerator | None, uses: Collection[str]
) -> Shared:
    """The shared controls, in the sidebar (called inside it) under their title. In presenter
    mode the four a teacher moves in class (presets, d_model, heads, seed) go to the bar at the
    top. Every one is drawn in its place on every page, those a page does not use hidden
    (``unused_css``): a widget the browser draws in another place than on the page before
    loses its binding to the link, and the next page's link lost its value. The presets and the
    embeddings, which no link binds, leave an empty slot where a page does not use them."""
    side = st.container(key=SIDE)  # one box in presenter mode too: what follows keeps its place
    side.header(t("settings"), anchor=False)
    box = bar or side
    _presets(t, box, bar is not None, bool(uses))
    d_model = _d_model(t, box, bar is not None)
    n_heads = _n_heads(t, box, bar is not None, d_model)
    seed = _seed(t, box, bar is not None)
    text = _text(t)
    causal = _causal(t)
    embeddings = _embeddings(t, d_model, "embeddings" in uses)
    head = _head(t, n_heads)
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, embeddings=embeddings)
    return Shared(text=text, cfg=cfg, causal=causal, head=head)


def _apply_preset(name: str) -> None:
    st.session_state.update(PRESETS[name])
    st.session_state["text"] = DEFAULT_TEXT
    st.session_state["head"] = 0
    st.session_state["_sync_url"] = True


def _new_seed() -> None:
    st.session_state["seed"] = secrets.randbelow(llm.MAX_SEED + 1)
    st.session_state["_sync_url"] = True


def _presets(t: Callable[..., str], box: DeltaGenerator, in_bar: bool, shown: bool) -> None:
    """The chapters' two presets: a caption and two buttons side by side, or two buttons with a
    short label each in the bar; where not ``shown`` (a page that uses no setting), an empty
    slot in place of each of those two elements."""
    if not shown:
        box.empty()
        box.empty()
        return
    short = "_short" if in_bar else ""  # the bar's labels are a word each
    if not in_bar:
        box.caption(t("presets"))
    # in the sidebar side by side in one row (one element, where columns are three)
    row = box if in_bar else box.container(horizontal=True, gap="small")
    for name, text_key in zip(PRESETS, ("preset8", "preset9"), strict=True):
        row.button(
            t(f"{text_key}{short}"),
            help=t(f"{text_key}_help"),
            on_click=_apply_preset,
            args=(name,),
            key=f"preset_{name}",
        )


def _d_model(t: Callable[..., str], box: DeltaGenerator, in_bar: bool) -> int:
    """The d_model slider."""
    return box.slider(
        t("d_model_short" if in_bar else "d_model"),
        2,
        D_MODEL_MAX,
        value=8,
        key="d_model",
        width=200 if in_bar else "stretch",
        **BOUND,
    )


def _n_heads(t: Callable[..., str], box: DeltaGenerator, in_bar: bool, d_model: int) -> int:
    """The head count among d_model's divisors; a count d_model no longer allows falls back to
    the default one."""
    ss = st.session_state
    options = llm.divisors(d_model)
    if ss.get("n_heads") is not None and ss["n_heads"] not in options:
        ss["n_heads"] = default_heads(d_model)
        ss["_sync_url"] = True
    return box.selectbox(
        t("n_heads_short" if in_bar else "n_heads"),
        options,
        index=options.index(default_heads(d_model)),
        help=t("n_heads_help"),
        key="n_heads",
        width=100 if in_bar else "stretch",
        **BOUND,
    )


def _seed(t: Callable[..., str], box: DeltaGenerator, in_bar: bool) -> int:
    """The seed, and the button that draws a new one."""
    seed = box.number_input(
        t("seed_short" if in_bar else "seed"),
        0,
        llm.MAX_SEED,
        value=0,
        step=1,
        help=t("seed_help"),
        key="seed",
        width=140 if in_bar else "stretch",
        **BOUND,
    )
    # in the sidebar on a line of its own: beside the seed it would have room for two letters;
    # in the bar its name is read, not shown (PRESENT_CSS): the die alone
    box.button(
        t("new_seed"),
        help=t("new_seed"),
        on_click=_new_seed,
        icon=":material/casino:",
        key="new_seed",
    )
    return int(seed)


def _text(t: Callable[..., str]) -> str:
    """The sentence."""
    return st.text_input(
        t("text"),
        value=DEFAULT_TEXT,
        max_chars=llm.MAX_CHARS,
        help=t("text_help", max_tokens=llm.MAX_TOKENS),
        key="text",
        **BOUND,
    )


def _causal(t: Callable[..., str]) -> bool:
    """The causal mask's switch."""
    return st.toggle(t("causal"), value=True, key="causal", **BOUND)


def _embeddings(t: Callable[..., str], d_model: int, drawn: bool) -> str:
    """The embeddings, seeded or the chapter's hand-made table, which only exists in 4-D:
    elsewhere "seeded" is the only choice, so a link asking for handmade with another d_model
    is refused like any invalid option. Both choices stay on show (the radio greyed out where
    one is possible), so the sidebar says what the other one is and when it opens."""
    ss = st.session_state
    kinds = list(llm.EMBEDDINGS)
    allowed = kinds if d_model == llm.HANDMADE_D_MODEL else ["seeded"]
    if ss.get("embeddings") is not None and ss["embeddings"] not in allowed:
        ss["embeddings"] = "seeded"
        ss["_sync_url"] = True
    # not bound to the URL: its label is translated, the link keeps the value's id (keep_in_link)
    if "embeddings" not in ss:  # a visit's first run: the link's value (check_url checked it)
        linked = st.query_params.get("embeddings")
        ss["embeddings"] = linked if linked in allowed else "seeded"
    if not drawn:  # an empty slot: the head's selectbox after it keeps its place
        st.empty()
        keep_in_link("embeddings", ss["embeddings"], "seeded")
        return ss["embeddings"]
    embeddings = st.radio(
        t("embeddings"),
        kinds,
        format_func=lambda kind: t(f"emb_name_{kind}"),
        captions=[t(f"emb_{e}") for e in kinds],
        key="embeddings",
        persist_state="session",
        disabled=len(allowed) == 1,
    )
    keep_in_link("embeddings", embeddings, "seeded")
    return embeddings


def _head(t: Callable[..., str], n_heads: int) -> int:
    """The head shown where one is shown; one past the head count falls back to head 0."""
    ss = st.session_state
    heads = list(range(n_heads))
    if ss.get("head") is not None and ss["head"] not in heads:
        ss["head"] = 0
        ss["_sync_url"] = True
    return st.selectbox(t("head"), heads, key="head", **BOUND)
