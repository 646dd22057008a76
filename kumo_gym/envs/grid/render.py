"""The shared grid renderer: one :class:`Sketch` per puzzle state, drawn as terminal text or as an
RGB image (``render_mode="rgb_array"``; every grid puzzle draws through here).

A puzzle says *what* is on the board in :meth:`GridTask.sketch`: cell labels and fills, clue
labels around the board, thick walls between cells (boxes, regions), line segments between cell
centres (loops, tracks, pipes; a segment may leave the grid by one cell to show an entry) and
dots at half-cell positions (Galaxies centres, Pearl pearls). This module decides *how*: fixed
width text with box-drawing characters from the observation charset, or a numpy image with the
bitmap font of :mod:`kumo_gym.envs.raster` (no imaging library needed, so ``rgb_array`` works
wherever the package imports). In pictures of answers, the cells a verdict names are framed
(:attr:`Sketch.first_mark`, :attr:`Sketch.marks`; :func:`cell_box` says where a cell is).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..raster import MARK, MARK_ALSO, frame
from ..raster import draw_text as _text

Cell = tuple[int, int]

#: fill colours a sketch may name (RGB)
PALETTE = {
    None: (255, 255, 255), "white": (255, 255, 255), "black": (35, 35, 35), "grey": (150, 150, 150),
    "given": (222, 222, 222), "lit": (255, 244, 170), "green": (120, 190, 110), "red": (225, 110, 100),
    "blue": (120, 160, 225), "orange": (240, 170, 90), "yellow": (240, 220, 100),
}
INK, GRIDLINE, LINE = (20, 20, 20), (170, 170, 170), (40, 90, 200)


@dataclass
class Sketch:
    """What a puzzle shows (see the module docstring). ``text`` is each cell in terminal text;
    ``labels`` what the image writes in it (default: ``text``; the image shows colours as fills,
    text needs a symbol). Clue lists may be None (no clues there); each clue is a list of tokens,
    stacked upwards above the board, side by side left of it."""

    H: int
    W: int
    text: list[list[str]]
    fill: list[list[str | None]] | None = None
    labels: list[list[str]] | None = None
    top: list[list[str]] | None = None
    bottom: list[list[str]] | None = None
    left: list[list[str]] | None = None
    right: list[list[str]] | None = None
    walls: list[tuple[Cell, Cell]] = field(default_factory=list)
    edges: list[tuple[Cell, Cell]] = field(default_factory=list)
    dots: list[tuple[int, int, bool]] = field(default_factory=list)
    #: a line of text under the board (Undead's totals)
    caption: str = ""
    #: cells framed in the image: the first cell a verdict names, then the others it names
    #: (pictures of answers; a puzzle's own sketch has none)
    first_mark: Cell | None = None
    marks: list[Cell] = field(default_factory=list)


def sketch_cells(grid: list[list], show=str, fill=None) -> Sketch:
    """A sketch of a plain grid: ``show(value) -> label``, ``fill(r, c, value) -> colour``."""
    H, W = len(grid), len(grid[0]) if grid else 0
    return Sketch(H, W, [[show(v) for v in row] for row in grid],
                  None if fill is None else [[fill(r, c, v) for c, v in enumerate(row)] for r, row in enumerate(grid)])


# ---- text -----------------------------------------------------------------------------------
_GLYPH = {frozenset("UD"): "\u2502", frozenset("LR"): "\u2500", frozenset("DR"): "\u250c", frozenset("DL"): "\u2510",
          frozenset("UR"): "\u2514", frozenset("UL"): "\u2518", frozenset("UDR"): "\u251c", frozenset("UDL"): "\u2524",
          frozenset("DLR"): "\u252c", frozenset("ULR"): "\u2534", frozenset("UDLR"): "\u253c"}


def _directions(edges: list[tuple[Cell, Cell]]) -> dict[Cell, set[str]]:
    out: dict[Cell, set[str]] = {}
    for a, b in edges:
        for p, q in ((a, b), (b, a)):
            d = {(-1, 0): "U", (1, 0): "D", (0, -1): "L", (0, 1): "R"}.get((q[0] - p[0], q[1] - p[1]))
            if d:
                out.setdefault(p, set()).add(d)
    return out


def render_text(s: Sketch) -> str:
    """Fixed-width text: clue labels around the board, ``|`` and ``-`` for walls, box-drawing
    characters for lines, ``o``/``*`` for dots on cells."""
    dirs = _directions(s.edges)
    dots = {(r2 // 2, c2 // 2): filled for r2, c2, filled in s.dots if r2 % 2 == 0 and c2 % 2 == 0}
    cells = [[s.text[r][c] or (_GLYPH.get(frozenset(dirs.get((r, c), ())), "\u2022") if (r, c) in dirs else
                               ("*" if dots[r, c] else "o") if (r, c) in dots else ".")
              for c in range(s.W)] for r in range(s.H)]
    w = max([len(x) for row in cells for x in row] + [len(t) for side in (s.top, s.bottom) if side
                                                      for lab in side for t in lab] + [1])
    walls = {frozenset(p) for p in s.walls}
    left = [" ".join(lab) for lab in s.left] if s.left else [""] * s.H
    right = [" ".join(lab) for lab in s.right] if s.right else [""] * s.H
    lw = max(len(x) for x in left)
    pad = " " * (lw + 2)

    def column_labels(side, above):
        depth = max(len(lab) for lab in side)
        rows = []
        for d in range(depth):
            toks = [(lab[d - depth + len(lab)] if d - depth + len(lab) >= 0 else "") if above else
                    (lab[d] if d < len(lab) else "") for lab in side]
            rows.append(pad + " ".join(t.rjust(w) for t in toks))
        return rows

    lines = column_labels(s.top, True) if s.top else []
    for r in range(s.H):
        body = ""
        for c in range(s.W):
            if c:
                body += "|" if frozenset({(r, c - 1), (r, c)}) in walls else " "
            body += cells[r][c].rjust(w)
        lines.append(f"{left[r].rjust(lw)}  {body}  {right[r]}".rstrip())
        if r + 1 < s.H and any(frozenset({(r, c), (r + 1, c)}) in walls for c in range(s.W)):
            lines.append(pad + " ".join(("-" * w if frozenset({(r, c), (r + 1, c)}) in walls else " " * w)
                                        for c in range(s.W)).rstrip())
    if s.bottom:
        lines += column_labels(s.bottom, False)
    return "\n".join(lines + ([s.caption] if s.caption else []))


# ---- image ----------------------------------------------------------------------------------
def _luma(rgb) -> float:
    return 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2]


def _layout(s: Sketch, max_side: int) -> tuple[int, int, int, int, int, int]:
    """``(cell size, font scale, top, bottom, left, right)`` in pixels: the board's cells and the
    margins that hold the clue labels."""
    depth = lambda side: max((len(lab) for lab in side), default=0) if side else 0
    width_of = lambda side: max((len(" ".join(lab)) for lab in side), default=0) if side else 0
    cols_needed = s.W + (width_of(s.left) + width_of(s.right)) / 2 + 1
    cs = int(max(12, min(40, max_side // max(cols_needed, s.H + depth(s.top) + depth(s.bottom) + 1))))
    scale = max(1, cs // 16)
    gh, gw = 8 * scale, 6 * scale
    top, bottom = depth(s.top) * gh + cs // 4, depth(s.bottom) * gh + cs // 4
    left, right = width_of(s.left) * gw + cs // 4, width_of(s.right) * gw + cs // 4
    return cs, scale, top, bottom, left, right


def cell_box(s: Sketch, r: int, c: int, max_side: int = 640) -> tuple[int, int, int, int]:
    """``(x0, y0, x1, y1)``, the pixels of cell ``(r, c)`` in :func:`render_rgb`'s image of ``s``
    (x1, y1 exclusive, grid lines included)."""
    cs, _, top, _, left, _ = _layout(s, max_side)
    return left + c * cs, top + r * cs, left + (c + 1) * cs + 1, top + (r + 1) * cs + 1


def render_rgb(s: Sketch, max_side: int = 640) -> np.ndarray:
    """The sketch as an ``(height, width, 3)`` uint8 image."""
    cs, scale, top, bottom, left, right = _layout(s, max_side)
    gh, gw = 8 * scale, 6 * scale
    img = np.full((top + s.H * cs + bottom + 1, left + s.W * cs + right + 1, 3), 255, np.uint8)
    y0, x0 = top, left
    for r in range(s.H):
        for c in range(s.W):
            colour = PALETTE.get(s.fill[r][c] if s.fill else None, PALETTE[None])
            img[y0 + r * cs:y0 + (r + 1) * cs, x0 + c * cs:x0 + (c + 1) * cs] = colour
    for r in range(s.H + 1):
        img[y0 + r * cs, x0:x0 + s.W * cs + 1] = GRIDLINE
    for c in range(s.W + 1):
        img[y0:y0 + s.H * cs + 1, x0 + c * cs] = GRIDLINE
    t = max(2, cs // 10)
    for a, b in s.walls:
        (r1, c1), (r2, c2) = sorted((a, b))
        if r1 == r2:  # a vertical border between (r, c) and (r, c + 1)
            x = x0 + c2 * cs
            img[y0 + r1 * cs:y0 + (r1 + 1) * cs + 1, max(x - t // 2, 0):x + t - t // 2] = INK
        else:
            y = y0 + r2 * cs
            img[max(y - t // 2, 0):y + t - t // 2, x0 + c1 * cs:x0 + (c1 + 1) * cs + 1] = INK
    img[y0:y0 + t, x0:x0 + s.W * cs + 1] = INK
    img[y0 + s.H * cs - t + 1:y0 + s.H * cs + 1, x0:x0 + s.W * cs + 1] = INK
    img[y0:y0 + s.H * cs + 1, x0:x0 + t] = INK
    img[y0:y0 + s.H * cs + 1, x0 + s.W * cs - t + 1:x0 + s.W * cs + 1] = INK
    lw = max(2, cs // 6)
    for a, b in s.edges:
        (r1, c1), (r2, c2) = sorted((a, b))
        ya, xa = y0 + int((r1 + 0.5) * cs), x0 + int((c1 + 0.5) * cs)
        yb, xb = y0 + int((r2 + 0.5) * cs), x0 + int((c2 + 0.5) * cs)
        ya, yb = np.clip([ya, yb], y0, y0 + s.H * cs)
        xa, xb = np.clip([xa, xb], x0, x0 + s.W * cs)
        img[ya - lw // 2:yb + lw - lw // 2, xa - lw // 2:xb + lw - lw // 2] = LINE
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    for r2, c2, filled in s.dots:
        cy, cx = y0 + (r2 / 2 + 0.5) * cs, x0 + (c2 / 2 + 0.5) * cs
        d2 = (yy - cy) ** 2 + (xx - cx) ** 2
        rad = cs / 5
        img[d2 <= rad ** 2] = INK
        if not filled:
            img[d2 <= (rad - max(1.5, cs / 16)) ** 2] = 255
    for r in range(s.H):
        for c in range(s.W):
            label = (s.labels or s.text)[r][c]
            if label and (r, c) not in _directions(s.edges):
                bg = PALETTE.get(s.fill[r][c] if s.fill else None, PALETTE[None])
                fit = max(1, min(scale, int(cs * 0.8) // max(1, 6 * len(label))))
                _text(img, label, y0 + (r + 0.5) * cs, x0 + (c + 0.5) * cs, fit,
                      (255, 255, 255) if _luma(bg) < 110 else INK)
    for side, labels in (("top", s.top), ("bottom", s.bottom), ("left", s.left), ("right", s.right)):
        for i, lab in enumerate(labels or []):
            if side in ("top", "bottom"):
                cx = x0 + (i + 0.5) * cs
                for k, tok in enumerate(lab):
                    row = (len(lab) - 1 - k) if side == "top" else k
                    cy = (y0 - cs // 8 - (row + 0.5) * gh) if side == "top" else (y0 + s.H * cs + cs // 8 + (row + 0.5) * gh)
                    _text(img, tok, cy, cx, scale, INK)
            else:
                txt = " ".join(lab)
                cy = y0 + (i + 0.5) * cs
                cx = (left - cs // 8 - len(txt) * gw / 2) if side == "left" else (x0 + s.W * cs + cs // 8 + len(txt) * gw / 2)
                _text(img, txt, cy, cx, scale, INK)
    # marks last, over everything: the other named cells thin and inset (the board stays
    # readable when a check names a whole row), then the first one, thick on the cell's edge
    mw, inset = max(2, cs // 8), max(2, cs // 10)
    for r, c in s.marks:
        if 0 <= r < s.H and 0 <= c < s.W and (r, c) != s.first_mark:
            x0, y0, x1, y1 = cell_box(s, r, c, max_side)
            frame(img, (x0 + inset, y0 + inset, x1 - inset, y1 - inset), max(2, mw - 2), MARK_ALSO)
    if s.first_mark is not None and 0 <= s.first_mark[0] < s.H and 0 <= s.first_mark[1] < s.W:
        frame(img, cell_box(s, *s.first_mark, max_side), mw + 1, MARK)
    return img
