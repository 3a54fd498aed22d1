"""The frame: the first call of every page. Page config, navigation, shared controls, URL state.

Every control has a key, is bound to the URL (``bind="query-params"``) and persists for the session,
so a copied link reproduces the exact numbers and the values hold across pages. A bad value in the
URL is replaced by a valid one and the page says which and why. A page's own URL values are
declared to the frame (``ui.frame.url_values``) and repaired the same way, and a page names the
shared settings that act on it (``uses``): only those are shown (``ui.frame.shared``). The sidebar
and presenter mode's bar are the app's, not the page's (``_app_wide``), so the browser's history
holds one step per page and its Back and Forward read the settings from the link.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx

import llm
from ui import classroom
from ui.draw.bars_markup import BARS_CSS
from ui.draw.heatmap_table import HEATMAP_CSS
from ui.draw.markup import Markup
from ui.draw.style import CHART_CSS, EDITOR_CSS
from ui.draw.tables import TABLE_CSS
from ui.frame.components.announce import announce_lab
from ui.frame.components.page_lang import page_lang
from ui.frame.heap import freeze_imports
from ui.frame.navigation import PAGES, navigation, neighbour, neighbour_names, page_file, slug
from ui.frame.presenter import (
    PRESENT_CSS,
    SWITCH_CSS,
    base_address,
    class_link,
    link_params,
    show_qr,
)
from ui.frame.presenter import bar as presenter_bar
from ui.frame.reflow import REFLOW_CSS
from ui.frame.shared import PRESETS, SHARED, Shared, shared_controls, unused_css
from ui.frame.url_check import SHARED_KEYS, check_url, page_values
from ui.frame.url_values import Sizes, Value
from ui.frame.widget_state import lookup_own_key
from ui.lab.compute import Lab, Setting, compute_lab
from ui.text import LANGS, pick, translator
from ui.text.common import TEXT
from ui.turn.progress import STORE_CSS, progress

__all__ = ["PAGES", "PRESETS", "SHARED", "Settings", "frame", "on_a_phone"]


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


# the presenter switch (fixed at the top right) and the document's language and live region (no
# height of their own) leave the page's flow, in a box of one pixel that widens nothing on a
# phone: each would cost the column one gap (16 px) above the page's first element
OUT_OF_FLOW_CSS = """<style>
[data-testid="stLayoutWrapper"]:has(> :is(.st-key-present_switch, .st-key-unseen)) {
  position: absolute; width: 1px; height: 1px; overflow: hidden; }
