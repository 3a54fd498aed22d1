"""Matrices as tables: numbers written as the prose writes them, Arrow from the array, CSV."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Literal

import numpy as np
import pyarrow as pa
import streamlit as st

from ui.text import md_escape, num

# the column of row labels, as pandas names an index it writes to Arrow
INDEX = "__index_level_0__"


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


def _column(name: str | None, field: str, is_text: bool) -> dict:
    kind = ("unicode", "object") if is_text else ("float64", "float64")
    return {
        "name": name,
        "field_name": field,
        "pandas_type": kind[0],
        "numpy_type": kind[1],
        "metadata": None,
    }


@lru_cache(maxsize=256)
def _table_schema(cols: tuple[str, ...], text: tuple[bool, ...]) -> pa.Schema:
    """The Arrow schema of a table with these column names (floats, or text where ``text``
    says) and a last column of text row labels, with the metadata that tells the browser the
    labels are the rows' names: pandas' own, as ``pa.Schema.from_pandas`` writes it."""
    meta = {
        "index_columns": [INDEX],
        "column_indexes": [
            {
                "name": None,
                "field_name": None,
                "pandas_type": "unicode",
                "numpy_type": "object",
                "metadata": {"encoding": "UTF-8"},
            }
        ],
        "columns": [
            *(_column(c, c, is_text) for c, is_text in zip(cols, text, strict=True)),
            _column(None, INDEX, True),
        ],
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
    }
    fields = [
        pa.field(c, pa.string() if is_text else pa.float64())
        for c, is_text in zip(cols, text, strict=True)
    ]
    return pa.schema([*fields, pa.field(INDEX, pa.string())], metadata={"pandas": json.dumps(meta)})


def float_array(values: np.ndarray) -> pa.Array:
    """A column of float64 numbers as Arrow, a NaN as null (an empty cell), from the array's
    own buffer. Built from buffers, not with ``pa.array``: pyarrow's converters look for pandas
    objects first, which imports pandas (about 40 MB a process) into an app that uses none."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    missing = np.isnan(v)
    valid = None
    if missing.any():
        valid = pa.py_buffer(np.packbits(~missing, bitorder="little"))
    return pa.Array.from_buffers(
        pa.float64(), len(v), [valid, pa.py_buffer(v)], null_count=int(missing.sum())
    )


def text_array(words: Sequence[str]) -> pa.Array:
    """A column of text as Arrow (UTF-8 and its offsets), built from buffers as
    ``float_array`` is."""
    encoded = [str(w).encode("utf-8") for w in words]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def unsigned_zero(a: np.ndarray) -> np.ndarray:
    """``a`` with every -0.0 made 0.0 (adding 0.0 does it, IEEE 754): rounded, -1e-17 is -0.0,
    which a table would write "-0.000"."""
    return a + 0.0


Kinds = dict[str, tuple[int, str]]


def _without_none(config: dict) -> dict:
    return {
        k: _without_none(v) if isinstance(v, dict) else v
        for k, v in config.items()
        if v is not None
    }


@lru_cache(maxsize=32)
def _column_config(kind: str) -> dict:
    """A column's configuration: ``"text"`` (right-aligned, as numbers are) or a printf format
    of numbers; without its unset (None) fields, which Streamlit drops before sending, so the
    copy it makes of each column's configuration on every rerun is a small one. Shared: Streamlit
    copies a configuration before it changes anything in it."""
    if kind == "text":
        return _without_none(st.column_config.TextColumn(alignment="right"))
    return _without_none(st.column_config.NumberColumn(format=kind))


def table_cells(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    lang: str,
    digits: int = 3,
    kinds: Kinds | None = None,
) -> tuple[pa.Table, dict[str, dict]]:
    """What a table of numbers sends, and its column configuration, written as the prose
    writes numbers (``ui.text.num``): ``digits`` decimals, or per column ``kinds[column] =
    (digits, "e")``. An English column of decimals stays numbers (sorted as numbers), rounded
    and shown with a fixed count of decimals (1.400, not 1.4); a French column (the decimal
    comma) and a column in scientific notation (an exact zero "0", no "e+00") are the text
    ``num`` writes, right-aligned as numbers are.

    Built as Arrow straight from the array, the labels as text (pandas' own conversion costs
    1-2 ms a table, a Styler 3-7 ms, and pandas itself about 40 MB a process, which the app does
    without). Shapes: m [R, C] -> R rows, C columns."""
    kinds = kinds or {}
    a = np.asarray(m)
    specs = [kinds.get(c, (digits, "f")) for c in cols]
    text = tuple(lang != "en" or kind != "f" for _, kind in specs)
    config = {
        str(c): _column_config("text" if is_text else f"%.{d}f")
        for c, is_text, (d, _) in zip(cols, text, specs, strict=True)
    }
    if not any(text) and len({d for d, _ in specs}) <= 1:  # the usual table: round it at once
        columns = list(
            unsigned_zero(np.round(a.astype(float, copy=False), specs[0][0] if specs else 0)).T
        )
    else:
        columns = [
            [num(float(v), d, lang, kind) for v in a[:, j]]
            if is_text
            else unsigned_zero(np.round(a[:, j].astype(float, copy=False), d))
            for j, (is_text, (d, kind)) in enumerate(zip(text, specs, strict=True))
        ]
    arrays = [
        text_array(c) if is_text else float_array(c)
        for c, is_text in zip(columns, text, strict=True)
    ]
    names = tuple(str(c) for c in cols)
    table = pa.Table.from_arrays([*arrays, text_array(rows)], schema=_table_schema(names, text))
    return table, config


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], key: str) -> None:
    """A small table of text whose cells wrap in a narrow column (a dataframe's are cut), as
    markdown: every cell written literally (``md_escape``), a formula's ``|`` included. Its box
    (``st-key-text_table_<key>``) scrolls sideways where even wrapped it is too wide (a 320 px
    screen: ``ui.frame.reflow``)."""
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
    key: str,
    digits: int = 3,
    kinds: Kinds | None = None,
    width: Literal["stretch", "content"] = "stretch",
) -> None:
    """A table of numbers (``table_cells``) at the column's width or its own."""
    table, config = table_cells(m, rows, cols, lang, digits, kinds)
    # eager: a small table is sent whole (Streamlit's lazy check imports pandas)
    st.dataframe(table, width=width, column_config=config, key=key, lazy=False)


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
    """A matrix as a table, its shape under it, and a CSV download of the full-precision values.
    French shows ``digits`` decimals after a decimal comma, as the chapters write them (the CSV
    keeps the dot that spreadsheets and Python read)."""
    number_table(m, rows, cols, lang=lang, key=f"{key}_table", digits=digits)
    st.caption(shape_text(name, np.asarray(m)))
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
