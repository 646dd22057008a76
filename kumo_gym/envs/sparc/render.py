"""Image rendering of SPaRC puzzles (docs/specs/sparc.md §11), drawn with numpy only.

``render_rgb(puzzle, path)`` returns an ``H x W x 3`` uint8 image: dark background, grey grid
lines (interrupted at gaps), the start as a filled circle, the end as a stub sticking out of the
border, dots as small black hexagons, and each cell symbol in its colour: rounded square, 8-point
star, 1-4 small triangles, polyomino (filled squares in the shape's layout) and negative
polyomino (outlined). The output is deterministic. :func:`write_png` saves it without any
imaging library.
"""
from __future__ import annotations

import itertools
import math
import struct
import zlib

import numpy as np

from ..raster import MARK, MARK_ALSO, frame
from .puzzle import POLY, SQUARE, STAR, TRIANGLE, YLOP, SparcPuzzle, is_edge

RGB = {"R": (220, 40, 40), "B": (40, 90, 220), "G": (40, 170, 70), "Y": (240, 210, 40),
       "W": (250, 250, 250), "O": (245, 140, 30), "P": (150, 60, 190), "K": (20, 20, 20)}
BACKGROUND = (38, 40, 48)
LINE = (120, 124, 134)
PATH = (250, 245, 200)
DOT = (10, 10, 10)


class _Canvas:
    def __init__(self, height: int, width: int):
        self.img = np.empty((height, width, 3), np.uint8)
        self.img[:] = BACKGROUND
        self.yy, self.xx = np.mgrid[0:height, 0:width]

    def _box(self, x0, y0, x1, y1):
        h, w = self.img.shape[:2]
        return max(0, math.floor(x0)), max(0, math.floor(y0)), min(w, math.ceil(x1) + 1), \
            min(h, math.ceil(y1) + 1)

    def rect(self, x0, y0, x1, y1, colour):
        a, b, c, d = self._box(x0, y0, x1, y1)
        if c > a and d > b:
            self.img[b:d, a:c] = colour

    def circle(self, cx, cy, r, colour):
        a, b, c, d = self._box(cx - r, cy - r, cx + r, cy + r)
        if c <= a or d <= b:
            return
        m = (self.xx[b:d, a:c] - cx) ** 2 + (self.yy[b:d, a:c] - cy) ** 2 <= r * r
        self.img[b:d, a:c][m] = colour

    def polygon(self, pts, colour):
        """Fill a convex polygon given counter- or clockwise."""
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        a, b, c, d = self._box(min(xs), min(ys), max(xs), max(ys))
        if c <= a or d <= b:
            return
        X, Y = self.xx[b:d, a:c] + 0.5, self.yy[b:d, a:c] + 0.5
        inside_pos = np.ones(X.shape, bool)
        inside_neg = np.ones(X.shape, bool)
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
            cross = (x1 - x0) * (Y - y0) - (y1 - y0) * (X - x0)
            inside_pos &= cross >= 0
            inside_neg &= cross <= 0
        self.img[b:d, a:c][inside_pos | inside_neg] = colour

    def segment(self, x0, y0, x1, y1, width, colour):
        """A thick axis-parallel segment with round ends."""
        r = width / 2
        self.rect(min(x0, x1) - (0 if x0 != x1 else r), min(y0, y1) - (0 if y0 != y1 else r),
                  max(x0, x1) + (0 if x0 != x1 else r), max(y0, y1) + (0 if y0 != y1 else r), colour)
        self.circle(x0, y0, r, colour)
        self.circle(x1, y1, r, colour)


def _regular(cx, cy, r, n, phase=0.0):
    return [(cx + r * math.cos(phase + 2 * math.pi * i / n), cy + r * math.sin(phase + 2 * math.pi * i / n))
            for i in range(n)]


def point_box(p: SparcPuzzle, x: int, y: int, cell_px: int = 80) -> tuple[int, int, int, int]:
    """``(x0, y0, x1, y1)``: the square around grid position ``(x, y)`` (a corner, an edge or a
    cell) that marks frame in :func:`render_rgb`'s image (ends exclusive)."""
    margin, half = cell_px * 0.6, cell_px / 2
    cx, cy = margin + x * half, margin + y * half
    r = cell_px * 0.22
    return math.floor(cx - r), math.floor(cy - r), math.ceil(cx + r) + 1, math.ceil(cy + r) + 1


