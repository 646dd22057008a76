"""Loopy's other tilings (docs/grid.md "Loopy"): the triangular (``t1``), honeycomb (``t2``), snub-square (``t3``),
Cairo (``t4``), great-hexagonal (``t5``), octagonal (``t6``), kites (``t7``), floret (``t8``), dodecagonal (``t9``),
great-dodecagonal (``t10``), Penrose kite/dart (``t11``) and rhombs (``t12``, :mod:`.penrose`),
great-great-dodecagonal (``t13``), kagome (``t14``) and compass-dodecagonal (``t15``) grids
laid out as Tatham's Loopy lays them out for a given W x H, so that the clue
string of a game ID lists the faces in the same order.

A tiling is dots (integer positions, x to the right and y downwards, the least of each 0), faces (the dots round each face,
clockwise on the page) and edges (pairs of dots). The order of the faces is what matters for game IDs:

* honeycomb: hexagons column by column within each row (row y, column x), a hexagon's centre at
  (3x, 2y), moved down one unit in odd columns; its corners are (x +- 1, y - 1), (x + 2, y), (x +- 1, y + 1)
  round that centre;
* triangular (grid description ``0``, the current form): per row y of triangles, first the W + 1
  triangles pointing one way (up in even rows, down in odd rows), then the W pointing the other way, each
  from left to right; when H is odd the first and last triangle of the first kind in the last row are
  left out (they would touch the rest at one side only). Dots sit at (2k, y) and (2k + 1, y) in half-side
  units across and row units down;
* triangular without a grid description (Tatham's older form, still read): dots (W + 1) per row, odd rows
  shifted half a side, and two triangles per (x, y) in reading order;
* Penrose (grid description ``G<x>,<y>,<angle>``, a patch of the tiling): the tiles in the order
  Tatham's subdivision meets them, trimmed as he trims them (:mod:`.penrose`), at his page positions;
* the others: per (x, y) in reading order, the faces its function below lists, in Tatham's drawing units
  (whole numbers whose ratios stand for the irrational ones: 26 / 15 for sqrt 3, 41 / 29 for sqrt 2), so
  that corners shared by two faces are the same point; every face's corners are listed clockwise. Their positions are shown in those units.

Edges are numbered in the order met going round the faces in order, dots in the order first met the same
way (neither is part of a game ID; both are fixed, so prompts and answers can name them).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from . import penrose

#: tiling number (the ``t`` of a game ID) -> name, for the tilings of this module
NAMES = {1: "triangular", 2: "honeycomb", 3: "snub-square", 4: "Cairo", 5: "great-hexagonal", 6: "octagonal",
         7: "kites", 8: "floret", 9: "dodecagonal", 10: "great-dodecagonal", 11: "Penrose kite/dart",
         12: "Penrose rhombs", 13: "great-great-dodecagonal", 14: "kagome", 15: "compass-dodecagonal"}
#: the least width and height Tatham allows, and the least one of them must reach
LIMITS = {1: (3, 3), 2: (3, 3), 3: (3, 3), 4: (3, 4), 5: (3, 3), 6: (3, 3), 7: (3, 3), 8: (1, 2), 9: (2, 2),
          10: (2, 2), 11: (3, 3), 12: (3, 3), 13: (2, 2), 14: (3, 3), 15: (2, 2)}


@dataclass(frozen=True)
class Tiling:
    """One laid-out grid: see the module docstring."""

    kind: int
    W: int
    H: int
    #: Tatham's grid description ("0" for the current triangular layout, None where there is none)
    desc: str | None
    dots: tuple[tuple[int, int], ...]
    faces: tuple[tuple[int, ...], ...]
    edges: tuple[tuple[int, int], ...]
    #: per face, its edges in turn (edge k joins the face's dots k and k + 1)
    face_edges: tuple[tuple[int, ...], ...]

    @property
    def name(self) -> str:
        return NAMES[self.kind]

    @property
    def unit(self) -> tuple[int, int]:
        """Tatham's drawing units per position unit across and down (triangles and hexagons are stored in
        half-sides across and rows down, the others in drawing units)."""
        return (15, 26) if self.kind in (1, 2) else (1, 1)

    @functools.cached_property
    def edge_index(self) -> dict[tuple[int, int], int]:
        """Edge number by its two dots, in either order."""
        out = {}
        for i, (a, b) in enumerate(self.edges):
            out[a, b] = out[b, a] = i
        return out

    @functools.cached_property
    def dot_edges(self) -> tuple[tuple[int, ...], ...]:
        """Per dot, the edges that end at it."""
        out: list[list[int]] = [[] for _ in self.dots]
        for i, (a, b) in enumerate(self.edges):
            out[a].append(i)
            out[b].append(i)
        return tuple(map(tuple, out))

    @functools.cached_property
    def neighbours(self) -> tuple[frozenset[int], ...]:
        """Per dot, the dots one edge away."""
        return tuple(frozenset(self.edges[e][0] + self.edges[e][1] - d for e in es)
                     for d, es in enumerate(self.dot_edges))

    @functools.cached_property
    def edge_faces(self) -> tuple[tuple[int, ...], ...]:
        """Per edge, the one or two faces it borders."""
        out: list[list[int]] = [[] for _ in self.edges]
        for f, es in enumerate(self.face_edges):
            for e in es:
                out[e].append(f)
        return tuple(map(tuple, out))

    @functools.cached_property
    def dot_faces(self) -> tuple[frozenset[int], ...]:
        """Per dot, the faces that have it as a corner."""
        out: list[set[int]] = [set() for _ in self.dots]
        for f, ds in enumerate(self.faces):
            for d in ds:
                out[d].add(f)
        return tuple(frozenset(s) for s in out)

    def centre(self, f: int) -> tuple[float, float]:
        """The mean position of a face's corners."""
        xs = [self.dots[d] for d in self.faces[f]]
        return sum(x for x, _ in xs) / len(xs), sum(y for _, y in xs) / len(xs)


