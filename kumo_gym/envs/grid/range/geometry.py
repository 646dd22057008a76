"""Range's geometry: how many cells a number sees."""
from __future__ import annotations

from ..geometry import ray


def seen_from(grid: list[list], r: int, c: int, blocker) -> int:
    """1 (the cell itself) plus the cells visible from (r, c) in the four directions, each line of
    sight ending before the first ``blocker`` cell or at the edge (Range's numbers)."""
    H, W = len(grid), len(grid[0])
    total = 1
    for step_ in ((-1, 0), (0, 1), (1, 0), (0, -1)):
        for a, b in ray(r, c, step_, H, W):
            if grid[a][b] == blocker:
                break
            total += 1
    return total
