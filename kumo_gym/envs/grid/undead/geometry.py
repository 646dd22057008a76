"""Undead's geometry: sight lines through mirrors, and the random scatters of monsters."""
from __future__ import annotations

import numpy as np

from ..geometry import Cell


def scatter_symbols(rng: np.random.Generator, H: int, W: int, k: int, symbols, blank: str = ".") -> list[list]:
    """A grid with ``k`` random cells holding a random one of ``symbols`` each, ``blank`` elsewhere
    (Undead's mirrors)."""
    places = set(rng.permutation(W * H)[:k].tolist())
    return [[symbols[int(rng.integers(len(symbols)))] if r * W + c in places else blank for c in range(W)]
            for r in range(H)]


def change_one(rng: np.random.Generator, grid: list[list], cells: list[Cell], symbols) -> list[list]:
    """A copy of ``grid`` with one of ``cells`` (picked at random) changed to another of
    ``symbols`` (a generator's local search step, :func:`~kumo_gym.solvers.engine.descend`)."""
    (r, c), out = cells[int(rng.integers(len(cells)))], [list(row) for row in grid]
    others = [t for t in symbols if t != grid[r][c]]
    out[r][c] = others[int(rng.integers(len(others)))]
    return out


def sight_line(grid: list[list[str]], side: str, i: int) -> list[tuple[tuple[int, int], bool]]:
    """Undead: the cells a border clue sees, in order, each with whether a mirror was passed before it.
    ``\\`` turns down into right and up into left (and back); ``/`` turns down into left and up
    into right. A cell seen twice is listed twice."""
    H, W = len(grid), len(grid[0])
    (r, c), (dr, dc) = {"top": ((0, i), (1, 0)), "bottom": ((H - 1, i), (-1, 0)),
                        "left": ((i, 0), (0, 1)), "right": ((i, W - 1), (0, -1))}[side]
    out, turned = [], False
    while 0 <= r < H and 0 <= c < W:
        if grid[r][c] == "\\":
            dr, dc, turned = dc, dr, True
        elif grid[r][c] == "/":
            dr, dc, turned = -dc, -dr, True
        else:
            out.append(((r, c), turned))
        r, c = r + dr, c + dc
    return out


def sight_lines(grid: list[list[str]]) -> dict[tuple[str, int], list[tuple[Cell, bool]]]:
    """Every border clue's :func:`sight_line`, keyed ``(side, index)``: top, bottom (by column),
    left, right (by row)."""
    H, W = len(grid), len(grid[0])
    return {(side, i): sight_line(grid, side, i) for side in ("top", "bottom", "left", "right")
            for i in range(W if side in ("top", "bottom") else H)}
