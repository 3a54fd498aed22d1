"""Home page of Attention Lab."""

import streamlit as st

from ui.frame import frame

s = frame("home")
st.title("Attention Lab")
st.write(s.lab.tokens)