</style>"""
# a rerun leaves the column where the reader is: the browser's scroll anchoring, which follows
# one element across a change, lost it as the run replaced the charts, and a student following
# the teacher, reading halfway down the page, was moved 1 100 to 1 400 px by a new seed (one
# run in three); without it the column keeps its scroll, and only a change of height above the
# screen (a larger d_model) moves what is in view, by that height
STEADY_CSS = '<style>[data-testid="stMain"] { overflow-anchor: none; }</style>'


def frame(page: str, values: tuple[Value, ...] = (), uses: Collection[str] = SHARED) -> Settings:
    """Set up the page, draw the sidebar, check the URL and compute the trace.

    ``page`` is the page's text key (``"page_qkv"``, ..., ``"home"``); ``values`` declares the URL
    values the page itself owns (``ui.frame.url_values``: ``IntRange``, ``FloatRange``, ``Choice``,
    ``Flag``): a bad one is replaced by its default and reported with the shared ones, and the
    page reads the valid value as ``s.value(name)``. ``uses`` names the shared settings that act
    on the page (``ui.frame.shared.SHARED``, all of them by default): only those are shown, in the
    sidebar and in presenter mode's bar; the others are hidden in their place, their values kept
    in the session and the link (the learned-heads page has its own model: ``uses=()``).
    """
    lookup_own_key()
    freeze_imports()
    current = page_file(page)
    present = _presenting()
    st.set_page_config(
        page_title="Attention Lab",
        page_icon="🔎",
        layout="wide",
        initial_sidebar_state="collapsed" if present else "auto",
    )
    # the charts' text colours in the light and the dark theme, the code editors' type, the
    # hidden browser store, and the presenter's look: one element
    st.html(_style(tuple(uses), present))
    _check_link(values)
    classroom.arrive(current, values, _path_of)  # a followed teacher's change, before any control
    with _app_wide():  # the sidebar and presenter mode's bar: the app's, on every page
        lang, shared, summary, bar = _sidebar(current, present, uses)
    hidden = st.container(key="unseen")  # the document's language and title, the live region
    t = translator(TEXT, lang)
    _url_report(page, lang)
    lab = _lab(shared, lang)
    with hidden:  # one element: the document's language and title, and the live region's words
        said = (
            announce_lab(lang, lab, shared.text, shared.causal, shared.head)
            if lab is not None
            else None
        )
        page_lang(lang, t(page), neighbour_names(t, current) if present else None, said)
    if lab is None:  # a setting llm refuses: the page said why and stops there
        st.stop()
    summary.caption(_summary(t, lab) + "\n\n" + t("share") if uses else t("share"))
    sizes = Sizes(n_tokens=len(lab.tokens), d_model=lab.cfg.d_model, n_heads=lab.cfg.n_heads)
    mine = page_values(values, sizes, lang)
    labels = {v.name: v.label(mine[v.name]) for v in values}
    classroom.in_class(lang, slug(current), current, _path_of, values, labels, bar and bar[1])
    if bar is not None:
        own = {v.name: labels[v.name] for v in values if mine[v.name] != v.default_for(sizes)}
        _class_qr(bar[0], t, lang, current, shared, own | classroom.class_link_params())
    return Settings(
        lang=lang,
        text=shared.text,
        causal=shared.causal,
        head=shared.head,
        lab=lab,
        phone=on_a_phone(),
        present=present,
        values=mine,
    )


@cache
def _style(uses: tuple[str, ...], present: bool) -> Markup:
    """The app's style on a page that uses ``uses``, in presenter mode or not: built once."""
    return Markup(
        CHART_CSS
        + TABLE_CSS
        + HEATMAP_CSS
        + BARS_CSS
        + EDITOR_CSS
        + STORE_CSS
        + unused_css(uses)
        + REFLOW_CSS
        + OUT_OF_FLOW_CSS
        + STEADY_CSS
        + (PRESENT_CSS if present else SWITCH_CSS)
    )


@contextmanager
def _app_wide() -> Iterator[None]:
    """Draw as the app's entry script rather than as this page, as Streamlit draws the elements
    of ``st.navigation``'s entry script: the shared controls have one identity on every page,
    and their URL binding is the app's. Streamlit 1.67 drops on a page change a URL value bound
    by another page: Back or Forward, or a sidebar link before the browser had sent its controls
    back, opened the page on the defaults, in English, and a move wrote three steps into the
    browser's history. Bound by the app, the link's settings hold across pages, Back and
    Forward read them from the link, and a move is one step of the history."""
    ctx = get_script_run_ctx()
    if ctx is None:  # a bare script run
        yield
        return
    with ctx.run_with_active_hash(ctx.pages_manager.main_script_hash):
        yield


def _check_link(values: tuple[Value, ...]) -> None:
    """A visit's first run checks the link; the next one applies its repairs.

    On the first run the URL seeds the widgets; bad values are fixed on the next run, when
    session state (no longer the URL) decides, so the corrected values reach the URL.
    """
    ss = st.session_state
    if "_url_checked" not in ss:
        ss["_url_checked"] = True
        fixes, ss["_url_messages"] = check_url(_raw_lang() or _browser_lang(), values)
        if fixes:
            ss["_url_fixes"] = fixes
    elif "_url_fixes" in ss:
        ss.update(ss.pop("_url_fixes"))
        ss["_sync_url"] = True


