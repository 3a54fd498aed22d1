"""Matrices as tables: numbers written as the prose writes them, Arrow from the array, CSV."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from ui.text import num


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


def table_of(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> pd.DataFrame:
    """A matrix as a tidy table with labelled rows and columns."""
    return pd.DataFrame(np.asarray(m), index=list(rows), columns=list(cols))


@lru_cache(maxsize=256)
def _table_schema(cols: tuple[str, ...], text: tuple[bool, ...]) -> pa.Schema:
    """The Arrow schema, pandas' metadata included, that ``pa.Table.from_pandas`` gives a table
    with these column names (floats, or text where ``text`` says) and an index of text labels
    (rows do not enter it)."""
    probe = pd.DataFrame(
        {c: ["0"] if is_text else [0.0] for c, is_text in zip(cols, text, strict=True)},
        index=["row"],
    )
    return pa.Schema.from_pandas(probe)


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
) -> tuple[pa.Table | pd.DataFrame, dict[str, dict]]:
    """What a table of numbers sends, and its column configuration, written as the prose
    writes numbers (``ui.text.num``): ``digits`` decimals, or per column ``kinds[column] =
    (digits, "e")``. An English column of decimals stays numbers (sorted as numbers), rounded
    and shown with a fixed count of decimals (1.400, not 1.4); a French column (the decimal
    comma) and a column in scientific notation (an exact zero "0", no "e+00") are the text
    ``num`` writes, right-aligned as numbers are.

    Built as Arrow straight from the array when m is a matrix of floats with distinct text
    labels (pandas' own conversion costs 1-2 ms a table, a Styler 3-7 ms); else a DataFrame.
    Shapes: m [R, C] -> R rows, C columns."""
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
    labels_ok = all(isinstance(r, str) for r in rows) and all(isinstance(c, str) for c in cols)
    if a.ndim != 2 or a.dtype != np.float64 or not labels_ok or len(set(cols)) != len(cols):
        frame = pd.DataFrame(dict(enumerate(columns)), index=list(rows))
        frame.columns = list(cols)
        return frame, config
    arrays = [
        pa.array(c, pa.string()) if is_text else pa.array(c, from_pandas=True)  # NaN -> null
        for c, is_text in zip(columns, text, strict=True)
    ]
    table = pa.Table.from_arrays(
        [*arrays, pa.array(list(rows), pa.string())], schema=_table_schema(tuple(cols), text)
    )
    return table, config


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
    st.dataframe(table, width=width, column_config=config, key=key)


def _csv(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> str:
    return table_of(m, rows, cols).to_csv(float_format="%.17g")


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