def _assemble(kind: int, W: int, H: int, desc: str | None, faces_at: list[list[tuple[int, int]]],
              dots: list[tuple[int, int]] | None = None) -> Tiling:
    """Number the dots (first met, unless given), then the edges (first met going round the faces in order)."""
    index: dict[tuple[int, int], int] = {p: i for i, p in enumerate(dots)} if dots is not None else {}
    faces = []
    for corners in faces_at:
        if sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1])) < 0:
            corners = corners[:1] + corners[:0:-1]  # Tatham lists the floret's petals anticlockwise: ours go clockwise
        faces.append(tuple(index.setdefault(p, len(index)) for p in corners))
    edges: list[tuple[int, int]] = []
    seen: dict[frozenset, int] = {}
    face_edges = []
    for ds in faces:
        row = []
        for k, a in enumerate(ds):
            b = ds[(k + 1) % len(ds)]
            key = frozenset((a, b))
            if key not in seen:
                seen[key] = len(edges)
                edges.append((a, b))
            row.append(seen[key])
        face_edges.append(tuple(row))
    points = [p for p, _ in sorted(index.items(), key=lambda kv: kv[1])]
    x0, y0 = min(x for x, _ in points), min(y for _, y in points)
    points = [(x - x0, y - y0) for x, y in points]  # the top and left dots at 0
    return Tiling(kind, W, H, desc, tuple(points), tuple(faces), tuple(edges), tuple(face_edges))


def _triangular(W: int, H: int) -> list[list[tuple[int, int]]]:
    faces = []
    for y in range(H):
        # the row's top and bottom; the corner order flips with the row's parity so faces stay clockwise
        y0, y1, flip = (y, y + 1, True) if y % 2 else (y + 1, y, False)
        for x in range(W + 1):
            if H % 2 == 1 and y == H - 1 and x in (0, W):
                continue
            a, b, c = (2 * x, y0), (2 * x + 1, y1), (2 * x + 2, y0)
            faces.append([a, c, b] if flip else [a, b, c])
        for x in range(W):
            a, b, c = (2 * x + 1, y1), (2 * x + 2, y0), (2 * x + 3, y1)
            faces.append([a, c, b] if not flip else [a, b, c])
    return faces


def _triangular_old(W: int, H: int) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int]]]:
    dots = [(2 * x + y % 2, y) for y in range(H + 1) for x in range(W + 1)]
    at = lambda x, y: dots[y * (W + 1) + x]
    faces = []
    for y in range(H):
        for x in range(W):
            if y % 2:
                faces += [[at(x, y), at(x + 1, y + 1), at(x, y + 1)], [at(x, y), at(x + 1, y), at(x + 1, y + 1)]]
            else:
                faces += [[at(x, y), at(x + 1, y), at(x, y + 1)], [at(x + 1, y), at(x + 1, y + 1), at(x, y + 1)]]
    return faces, dots