def render_rgb(p: SparcPuzzle, path=None, cell_px: int = 80, show_coords: bool = False,
               first_mark: tuple[int, int] | None = None, marks=()) -> np.ndarray:
    """The puzzle as an RGB image; ``path`` (a list of (x, y)) is drawn over it (docs/specs/sparc.md §11).

    Pictures of answers frame the position a verdict names first (``first_mark``: the first bad
    position of the path) in ``raster.MARK`` and the others (``marks``: the symbols whose rules
    fail) in ``raster.MARK_ALSO``."""
    img = _draw(p, path, int(cell_px), show_coords)
    lw = max(2, int(cell_px) // 20)
    for x, y in marks:
        if p.in_bounds(x, y) and (x, y) != first_mark:
            frame(img, point_box(p, x, y, cell_px), lw, MARK_ALSO)
    if first_mark is not None and p.in_bounds(*first_mark):
        frame(img, point_box(p, *first_mark, cell_px), lw + 1, MARK)
    return img


def _draw(p: SparcPuzzle, path, cell_px: int, show_coords: bool) -> np.ndarray:
    half = cell_px / 2
    lw = max(2.0, cell_px / 8)
    margin = cell_px * 0.6
    W = round(2 * margin + p.width * cell_px)
    H = round(2 * margin + p.height * cell_px)
    cv = _Canvas(H, W)

    def px(x, y):
        return margin + x * half, margin + y * half

    gaps = set(p.gaps)
    # grid lines: one segment per edge midpoint, interrupted over 40 % of the edge at gaps
    for y in range(p.rows):
        for x in range(p.cols):
            if not is_edge(x, y):
                continue
            (ax, ay), (bx, by) = (px(x - 1, y), px(x + 1, y)) if x % 2 == 1 else (px(x, y - 1), px(x, y + 1))
            if (x, y) in gaps:
                f = 0.3
                cv.segment(ax, ay, ax + (bx - ax) * f, ay + (by - ay) * f, lw, LINE)
                cv.segment(bx, by, bx - (bx - ax) * f, by - (by - ay) * f, lw, LINE)
            else:
                cv.segment(ax, ay, bx, by, lw, LINE)
    # end: a stub sticking out of the border
    ex, ey = p.end
    cx, cy = px(ex, ey)
    dx = -1 if ex == 0 else (1 if ex == p.cols - 1 else 0)
    dy = -1 if ey == 0 else (1 if ey == p.rows - 1 else 0)
    if dx and dy:
        dy = 0
    if not (dx or dy):
        dy = -1
    stub = cell_px * 0.3
    cv.segment(cx, cy, cx + dx * stub, cy + dy * stub, lw, LINE)
    # start
    sx, sy = px(*p.start)
    cv.circle(sx, sy, 1.25 * lw, LINE)
    # path overlay
    if path:
        pts = [px(x, y) for x, y in path if p.in_bounds(x, y)]
        for (ax, ay), (bx, by) in itertools.pairwise(pts):
            if ax == bx or ay == by:
                cv.segment(ax, ay, bx, by, lw * 0.8, PATH)
        if pts:
            cv.circle(pts[0][0], pts[0][1], 1.25 * lw * 0.8, PATH)
            cv.circle(pts[-1][0], pts[-1][1], 0.6 * lw, PATH)
    # dots
    for x, y in p.dots:
        cx, cy = px(x, y)
        cv.polygon(_regular(cx, cy, lw * 0.55, 6), DOT)
    # cell symbols
    s = cell_px
    for (x, y), (kind, colour, extra) in sorted(p.symbols.items()):
        cx, cy = px(x, y)
        col = RGB[colour]
        if kind == SQUARE:
            r = s * 0.14
            cv.rect(cx - r, cy - r + r * 0.35, cx + r, cy + r - r * 0.35, col)
            cv.rect(cx - r + r * 0.35, cy - r, cx + r - r * 0.35, cy + r, col)
            for ox in (-1, 1):
                for oy in (-1, 1):
                    cv.circle(cx + ox * r * 0.65, cy + oy * r * 0.65, r * 0.35, col)
        elif kind == STAR:
            r = s * 0.17
            cv.polygon(_regular(cx, cy, r, 4, math.pi / 4), col)
            cv.polygon(_regular(cx, cy, r, 4, 0.0), col)
        elif kind == TRIANGLE:
            t = s * 0.09
            n = int(extra)
            for i in range(n):
                ox = cx + (i - (n - 1) / 2) * t * 2.2
                cv.polygon([(ox, cy - t), (ox + t, cy + t * 0.8), (ox - t, cy + t * 0.8)], col)
        elif kind in (POLY, YLOP):
            cells = p.shapes[extra]
            bw = max(dx for dx, _ in cells) + 1
            bh = max(dy for _, dy in cells) + 1
            unit = s * 0.5 / max(4, max(bw, bh))
            ox0 = cx - bw * unit / 2
            oy0 = cy - bh * unit / 2
            for dx, dy in cells:
                x0, y0 = ox0 + dx * unit + 1, oy0 + dy * unit + 1
                x1, y1 = x0 + unit - 2, y0 + unit - 2
                cv.rect(x0, y0, x1, y1, col)
                if kind == YLOP:
                    cv.rect(x0 + 2, y0 + 2, x1 - 2, y1 - 2, BACKGROUND)
    if show_coords:
        # small tick marks on every even coordinate along the top and left margins
        for x in range(0, p.cols, 2):
            cx, _ = px(x, 0)
            cv.rect(cx - 1, 2, cx + 1, margin * 0.3, LINE)
        for y in range(0, p.rows, 2):
            _, cy = px(0, y)
            cv.rect(2, cy - 1, margin * 0.3, cy + 1, LINE)
    return cv.img


def write_png(path, img: np.ndarray) -> None:
    """Save an ``H x W x 3`` uint8 array as a PNG file (zlib only, deterministic bytes)."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    h, w = img.shape[:2]
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
