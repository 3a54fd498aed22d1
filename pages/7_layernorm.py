import streamlit as st

from ui.frame import frame

s = frame("page_layernorm")
st.title("7_layernorm")
st.write(s.lab.trace.heads[s.head].pattern)
