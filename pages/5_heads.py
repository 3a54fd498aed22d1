import streamlit as st

from ui.frame import frame

s = frame("page_heads")
st.title("5_heads")
st.write(s.lab.trace.heads[s.head].pattern)
