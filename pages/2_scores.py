import streamlit as st

from ui.frame import frame

s = frame("page_scores")
st.title("2_scores")
st.write(s.lab.trace.heads[s.head].pattern)
