"""Loopy's Penrose grids (docs/grid.md "Loopy"): kite/dart (``t11``, P2) and rhombs (``t12``, P3), built as
Tatham's Loopy of the installed build (Debian's sgt-puzzles 20230122) builds them, so that a game ID's clue
string lists the faces in the same order.

The grid description ``G<x>,<y>,<angle>`` picks a patch of one fixed Penrose tiling:

* the tiling comes from the recursive half-tile (Robinson triangle) subdivision of one large triangle, with
  vertices as exact integer combinations of four unit vectors at 36 degrees to each other (a fifth is their
  alternating sum), scaled by the golden ratio by integer sums; the start triangle is rotated by
  ``angle`` (a multiple of 36) and grown until its inscribed circle covers the radius the size asks for;
* a tile is made when a half-tile of one hand is reached at the deepest level, its four corners taken to
  the page with Tatham's 7-digit cosines and rounded half away from zero; it is kept when every corner
  lies in the W x H rectangle of 100-unit squares (150 for kites, 125 for rhombs) centred on ``(x, y)``;
  faces are numbered in the order the subdivision meets them, corners with equal rounded positions are
  one dot;
* then the patch is trimmed: a dot is inland when every edge at it borders two kept tiles; the inland dots
  joined by such edges form groups, the largest group wins (ties: the one whose first dot came first), and
  only the tiles with a corner in it stay, in their order.

Exact integers everywhere but the page positions, whose doubles follow the same operations in the same
order as the C, so the rounding is the same. Only subtrees that can reach the rectangle are visited (a
subtriangle lies inside its parent, a tile within one side of its half-tile), which changes no tile.
"""
from __future__ import annotations

import functools
import math
import re

#: tiling numbers
P2, P3 = 11, 12
PHI = 1.6180339887  # as Tatham's penrose.h
TILESIZE = 100
COS54, SIN54, COS18, SIN18 = 0.5877852, 0.8090169, 0.9510565, 0.3090169
INCIRCLE_RADIUS = 0.22426
_DESC = re.compile(r"G(-?[0-9]{1,9}),(-?[0-9]{1,9}),(-?[0-9]{1,9})")


def _rot36(v):
    a, b, c, d = v
    return (-d, d + a, -d + b, d + c)


