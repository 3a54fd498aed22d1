import streamlit as st

from ui.frame import frame

s = frame("page_concat")
st.title("6_concat")
st.write(s.lab.trace.heads[s.head].pattern)
