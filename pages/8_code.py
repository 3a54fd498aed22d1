import streamlit as st

from ui.frame import frame

s = frame("page_code")
st.title("8_code")
st.write(s.lab.trace.heads[s.head].pattern)