def _rotate(v, ang: int):
    while ang < 0:
        ang += 360
    for _ in range((360 - ang) // 36):
        v = _rot36(v)
    return v


def _grow(v):
    a, b, c, d = v
    return (a + b - d, c + d, a + b, c + d - a)


def _shrink(v):
    a, b, c, d = v
    return (b - d, c + d - b, a + b - c, c - a)


def _add(v, w):
    return (v[0] + w[0], v[1] + w[1], v[2] + w[2], v[3] + w[3])


def _x(v) -> float:
    return (v[0] + v[3]) * COS54 + (v[1] + v[2]) * COS18


def _y(v) -> float:
    return (v[0] - v[3]) * SIN54 + (v[1] - v[2]) * SIN18


def _xform(edge, shrink: int, orig, ang: int):
    if shrink < 0:
        edge = _shrink(edge)
    elif shrink > 0:
        edge = _grow(edge)
    return _add(_rotate(edge, ang), orig)


def calculate_size(kind: int, w: int, h: int) -> tuple[float, int, int]:
    """(required radius, start size, depth) of the subdivision for a W x H grid."""
    tilesize = TILESIZE * 3 // 2 if kind == P2 else TILESIZE * 5 // 4
    rradius = tilesize * 3.11 * math.sqrt(float(w * w + h * h))
    size, n = float(tilesize), 0
    while size * INCIRCLE_RADIUS < rradius:
        n += 1
        size = size * PHI
    return rradius, int(size), n


def inner_radius(kind: int, w: int, h: int) -> int:
    """How far from the centre a patch's offset may be."""
    return int(calculate_size(kind, w, h)[0] - math.sqrt(w * w + h * h))


def parse_desc(kind: int, w: int, h: int, desc: str) -> tuple[int, int, int]:
    """``G<x>,<y>,<angle>`` -> (x, y, angle), checked as Tatham checks it; ValueError names what is wrong."""
    m = _DESC.fullmatch(desc or "")
    if m is None:
        raise ValueError(f"Penrose grid description {desc!r} is not G<x>,<y>,<angle> (like G788,-2510,36)")
    x, y, a = map(int, m.groups())
    r = inner_radius(kind, w, h)
    if math.sqrt(x * x + y * y) > r:
        raise ValueError(f"Penrose patch offset ({x}, {y}) is more than {r} from the centre at {w}x{h}")
    if a % 36 or not 0 <= a < 360:
        raise ValueError(f"Penrose angle {a} is not one of 0, 36, ..., 324")
    return x, y, a


def _round(r: float) -> int:
    return int(math.floor(r + 0.5) if r > 0.0 else math.ceil(r - 0.5))


def _tiles(kind: int, w: int, h: int, xoff: int, yoff: int, aoff: int,
           prune: bool = True) -> list[list[tuple[int, int]]]:
    """The tiles inside the rectangle, in the subdivision's order, as rounded page corners (``prune``
    False: the whole subdivision is visited, as Tatham's C does)."""
    _, start, depth = calculate_size(kind, w, h)
    xs, ys = w * TILESIZE, h * TILESIZE
    xmin, xmax, ymin, ymax = xoff - xs // 2, xoff + xs // 2, yoff - ys // 2, yoff + ys // 2
    leaf = start / PHI ** depth
    out: list[list[tuple[int, int]]] = []

    def reaches(orig, edge, d: int) -> bool:
        if not prune:
            return True
        # every point of the subtree lies within phi |edge| of orig (the half-tile), plus one tile side
        r = PHI * math.hypot(_x(edge), _y(edge)) + 2 * PHI * leaf + 4
        px, py = _x(orig), _y(orig)
        dx = max(xmin - px, 0.0, px - xmax)
        dy = max(ymin - py, 0.0, py - ymax)
        return dx * dx + dy * dy <= r * r

    def tile(vs, d: int) -> None:
        if d < depth:
            return
        pts = []
        for v in vs:
            x, y = _round(_x(v)), _round(_y(v))
            if not (xmin <= x <= xmax and ymin <= y <= ymax):
                return
            pts.append((x, y))
        out.append(pts)

    def p2_large(d, flip, orig, edge):
        if not reaches(orig, edge, d):
            return
        if flip > 0:
            tile([orig, _xform(edge, 0, orig, -36), _xform(edge, 0, orig, 0), _xform(edge, 0, orig, 36)], d)
        if d >= depth:
            return
        vv_orig = _add(orig, _rotate(edge, -36 * flip))
        vv_edge = _rotate(edge, 108 * flip)
        p2_small(d + 1, flip, orig, _shrink(edge))
        p2_large(d + 1, flip, vv_orig, _shrink(vv_edge))
        p2_large(d + 1, -flip, vv_orig, _shrink(vv_edge))

    def p2_small(d, flip, orig, edge):
        if not reaches(orig, edge, d):
            return
        if flip > 0:
            tile([orig, _xform(edge, 0, orig, -72), _xform(edge, -1, orig, -36), _xform(edge, 0, orig, 0)], d)
        if d >= depth:
            return
        vv_orig = _add(orig, edge)
        p2_large(d + 1, -flip, orig, _shrink(_rotate(edge, -36 * flip)))
        p2_small(d + 1, flip, vv_orig, _shrink(_rotate(edge, -144 * flip)))

    def p3_large(d, flip, orig, edge):
        if not reaches(orig, _grow(edge), d):
            return
        if flip > 0:
            tile([orig, _xform(edge, 0, orig, -36), _xform(edge, 1, orig, 0), _xform(edge, 0, orig, 36)], d)
        if d >= depth:
            return
        vv_orig = _add(orig, edge)
        p3_large(d + 1, -flip, vv_orig, _shrink(_rotate(edge, 180)))
        p3_small(d + 1, flip, vv_orig, _shrink(_rotate(edge, -108 * flip)))
        vv_orig = _add(orig, _grow(edge))
        p3_large(d + 1, flip, vv_orig, _shrink(_rotate(edge, -144 * flip)))

    def p3_small(d, flip, orig, edge):
        if not reaches(orig, edge, d):
            return
        if flip > 0:
            v3 = _xform(edge, 0, orig, 0)
            tile([orig, _xform(edge, 0, orig, -36), _xform(edge, 0, v3, -36), v3], d)
        if d >= depth:
            return
        vv_orig = _add(orig, edge)
        p3_large(d + 1, -flip, vv_orig, _shrink(_rotate(edge, 180)))
        p3_small(d + 1, flip, vv_orig, _shrink(_rotate(edge, -108 * flip)))

    vo = _shrink(_shrink((0, -start, -start, 0)))
    vb = (0, start, 0, 0)
    vo, vb = _rotate(vo, aoff), _rotate(vb, aoff)
    (p2_large if kind == P2 else p3_small)(0, 1, vo, vb)
    return out


def _trim(tiles: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Tatham's trimming of a patch (module docstring): the tiles round the largest inland group, in order."""
    index: dict[tuple[int, int], int] = {}
    faces = [[index.setdefault(p, len(index)) for p in t] for t in tiles]
    pairs = set()
    for ds in faces:
        for k, a in enumerate(ds):
            pairs.add((ds[k - 1], a))
    n = len(index)
    inland = [True] * n
    for a, b in pairs:
        if (b, a) not in pairs:
            inland[a] = inland[b] = False
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        if a < b and inland[a] and inland[b] and (b, a) in pairs:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)  # the smaller index leads, as in Tatham's dsf
    sizes: dict[int, int] = {}
    for i in range(n):
        if inland[i]:
            sizes[root(i)] = sizes.get(root(i), 0) + 1
    best, size = -1, 0
    for i in range(n):
        if inland[i] and root(i) == i and sizes[i] > size:
            best, size = i, sizes[i]
    return [t for t, ds in zip(tiles, faces) if any(inland[d] and root(d) == best for d in ds)]


@functools.lru_cache(maxsize=64)
def faces(kind: int, w: int, h: int, desc: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The faces of a Penrose Loopy grid (corners as page positions), in Tatham's order; ValueError when the
    description is malformed, out of bounds, or leaves no grid (as Tatham's own check)."""
    x, y, a = parse_desc(kind, w, h, desc)
    kept = _trim(_tiles(kind, w, h, x, y, a))
    if not kept:
        raise ValueError(f"Penrose grid description {desc!r} leaves no usable grid at {w}x{h}")
    return tuple(tuple(t) for t in kept)


def random_desc(rng, kind: int, w: int, h: int) -> str:
    """A grid description drawn as Tatham's generator draws one (an offset in the disc of
    :func:`inner_radius`, an angle, again while the patch is empty), from a numpy Generator."""
    r = inner_radius(kind, w, h)
    while True:
        while True:
            x = int(rng.integers(2 * r)) - r
            y = int(rng.integers(2 * r)) - r
            if math.sqrt(x * x + y * y) <= r:
                break
        desc = f"G{x},{y},{int(rng.integers(10)) * 36}"
        try:
            faces(kind, w, h, desc)
        except ValueError:
            continue
        return desc
