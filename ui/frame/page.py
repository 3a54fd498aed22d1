"""The frame: the first call of every page. Page config, navigation, shared controls, URL state.

Every control has a key, is bound to the URL (``bind="query-params"``) and persists for the session,
so a copied link reproduces the exact numbers and the values hold across pages. A bad value in the
URL is replaced by a valid one and the page says which and why. A page's own URL values are
declared to the frame (``ui.frame.url_values``) and repaired the same way.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitPageNotFoundError

import llm
from exercises import BY_PAGE, CELLS
from ui.draw.style import CHART_CSS, EDITOR_CSS
from ui.frame.controls import keep_in_link
from ui.frame.presenter import (
    PRESENT_CSS,
    SWITCH_CSS,
    base_address,
    class_link,
    link_params,
    show_qr,
)
from ui.frame.presenter import bar as presenter_bar
from ui.frame.url_check import (
    D_MODEL_MAX,
    DEFAULT_TEXT,
    SHARED_KEYS,
    check_url,
    default_heads,
    page_values,
)
from ui.frame.url_values import Sizes, Value
from ui.lab.compute import Lab, Setting, compute_lab
from ui.text import LANGS, pick, translator
from ui.text.common import TEXT
from ui.text.exercise import TEXT as TURN_TEXT
from ui.turn.progress import progress

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
    ("pages/8_depth.py", "page_depth", "chapter9"),
    ("pages/9_code.py", "page_code", "chapter9"),
    ("pages/10_learned.py", "page_learned", "beyond"),
]


@dataclass(frozen=True)
class Settings:
    """What the frame hands to a page: the validated settings and the traced sublayer."""

    lang: str
    text: str
    causal: bool
    head: int  # the head shown where one is shown, from 0
    lab: Lab
    phone: bool = False  # the browser says it is a phone: figures stack instead of side by side
    present: bool = False  # presenter mode: projector-sized type and cell numbers
    values: dict[str, object] = field(default_factory=dict)  # the page's own URL values, valid

    def value(self, name: str) -> object:
        """A page URL value declared to ``frame(..., values=...)``, repaired."""
        return self.values[name]

    @property
    def cfg(self) -> llm.AttentionConfig:
        return self.lab.cfg

    @property
    def setting(self) -> Setting:
        """The lab's setting, the key of ``ui.lab.compute``'s caches."""
        cfg = self.lab.cfg
        return Setting(self.text, cfg.d_model, cfg.n_heads, cfg.seed, self.causal, cfg.embeddings)

    def t(self, name: str, /, **values: object) -> str:
        """A frame text in the chosen language."""
        return pick(TEXT, self.lang, name, **values)


def _browser_lang() -> str:
    locale = st.context.locale or ""
    return "fr" if locale.lower().startswith("fr") else "en"


def on_a_phone() -> bool:
    """Whether the browser says it is a phone (``Mobi`` in its user agent, as phones' browsers
    send and tablets' do not). A figure cannot reflow to the screen's width as columns do.
    Read once a session: a browser keeps its user agent."""
    ss = st.session_state
    if "_phone" not in ss:
        try:
            agent = st.context.headers.get("User-Agent") or ""
        except Exception:  # no browser session (a bare script run): not a phone
            agent = ""
        ss["_phone"] = "Mobi" in agent
    return ss["_phone"]


def frame(page: str, values: tuple[Value, ...] = (), shared: bool = True) -> Settings:
    """Set up the page, draw the sidebar, check the URL and compute the trace.

    ``page`` is the page's text key (``"page_qkv"``, ..., ``"home"``); ``values`` declares the URL
    values the page itself owns (``ui.frame.url_values``: ``IntRange``, ``FloatRange``, ``Choice``,
    ``Flag``): a bad one is replaced by its default and reported with the shared ones, and the
    page reads the valid value as ``s.value(name)``. A page that reads none of the shared
    settings (``shared=False``: the learned-heads page has its own model) keeps them in the
    sidebar, and the link, in presenter mode too, where the bar would offer controls that change
    nothing on it.
    """
    ss = st.session_state
    present = _presenting()
    st.set_page_config(
        page_title="Attention Lab",
        page_icon="🔎",
        layout="wide",
        initial_sidebar_state="collapsed" if present else "auto",
    )
    # the charts' text colours in the light and the dark theme, the code editors' type, and the
    # presenter's look: one element
    st.html(CHART_CSS + EDITOR_CSS + (PRESENT_CSS if present else SWITCH_CSS))
    if "_url_checked" not in ss:
        # first run of a visit: the URL seeds the widgets; bad values are fixed on the next run,
        # when session state (no longer the URL) decides, so the corrected values reach the URL
        ss["_url_checked"] = True
        fixes, ss["_url_messages"] = check_url(_raw_lang() or _browser_lang(), values)
        if fixes:
            ss["_url_fixes"] = fixes
    elif "_url_fixes" in ss:
        ss.update(ss.pop("_url_fixes"))
        ss["_sync_url"] = True

    # above everything the page draws: the presenter's bar, or else the switch that opens it
    top = st.container() if present else st.container(key="present_switch")
    current = next(path for path, key, _ in PAGES if key == page)
    with st.sidebar:
        lang = _language_control()
        t = translator(TEXT, lang)
        st.header(t("settings"), anchor=False)
        # presenter mode: one row, drawn left to right: previous page, the four controls,
        # next page, the QR code (filled in once the settings are known), the switch
        bar = presenter_bar(top) if present else None
        if bar is not None:
            _neighbour(bar, t, current, -1)
        text, cfg, causal, head = _controls(t, bar if shared else None)
        summary = st.container()
        pages = st.container()  # the page list, under the settings it would push off the screen
    _navigation(pages, t, lang)
    if bar is not None:
        _neighbour(bar, t, current, +1)
        qr_box = bar.popover(t("qr"), icon=":material/qr_code_2:")
    switch = bar if bar is not None else top
    switch.toggle(
        t("present_short" if bar else "present"),
        value=False,
        help=t("present_help"),
        key="present",
        bind="query-params",
        persist_state="session",
    )

    if "_url_fixes" in ss or ss.pop("_sync_url", False):
        # a value the app sets on a URL-bound widget reaches the address bar one run late in
        # Streamlit 1.67: one more run right away keeps the link equal to what the page shows
        st.rerun()
    # the report of a link's repaired values stays while this page shows the settings it
    # repaired (a component answering after the page is drawn reruns it at once), and goes
    # with the first change or another page
    shown = (page, *(ss.get(key) for key in SHARED_KEYS))
    if messages := ss.pop("_url_messages", []):
        ss["_url_report"] = (shown, messages)
    if (report := ss.get("_url_report")) is not None and report[0] != shown:
        del ss["_url_report"]
    elif report is not None:
        st.warning(
            "\n".join([pick(TEXT, lang, "fixed_title"), *(f"- {m}" for m in report[1])]),
            icon=":material/warning:",
        )
    try:
        lab = compute_lab(Setting(text, cfg.d_model, cfg.n_heads, cfg.seed, causal, cfg.embeddings))
    except llm.LabError as err:
        st.error(pick(TEXT, lang, f"err_{err.code}", **err.params), icon=":material/error:")
        st.stop()
    n_tokens = len(lab.tokens)
    tokens = t("one_token") if n_tokens == 1 else t("tokens", t=n_tokens)
    summary.caption(
        t(
            "summary",
            tokens=tokens,
            d_model=cfg.d_model,
            n_heads=cfg.n_heads,
            d_head=cfg.d_head,
            seed=cfg.seed,
        )
        + "\n\n"
        + t("share")
    )
    sizes = Sizes(n_tokens=n_tokens, d_model=cfg.d_model, n_heads=cfg.n_heads)
    mine = page_values(values, sizes, lang)
    if bar is not None:
        own = {
            v.name: v.label(mine[v.name]) for v in values if mine[v.name] != v.default_for(sizes)
        }
        link = class_link(
            base_address(st.context.url, st.context.headers, "/" + _slug(current)),
            link_params(lang, text, cfg, causal, head, own),
        )
        show_qr(qr_box, link, t("qr_caption"), t("qr_too_long"))
    return Settings(
        lang=lang,
        text=text,
        causal=causal,
        head=head,
        lab=lab,
        phone=on_a_phone(),
        present=present,
        values=mine,
    )


def _slug(path: str) -> str:
    """The URL path of a page file: pages/4_mix.py -> mix, app.py -> "" (the home page)."""
    return path.removesuffix(".py").partition("_")[2]


def _presenting() -> bool:
    """Presenter mode, known before its switch is drawn: the session's value, else the link's."""
    ss = st.session_state
    if "present" in ss:
        return bool(ss["present"])
    return st.query_params.get("present") == "true"


def _neighbour(bar: DeltaGenerator, t: Callable[..., str], current: str, step: int) -> None:
    """The page ``step`` away from this one (-1: previous, +1: next) as a link in the bar."""
    paths = [path for path, _, _ in PAGES]
    j = paths.index(current) + step
    if 0 <= j < len(PAGES):
        path, key, _ = PAGES[j]
        number = t(key).partition(". ")[0]  # "3" of "3. Scale, mask, softmax"; "Home"
        icon = ":material/arrow_back:" if step < 0 else ":material/arrow_forward:"
        try:
            bar.page_link(path, label=number, icon=icon, help=t(key))
        except StreamlitPageNotFoundError:  # a page run on its own has no page list
            bar.caption(t(key))


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


def _navigation(box: DeltaGenerator, t: Callable[..., str], lang: str) -> None:
    group = None
    done = progress()
    for path, key, page_group in PAGES:
        if page_group != group and page_group is not None:
            box.caption(t(page_group))
            group = page_group
        cell = BY_PAGE.get(_slug(path))
        label = t(key) + (" ✓" if cell is not None and cell.id in done else "")
        try:
            box.page_link(path, label=label)
        except StreamlitPageNotFoundError:
            # a page script run on its own (AppTest opening a page file) has no page list
            box.caption(label)
    box.caption(pick(TURN_TEXT, lang, "progress", done=len(done), total=len(CELLS)))


def _apply_preset(name: str) -> None:
    st.session_state.update(PRESETS[name])
    st.session_state["text"] = DEFAULT_TEXT
    st.session_state["head"] = 0
    st.session_state["_sync_url"] = True


def _new_seed() -> None:
    st.session_state["seed"] = secrets.randbelow(llm.MAX_SEED + 1)
    st.session_state["_sync_url"] = True


def _controls(
    t: Callable[..., str], bar: DeltaGenerator | None
) -> tuple[str, llm.AttentionConfig, bool, int]:
    """The shared controls, in the sidebar (called inside it). In presenter mode the four a
    teacher moves in class go to the bar at the top, and the switch goes with them."""
    ss = st.session_state
    bound = {"bind": "query-params", "persist_state": "session"}
    side = st.container()
    short = "_short" if bar else ""  # the bar's labels are a word each
    presets = bar or side
    if bar is None:
        presets.caption(t("presets"))
    columns = [presets, presets] if bar else presets.columns(2)
    for column, name, text_key in zip(columns, PRESETS, ("preset8", "preset9"), strict=True):
        column.button(
            t(f"{text_key}{short}"),
            help=t(f"{text_key}_help"),
            on_click=_apply_preset,
            args=(name,),
            key=f"preset_{name}",
        )

    d_model = (bar or side).slider(
        t(f"d_model{short}"),
        2,
        D_MODEL_MAX,
        value=8,
        key="d_model",
        width=200 if bar else "stretch",
        **bound,
    )
    options = llm.divisors(d_model)
    if ss.get("n_heads") is not None and ss["n_heads"] not in options:
        ss["n_heads"] = default_heads(d_model)
        ss["_sync_url"] = True
    n_heads = (bar or side).selectbox(
        t(f"n_heads{short}"),
        options,
        index=options.index(default_heads(d_model)),
        help=t("n_heads_help"),
        key="n_heads",
        width=100 if bar else "stretch",
        **bound,
    )
    seed = (bar or side).number_input(
        t(f"seed{short}"),
        0,
        llm.MAX_SEED,
        value=0,
        step=1,
        help=t("seed_help"),
        key="seed",
        width=140 if bar else "stretch",
        **bound,
    )
    # in the sidebar on a line of its own: beside the seed it would have room for two letters
    (bar or side).button(
        t("new_seed") if bar is None else "",
        help=t("new_seed"),
        on_click=_new_seed,
        icon=":material/casino:",
        key="new_seed",
    )
    text = st.text_input(
        t("text"),
        value=DEFAULT_TEXT,
        max_chars=llm.MAX_CHARS,
        help=t("text_help", max_tokens=llm.MAX_TOKENS),
        key="text",
        **bound,
    )
    causal = st.toggle(t("causal"), value=True, key="causal", **bound)
    # the hand-made table only exists in 4-D: elsewhere "seeded" is the only choice, so a link
    # asking for handmade with another d_model is refused like any invalid option. Both choices
    # stay on show (the radio greyed out where one is possible), so the sidebar says what the
    # other one is and when it opens
    kinds = list(llm.EMBEDDINGS)
    allowed = kinds if d_model == llm.HANDMADE_D_MODEL else ["seeded"]
    if ss.get("embeddings") is not None and ss["embeddings"] not in allowed:
        ss["embeddings"] = "seeded"
        ss["_sync_url"] = True
    # not bound to the URL: its label is translated, the link keeps the value's id (keep_in_link)
    if "embeddings" not in ss:  # a visit's first run: the link's value (check_url checked it)
        linked = st.query_params.get("embeddings")
        ss["embeddings"] = linked if linked in allowed else "seeded"
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
    heads = list(range(n_heads))
    if ss.get("head") is not None and ss["head"] not in heads:
        ss["head"] = 0
        ss["_sync_url"] = True
    head = st.selectbox(t("head"), heads, key="head", **bound)
    cfg = llm.AttentionConfig(
        d_model=d_model, n_heads=n_heads, seed=int(seed), embeddings=embeddings
    )
    return text, cfg, causal, head