def _honeycomb(W: int, H: int) -> list[list[tuple[int, int]]]:
    faces = []
    for y in range(H):
        for x in range(W):
            cx, cy = 3 * x, 2 * y + x % 2
            faces.append([(cx - 1, cy - 1), (cx + 1, cy - 1), (cx + 2, cy), (cx + 1, cy + 1), (cx - 1, cy + 1),
                          (cx - 2, cy)])
    return faces


def _snub_square(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Squares turned one way or the other (by the parity of x + y), each with a triangle to its left (x > 0)
    and one above (y > 0); a = 15 and b = 26 units (b / a near sqrt 3)."""
    a, b = 15, 26
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = (a + b) * x, (a + b) * y
            odd = (x + y) % 2
            sq = [(a, 0), (a + b, a), (b, a + b), (0, b)] if odd else [(b, 0), (a + b, b), (a, a + b), (0, a)]
            shapes = [sq]
            if x > 0:
                shapes.append([(a, 0), (0, b), (-a, 0)] if odd else [(0, a), (a, a + b), (-a, a + b)])
            if y > 0:
                shapes.append([(a, 0), (a + b, -a), (a + b, a)] if odd else [(0, -a), (b, 0), (0, a)])
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in shapes]
    return faces


def _cairo(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Per cell (2b x 2b units, a = 14, b = 31) a pentagon above it (y > 0) and one to its left (x > 0), each
    turned by the parity of x + y."""
    a, b = 14, 31
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = 2 * b * x, 2 * b * y
            odd = (x + y) % 2
            shapes = []
            if y > 0:
                shapes.append([(a, -b), (2 * b - a, -b), (2 * b, 0), (b, a), (0, 0)] if odd else
                              [(0, 0), (b, -a), (2 * b, 0), (2 * b - a, b), (a, b)])
            if x > 0:
                shapes.append([(0, 0), (b, a), (b, 2 * b - a), (0, 2 * b), (-a, b)] if odd else
                              [(0, 0), (a, b), (0, 2 * b), (-b, 2 * b - a), (-b, a)])
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in shapes]
    return faces


def _great_hexagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Hexagons as the honeycomb's (odd columns lower), each followed by the squares below it, below right
    and below left and the triangles below right and below left that the grid's edges leave in place."""
    a, b = 15, 26
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = (3 * a + b) * x, (2 * a + 2 * b) * y + (a + b) * (x % 2)
            last_row, even = y == H - 1, x % 2 == 0
            shapes = [[(-a, -b), (a, -b), (2 * a, 0), (a, b), (-a, b), (-2 * a, 0)]]
            if not last_row:
                shapes.append([(-a, b), (a, b), (a, 2 * a + b), (-a, 2 * a + b)])
            if x < W - 1 and (even or not last_row):
                shapes.append([(2 * a, 0), (2 * a + b, a), (a + b, a + b), (a, b)])
            if x > 0 and (even or not last_row):
                shapes.append([(-2 * a, 0), (-a, b), (-a - b, a + b), (-2 * a - b, a)])
            if x < W - 1 and not last_row:
                shapes.append([(a, b), (a + b, a + b), (a, 2 * a + b)])
            if x > 0 and not last_row:
                shapes.append([(-a, b), (-a, 2 * a + b), (-a - b, a + b)])
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in shapes]
    return faces


def _octagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Octagons in rows and columns (a = 29, b = 41, b / a near sqrt 2), each followed by the diamond at its top
    left corner (x, y > 0)."""
    a, b = 29, 41
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = (2 * a + b) * x, (2 * a + b) * y
            shapes = [[(a, 0), (a + b, 0), (2 * a + b, a), (2 * a + b, a + b), (a + b, 2 * a + b), (a, 2 * a + b),
                       (0, a + b), (0, a)]]
            if x > 0 and y > 0:
                shapes.append([(0, -a), (a, 0), (0, a), (-a, 0)])
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in shapes]
    return faces


def _kites(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Six kites round each dot where six meet (odd rows shifted half a step), from the one pointing up-left
    round to the one pointing down-left; a = 15, b = 26."""
    a, b = 15, 26
    kites = ([(0, 0), (2 * b, 0), (2 * b, 2 * a), (b, 3 * a)], [(0, 0), (b, 3 * a), (0, 4 * a), (-b, 3 * a)],
             [(0, 0), (-b, 3 * a), (-2 * b, 2 * a), (-2 * b, 0)], [(0, 0), (-2 * b, 0), (-2 * b, -2 * a), (-b, -3 * a)],
             [(0, 0), (-b, -3 * a), (0, -4 * a), (b, -3 * a)], [(0, 0), (b, -3 * a), (2 * b, -2 * a), (2 * b, 0)])
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = 4 * b * x + 2 * b * (y % 2), 6 * a * y
            faces += [[(px + dx, py + dy) for dx, dy in k] for k in kites]
    return faces


