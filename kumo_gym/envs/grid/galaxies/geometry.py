"""Galaxies' geometry: dots at half-cell positions, the regions of a labelled grid, and random
partitions into regions symmetric about their dots."""
from __future__ import annotations

import functools

import numpy as np

from ..geometry import Cell, neighbour_table


def label_components(labels: list[list]) -> dict:
    """For every value of the grid ``labels``, the 4-connected components of its cells, as
    :func:`components` gives them for ``labels == value`` (each sorted, smallest first, ties in
    row-major order of their first cell): one pass over the grid instead of one per value."""
    H, W = len(labels), len(labels[0])
    flat = [v for row in labels for v in row]
    seen = [False] * (H * W)
    out: dict = {}
    for start in range(H * W):
        if seen[start]:
            continue
        v = flat[start]
        seen[start] = True
        comp, stack = [], [start]
        while stack:
            i = stack.pop()
            comp.append(i)
            r, c = divmod(i, W)
            for j in (i - W if r else -1, i + 1 if c + 1 < W else -1, i + W if r + 1 < H else -1, i - 1 if c else -1):
                if j >= 0 and not seen[j] and flat[j] == v:
                    seen[j] = True
                    stack.append(j)
        comp.sort()
        out.setdefault(v, []).append([divmod(i, W) for i in comp])
    for comps in out.values():
        comps.sort(key=lambda comp: (len(comp), comp[0]))
    return out


def flood(seeds: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The cells of ``inside`` joined to ``seeds`` (a subset of it) by 4-connected paths within
    ``inside``: boolean arrays whose first two axes are the rows and columns, every further axis a
    separate layer flooded on its own (Galaxies: one layer per dot), all layers at once."""
    reach, size = seeds, np.count_nonzero(seeds)
    while True:  # the reached set only grows: it is done when its size stops changing
        grown = reach.copy()
        grown[1:] |= reach[:-1]
        grown[:-1] |= reach[1:]
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown &= inside
        reach, grew = grown, np.count_nonzero(grown)
        if grew == size:
            return reach
        size = grew


def dot_cells(dot) -> list[Cell]:
    """The cells a dot at half-cell position (r2, c2) touches: 1, 2 or 4 of them."""
    r2, c2 = dot
    return [(r, c) for r in range(r2 // 2, (r2 + 1) // 2 + 1) for c in range(c2 // 2, (c2 + 1) // 2 + 1)]


@functools.lru_cache(maxsize=64)
def dot_options(H: int, W: int) -> list[list[tuple[tuple[int, int], list[Cell]]]]:
    """Per cell (flat index), the dots at its centre, on its right or lower edge or its lower-right
    corner whose cells all lie in the grid, each with those cells."""
    out = []
    for r in range(H):
        for c in range(W):
            dots = ((2 * r, 2 * c), (2 * r, 2 * c + 1), (2 * r + 1, 2 * c), (2 * r + 1, 2 * c + 1))
            out.append([(d, dot_cells(d)) for d in dots if all(a < H and b < W for a, b in dot_cells(d))])
    return out


def random_symmetric_partition(rng: np.random.Generator, H: int, W: int, seeds: int,
                               shapes: dict) -> tuple[list, list[list]]:
    """A random partition of the grid into connected regions, each symmetric under a half turn
    about its dot: ``seeds`` dots on random free cells (at the cell's centre, on its right or lower
    edge or its lower-right corner, where those cells are free, weighted by ``shapes[(r2 % 2,
    c2 % 2)]``), then a random region grows by a free neighbour and its mirror image while any
    can, and a new dot is seeded when none can, until every cell has a region. Returns the dots
    in scan order and the grid of dot indices."""
    own = [[-1] * W for _ in range(H)]
    free = [H * W]  # how many cells have no region yet
    found: list = []
    grow: list[set] = []  # per region, the free cells it may grow by (kept up to date, not recomputed)
    near = neighbour_table(H, W)

    def fits(k: int, n: Cell) -> bool:
        a, b = found[k][0] - n[0], found[k][1] - n[1]
        return own[n[0]][n[1]] < 0 and 0 <= a < H and 0 <= b < W and own[a][b] < 0 and (a, b) != n

    def take(k: int, cells) -> None:
        """Give ``cells`` to region k: no region may grow into them (or into the cells whose
        mirror image they are) any more; region k may grow next to them."""
        for cell in cells:
            own[cell[0]][cell[1]] = k
        free[0] -= len(cells)
        for j, (r2, c2) in enumerate(found):
            g = grow[j]
            if g:
                for q in cells:
                    g.discard(q)
                    g.discard((r2 - q[0], c2 - q[1]))
        grow[k].update(n for cell in cells for n in near[cell] if fits(k, n))

    def seed() -> None:
        cells = [i for i in range(H * W) if own[i // W][i % W] < 0]
        r, c = divmod(cells[int(rng.integers(len(cells)))], W)
        opts = [d for d, cells in dot_options(H, W)[r * W + c] if all(own[a][b] < 0 for a, b in cells)]
        # rng.choice(len(opts), p=weights / their sum), with the same floating-point steps and the
        # same one uniform draw, without numpy's per-call overhead
        weight = [float(shapes[(d[0] % 2, d[1] % 2)]) for d in opts]
        total = 0.0
        for w in weight:
            total += w
        cdf, acc = [], 0.0
        for w in weight:
            acc += w / total
            cdf.append(acc)
        u = rng.random()
        found.append(opts[sum(1 for x in cdf if x / cdf[-1] <= u)])
        grow.append(set())
        take(len(found) - 1, next(cells for d, cells in dot_options(H, W)[r * W + c] if d == found[-1]))

    for _ in range(max(1, seeds)):
        if free[0]:
            seed()
    while free[0]:
        open_ = [k for k in range(len(found)) if grow[k]]
        if not open_:
            seed()
            continue
        k = open_[int(rng.integers(len(open_)))]
        cand = sorted(grow[k])
        p = cand[int(rng.integers(len(cand)))]
        take(k, {p, (found[k][0] - p[0], found[k][1] - p[1])})
    order = sorted(range(len(found)), key=lambda i: found[i])
    label = {old: new for new, old in enumerate(order)}
    return [list(found[i]) for i in order], [[label[own[r][c]] for c in range(W)] for r in range(H)]
