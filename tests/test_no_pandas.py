"""The app runs without importing pandas (46 MB a process): every page, in both languages, on a
screen and in presenter mode, in a fresh interpreter where an import of pandas fails loudly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import glob, sys, traceback, importlib.abc

    tried = []

    class NoPandas(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.partition(".")[0] == "pandas":
                tried.append("".join(traceback.format_stack(limit=8)))
                raise ImportError("pandas is not to be imported by the app")
            return None

    sys.meta_path.insert(0, NoPandas())
    from streamlit.testing.v1 import AppTest

    for path in ["app.py", *sorted(glob.glob("pages/*.py"))]:
        for query in ({"lang": "en"}, {"lang": "fr", "present": "true", "d_model": "64"}):
            at = AppTest.from_file(path, default_timeout=60)
            at.query_params.update(query)
            at.run()
            assert not at.exception, (path, query, [e.message for e in at.exception])
    print(len(tried))
    print("\\n".join(tried[:1]))
    """
)


def test_no_page_imports_pandas() -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    count, _, where = run.stdout.partition("\n")
    assert count == "0", f"pandas was imported {count} times, first from:\n{where}"