def _sidebar(
    current: str, present: bool, uses: Collection[str]
) -> tuple[str, Shared, DeltaGenerator, tuple[DeltaGenerator, DeltaGenerator] | None]:
    """The language, the shared controls (those the page uses shown), the summary's place and
    the page list; in presenter mode the bar at the top instead: (lang, settings, summary box,
    the bar's QR code box and its class box, or None).

    Presenter mode's bar is one row, drawn left to right: previous page, the controls, next
    page, the QR code (filled in once the settings are known), the class, the switch.
    """
    # above everything the page draws: the presenter's bar, or else the switch that opens it
    top = st.container() if present else st.container(key="present_switch")
    with st.sidebar:
        lang = _language_control()
        t = translator(TEXT, lang)
        bar = presenter_bar(top) if present else None
        if bar is not None:
            neighbour(bar, t, current, -1)
        shared = shared_controls(t, bar, uses)
        summary = st.container()
        pages = st.container()  # the page list, under the settings it would push off the screen
    navigation(pages, t, lang, current, progress())
    boxes = None
    if bar is not None:
        neighbour(bar, t, current, +1)
        qr_box = bar.popover(t("qr"), icon=":material/qr_code_2:")
        class_box = bar.container(
            horizontal=True, vertical_alignment="center", gap="xsmall", key="class_box"
        )
        boxes = (qr_box, class_box)
    _present_switch(bar if bar is not None else top, t, bar is not None)
    if "_url_fixes" in st.session_state or st.session_state.pop("_sync_url", False):
        # a value the app sets on a URL-bound widget reaches the address bar one run late in
        # Streamlit 1.67: one more run right away keeps the link equal to what the page shows
        st.rerun()
    return lang, shared, summary, boxes


def _present_switch(box: DeltaGenerator, t: Callable[..., str], in_bar: bool) -> None:
    """The presenter switch: in Streamlit's header, or at the end of the presenter's bar."""
    box.toggle(
        t("present_short" if in_bar else "present"),
        value=False,
        help=t("present_help"),
        key="present",
        bind="query-params",
        persist_state="session",
    )


def _url_report(page: str, lang: str) -> None:
    """The report of a link's repaired values: it stays while this page shows the settings it
    repaired (a component answering after the page is drawn reruns it at once), and goes with
    the first change or another page."""
    ss = st.session_state
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


def _lab(shared: Shared, lang: str) -> Lab | None:
    """The traced sublayer at these settings; None for a setting llm refuses, said why."""
    cfg = shared.cfg
    try:
        return compute_lab(
            Setting(shared.text, cfg.d_model, cfg.n_heads, cfg.seed, shared.causal, cfg.embeddings)
        )
    except llm.LabError as err:
        st.error(pick(TEXT, lang, f"err_{err.code}", **err.params), icon=":material/error:")
        return None


def _summary(t: Callable[..., str], lab: Lab) -> str:
    """One line under the controls: the tokens and the sizes the lab runs at."""
    cfg, n_tokens = lab.cfg, len(lab.tokens)
    tokens = t("one_token") if n_tokens == 1 else t("tokens", t=n_tokens)
    return t(
        "summary",
        tokens=tokens,
        d_model=cfg.d_model,
        n_heads=cfg.n_heads,
        d_head=cfg.d_head,
        seed=cfg.seed,
    )


def _class_qr(
    box: DeltaGenerator,
    t: Callable[..., str],
    lang: str,
    current: str,
    shared: Shared,
    own: dict[str, str],
) -> None:
    """The bar's QR code of the class link: this page, these settings and ``own``, the page's
    own values that differ from their defaults (URL spellings), in the teacher's language."""
    link = class_link(
        base_address(st.context.url, st.context.headers, "/" + slug(current)),
        link_params(lang, shared.text, shared.cfg, shared.causal, shared.head, own),
    )
    show_qr(box, link, t("qr_caption"), t("qr_too_long"), own.get("class"))


def _path_of(page_slug: str) -> str:
    """The page file of a URL slug ("softmax" -> pages/3_softmax.py; "" -> app.py)."""
    return next((path for path, _, _ in PAGES if slug(path) == page_slug), "app.py")


def _presenting() -> bool:
    """Presenter mode, known before its switch is drawn: the session's value, else the link's."""
    ss = st.session_state
    if "present" in ss:
        return bool(ss["present"])
    return st.query_params.get("present") == "true"


def _raw_lang() -> str | None:
    value = st.query_params.get("lang")
    return value if value in LANGS else None


def _language_control() -> str:
    """The language, English or French: the browser's by default."""
    return st.segmented_control(
        "Language · Langue",
        options=list(LANGS),
        default=_browser_lang(),
        key="lang",
        bind="query-params",
        persist_state="session",
        required=True,
    )
