"""Inertia grids (docs/games.md, Inertia), every gem collectable.

The grid is drawn as Tatham draws his mix: a fifth each of walls, stops and mines (rounded down),
one start, blanks for the rest, shuffled uniformly. The gems then go only where a round trip can
fetch them: the resting places the ball can reach from the start and come back from (the start's
strongly connected part of the move graph) are found, every blank cell some move between two of
them slides over is a candidate, and ``gems`` candidates are drawn uniformly (by default a fifth
of the grid, Tatham's number). A grid with too few candidates is drawn again. Any gem can then be
fetched and the ball brought back, so every gem can be collected; the greedy walk of the solver
(:meth:`Board.greedy`) is run on the result as the check.
"""
from __future__ import annotations

import numpy as np

from .search import DIRS, Board

#: draws of the grid before giving up (a 2x3 grid has few layouts with room for a gem)
MAX_DRAWS = 20_000


def gem_candidates(w: int, h: int, grid: str) -> list[int]:
    """The blank cells a move inside the start's strongly connected part slides over, in order."""
    board = Board(w, h, grid)
    core = board.core(board.start)
    passed: set[int] = set()
    for p in core:
        r, c = divmod(p, w)
        for d, res in enumerate(board.moves(p)):
            if not isinstance(res, tuple) or res[0] not in core:
                continue
            dr, dc = DIRS[d]
            rr, cc = r, c
            while (rr, cc) != divmod(res[0], w):
                rr, cc = rr + dr, cc + dc
                passed.add(rr * w + cc)
    return sorted(i for i in passed if grid[i] == "b")


def random_grid(w: int, h: int, gems: int | None, rng: np.random.Generator) -> str:
    wh = w * h
    k = wh // 5
    want = k if gems is None else gems
    for _ in range(MAX_DRAWS):
        cells = list("w" * k + "s" * k + "m" * k + "S" + "b" * (wh - 3 * k - 1))
        rng.shuffle(cells)
        grid = "".join(cells)
        cand = gem_candidates(w, h, grid)
        if len(cand) < max(want, 1):
            continue
        chosen = {int(i) for i in rng.choice(cand, size=want, replace=False)}
        out = "".join("g" if i in chosen else ch for i, ch in enumerate(grid))
        board = Board(w, h, out)
        if board.greedy(board.start, board.all_gems) is not None:
            return out
    raise RuntimeError(f"no {w}x{h} Inertia grid with {want} collectable gems in {MAX_DRAWS} draws")
