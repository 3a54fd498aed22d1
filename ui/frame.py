"""The frame: the first call of every page. Page config, navigation, shared controls, URL state.

Every control has a key, is bound to the URL (``bind="query-params"``) and persists for the session,
so a copied link reproduces the exact numbers and the values hold across pages. A bad value in the
URL is replaced by a valid one and the page says which and why.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

import llm
from llm.exercises import BY_PAGE, CELLS
from ui.compute import Lab, compute_lab
from ui.exercise import solved
from ui.style import CHART_CSS
from ui.text import LANGS, md_escape, pick, translator
from ui.text.common import TEXT
from ui.text.exercise import TEXT as TURN_TEXT

DEFAULT_TEXT = "the cat sat on mat"
D_MODEL_MAX = 64  # the slider's top: 64 features still fit a readable table
DEFAULTS: dict[str, object] = {
    "text": DEFAULT_TEXT,
    "d_model": 8,
    "n_heads": 4,
    "seed": 0,
    "causal": True,
    "embeddings": "seeded",
    "head": 0,
}
PRESETS: dict[str, dict[str, object]] = {
    "chapter8": {"d_model": 4, "n_heads": 1, "embeddings": "handmade", "seed": 0, "causal": True},
    "chapter9": {"d_model": 8, "n_heads": 4, "embeddings": "seeded", "seed": 0, "causal": True},
}
# (file, text key, group); the URL of pages/N_slug.py is /slug
PAGES: list[tuple[str, str, str | None]] = [
    ("app.py", "home", None),
    ("pages/1_qkv.py", "page_qkv", "chapter8"),
    ("pages/2_scores.py", "page_scores", "chapter8"),
    ("pages/3_softmax.py", "page_softmax", "chapter8"),
    ("pages/4_mix.py", "page_mix", "chapter8"),
    ("pages/5_heads.py", "page_heads", "chapter9"),
    ("pages/6_concat.py", "page_concat", "chapter9"),
    ("pages/7_layernorm.py", "page_layernorm", "chapter9"),
    ("pages/8_code.py", "page_code", "chapter9"),
]
SHARED_KEYS = ("text", "d_model", "n_heads", "seed", "causal", "embeddings", "head", "lang")


@dataclass(frozen=True)
class Settings:
    """What the frame hands to a page: the validated settings and the traced sublayer."""

    lang: str
    text: str
    causal: bool
    head: int  # the head shown where one is shown, from 0
    lab: Lab

    @property
    def cfg(self) -> llm.AttentionConfig:
        return self.lab.cfg

    def t(self, name: str, /, **values: object) -> str:
        """A frame text in the chosen language."""
        return pick(TEXT, self.lang, name, **values)


def _browser_lang() -> str:
    locale = st.context.locale or ""
    return "fr" if locale.lower().startswith("fr") else "en"


def on_a_phone() -> bool:
    """Whether the browser says it is a phone (``Mobi`` in its user agent, as phones' browsers
    send and tablets' do not). A figure cannot reflow to the screen's width as columns do."""
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # no browser session (a bare script run): not a phone
        return False
    return "Mobi" in agent


def frame(page: str, extra_keys: tuple[str, ...] = ()) -> Settings:
    """Set up the page, draw the sidebar, check the URL and compute the trace.

    ``page`` is the page's text key (``"page_qkv"``, ..., ``"home"``); ``extra_keys`` are the URL
    parameters the page itself owns (they are not reported as unknown).
    """
    st.set_page_config(page_title="Attention Lab", page_icon="🔎", layout="wide")
    st.html(CHART_CSS)  # the charts' text colours in the light and the dark theme
    ss = st.session_state
    if "_url_checked" not in ss:
        # first run of a visit: the URL seeds the widgets; bad values are fixed on the next run,
        # when session state (no longer the URL) decides, so the corrected values reach the URL
        ss["_url_checked"] = True
        fixes, ss["_url_messages"] = _check_url(
            _raw_lang() or _browser_lang(), set(SHARED_KEYS) | set(extra_keys)
        )
        if fixes:
            ss["_url_fixes"] = fixes
    elif "_url_fixes" in ss:
        ss.update(ss.pop("_url_fixes"))
        ss["_sync_url"] = True

    with st.sidebar:
        lang = _language_control()
        t = translator(TEXT, lang)
        _navigation(t, lang)
        st.header(t("settings"), anchor=False)
        text, cfg, causal, head = _controls(t)

    if "_url_fixes" in ss or ss.pop("_sync_url", False):
        # a value the app sets on a URL-bound widget reaches the address bar one run late in
        # Streamlit 1.67: one more run right away keeps the link equal to what the page shows
        st.rerun()
    messages = ss.pop("_url_messages", [])
    if messages:
        st.warning(
            "\n".join([pick(TEXT, lang, "fixed_title"), *(f"- {m}" for m in messages)]),
            icon=":material/warning:",
        )
    try:
        lab = compute_lab(text, cfg.d_model, cfg.n_heads, cfg.seed, causal, cfg.embeddings)
    except llm.LabError as err:
        st.error(pick(TEXT, lang, f"err_{err.code}", **err.params), icon=":material/error:")
        st.stop()
    st.sidebar.caption(
        t(
            "summary",
            t=len(lab.tokens),
            d_model=cfg.d_model,
            n_heads=cfg.n_heads,
            d_head=cfg.d_head,
            seed=cfg.seed,
        )
    )
    st.sidebar.caption(t("share"))
    return Settings(lang=lang, text=text, causal=causal, head=head, lab=lab)


def _raw_lang() -> str | None:
    value = st.query_params.get("lang")
    return value if value in LANGS else None


def _language_control() -> str:
    return st.segmented_control(
        "Language · Langue",
        options=list(LANGS),
        default=_browser_lang(),
        key="lang",
        bind="query-params",
        persist_state="session",
        required=True,
    )


def _navigation(t: Callable[..., str], lang: str) -> None:
    group = None
    done = solved()
    for path, key, page_group in PAGES:
        if page_group != group and page_group is not None:
            st.caption(t(page_group))
            group = page_group
        cell = BY_PAGE.get(path.removesuffix(".py").partition("_")[2])
        label = t(key) + (" ✓" if cell is not None and cell.id in done else "")
        try:
            st.page_link(path, label=label)
        except StreamlitPageNotFoundError:
            # a page script run on its own (AppTest opening a page file) has no page list
            st.caption(label)
    st.caption(pick(TURN_TEXT, lang, "progress", done=len(done), total=len(CELLS)))


def _apply_preset(name: str) -> None:
    st.session_state.update(PRESETS[name])
    st.session_state["text"] = DEFAULT_TEXT
    st.session_state["head"] = 0
    st.session_state["_sync_url"] = True


def _new_seed() -> None:
    st.session_state["seed"] = secrets.randbelow(llm.MAX_SEED + 1)
    st.session_state["_sync_url"] = True


def _controls(t: Callable[..., str]) -> tuple[str, llm.AttentionConfig, bool, int]:
    ss = st.session_state
    bound = {"bind": "query-params", "persist_state": "session"}
    st.caption(t("presets"))
    left, right = st.columns(2)
    left.button(t("preset8"), help=t("preset8_help"), on_click=_apply_preset, args=("chapter8",))
    right.button(t("preset9"), help=t("preset9_help"), on_click=_apply_preset, args=("chapter9",))

    text = st.text_input(
        t("text"),
        value=DEFAULT_TEXT,
        max_chars=llm.MAX_CHARS,
        help=t("text_help", max_tokens=llm.MAX_TOKENS),
        key="text",
        **bound,
    )
    d_model = st.slider(t("d_model"), 2, D_MODEL_MAX, value=8, key="d_model", **bound)
    options = llm.divisors(d_model)
    if ss.get("n_heads") is not None and ss["n_heads"] not in options:
        ss["n_heads"] = default_heads(d_model)
        ss["_sync_url"] = True
    n_heads = st.selectbox(
        t("n_heads"),
        options,
        index=options.index(default_heads(d_model)),
        help=t("n_heads_help"),
        key="n_heads",
        **bound,
    )
    seed = st.number_input(
        t("seed"), 0, llm.MAX_SEED, value=0, step=1, help=t("seed_help"), key="seed", **bound
    )
    # on a line of its own: beside the seed, the sidebar left it room for two letters
    st.button(t("new_seed"), on_click=_new_seed, icon=":material/casino:")
    causal = st.toggle(t("causal"), value=True, key="causal", **bound)
    # the hand-made table only exists in 4-D: elsewhere "seeded" is the only choice, so a link
    # asking for handmade with another d_model is refused like any invalid option
    kinds = list(llm.EMBEDDINGS) if d_model == llm.HANDMADE_D_MODEL else ["seeded"]
    if ss.get("embeddings") is not None and ss["embeddings"] not in kinds:
        ss["embeddings"] = "seeded"
        ss["_sync_url"] = True
    embeddings = st.radio(
        t("embeddings"),
        kinds,
        captions=[t(f"emb_{e}") for e in kinds],
        key="embeddings",
        **bound,
    )
    heads = list(range(n_heads))
    if ss.get("head") is not None and ss["head"] not in heads:
        ss["head"] = 0
        ss["_sync_url"] = True
    head = st.selectbox(t("head"), heads, key="head", **bound)
    cfg = llm.AttentionConfig(
        d_model=d_model, n_heads=n_heads, seed=int(seed), embeddings=embeddings
    )
    return text, cfg, causal, head


def default_heads(d_model: int) -> int:
    """The head count a d_model starts with: 4 when it divides d_model, else the largest divisor
    below 4 (so a URL without ``n_heads`` always means this value)."""
    return max(h for h in llm.divisors(d_model) if h <= 4)


def _parse_int(key: str, raw: str, low: int, high: int, used: int, t: Callable[..., str]):
    """(value, None) for a whole number in [low, high], else (None, message)."""
    try:
        value = int(raw.strip())
    except ValueError:
        return None, t("bad_int", key=key, value=_short(raw), used=used)
    if not low <= value <= high:
        return None, t("bad_range", key=key, value=value, low=low, high=high, used=used)
    return value, None


def _short(raw: str, limit: int = 40) -> str:
    """A raw URL value cut to a readable length for a message (shown as text, never HTML)."""
    return md_escape(raw if len(raw) <= limit else raw[:limit] + "…")


def _check_url(lang: str, known: set[str]) -> tuple[dict[str, object], list[str]]:
    """Check the raw URL values of a first visit: (corrected values, one message per fix).

    A corrected value is the widget's default wherever possible, so that the URL without that
    parameter and the page show the same numbers.
    """
    t = translator(TEXT, lang)
    raw = st.query_params.to_dict()
    fixes: dict[str, object] = {}
    messages: list[str] = []

    def fix(key: str, value: object, message: str) -> None:
        fixes[key] = value
        messages.append(message)

    for key in sorted(set(raw) - known):
        messages.append(t("bad_unknown", key=_short(key)))
        del st.query_params[key]

    d_model = DEFAULTS["d_model"]
    if "d_model" in raw:
        value, message = _parse_int("d_model", raw["d_model"], 2, D_MODEL_MAX, d_model, t)
        if message:
            fix("d_model", d_model, message)
        else:
            d_model = value
    n_heads = default_heads(d_model)
    if "n_heads" in raw:
        value, message = _parse_int("n_heads", raw["n_heads"], 1, llm.MAX_HEADS, n_heads, t)
        if message:
            fix("n_heads", n_heads, message)
        elif d_model % value:
            options = ", ".join(map(str, llm.divisors(d_model)))
            fix(
                "n_heads",
                n_heads,
                t("bad_heads", value=value, d_model=d_model, options=options, used=n_heads),
            )
        else:
            n_heads = value
    if "head" in raw:
        value, message = _parse_int("head", raw["head"], 0, llm.MAX_HEADS - 1, 0, t)
        if message:
            fix("head", 0, message)
        elif value >= n_heads:
            fix("head", 0, t("bad_head", value=value, n_heads=n_heads, used=0))
    if "seed" in raw:
        value, message = _parse_int("seed", raw["seed"], 0, llm.MAX_SEED, 0, t)
        if message:
            fix("seed", 0, message)
    for key, options in (
        ("causal", ("true", "false")),
        ("lang", LANGS),
        ("embeddings", llm.EMBEDDINGS),
    ):
        if key in raw and raw[key] not in options:
            used = {"causal": "true", "lang": lang, "embeddings": "seeded"}[key]
            value = {"causal": True, "lang": lang, "embeddings": "seeded"}[key]
            fix(
                key,
                value,
                t(
                    "bad_choice",
                    key=key,
                    value=_short(raw[key]),
                    options=", ".join(options),
                    used=used,
                ),
            )
    if raw.get("embeddings") == "handmade" and d_model != llm.HANDMADE_D_MODEL:
        fix("embeddings", "seeded", t("bad_handmade", value=d_model))
    if "text" in raw:
        try:
            llm.tokenize(raw["text"])
        except llm.LabError as err:
            why = pick(TEXT, lang, f"err_{err.code}", **err.params)
            fix("text", DEFAULT_TEXT, t("bad_text", why=why.rstrip("."), used=DEFAULT_TEXT))
    return fixes, messages
