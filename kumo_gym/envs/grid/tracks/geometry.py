"""Tracks' geometry: the direction variables of a track through cell centres, its cuts and
decoder, the faults of a drawn track, and random paths from the left edge to the bottom edge."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..geometry import URDL, Cell, link_components, neighbours4, step, stretch
from ..play import dirs_edges


def track_vars(f, H: int, W: int, rule: str) -> tuple[np.ndarray, np.ndarray, Callable, Callable]:
    """Lines through cell centres as four direction variables per cell (``d[r, c, k]``: the cell
    connects in direction URDL[k]; off-grid ones too, for a line entering from outside) and "on
    the line" per cell (``t``): 0 or 2 directions per cell, ``rule`` "both cells claim a
    connection" between neighbours, and no 2x2 loop (implied by any no-loop rule; it helps
    propagation). With them :func:`track_decoder` and :func:`track_cuts` (no closed loop). Tracks."""
    d, t = f.grid("dir", H, W, 4), f.grid("track", H, W)
    for r in range(H):
        for c in range(W):
            lits = [int(x) for x in d[r, c]]
            f.at_most(lits, 2)
            f.extend([[-x] + [y for y in lits if y != x] for x in lits])
            f.extend([[-x, int(t[r, c])] for x in lits] + [[-int(t[r, c])] + lits])
            if c + 1 < W:
                f.exactly([int(d[r, c, 1]), -int(d[r, c + 1, 3])], 1, rule=rule)
            if r + 1 < H:
                f.exactly([int(d[r, c, 2]), -int(d[r + 1, c, 0])], 1, rule=rule)
            if r + 1 < H and c + 1 < W:
                f.add([-int(d[r, c, 1]), -int(d[r, c + 1, 2]), -int(d[r + 1, c + 1, 3]), -int(d[r + 1, c, 0])])
    return d, t, track_decoder(d), track_cuts(d, t)


def track_cuts(d: np.ndarray, t: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` of "no closed loop" over :func:`track_vars` (Tracks; the clauses of
    :func:`loop_cuts` with ``single_loop=False``, found on the value array directly): a component
    of the model's lines that nowhere leaves the grid is a closed loop S, and every solution with
    all of S on the line connects some cell of S out of S."""
    H, W = t.shape

    def cuts(value: np.ndarray) -> list[list[int]]:
        on = value[d] > 0
        seen = np.zeros((H, W), bool)
        out = []
        for r0, c0 in np.argwhere(on.any(axis=2)).tolist():
            if seen[r0, c0]:
                continue
            seen[r0, c0], comp, leaves, i = True, [(r0, c0)], False, 0
            while i < len(comp):
                r, c = comp[i]
                i += 1
                for k, (dr, dc) in enumerate(URDL):
                    if on[r, c, k]:
                        a, b = r + dr, c + dc
                        if not (0 <= a < H and 0 <= b < W) or not on[a, b, (k + 2) % 4]:
                            leaves = True
                        elif not seen[a, b]:
                            seen[a, b] = True
                            comp.append((a, b))
            if not leaves:
                cells = sorted(comp)
                inside = set(cells)
                out.append([-int(t[x]) for x in cells] + [int(d[x][k]) for x in cells for k, (dr, dc) in enumerate(URDL)
                                                          if (x[0] + dr, x[1] + dc) not in inside])
        return out

    return cuts


def track_decoder(d: np.ndarray) -> Callable[[np.ndarray], list[list[str]]]:
    """A value array over :func:`track_vars` as a grid of direction strings (URDL order)."""
    letters = np.array(["", "U", "R", "UR", "D", "UD", "RD", "URD", "L", "UL", "RL", "URL", "DL", "UDL", "RDL", "URDL"])

    def decode(value: np.ndarray) -> list[list[str]]:
        return letters[((value[d] > 0) * np.array([1, 2, 4, 8])).sum(axis=2)].tolist()

    return decode


def inside_sides(r: int, c: int, letters: str, H: int, W: int) -> str:
    """Those of the direction ``letters`` that point from (r, c) to a cell of the grid."""
    return "".join(x for x in letters if step(r, c, x, H, W) is not None)


def track_literals(d: np.ndarray, dirs: list[list[str]]) -> list[int]:
    """The literals setting every variable of :func:`track_vars` as a grid of direction strings does."""
    H, W = d.shape[:2]
    return [int(d[r, c, k]) * (1 if x in dirs[r][c] else -1) for r in range(H) for c in range(W) for k, x in enumerate("URDL")]


def track_border(d: np.ndarray, ends: set[tuple[Cell, str]]) -> list[int]:
    """The literals fixing every off-grid direction of :func:`track_vars`: true for the line's
    ``ends`` ((cell, letter) where it leaves the grid), false elsewhere (Tracks' entry and exit)."""
    H, W = d.shape[:2]
    return [int(d[r, c, k]) * (1 if ((r, c), x) in ends else -1) for r in range(H) for c in range(W)
            for k, x in enumerate("URDL") if step(r, c, x, H, W) is None]


def track_faults(grid: list[list[str]], ends: set[tuple[Cell, str]]) -> tuple[list[Cell], set, list[Cell]]:
    """What breaks a line in a grid of direction strings: the cells whose off-grid directions are
    not exactly the line's ``ends`` ((cell, letter)), the neighbour pairs (row-major) where only one
    cell claims the connection, and the cells of closed loops (Tracks' R1, R2, R3)."""
    H, W = len(grid), len(grid[0])
    off = {((0, c), "U") for c, v in enumerate(grid[0]) if "U" in v} | {((H - 1, c), "D") for c, v in enumerate(grid[-1]) if "D" in v}
    off |= {((r, 0), "L") for r, row in enumerate(grid) if "L" in row[0]} | {((r, W - 1), "R") for r, row in enumerate(grid) if "R" in row[-1]}
    one_sided = {((r, c), (r, c + 1)) for r, row in enumerate(grid) for c in range(W - 1)
                 if ("R" in row[c]) != ("L" in row[c + 1])}
    one_sided |= {((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W)
                  if ("D" in grid[r][c]) != ("U" in grid[r + 1][c])}
    loops = [x for cells, n in link_components(H, W, dirs_edges(grid)) if n == len(cells) for x in cells]
    return sorted({x for x, _ in off ^ ends}), one_sided, loops


def random_path(rng: np.random.Generator, H: int, W: int, start: Cell, goal: Cell, length: float) -> list[Cell]:
    """A random simple path of cells from ``start`` to ``goal``: a loop-erased random walk, then
    random detours until it has ``length`` cells (:func:`stretch`; Tracks)."""
    path, where = [start], {start: 0}
    nbrs, draws = _neighbour_lists(H, W), []
    while path[-1] != goal:
        if not draws:  # random numbers in batches (one Generator call per step was most of the time)
            draws = rng.random(4 * H * W).tolist()[::-1]
        options = nbrs[path[-1]]
        nxt = options[int(draws.pop() * len(options))]
        if nxt in where:
            for x in path[where[nxt] + 1:]:
                del where[x]
            del path[where[nxt] + 1:]
        else:
            where[nxt] = len(path)
            path.append(nxt)
    return stretch(rng, H, W, path, length, closed=False)


@functools.lru_cache(maxsize=64)
def _neighbour_lists(H: int, W: int) -> dict:
    return {(r, c): list(neighbours4(r, c, H, W)) for r in range(H) for c in range(W)}
