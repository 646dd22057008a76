"""Untangle generation and drawing (docs/games.md, Untangle).

**The graph**, built the way Tatham's generator builds it (our own code): ``n`` points on distinct
cells of a ``isqrt(3n)``-wide square grid, then edges added greedily, each time to the point of
lowest degree that can still take one (ties: the lower number), towards the nearest point (ties:
the lower number) of degree below 4 that is not yet its neighbour and whose straight edge would
touch no other point and no existing edge (an edge refused once stays refused: edges are only ever
added). The placement the edges were drawn on is crossing-free by construction: stretched over our
grid (:func:`spread`), it is the certified solution.

**The tangle**: the points are renumbered at random until the start, the points on a circle in
number order (:func:`circle`), has at least one pair of edges that meet.

**The solver** for any planar graph (an imported ID carries no placement): a combinatorial planar
embedding and the straight-line grid drawing of de Fraysseix, Pach and Pollack (networkx), whose
points lie on the ``(2n - 3)`` x ``(n - 1)`` corner of our grid of side ``2n``.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .geometry import first_fault

MAX_DEGREE = 4
#: renumberings tried before the graph is drawn again (a graph with no two disjoint edges never tangles)
MAX_SHUFFLES = 200


def grid_side(n: int) -> int:
    """Our grid's side for ``n`` points: coordinates 0..2n-1 (room for the planar grid drawing)."""
    return 2 * n


def tatham_side(n: int) -> int:
    """The side of the grid Tatham's generator draws its graph on: isqrt(3n)."""
    return math.isqrt(3 * n)


def spread(n: int, placement) -> list[list[int]]:
    """A placement on Tatham's ``isqrt(3n)``-wide grid stretched over ours: every coordinate times
    the largest whole factor that fits, then centred. A map x -> s x + c keeps every orientation
    sign, so a crossing-free placement stays crossing-free, with room between its points."""
    w, side = tatham_side(n), grid_side(n)
    s = max(1, (side - 1) // max(1, w - 1))
    c = (side - 1 - s * (w - 1)) // 2
    return [[s * x + c, s * y + c] for x, y in placement]


@functools.cache
def circle(n: int) -> tuple[tuple[int, int], ...]:
    """The start: point i at angle 2 pi i / n, clockwise from the top, on a circle of radius
    3/7 of the side around the grid's centre, rounded to the nearest lattice point (computed once
    per ``n``)."""
    side = grid_side(n)
    c, r = (side - 1) / 2, side * 3 / 7
    out = []
    for i in range(n):
        t = 2 * math.pi * i / n
        out.append((math.floor(c + r * math.sin(t) + 0.5), math.floor(c - r * math.cos(t) + 0.5)))
    return tuple(out)


def draw_graph(n: int, rng: np.random.Generator) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(points, edges) of a random planar graph drawn crossing-free on Tatham's grid (the greedy
    rule of the module docstring, run by the compiled :func:`.kernel.draw`)."""
    from .kernel import draw

    w = tatham_side(n)
    cells = rng.permutation(w * w)[:n]
    x, y = cells % w, cells // w
    eu, ev = np.zeros(2 * n, np.int64), np.zeros(2 * n, np.int64)
    m = draw(x, y, np.zeros(n, np.int64), np.zeros(n * n, np.int8), np.zeros(n * n, np.int8),
             np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), eu, ev)
    return list(zip(x.tolist(), y.tolist())), list(zip(eu[:m].tolist(), ev[:m].tolist()))


def tangle(n: int, rng: np.random.Generator) -> tuple[list[list[int]], list[list[int]]]:
    """(edges, solution): a random planar graph, renumbered so that the circle start is tangled,
    and its crossing-free generating placement (``solution[i]`` is point i's spot)."""
    from .kernel import fault

    start = circle(n)
    sx = np.asarray([p[0] for p in start], np.int64)
    sy = np.asarray([p[1] for p in start], np.int64)
    while True:
        pts, edges = draw_graph(n, rng)
        for _ in range(MAX_SHUFFLES):
            perm = rng.permutation(n).tolist()
            new = sorted([min(perm[a], perm[b]), max(perm[a], perm[b])] for a, b in edges)
            e = np.asarray(new, np.int64).reshape(-1, 2)
            if fault(sx, sy, np.ascontiguousarray(e[:, 0]), np.ascontiguousarray(e[:, 1]), len(new), True):
                solution = [[0, 0] for _ in range(n)]
                for old, label in enumerate(perm):
                    solution[label] = list(pts[old])
                return new, spread(n, solution)


def planar_placement(n: int, edges) -> list[list[int]] | None:
    """A crossing-free integer placement of any planar graph (None when it is not planar)."""
    import networkx as nx
    from networkx.algorithms.planar_drawing import combinatorial_embedding_to_pos

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(tuple(e) for e in edges)
    planar, embedding = nx.check_planarity(g)
    if not planar:
        return None
    pos = combinatorial_embedding_to_pos(embedding)
    out = [[int(pos[i][0]), int(pos[i][1])] for i in range(n)]
    if first_fault(out, [list(e) for e in edges]) is not None:  # pragma: no cover - the drawing is planar
        raise AssertionError("the planar grid drawing has a fault")
    return out
