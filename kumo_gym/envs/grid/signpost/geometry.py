"""Signpost's geometry: random queen paths through every cell of the grid."""
from __future__ import annotations

import functools

import numpy as np

from ..geometry import Cell, ray

QUEEN_STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def queen_path(rng: np.random.Generator, H: int, W: int, tries: int = 1000, start: Cell | None = None,
               end: Cell | None = None) -> list[Cell]:
    """A random Hamiltonian path of queen moves over the H x W grid: Warnsdorff's rule (the
    cell with the fewest onward moves first) with random ties, restarted on a dead end; ``start``
    and ``end`` fix its first and last cells."""
    moves, masks = _queen_moves(H, W)
    n = H * W
    stop = -1 if end is None else end[0] * W + end[1]
    for _ in range(tries):
        r, c = start or (int(rng.integers(H)), int(rng.integers(W)))
        cell = r * W + c
        free = ((1 << n) - 1) & ~(1 << cell)  # the cells not yet on the path
        path = [cell]
        while len(path) < n:
            nxt = [b for b in moves[path[-1]] if free >> b & 1]
            if stop >= 0 and len(path) < n - 1:
                nxt = [b for b in nxt if b != stop]
            if not nxt:
                break
            degree = [(masks[b] & free).bit_count() - 1 for b in nxt]  # b itself is still free
            low = min(degree)
            best = [b for b, g in zip(nxt, degree) if g == low]
            path.append(best[int(rng.integers(len(best)))])
            free &= ~(1 << path[-1])
        if len(path) == n and (stop < 0 or path[-1] == stop):
            return [divmod(b, W) for b in path]
    raise RuntimeError(f"no Hamiltonian path of queen moves found on a {W}x{H} grid")


@functools.lru_cache(maxsize=16)
def _queen_moves(H: int, W: int) -> tuple[list[list[int]], list[int]]:
    """Per cell index: the cells a queen reaches (in QUEEN_STEPS order, nearest first) and the
    same set as a bit mask, plus the cell's own bit (so the onward count is one popcount)."""
    moves = [[r2 * W + c2 for st in QUEEN_STEPS for r2, c2 in ray(r, c, st, H, W)] for r in range(H) for c in range(W)]
    return moves, [sum(1 << b for b in m) | (1 << i) for i, m in enumerate(moves)]
