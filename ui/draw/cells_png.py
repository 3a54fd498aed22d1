"""A grid of cells as a PNG image, one pixel a cell, which the browser scales up with square edges
(``image-rendering: pixelated``): a small multiple's 169 cells in half a kilobyte and one element,
where markup painted every cell as a stop of a gradient.

    raw  = each row: a 0 byte (no filter), then its pixels' red, green, blue  [R, 1 + 3 C]
    PNG  = signature, IHDR (C, R, 8 bits, RGB), IDAT (raw, deflated), IEND
"""

from __future__ import annotations

import base64
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def cells_png(rgb: np.ndarray) -> str:
    """``rgb`` as a PNG, base64 (the body of a ``data:image/png`` URI): 8-bit RGB, one pixel a
    cell. Shapes: rgb [R, C, 3], 0-255."""
    rows, cols, _ = rgb.shape
    raw = np.zeros((rows, 1 + 3 * cols), dtype=np.uint8)
    raw[:, 1:] = np.asarray(rgb, dtype=np.uint8).reshape(rows, 3 * cols)
    header = struct.pack(">IIBBBBB", cols, rows, 8, 2, 0, 0, 0)
    png = SIGNATURE + _chunk(b"IHDR", header)
    png += _chunk(b"IDAT", zlib.compress(raw.tobytes(), 9)) + _chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def _chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: its length, its kind, its data, the CRC-32 of kind and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
