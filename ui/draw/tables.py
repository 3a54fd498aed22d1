"""Matrices as tables: plain HTML tables of the numbers as the page writes them, and CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from functools import partial
from html import escape

import numpy as np
import streamlit as st

from ui.draw.markup import show_markup
from ui.text import md_escape, num


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


Kinds = dict[str, tuple[int, str]]
# how every table of ``html_table`` starts: what a test or the bench looks for among the markup
TABLE_START = '<div class="lab-table" role="region"'
# the tables' look (the frame sends it once a page): numbers right-aligned in figures of one
# width, the labels in bold, thin rules between the rows; a table wider than its column scrolls
# sideways in its own box, which shows its focus when the keyboard reaches it
TABLE_CSS = """<style>
.lab-table { overflow-x: auto; width: fit-content; max-width: 100%; }
.lab-table:focus-visible { outline: 2px solid light-dark(#1f5fa8, #79b0f0); outline-offset: 2px; }
.lab-table table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.lab-table th, .lab-table td {
  padding: 0.2rem 0.7rem; text-align: right; white-space: nowrap; font-size: 0.875rem;
  border-bottom: 1px solid light-dark(rgba(49, 51, 63, 0.15), rgba(250, 250, 250, 0.18)); }
.lab-table th { font-weight: 600; }
.lab-table tbody th { text-align: left; }
.lab-table caption { caption-side: bottom; text-align: left; white-space: nowrap;
  padding-top: 0.5rem; font-size: 0.875rem; opacity: 0.75; }
</style>"""


def cell_texts(
    m: np.ndarray, cols: Sequence[str], lang: str, digits: int = 3, kinds: Kinds | None = None
) -> list[list[str]]:
    """Every number of ``m`` as its table cell writes it: ``num``'s spelling in ``lang``
    (``digits`` decimals, or per column ``kinds[column] = (digits, kind)``; a decimal comma in
    French; no sign on a number that rounds to zero), an empty cell for a NaN. A negative number
    keeps the hyphen-minus that the heatmaps' cells replace (U+2212): a table is where a student
    copies numbers, and a spreadsheet reads "−0.703" as text. Shapes: m [R, C] -> R lists of C
    texts."""
    a = np.asarray(m, dtype=np.float64)
    kinds = kinds or {}
    specs = [kinds.get(str(c), (digits, "f")) for c in cols]
    if all(spec == (digits, "f") for spec in specs):  # the usual table: one format, at once
        form = f"{{:.{digits}f}}".format
        rounded = (np.round(a, digits) + 0.0).tolist()  # + 0.0: a rounded -0.0 reads 0.000
        rows = [["" if v != v else form(v) for v in row] for row in rounded]
    else:
        rows = [
            ["" if v != v else num(v, d, "en", kind) for v, (d, kind) in zip(row, specs)]
            for row in a.tolist()
        ]
    if lang == "fr":
        return [[text.replace(".", ",") for text in row] for row in rows]
    return rows


def table_html(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    lang: str,
    label: str,
    digits: int = 3,
    kinds: Kinds | None = None,
    caption: str = "",
) -> str:
    """A table of numbers as HTML (``html_table``): each row named by its label, the numbers
    as ``cell_texts`` writes them. Shapes: m [R, C], rows R, cols C."""
    cells = cell_texts(m, cols, lang, digits, kinds)
    return html_table(cols, rows, cells, label=label, caption=caption)


def html_table(
    cols: Sequence[str],
    rows: Sequence[str] | None,
    cells: Sequence[Sequence[str]],
    *,
    label: str,
    caption: str = "",
) -> str:
    """A plain HTML table: a header row of ``cols``, each row named by ``rows`` (or unnamed),
    right-aligned cells, ``caption`` under it (the matrix's shape), in a box that scrolls
    sideways where the column is narrower (``TABLE_CSS``) and that a keyboard reaches and
    scrolls too (a region named ``label``). Every text is escaped, cells included: a token is
    what a student typed."""
    corner = "<td></td>" if rows is not None else ""
    head = "".join(f'<th scope="col">{escape(str(c))}</th>' for c in cols)
    names = [""] * len(cells)
    if rows is not None:
        names = [f'<th scope="row">{escape(str(r))}</th>' for r in rows]
    body = "".join(
        f"<tr>{name}<td>" + "</td><td>".join(map(escape, texts)) + "</td></tr>"
        for name, texts in zip(names, cells, strict=True)
    )
    under = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (
        f'{TABLE_START} tabindex="0" aria-label="{escape(label)}">'
        f"<table>{under}<thead><tr>{corner}{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], key: str) -> None:
    """A small table of text whose cells wrap in a narrow column (a number table's stay on one
    line), as markdown: every cell written literally (``md_escape``), a formula's ``|``
    included. Its box (``st-key-text_table_<key>``) scrolls sideways where even wrapped it is
    too wide (a 320 px screen: ``ui.frame.reflow``)."""
    lines = [header, ["---"] * len(header), *rows]
    st.container(key=f"text_table_{key}").markdown(
        "\n".join(
            "| " + " | ".join(cell if i == 1 else md_escape(cell) for cell in line) + " |"
            for i, line in enumerate(lines)
        )
    )


def number_table(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    lang: str,
    label: str,
    digits: int = 3,
    kinds: Kinds | None = None,
    caption: str = "",
) -> None:
    """A table of numbers (``table_html``): a plain HTML table, which a screen reader reads as
    one, with the numbers as the page writes them, and ``caption`` under it."""
    show_markup(
        table_html(
            m, rows, cols, lang=lang, label=label, digits=digits, kinds=kinds, caption=caption
        )
    )


def _csv(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> str:
    """The matrix as CSV, every number to full precision (17 significant digits, a NaN left
    empty), the row labels first, under an empty header: what a spreadsheet or
    ``pandas.read_csv(..., index_col=0)`` reads back."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["", *cols])
    for label, values in zip(rows, np.asarray(m, dtype=float).tolist(), strict=True):
        writer.writerow([label, *("" if math.isnan(v) else f"{v:.17g}" for v in values)])
    return out.getvalue()


def matrix_table(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    name: str,
    key: str,
    digits: int = 3,
    download_label: str | None = None,
    lang: str = "en",
) -> None:
    """A matrix as a table, its shape under it (the table's caption), and a CSV download of the
    full-precision values. French shows ``digits`` decimals after a decimal comma, as the
    chapters write them (the CSV keeps the dot that spreadsheets and Python read)."""
    caption = shape_text(name, np.asarray(m))
    number_table(m, rows, cols, lang=lang, label=name, digits=digits, caption=caption)
    st.download_button(
        download_label or f"{name} · CSV",
        # written when clicked, not on every rerun: 5-9 ms for a 64-column table
        data=partial(_csv, m, list(rows), list(cols)),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon=":material/download:",
        type="tertiary",
    )
