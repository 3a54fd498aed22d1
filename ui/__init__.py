"""ui: everything Streamlit, plotly and pandas; the frame every page calls first, views, texts."""
