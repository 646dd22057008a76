"""Drawing on numpy RGB images, shared by the puzzle renderers (no imaging library needed).

A 5x7 bitmap font (:func:`draw_text`), filled and outlined rectangles and the *marks* that a
picture of an answer carries: a frame around what a verdict names (the first failing cell, the
pegs of an illegal move), in :data:`MARK` for the first error and :data:`MARK_ALSO` for the
other cells of the failing checks. Every renderer that marks uses these two colours, so a
reader (or a test) finds the marks of any family's picture the same way.
"""
from __future__ import annotations

import numpy as np

#: the frame around the first thing a verdict names (first failing cell, illegal move)
MARK = (230, 0, 0)
#: the frame around the other cells of the failing checks
MARK_ALSO = (150, 40, 210)
INK = (20, 20, 20)

_FONT_ROWS = {
    "0": "01110 10001 10011 10101 11001 10001 01110", "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111", "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010", "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110", "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110", "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001", "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110", "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111", "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111", "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110", "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001", "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001", "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110", "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101", "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110", "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110", "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010", "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 01010 00100 00100 00100 00100", "Z": "11111 00001 00010 00100 01000 10000 11111",
    "-": "00000 00000 00000 11111 00000 00000 00000", "+": "00000 00100 00100 11111 00100 00100 00000",
    ".": "00000 00000 00000 00000 00000 01100 01100", "#": "01010 01010 11111 01010 11111 01010 01010",
    "?": "01110 10001 00001 00010 00100 00000 00100", "/": "00001 00010 00010 00100 01000 01000 10000",
    "\\": "10000 01000 01000 00100 00010 00010 00001", "*": "00000 10101 01110 11111 01110 10101 00000",
    "<": "00010 00100 01000 10000 01000 00100 00010", ">": "01000 00100 00010 00001 00010 00100 01000",
    "^": "00100 01010 10001 00000 00000 00000 00000", " ": "00000 00000 00000 00000 00000 00000 00000",
    "_": "00000 00000 00000 00000 00000 00000 11111", ":": "00000 01100 01100 00000 01100 01100 00000",
    ",": "00000 00000 00000 00000 01100 00100 01000", "=": "00000 00000 11111 00000 11111 00000 00000",
    "(": "00010 00100 01000 01000 01000 00100 00010", ")": "01000 00100 00010 00010 00010 00100 01000",
    # lower case only where a puzzle's names differ by case alone (River Crossing: agent A_1, actor a_1)
    "a": "00000 00000 01110 00001 01111 10001 01111",
}
FONT = {ch: np.array([[b == "1" for b in row] for row in rows.split()], bool) for ch, rows in _FONT_ROWS.items()}


def text_width(text: str, scale: int) -> int:
    """Pixels that :func:`draw_text` covers horizontally for ``text`` at ``scale``."""
    return max(0, len(text) * 6 * scale - scale)


def draw_text(img: np.ndarray, text: str, cy: float, cx: float, scale: int, color, keep_case: bool = False) -> None:
    """Draw ``text`` centred at (cy, cx) with the bitmap font at ``scale`` pixels per dot (upper
    case, or with ``keep_case`` the lower-case letters the font has)."""
    text = "".join(ch if ch in FONT else ch.upper() for ch in text) if keep_case else text.upper()
    gw, gh = 6 * scale, 7 * scale
    x = round(cx - (len(text) * gw - scale) / 2)
    y = round(cy - gh / 2)
    for ch in text:
        glyph = FONT.get(ch, FONT["?"])
        big = np.kron(glyph, np.ones((scale, scale), bool))
        y0, x0 = max(y, 0), max(x, 0)
        y1, x1 = min(y + gh, img.shape[0]), min(x + 5 * scale, img.shape[1])
        if y1 > y0 and x1 > x0:
            img[y0:y1, x0:x1][big[y0 - y:y1 - y, x0 - x:x1 - x]] = color
        x += gw


def fill(img: np.ndarray, box: tuple[float, float, float, float], color) -> None:
    """Fill the pixels of ``box = (x0, y0, x1, y1)`` (x1, y1 exclusive), clipped to the image."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = (round(v) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = color


def frame(img: np.ndarray, box: tuple[float, float, float, float], width: int, color) -> None:
    """A frame ``width`` pixels thick just inside ``box = (x0, y0, x1, y1)`` (x1, y1 exclusive)."""
    x0, y0, x1, y1 = box
    fill(img, (x0, y0, x1, y0 + width), color)
    fill(img, (x0, y1 - width, x1, y1), color)
    fill(img, (x0, y0, x0 + width, y1), color)
    fill(img, (x1 - width, y0, x1, y1), color)


def disc(img: np.ndarray, cx: float, cy: float, radius: float, color) -> None:
    """A filled circle."""
    h, w = img.shape[:2]
    x0, x1 = max(int(cx - radius), 0), min(int(cx + radius) + 2, w)
    y0, y1 = max(int(cy - radius), 0), min(int(cy + radius) + 2, h)
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1]
    img[y0:y1, x0:x1][(yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2 <= radius ** 2] = color


def ink_on(color) -> tuple[int, int, int]:
    """White or black text, whichever reads on a ``color`` background."""
    return INK if 0.3 * color[0] + 0.59 * color[1] + 0.11 * color[2] > 150 else (255, 255, 255)
