"""The home page's Join a class box: the code a teacher shows, typed by a student."""

from __future__ import annotations

import streamlit as st

from classroom import ClassError, codes
from ui.classroom.live import attempt, followers, words
from ui.text import translator
from ui.text.classroom import TEXT


def join_box(lang: str) -> None:
    """A box for the code; a valid one of a running class joins it (the page then follows)."""
    t = translator(TEXT, lang)
    with st.form("class_join", border=True, enter_to_submit=True):
        st.markdown(f"**{t('join')}**")
        raw = st.text_input(
            t("join_label"),
            placeholder=t("join_placeholder"),
            help=t("join_help"),
            max_chars=24,
            key="class_join_code",
        )
        if st.form_submit_button(t("join_button"), icon=":material/login:"):
            _join(raw, lang)


def _join(raw: str, lang: str) -> None:
    """Check the typed code against the store, then follow it: the link takes ``class=``."""
    try:
        code = codes.normalise(raw)
    except ClassError as err:
        st.warning(words(err, lang), icon=":material/error:")
        return
    _, err = attempt(lambda: followers().state(code))
    if err is not None:
        st.warning(words(err, lang), icon=":material/error:")
        return
    st.query_params["class"] = code
    st.rerun()
