import streamlit as st

from ui.frame import frame

s = frame("page_mix")
st.title("4_mix")
st.write(s.lab.trace.heads[s.head].pattern)
