"""Matrices as tables: labelled DataFrames, Arrow tables built from the array, CSV downloads."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st
from pandas.io.formats.style import Styler

from ui.text import num


def shape_text(name: str, m: np.ndarray) -> str:
    """``Q  [5 × 2]`` — the shape line under a table."""
    return f"{name}  [{' × '.join(str(n) for n in m.shape)}]"


def table_of(m: np.ndarray, rows: Sequence[str], cols: Sequence[str]) -> pd.DataFrame:
    """A matrix as a tidy table with labelled rows and columns."""
    return pd.DataFrame(np.asarray(m), index=list(rows), columns=list(cols))


@lru_cache(maxsize=256)
def _table_schema(cols: tuple[str, ...]) -> pa.Schema:
    """The Arrow schema, pandas' metadata included, that ``pa.Table.from_pandas`` gives a table
    of floats with these column names and an index of text labels (rows do not enter it)."""
    probe = pd.DataFrame(np.zeros((1, len(cols))), index=["row"], columns=list(cols))
    return pa.Schema.from_pandas(probe)


def _arrow_table(
    m: np.ndarray, rows: Sequence[str], cols: Sequence[str], digits: int
) -> pa.Table | None:
    """What ``st.dataframe(table_of(m, rows, cols).round(digits))`` sends, built straight from
    the array: pandas' own conversion costs 1-2 ms a table. None when m is not a matrix of
    floats with text labels (then pandas converts it). Shapes: m [R, C] -> R rows, C columns."""
    a = np.asarray(m)
    labels_ok = all(isinstance(r, str) for r in rows) and all(isinstance(c, str) for c in cols)
    if a.ndim != 2 or a.dtype != np.float64 or not labels_ok or len(set(cols)) != len(cols):
        return None
    columns = unsigned_zero(np.round(a, digits)).T.copy()  # one contiguous row per table column
    arrays = [pa.array(c, from_pandas=True) for c in columns]  # NaN -> null, as pandas sends it
    return pa.Table.from_arrays(
        [*arrays, pa.array(list(rows), pa.string())], schema=_table_schema(tuple(cols))
    )


def unsigned_zero(a: np.ndarray) -> np.ndarray:
    """``a`` with every -0.0 made 0.0 (adding 0.0 does it, IEEE 754): rounded, -1e-17 is -0.0,
    which a table would write "-0.000"."""
    return a + 0.0


def rounded(table: pd.DataFrame, digits: int) -> pd.DataFrame:
    """``table.round(digits)`` with no negative zero: what a table of ``digits`` decimals sends."""
    out = table.round(digits)
    numbers = out.select_dtypes("number").columns
    out[numbers] = unsigned_zero(out[numbers].to_numpy())
    return out


def styled(
    table: pd.DataFrame,
    lang: str,
    digits: int = 3,
    kinds: dict[str, tuple[int, str]] | None = None,
) -> Styler:
    """A table whose numbers read as the prose writes them (``ui.text.num``): ``digits``
    decimals, or per column ``kinds[column] = (digits, "e")``, the decimal comma in French, no
    "-0.000", an exact zero "0" in scientific notation. The values stay numbers (sorting, the
    CSV), only their text changes."""
    kinds = kinds or {}
    formats = {
        c: (lambda v, d=d, k=k: num(v, d, lang, k))
        for c in table.columns
        for d, k in [kinds.get(c, (digits, "f"))]
    }
    return table.style.format(formats)


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
    if lang == "fr":
        shown = styled(table_of(m, rows, cols), "fr", digits)
        st.dataframe(shown, width="stretch", key=f"{key}_table")
    else:
        table = _arrow_table(m, rows, cols, digits)
        if table is None:
            table = rounded(table_of(m, rows, cols), digits)
        # every number with its ``digits`` decimals (1.400, not 1.4), as the French tables
        fixed = st.column_config.NumberColumn(format=f"%.{digits}f")
        config = {str(c): fixed for c in cols}
        st.dataframe(table, width="stretch", column_config=config, key=f"{key}_table")
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
