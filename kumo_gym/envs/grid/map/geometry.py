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
    label = np.full(H * W, -1, np.int64)
    seeds = rng.choice(H * W, size=n, replace=False)
    label[seeds] = np.arange(n)
    offers: list[tuple[int, int]] = []

    def offer(i: int) -> None:
        r, c = divmod(i, W)
        k = int(label[i])
        if r > 0:
            offers.append((i - W, k))
        if r < H - 1:
            offers.append((i + W, k))
        if c > 0:
            offers.append((i - 1, k))
        if c < W - 1:
            offers.append((i + 1, k))

    for s in seeds:
        offer(int(s))
    left = H * W - n
    picks = rng.random(4 * H * W + 16)
    t = 0
    while left:
        if t == len(picks):
            picks, t = rng.random(4 * H * W), 0
        j = int(picks[t] * len(offers))
        t += 1
        offers[j], offers[-1] = offers[-1], offers[j]
        i, k = offers.pop()
        if label[i] < 0:
            label[i] = k
            left -= 1
            offer(i)
    _, first, inverse = np.unique(label, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].reshape(H, W)


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
    for i in range(len(neighbours)):
        f.exactly_one([int(v) for v in x[i]])
    for a, adj in enumerate(neighbours):
        for b in adj:
            if a < b:
                for k in range(FOUR):
                    f.add([-int(x[a, k]), -int(x[b, k])])
    return Engine(f, x.ravel()), x
