"""The QR code of a link, drawn on the server as SVG (segno: pure Python, no outside service).

A classroom is often offline, so nothing is fetched: the code is made here, dark modules on a
white ground (a phone's camera reads that in a dark theme too), with the 4-module quiet zone the
standard asks for.
"""

from __future__ import annotations

import segno

QR_PX = 280  # the code's side on the page: a phone reads it from a few rows back on a projector


def qr_code(link: str) -> segno.QRCode:
    """The QR code of ``link``, medium error correction (15 % of the modules may be lost)."""
    return segno.make(link, error="m", micro=False)


def qr_svg(link: str) -> str:
    """The code as an SVG document about ``QR_PX`` pixels wide, whole modules only."""
    code = qr_code(link)
    side = code.symbol_size(border=4)[0]  # modules, the quiet zone included
    return code.svg_inline(scale=max(2, QR_PX // side), border=4, dark="#000000", light="#ffffff")
