"""ui.draw.cells_png: a grid of cells as a PNG, read back by Pillow's decoder."""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image

from ui.draw.cells_png import SIGNATURE, cells_png


def decoded(text: str) -> Image.Image:
    image = Image.open(io.BytesIO(base64.b64decode(text)))
    image.load()  # reads every chunk: a wrong length or CRC fails here
    return image


def test_every_cell_is_one_pixel_of_its_colour() -> None:
    rgb = np.random.default_rng(7).integers(0, 256, size=(5, 9, 3))  # wider than tall
    image = decoded(cells_png(rgb))
    assert image.mode == "RGB" and image.size == (9, 5)  # (width, height)
    assert np.array_equal(np.asarray(image), rgb)


def test_the_ends_of_the_channels_and_a_single_cell() -> None:
    rgb = np.array([[[0, 0, 0], [255, 255, 255]], [[255, 0, 0], [0, 128, 255]]])
    assert np.array_equal(np.asarray(decoded(cells_png(rgb))), rgb)
    one = np.array([[[68, 1, 84]]])  # viridis's first colour
    text = cells_png(one)
    assert base64.b64decode(text).startswith(SIGNATURE)
    assert np.asarray(decoded(text)).tolist() == [[[68, 1, 84]]]
