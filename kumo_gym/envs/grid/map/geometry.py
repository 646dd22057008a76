"""Map's geometry: random maps grown from seeds, the cell edges of a map and the region-level
colouring model the generator reduces clues on (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.engine import Engine
from ....solvers.sat import Formula

Cell = tuple[int, int]
FOUR = 4


def grow_map(rng: np.random.Generator, H: int, W: int, n: int) -> np.ndarray:
    """A random map of ``n`` connected regions: ``n`` seed cells, then, until every cell is
    taken, a random (free cell, region beside it) pair joins the cell to that region. Labels
    are renumbered in order of first appearance, row by row (the game ID's numbering)."""
    label = [-1] * (H * W)
    around = _around(H, W)
    seeds = rng.choice(H * W, size=n, replace=False).tolist()
    offers: list[tuple[int, int]] = []
    for k, s in enumerate(seeds):
        label[s] = k
        offers.extend((j, k) for j in around[s])
    left = H * W - n
    picks = rng.random(4 * H * W + 16).tolist()
    t = 0
    while left:
        if t == len(picks):
            picks, t = rng.random(4 * H * W).tolist(), 0
        j = int(picks[t] * len(offers))
        t += 1
        offers[j], offers[-1] = offers[-1], offers[j]
        i, k = offers.pop()
        if label[i] < 0:
            label[i] = k
            left -= 1
            offers.extend((x, k) for x in around[i] if label[x] < 0)
    _, first, inverse = np.unique(np.asarray(label), return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].reshape(H, W)


@functools.lru_cache(maxsize=16)
def _around(H: int, W: int) -> list[tuple[int, ...]]:
    """Each cell's edge neighbours (flat indices)."""
    out = []
    for i in range(H * W):
        r, c = divmod(i, W)
        out.append(tuple(j for ok, j in ((r > 0, i - W), (r < H - 1, i + W), (c > 0, i - 1), (c < W - 1, i + 1)) if ok))
    return out


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
