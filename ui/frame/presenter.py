"""Presenter mode: the class link and its QR code, the compact bar, projector-sized type.

``present=true`` in the URL (or the presenter switch) folds the sidebar away; the frame draws the
four controls a teacher moves in class (preset, d_model, heads, seed) in one bar at the top, with
the previous and next pages, and a QR code of the link the students open: this page, these
settings, the teacher's language, without ``present``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, urlencode, urlsplit

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import llm
from ui.frame.qr import QR_PX, qr_svg
from ui.frame.url_check import DEFAULT_TEXT, DEFAULTS, default_heads

# Keyboard focus, in both modes (WCAG 2.4.7): a 2 px ring in the theme's accent colour on what
# Streamlit marks faintly (a page link's grey background, a switch's or a radio button's grey
# square, a tab's underline, the grey squares of a table's tool bar and of the header's menu, the
# lesson's own scrolling box) or not at all (a box that scrolls sideways, made focusable by
# ui.frame.components.page_lang; a table's tool bar itself, shown only under the mouse: a key that
# reaches its buttons raises it above the table as the mouse does). The ring lies inside a link's,
# a tab's or a box's edge, which the box around them would clip, and around a switch's label.
FOCUS_CSS = """
.stApp :is(a[data-testid="stPageLink-NavLink"], .al-pages a, [role="tab"], [data-scroll-focus="1"],
  #stMain, [data-testid="stBaseButton-elementToolbar"], header button):focus-visible {
  outline: 2px solid light-dark(#1f5fa8, #79b0f0) !important; outline-offset: -2px; }
.stApp label:has(input:is([type="checkbox"], [type="radio"]):focus-visible) {
  outline: 2px solid light-dark(#1f5fa8, #79b0f0); outline-offset: 2px; border-radius: 0.25rem; }
.stApp [data-testid="stElementToolbar"]:focus-within {
  opacity: 1 !important; top: -2.75rem !important; z-index: 1 !important; }
"""
# the presenter switch sits in Streamlit's header, left of its menu, so it takes no line of
# the page (the header is 3.75rem high, its menu button 2.5rem wide); at the header's z-index it
# is drawn over the header, which comes first, and under the sidebar, which covers the page on a
# narrow screen (over the sidebar's close button, it hid it); while the server cannot be reached
# Streamlit writes the connection's state in its place ("Connecting"), and the switch, which can
# do nothing then, gives way (``data-offline`` on the document: ui.frame.components.page_lang;
# a :has() rule on the body would make chromium restyle the whole page at every change of
# it: tests/test_style_rules.py)
SWITCH_CSS = f"""<style>{FOCUS_CSS}
.st-key-present_switch {{ position: fixed; top: 0.9rem; right: 4rem; z-index: 999990;
  width: auto !important; }}
html[data-offline] .st-key-present_switch {{ display: none; }}
</style>"""
# the sidebar and the header (its open button, the menu) go; rem-sized text, all of
# Streamlit's, grows by a quarter; the page uses the projector's width. The bar is one line (each
# control's label left of it, not above); the page's title and its formulas share a line, the
# token chips and the caption that follows them too, and the page keeps less space between its
# elements, so that the first chart starts on the first screen at 1280x720. The bar is drawn at
# 0.8 of the page's size (16 px text, as a page outside presenter mode) so that its controls, the
# class's and the switch hold on one line at 1280 px; no other text is smaller than the page's
# 20 px (the title 36 px).
PRESENT_CSS = (
    "<style>"
    + FOCUS_CSS
    + """
section[data-testid="stSidebar"], header[data-testid="stHeader"] { display: none !important; }
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding: 0.5rem 2rem 4rem 2rem; max-width: none; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] {
  flex-flow: row wrap; row-gap: 0.6rem; column-gap: 2.5rem; align-items: center;
}
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > * { flex: 1 1 100%; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]
  > .stElementContainer:is(:has(h1), :has(.katex-display)) { flex: 0 1 auto; width: auto; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]
  > .stElementContainer:has(.katex-display) .katex-display { margin: 0; padding-block: 0.3rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.8rem; padding: 0 !important; }
[data-testid="stMainBlockContainer"] :is(h2, h3) { padding: 0.2rem 0 0 !important; }
[data-testid="stMainBlockContainer"] [data-testid="stHeading"] [data-testid="stMarkdownContainer"] {
  margin-bottom: 0 !important; }
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > .st-key-token {
  flex: 0 0 auto; width: auto;
}
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]
  > .st-key-token + .stElementContainer { flex: 1 1 16rem; }
[data-testid="stAlert"] > div { padding-top: 0.6rem; padding-bottom: 0.6rem; }
.st-key-bar { align-items: center !important; padding-top: 1rem; zoom: 0.8; }
.st-key-bar :is([data-testid="stSlider"], [data-testid="stSelectbox"],
  [data-testid="stNumberInput"]) { display: flex; flex-direction: row; align-items: center;
  gap: 0.5rem; }
.st-key-bar [data-testid="stWidgetLabel"] { margin: 0; width: auto; flex: 0 0 auto; }
.st-key-bar [data-testid="stSlider"] > div { flex: 1 1 auto; }
.st-key-bar :is(.st-key-d_model, .st-key-n_heads, .st-key-seed) {
  width: auto !important; max-width: none !important; flex: 0 0 auto !important; }
.st-key-bar .st-key-d_model [data-testid="stSlider"] > div { width: 5rem; }
.st-key-bar .st-key-n_heads [data-testid="stSelectbox"] > div { width: 4rem; }
.st-key-bar .st-key-seed [data-testid="stNumberInput"] > div { width: 5rem; }
.st-key-bar :is([data-testid="stNumberInputStepDown"], [data-testid="stNumberInputStepUp"],
  [data-testid="stWidgetLabel"] [data-testid="stTooltipIcon"]) { display: none; }
[data-testid="stMainBlockContainer"] p { line-height: 1.5; }
.st-key-bar .st-key-new_seed button [data-testid="stMarkdownContainer"] { position: absolute;
  width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
</style>"""
)

_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def base_address(url: str | None, headers: Mapping[str, str], path: str) -> str:
    """This page's address as the teacher's browser reached it, without a query.

    The browser's own URL when Streamlit has it (``st.context.url``: behind nginx or a public host
    it is already the public name); otherwise the proxy's ``X-Forwarded-Host`` and
    ``X-Forwarded-Proto``, then the ``Host`` header, and ``path`` (``/mix``; ``/`` for home).
    A header that is not a host name is ignored rather than written into the students' link.
    """
    if url:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and _HOST.fullmatch(parts.netloc):
            return f"{parts.scheme}://{parts.netloc}{parts.path}"
    lower = {key.lower(): value for key, value in headers.items()}

    def first(name: str) -> str:  # a proxy chain sends "a, b": the first is the browser's
        return (lower.get(name) or "").split(",")[0].strip()

    host = next(
        (h for h in (first("x-forwarded-host"), first("host")) if _HOST.fullmatch(h)),
        "localhost:8501",
    )
    proto = first("x-forwarded-proto").lower()
    return f"{proto if proto in ('http', 'https') else 'http'}://{host}{path}"


def link_params(
    lang: str,
    text: str,
    cfg: llm.AttentionConfig,
    causal: bool,
    head: int,
    page_values: Mapping[str, str],
) -> dict[str, str]:
    """The query of the class link, spelled as the bound widgets spell it. A value at its default
    is left out (the page reads the same number without it); the language always goes in, so a
    phone set to another language shows the teacher's words."""
    shown = {
        "text": text,
        "d_model": cfg.d_model,
        "n_heads": cfg.n_heads,
        "seed": cfg.seed,
        "causal": causal,
        "embeddings": cfg.embeddings,
        "head": head,
    }
    defaults = DEFAULTS | {"text": DEFAULT_TEXT, "n_heads": default_heads(cfg.d_model)}
    params = {"lang": lang}
    for key, value in shown.items():
        if value != defaults[key]:
            params[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return params | dict(page_values)


def class_link(base: str, params: Mapping[str, str]) -> str:
    """The link itself: every value percent-encoded (a sentence may hold any character)."""
    return f"{base}?{urlencode(params, quote_via=quote, safe='')}" if params else base


def bar(top: DeltaGenerator) -> DeltaGenerator:
    """One row at the top of the page, each element as wide as what it holds; it wraps onto a
    second line on a narrow screen instead of cutting labels."""
    return top.container(horizontal=True, vertical_alignment="bottom", gap="xsmall", key="bar")


def show_qr(
    popover: DeltaGenerator, link: str, caption: str, too_long: str, code: str | None = None
) -> None:
    """The QR code of ``link`` in the bar's popover, with the link written under it as text
    (only the link, and ``too_long`` said, when no QR code can hold it); a class's ``code``
    beside it, as large as a student at the back needs to type it."""
    svg = qr_svg(link)
    with popover:
        row = st.container(horizontal=True, vertical_alignment="center")
        if svg is None:
            row.info(too_long, icon=":material/info:")
        else:
            row.image(svg, width=QR_PX)
        if code is not None:
            row.container(key="class_qr_code").markdown(code)
        st.caption(caption)
        st.code(link, language=None, wrap_lines=True)
