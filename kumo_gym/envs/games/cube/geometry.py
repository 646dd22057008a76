"""The solids and grids of Cube (docs/games.md, Cube), and what one roll does.

A grid is a list of cells ("squares" in Tatham's words; triangles for the tetrahedron, the
octahedron and the icosahedron) numbered in Tatham's order, which is the order of the bits of a
game ID's blue-square bitmap:

* the cube's grid is ``W`` x ``H`` squares in reading order;
* a triangular grid with dimensions ``d1``, ``d2`` is a hexagon of rows (``d1`` the top side and
  the two lower slanted sides, ``d2`` the other three): row ``r`` has ``d1 + r`` down-pointing
  triangles then ``d1 + r + 1`` up-pointing ones while ``r < d2``, and ``2*d2 + d1 - r`` down then one
  fewer up-pointing after that, each run from left to right.

The solid always sits in one fixed attitude over an up-pointing triangle or a square and turned
half a turn about the vertical over a down-pointing triangle, so a position is the cell and the
colours of the solid's faces listed in that attitude (a roll permutes them). One roll tips the
solid over an edge of its bottom face onto the neighbouring cell; the permutation comes from the
3-D rotation about that edge. Directions are Tatham's ``L``, ``R``, ``U``, ``D``: a square has
all four, a down-pointing triangle ``L``, ``R``, ``U`` (its top edge), an up-pointing one ``L``,
``R``, ``D`` (its bottom edge).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

SOLIDS = ("tetrahedron", "cube", "octahedron", "icosahedron")
LETTERS = "tcoi"
FACES = {"tetrahedron": 4, "cube": 6, "octahedron": 8, "icosahedron": 20}
DIRECTIONS = "LRUD"


def _polyhedron(solid: str) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Vertices (edge length 1) and faces (vertex triples or the cube's quadruples) of a solid."""
    if solid == "cube":
        verts = np.array(list(itertools.product((-0.5, 0.5), repeat=3)))
        faces = [tuple(i for i in range(8) if verts[i, axis] == side) for axis in range(3) for side in (-0.5, 0.5)]
        return verts, faces
    if solid == "tetrahedron":
        verts = np.array([(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)], float)
    elif solid == "octahedron":
        verts = np.array([v for axis in range(3) for v in (np.eye(3)[axis], -np.eye(3)[axis])])
    else:
        phi = (1 + 5 ** 0.5) / 2
        verts = np.array([p for a, b in itertools.product((-1, 1), (-phi, phi))
                          for p in ((0, a, b), (a, b, 0), (b, 0, a))], float)
    d = np.linalg.norm(verts[:, None] - verts[None], axis=2)
    edge = d[d > 1e-9].min()
    verts = verts / edge
    near = np.abs(d / edge - 1) < 1e-6
    faces = [f for f in itertools.combinations(range(len(verts)), 3)
             if near[f[0], f[1]] and near[f[1], f[2]] and near[f[0], f[2]]]
    return verts, faces


def _normal(verts: np.ndarray, face: tuple[int, ...]) -> np.ndarray:
    c = verts[list(face)].mean(axis=0)
    return c / np.linalg.norm(c)


@cache
def face_normals(solid: str) -> np.ndarray:
    """The outward unit normals of the solid's faces in its fixed attitude over a square or an
    up-pointing triangle (x right, y down the screen, z up from the grid): face 0 is the bottom,
    normal ``(0, 0, -1)``; on the triangular grid its apex points up the screen (``-y``)."""
    verts, faces = _polyhedron(solid)
    verts = verts - verts.mean(axis=0)
    if solid == "cube":
        normals = np.array([_normal(verts, f) for f in faces])
    else:
        n0 = _normal(verts, faces[0])
        apex = verts[faces[0][0]] - verts[list(faces[0])].mean(axis=0)
        apex = apex / np.linalg.norm(apex)
        # the rotation taking the frame (-apex x -n0, -apex, -n0) to the axes: the first face to the
        # bottom (-z) with one of its corners up the screen (-y)
        src = np.array([np.cross(-apex, -n0), -apex, -n0])
        rot = src  # rows of an orthonormal, right-handed frame: rot @ src[i] is the i-th axis
        normals = np.array([rot @ _normal(verts, f) for f in faces])
    bottom = int(np.argmin(normals[:, 2]))
    order = [bottom] + [i for i in range(len(normals)) if i != bottom]
    return np.round(normals[order], 12)


@dataclass(frozen=True)
class Cell:
    """One cell of the grid: its centre, its corners (in exact integer units: half a side across,
    one row down), whether it is a down-pointing triangle, and its neighbours by direction."""

    x: float
    y: float
    corners: tuple[tuple[int, int], ...]
    flip: bool
    edges: dict


ROW = math.sqrt(3) / 2


