import streamlit as st

from ui.frame import frame

s = frame("page_qkv")
st.title("1_qkv")
st.write(s.lab.trace.heads[s.head].pattern)
