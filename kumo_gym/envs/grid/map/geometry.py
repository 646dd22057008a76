"""Map's geometry: random maps grown from seeds, the cell edges of a map and the region-level
colouring model the generator reduces clues on (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.engine import Engine, random_phases
from ....solvers.sat import Formula

Cell = tuple[int, int]
FOUR = 4
#: steps of the colouring search before it hands over to SAT
COLOUR_STEPS = 100_000


def grow_map(rng: np.random.Generator, H: int, W: int, n: int) -> np.ndarray:
    """A random map of ``n`` connected regions: ``n`` seed cells, then, until every cell is
    taken, a random (free cell, region beside it) pair joins the cell to that region. Labels
    are renumbered in order of first appearance, row by row (the game ID's numbering)."""
    return np.asarray(grown(rng, H, W, n)[0])


def grown(rng: np.random.Generator, H: int, W: int, n: int) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """``(regions, start, nb)``: the map of :func:`grow_map` as rows of region numbers, and its
    region graph as neighbour lists (region i's neighbours ``nb[start[i]:start[i + 1]]``, in
    increasing order), made by the compiled :func:`.kernel.grow`. The pairs on offer are drawn
    from one batch of ``4 H W`` uniform numbers: each draw takes one pair, each cell taken offers
    at most its three other sides (a seed its four), so the draws never run out. The region graph
    is planar (regions are connected sets of cells of a grid), so it has at most ``3 n`` edges."""
    from .kernel import grow

    seeds = rng.choice(H * W, size=n, replace=False).astype(np.int64)
    picks = rng.random(4 * H * W + 16)
    label = np.full(H * W, -1, np.int64)
    start, nb = np.zeros(n + 1, np.int64), np.zeros(6 * n + 6, np.int64)
    offers = 4 * H * W
    used = grow(H, W, seeds, picks, label, np.zeros(offers, np.int64), np.zeros(offers, np.int64),
                np.zeros(n, np.int64), np.zeros(n * n, np.int8), start, nb)
    if used < 0:  # pragma: no cover - see the docstring
        raise RuntimeError(f"Map's region growing ran out of {'draws' if used == -1 else 'room for edges'} "
                           f"on a {W}x{H} grid with {n} regions")
    return label.reshape(H, W).tolist(), start, nb


def neighbour_lists(start: np.ndarray, nb: np.ndarray) -> list[list[int]]:
    """Each region's neighbours, sorted, as lists (the state's ``neighbours``)."""
    cols, ends = nb.tolist(), start.tolist()
    return [cols[ends[i]:ends[i + 1]] for i in range(len(ends) - 1)]


def random_colouring(rng: np.random.Generator, start: np.ndarray, nb: np.ndarray) -> np.ndarray:
    """A random four-colouring of the region graph ``(start, nb)`` (:func:`grown`): the
    compiled search of :func:`.kernel.colour`, each region trying the colours in a random order,
    ties between regions broken by a random priority; SAT with random phases in the unlikely case
    the search takes more than :data:`COLOUR_STEPS` steps."""
    from .kernel import colour

    n = len(start) - 1
    pref = np.argsort(rng.random((n, FOUR)), axis=1).astype(np.int64).ravel()
    priority = rng.permutation(n).astype(np.int64)
    col = np.zeros(n, np.int64)
    if colour(start, nb, pref, priority, col, np.zeros(n, np.int64), np.zeros(n, np.int64), COLOUR_STEPS):
        return col
    engine, x = colouring_model(neighbour_lists(start, nb))
    model = engine.sample(phases=random_phases(rng, x.ravel()))
    return np.argmax(model[x] > 0, axis=1).astype(np.int64)


@functools.lru_cache(maxsize=64)
def borders(regions: tuple[tuple[int, ...], ...]) -> tuple[dict, dict]:
    """``(inside, between)``: the edge-adjacent cell pairs of one region (region -> pairs) and
    of two neighbouring regions ((a, b) with a < b -> pairs), in row-major order."""
    H, W = len(regions), len(regions[0])
    inside: dict[int, list[tuple[Cell, Cell]]] = {}
    between: dict[tuple[int, int], list[tuple[Cell, Cell]]] = {}
    for r in range(H):
        for c in range(W):
            a = regions[r][c]
            for r2, c2 in ((r, c + 1), (r + 1, c)):
                if r2 < H and c2 < W:
                    b = regions[r2][c2]
                    if a == b:
                        inside.setdefault(a, []).append(((r, c), (r2, c2)))
                    else:
                        between.setdefault((min(a, b), max(a, b)), []).append(((r, c), (r2, c2)))
    return inside, dict(sorted(between.items()))


def colouring_model(neighbours: list[list[int]]) -> tuple[Engine, np.ndarray]:
    """The region-level SAT model: ``x[i, k]`` region i has colour k, one colour per region,
    neighbours differ. Its engine decides uniqueness for the clue reduction (the cell-level model
    of the task says the same once every cell of a region shares its colour)."""
    f = Formula()
    x = f.grid("colour", len(neighbours), FOUR)
    for row in x.tolist():  # one colour per region: at least one, no two (pairwise)
        f.add(row)
        f.extend([-a, -b] for i, a in enumerate(row) for b in row[i + 1:])
    xs = x.tolist()
    f.extend([-xs[a][k], -xs[b][k]] for a, adj in enumerate(neighbours) for b in adj if a < b for k in range(FOUR))
    return Engine(f, x.ravel()), x
