"""The QR code of a link, drawn on the server as SVG (segno: pure Python, no outside service).

A classroom is often offline, so nothing is fetched: the code is made here, dark modules on a
white ground (a phone's camera reads that in a dark theme too), with the 4-module quiet zone the
standard asks for.
"""

from __future__ import annotations

import segno

QR_PX = 280  # the code's side on the page: a phone reads it from a few rows back on a projector


def qr_code(link: str) -> segno.QRCode | None:
    """The QR code of ``link``: medium error correction (15 % of the modules may be lost), low
    (7 %) when only that holds it; None for a link no QR code can hold (a long sentence of
    accented words: each such letter takes six characters of the link, %C3%A9)."""
    for error in ("m", "l"):
        try:
            return segno.make(link, error=error, micro=False)
        except segno.DataOverflowError:
            continue
    return None


def qr_svg(link: str) -> str | None:
    """The code as an SVG document about ``QR_PX`` pixels wide, whole modules only (None: too
    long for a QR code)."""
    code = qr_code(link)
    if code is None:
        return None
    side = code.symbol_size(border=4)[0]  # modules, the quiet zone included
    return code.svg_inline(scale=max(2, QR_PX // side), border=4, dark="#000000", light="#ffffff")
