"""ui: everything Streamlit and plotly (no pandas); the frame every page calls first, views."""