def _floret(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Six pentagons round each centre, turning through the side vectors P = (75, -26), Q = (60, 52) and
    R = Q - P; odd columns sit half a step lower and the last row skips its even columns (below the first
    row)."""
    P, Q = (75, -26), (60, 52)
    R = (Q[0] - P[0], Q[1] - P[1])

    def at(*terms) -> tuple[int, int]:
        return sum(k * v[0] for k, v in terms), sum(k * v[1] for k, v in terms)

    petals = (((2, R),), ((2, R), (1, Q)), ((2, Q), (1, R)), ((2, Q),)), \
             (((2, Q),), ((2, Q), (1, P)), ((2, P), (1, Q)), ((2, P),)), \
             (((2, P),), ((2, P), (-1, R)), ((-2, R), (1, P)), ((-2, R),)), \
             (((-2, R),), ((-2, R), (-1, Q)), ((-2, Q), (-1, R)), ((-2, Q),)), \
             (((-2, Q),), ((-2, Q), (-1, P)), ((-2, P), (-1, Q)), ((-2, P),)), \
             (((-2, P),), ((-2, P), (1, R)), ((2, R), (-1, P)), ((2, R),))
    step_x, step_y = (6 * P[0] + 3 * Q[0]) // 2, 4 * P[1] - 5 * Q[1]
    faces = []
    for y in range(H):
        for x in range(W):
            cx, cy = step_x * x, step_y * y
            if x % 2:
                cy -= step_y // 2
            elif y and y == H - 1:
                continue
            for petal in petals:
                faces.append([(cx, cy)] + [(cx + dx, cy + dy) for dx, dy in (at(*t) for t in petal)])
    return faces


def _staggered(W: int, H: int, pitch: int, rise: int,
               cell: Callable[[int, int], list[list[tuple[int, int]]]]) -> list[list[tuple[int, int]]]:
    """The faces of W x H cells in rows, odd rows half a step right: cell (x, y) is centred at
    ``(pitch * x + pitch / 2 * (y % 2), rise * y)`` (``pitch`` even) and ``cell(x, y)`` gives its faces in
    order, as corner offsets from that centre."""
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = pitch * x + pitch // 2 * (y % 2), rise * y
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in cell(x, y)]
    return faces


#: the twelve corners of a dodecagon round its centre (a = 15, b = 26)
_DODECAGON = ((15, -56), (41, -41), (56, -15), (56, 15), (41, 41), (15, 56), (-15, 56), (-41, 41), (-56, 15),
              (-56, -15), (-41, -41), (-15, -56))


def _dodecagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Dodecagons in rows (odd rows half a step right), each followed by the triangle below it and the one above
    it where the grid goes on there."""
    a, b = 15, 26

    def cell(x: int, y: int) -> list[list[tuple[int, int]]]:
        inner = (x < W - 1 or not y % 2) and (x > 0 or y % 2)
        shapes = [list(_DODECAGON)]
        if y < H - 1 and inner:
            shapes.append([(a, 2 * a + b), (0, 2 * a + 2 * b), (-a, 2 * a + b)])
        if y and inner:
            shapes.append([(-a, -2 * a - b), (0, -2 * a - 2 * b), (a, -2 * a - b)])
        return shapes

    return _staggered(W, H, 4 * a + 2 * b, 3 * a + 2 * b, cell)


def _great_dodecagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Dodecagons in rows (odd rows half a step right), each followed by the hexagons below and above it and the
    squares to its right, top right and top left, where the grid goes on there."""
    a, b = 15, 26

    def cell(x: int, y: int) -> list[list[tuple[int, int]]]:
        inner = (x < W - 1 or not y % 2) and (x > 0 or y % 2)
        shapes = [list(_DODECAGON)]
        if y < H - 1 and inner:
            shapes.append([(a, 2 * a + b), (2 * a, 2 * a + 2 * b), (a, 2 * a + 3 * b), (-a, 2 * a + 3 * b),
                           (-2 * a, 2 * a + 2 * b), (-a, 2 * a + b)])
        if y and inner:
            shapes.append([(-a, -2 * a - b), (-2 * a, -2 * a - 2 * b), (-a, -2 * a - 3 * b), (a, -2 * a - 3 * b),
                           (2 * a, -2 * a - 2 * b), (a, -2 * a - b)])
        if x < W - 1:
            shapes.append([(2 * a + b, -a), (4 * a + b, -a), (4 * a + b, a), (2 * a + b, a)])
        if y and (x < W - 1 or not y % 2):
            shapes.append([(a, -2 * a - b), (2 * a, -2 * a - 2 * b), (2 * a + b, -a - 2 * b), (a + b, -a - b)])
        if y and (x or y % 2):
            shapes.append([(-a - b, -a - b), (-2 * a - b, -a - 2 * b), (-2 * a, -2 * a - 2 * b), (-a, -2 * a - b)])
        return shapes

    return _staggered(W, H, 6 * a + 2 * b, 3 * a + 3 * b, cell)


def _great_great_dodecagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Dodecagons in rows (odd rows half a step right), each followed by the hexagons at its top right, right and
    bottom right, the squares at its top right, bottom right, below, bottom left, top left and above, and the
    triangles at its upper and lower right, where the grid goes on there."""
    a, b = 15, 26

    def cell(x: int, y: int) -> list[list[tuple[int, int]]]:
        right, row_end = x < W - 1, x < W - 1 or not y % 2
        inner = row_end and (x > 0 or y % 2)
        shapes = [list(_DODECAGON)]
        if y and row_end:
            shapes.append([(a + 2 * b, -4 * a - b), (a + 2 * b, -2 * a - b), (a + b, -a - b), (a, -2 * a - b),
                           (a, -4 * a - b), (a + b, -5 * a - b)])
        if right:
            shapes.append([(2 * a + 3 * b, -a), (2 * a + 3 * b, a), (2 * a + 2 * b, 2 * a), (2 * a + b, a),
                           (2 * a + b, -a), (2 * a + 2 * b, -2 * a)])
        if y < H - 1 and row_end:
            shapes.append([(a + 2 * b, 2 * a + b), (a + 2 * b, 4 * a + b), (a + b, 5 * a + b), (a, 4 * a + b),
                           (a, 2 * a + b), (a + b, a + b)])
        if y and right:
            shapes.append([(a + 2 * b, -2 * a - b), (2 * a + 2 * b, -2 * a), (2 * a + b, -a), (a + b, -a - b)])
        if y < H - 1 and right:
            shapes.append([(2 * a + 2 * b, 2 * a), (a + 2 * b, 2 * a + b), (a + b, a + b), (2 * a + b, a)])
        if y < H - 1 and inner:
            shapes.append([(a, 2 * a + b), (a, 4 * a + b), (-a, 4 * a + b), (-a, 2 * a + b)])
        if x and y < H - 1:
            shapes.append([(-2 * a - b, a), (-a - b, a + b), (-a - 2 * b, 2 * a + b), (-2 * a - 2 * b, 2 * a)])
        if x and y:
            shapes.append([(-a - b, -a - b), (-2 * a - b, -a), (-2 * a - 2 * b, -2 * a), (-a - 2 * b, -2 * a - b)])
        if y and inner:
            shapes.append([(a, -4 * a - b), (a, -2 * a - b), (-a, -2 * a - b), (-a, -4 * a - b)])
        if y and right:
            shapes.append([(3 * a + 2 * b, -2 * a - b), (2 * a + 2 * b, -2 * a), (a + 2 * b, -2 * a - b)])
        if y < H - 1 and right:
            shapes.append([(3 * a + 2 * b, 2 * a + b), (a + 2 * b, 2 * a + b), (2 * a + 2 * b, 2 * a)])
        return shapes

    return _staggered(W, H, 4 * a + 4 * b, 6 * a + 2 * b, cell)


def _kagome(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Hexagons in rows (odd rows half a step right), each followed by the triangles at its upper and lower right
    (and, at the start of odd rows, those at its upper and lower left) where the grid goes on there."""
    a, b = 15, 26

    def cell(x: int, y: int) -> list[list[tuple[int, int]]]:
        even = not y % 2
        shapes = [[(a, -b), (2 * a, 0), (a, b), (-a, b), (-2 * a, 0), (-a, -b)]]
        if x < W - 1 or (even and y):
            shapes.append([(3 * a, -b), (2 * a, 0), (a, -b)])
        if x < W - 1 or (even and y < H - 1):
            shapes.append([(3 * a, b), (a, b), (2 * a, 0)])
        if not x and not even:
            shapes.append([(-a, -b), (-2 * a, 0), (-3 * a, -b)])
            if y < H - 1:
                shapes.append([(-a, b), (-3 * a, b), (-2 * a, 0)])
        return shapes

    return _staggered(W, H, 4 * a, 2 * b, cell)


def _compass_dodecagonal(W: int, H: int) -> list[list[tuple[int, int]]]:
    """Dodecagons in rows and columns, each followed (but in the last row and column) by the four triangles and
    the square in the gap at its lower right: north, east, south, west, then the square."""
    a, b = 15, 26
    faces = []
    for y in range(H):
        for x in range(W):
            px, py = (4 * a + 2 * b) * x, (4 * a + 2 * b) * y
            shapes = [list(_DODECAGON)]
            if x < W - 1 and y < H - 1:
                shapes += [[(2 * a + b, a), (3 * a + b, a + b), (a + b, a + b)],
                           [(3 * a + 2 * b, 2 * a + b), (3 * a + b, 3 * a + b), (3 * a + b, a + b)],
                           [(3 * a + b, 3 * a + b), (2 * a + b, 3 * a + 2 * b), (a + b, 3 * a + b)],
                           [(a + b, a + b), (a + b, 3 * a + b), (a, 2 * a + b)],
                           [(3 * a + b, a + b), (3 * a + b, 3 * a + b), (a + b, 3 * a + b), (a + b, a + b)]]
            faces += [[(px + dx, py + dy) for dx, dy in sh] for sh in shapes]
    return faces


_FIXED = {3: _snub_square, 4: _cairo, 5: _great_hexagonal, 6: _octagonal, 7: _kites, 8: _floret, 9: _dodecagonal,
          10: _great_dodecagonal, 13: _great_great_dodecagonal, 14: _kagome, 15: _compass_dodecagonal}


@functools.lru_cache(maxsize=32)
def tiling(kind: int, W: int, H: int, desc: str | None = None) -> Tiling:
    """The laid-out grid of a tiling number, size and grid description (see the module docstring)."""
    if kind == 1:
        if desc is None:
            faces, dots = _triangular_old(W, H)
            return _assemble(kind, W, H, None, faces, dots)
        if desc != "0":
            raise ValueError(f"triangular grid description {desc!r} is not '0' or absent")
        return _assemble(kind, W, H, desc, _triangular(W, H))
    if kind in (penrose.P2, penrose.P3):
        if desc is None:
            raise ValueError(f"a {NAMES[kind]} grid needs a grid description G<x>,<y>,<angle>")
        return _assemble(kind, W, H, desc, [list(f) for f in penrose.faces(kind, W, H, desc)])
    if kind in NAMES:
        if desc is not None:
            raise ValueError(f"a {NAMES[kind]} grid has no grid description, got {desc!r}")
        return _assemble(kind, W, H, None, _honeycomb(W, H) if kind == 2 else _FIXED[kind](W, H))
    raise ValueError(f"tiling t{kind} is not one of: " + ", ".join(f"t{k} ({v})" for k, v in NAMES.items()))


def default_desc(kind: int) -> str | None:
    """The grid description Tatham's generator writes today for a tiling (Penrose: :func:`new_desc`)."""
    return "0" if kind == 1 else None


def new_desc(rng, kind: int, W: int, H: int) -> str | None:
    """The grid description of a new puzzle: a random patch on the Penrose tilings (drawn from ``rng``), else
    :func:`default_desc`."""
    return penrose.random_desc(rng, kind, W, H) if kind in (penrose.P2, penrose.P3) else default_desc(kind)
