"""The page at 320 CSS px (a 1280 px screen zoomed to 400 %): targets of 24 px, nothing sideways.

WCAG 1.4.10 (reflow) asks that a page 320 px wide never scrolls sideways: Streamlit's columns
stack there already, and a wide matrix or formula scrolls inside its own box (``CHART_CSS``'s
``figs-`` boxes, KaTeX's, the data frames' own, and ``REFLOW_CSS``'s for a table of text).
WCAG 2.5.8 (target size, minimum) asks for targets of at least 24 × 24 px, or 24 px of room
around a smaller one. Streamlit draws a few smaller ones; ``REFLOW_CSS`` gives them the 24 px,
with what they show unchanged and centred:

- a help icon (the "?" beside a label, 16 px): inside a switch's label it touched the label, a
  target of its own;
- a tab whose name is one letter ("A", "K", "V": 7 to 8 px wide, next to the next tab);
- the arrows that scroll a row of tabs too wide for the column (20 px wide).

A formula's box (``.katex-display``) scrolls sideways when the formula is wider than the column.
It is as wide as KaTeX measures the formula, but the 2 px spacer KaTeX puts in a subscript
(``.vlist-s``) sticks out of that width when a formula ends on one (Q = X W_Q ... V = X W_V):
the box then scrolls by 2 px, and where scroll bars take room (a computer set to show them) a
bar sits under the formula. ``REFLOW_CSS`` gives the box 2 px of room on each side.

The frame sends it once a run with the other CSS (``ui.frame.page``).
"""

REFLOW_CSS = """<style>
.stApp [data-testid="stTooltipIcon"] button:not([kind]) {
  min-width: 24px; min-height: 24px; justify-content: center; align-items: center; }
.stApp [data-testid="stTab"] { min-width: 24px; justify-content: center; }
.stApp :is([data-testid="stTabsScrollLeft"], [data-testid="stTabsScrollRight"]) {
  min-width: 24px; }
.stApp [class*="st-key-text_table_"] { overflow-x: auto; }
.stApp .katex-display { padding-inline: 2px; }
</style>"""
