"""Streamlit's front-end files for nginx to send itself, each text file with a gzip copy beside it.

A first visit downloads about 8 MB of JavaScript, fonts and styles; Streamlit sends them
uncompressed (it leaves compression to a proxy in front of it). Behind nginx
(``deploy/nginx.conf.template``), ``/static/`` is read from the folder this script fills, and
``gzip_static`` sends the ``.gz`` copy to every browser that accepts gzip: the files are
compressed once, at start-up, not on every request, and no Python process spends time on them.

Usage: python deploy/static_assets.py DEST   (DEST must not exist yet; scripts/serve.sh and the
benchmarks put it in nginx's working folder)
"""

from __future__ import annotations

import gzip
import shutil
import sys
from pathlib import Path

import streamlit

# text formats worth compressing; fonts in woff2 and images are compressed already
TEXT_SUFFIXES = frozenset({".js", ".css", ".svg", ".json", ".ttf", ".txt", ".html"})


def source() -> Path:
    """The front-end files of the installed Streamlit (what it serves under ``/static/``)."""
    return Path(streamlit.__file__).parent / "static" / "static"


def prepare(dest: Path) -> tuple[int, int, int]:
    """Copy Streamlit's ``/static/`` files to ``dest`` and write ``name.gz`` beside each text
    file (gzip level 9, fixed timestamp: the same input gives the same bytes).
    Returns (files compressed, their bytes, their compressed bytes)."""
    shutil.copytree(source(), dest)
    count = plain = packed = 0
    for path in sorted(dest.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES:
            data = path.read_bytes()
            small = gzip.compress(data, compresslevel=9, mtime=0)
            path.with_name(path.name + ".gz").write_bytes(small)
            count, plain, packed = count + 1, plain + len(data), packed + len(small)
    return count, plain, packed


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python deploy/static_assets.py DEST", file=sys.stderr)
        return 2
    count, plain, packed = prepare(Path(argv[0]))
    print(f"{count} front-end files compressed: {plain / 1e6:.1f} MB -> {packed / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