@lru_cache(maxsize=64)
def grid(solid: str, d1: int, d2: int) -> tuple[Cell, ...]:
    """The cells of the grid in Tatham's order."""
    cells: list[tuple[float, float, tuple, bool, dict]] = []
    if solid == "cube":
        for y in range(d2):
            for x in range(d1):
                cells.append((x, y, ((2 * x - 1, y), (2 * x - 1, y + 1), (2 * x + 1, y + 1), (2 * x + 1, y)),
                              False, {"L": (0, 1), "R": (2, 3), "U": (0, 3), "D": (1, 2)}))
    else:
        for row in range(d1 + d2):
            n = row + d1 if row < d2 else 2 * d2 + d1 - row
            up = n + 1 if row < d2 else n - 1
            for i in range(n):
                ix = 2 * i - (n - 1)
                cells.append((ix / 2, ROW * (row + 1 / 3), ((ix - 1, row), (ix, row + 1), (ix + 1, row)), True,
                              {"L": (0, 1), "R": (1, 2), "U": (0, 2)}))
            for i in range(up):
                ix = 2 * i - (up - 1)
                cells.append((ix / 2, ROW * (row + 2 / 3), ((ix + 1, row + 1), (ix, row), (ix - 1, row + 1)), False,
                              {"L": (1, 2), "R": (0, 1), "D": (0, 2)}))
    by_edge: dict = {}
    for k, (_, _, corners, _, dirs) in enumerate(cells):
        for a, b in dirs.values():
            by_edge.setdefault(frozenset((corners[a], corners[b])), []).append(k)
    out = []
    for k, (x, y, corners, flip, dirs) in enumerate(cells):
        edges = {}
        for name, (a, b) in dirs.items():
            other = [j for j in by_edge[frozenset((corners[a], corners[b]))] if j != k]
            if other:
                edges[name] = other[0]
        out.append(Cell(float(x), float(y), corners, flip, edges))
    return tuple(out)


def _frame(normals: np.ndarray, flip: bool) -> np.ndarray:
    return normals * np.array([-1.0, -1.0, 1.0]) if flip else normals


@lru_cache(maxsize=16)
def roll_permutation(solid: str, flip_from: bool, dx: float, dy: float, flip_to: bool) -> tuple[int, ...]:
    """``perm`` with ``new[i] = old[perm[i]]``: the face colours after a roll from a cell (turned
    when ``flip_from``) in the horizontal direction ``(dx, dy)`` (towards the next cell's centre)
    onto a cell turned when ``flip_to``."""
    normals = face_normals(solid)
    src, dst = _frame(normals, flip_from), _frame(normals, flip_to)
    u = np.array([dx, dy, 0.0])
    u /= np.linalg.norm(u)
    z = np.array([0.0, 0.0, 1.0])
    e = np.cross(z, u)
    # the face across the edge is the first to reach the bottom: its normal is sin(t) u - cos(t) z
    best = None
    for n in src:
        if abs(n @ e) < 1e-6 and n @ u > 1e-6:
            t = math.atan2(n @ u, -(n @ z))
            best = t if best is None or t < best else best
    assert best is not None
    c, s = math.cos(best), math.sin(best)
    # the rotation about e taking z to c z + s u and u to c u - s z
    basis = np.array([u, e, z])
    local = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])  # columns: the images of u, e, z in (u, e, z)
    rot = basis.T @ local @ basis
    moved = src @ rot.T
    perm = []
    for target in dst:
        hits = [j for j in range(len(moved)) if np.sum((moved[j] - target) ** 2) < 1e-6]
        assert len(hits) == 1
        perm.append(hits[0])
    return tuple(perm)


@lru_cache(maxsize=64)
def moves_table(solid: str, d1: int, d2: int) -> tuple[list[list[tuple[str, int, tuple[int, ...]]]], int]:
    """For every cell, its rolls ``(direction, next cell, permutation)``; and the number of faces."""
    cells = grid(solid, d1, d2)
    table = []
    for c in cells:
        row = []
        for name in DIRECTIONS:
            if name in c.edges:
                t = cells[c.edges[name]]
                row.append((name, c.edges[name], roll_permutation(solid, c.flip, t.x - c.x, t.y - c.y, t.flip)))
        table.append(row)
    return table, FACES[solid]


@lru_cache(maxsize=64)
def _tetra_classes(d1: int, d2: int) -> tuple[int, ...]:
    """For each triangle, the face of the tetrahedron that lands on it (the same whichever way it
    rolled there): rolled from cell 0 with faces labelled 0..3."""
    table, _ = moves_table("tetrahedron", d1, d2)
    n = len(table)
    label: list[int | None] = [None] * n
    faces = {0: (0, 1, 2, 3)}
    label[0] = 0
    todo = [0]
    while todo:
        k = todo.pop()
        for _, t, perm in table[k]:
            new = tuple(faces[k][p] for p in perm)
            if label[t] is None:
                label[t], faces[t] = new[0], new
                todo.append(t)
            elif label[t] != new[0]:
                raise AssertionError("the tetrahedron's bottom face depends on its path")
    return tuple(int(x) if x is not None else 0 for x in label)


def tetra_classes(d1: int, d2: int) -> list[int]:
    """:func:`_tetra_classes` as a fresh list."""
    return list(_tetra_classes(d1, d2))


def classes(solid: str, d1: int, d2: int) -> list[int]:
    """Tatham's classes of cells: every face of the tetrahedron lands on one class of triangles, the
    octahedron's faces split between up- and down-pointing ones; one class for the other solids."""
    if solid == "tetrahedron":
        return tetra_classes(d1, d2)
    if solid == "octahedron":
        return [int(c.flip) for c in grid(solid, d1, d2)]
    return [0] * len(grid(solid, d1, d2))


def area(solid: str, d1: int, d2: int) -> int:
    return d1 * d2 if solid == "cube" else d1 * d1 + d2 * d2 + 4 * d1 * d2


def distances(solid: str, d1: int, d2: int) -> np.ndarray:
    """Rolls between every two cells (breadth-first search on the grid)."""
    table, _ = moves_table(solid, d1, d2)
    n = len(table)
    out = np.full((n, n), 1 << 20, np.int64)
    for s in range(n):
        out[s, s] = 0
        todo = [s]
        for k in todo:
            for _, t, _ in table[k]:
                if out[s, t] > out[s, k] + 1:
                    out[s, t] = out[s, k] + 1
                    todo.append(t)
    return out
