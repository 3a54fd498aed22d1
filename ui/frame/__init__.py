"""The frame: every page's first call, its shared controls and URL values, presenter mode and the
browser store."""
