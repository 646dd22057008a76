"""Dominosa's geometry: the dominoes of an answer grid."""
from __future__ import annotations


def dominoes(grid: list[list]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The well-formed dominoes of an answer grid (an L with an R right of it, a T with a B below)."""
    H, W = len(grid), len(grid[0])
    out = []
    for r in range(H):
        for c in range(W):
            if grid[r][c] == "L" and c + 1 < W and grid[r][c + 1] == "R":
                out.append(((r, c), (r, c + 1)))
            elif grid[r][c] == "T" and r + 1 < H and grid[r + 1][c] == "B":
                out.append(((r, c), (r + 1, c)))
    return out
