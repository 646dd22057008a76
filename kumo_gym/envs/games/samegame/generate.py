"""Samegame boards (docs/games.md, Samegame).

Soluble boards (Tatham's default) are built backwards from the empty board, as Tatham builds them:
each step inserts a domino of one colour (two cells stacked in a column, or side by side in two
columns, where new columns may be opened) whose colour differs from every cell touching it, so that
removing it is a legal move that gives back the board before; a board of odd area starts from three
cells in a line. Insertions are tried in random order, skipping one that leaves a stretch of
unfilled space of odd size that no new column can repair; a build in which no insertion fits starts
again (with three colours on 15x10 that happens hundreds of times per board, so that preset takes
seconds in Python).

Random boards (``soluble=False``, Tatham's ``r``) fill the grid uniformly after placing two cells of
every colour; they are drawn again until the clearing search empties them.
"""
from __future__ import annotations

import numpy as np

#: attempts at building a soluble board (a stuck build starts again) or drawing a clearable random one
MAX_TRIES = 5000


def _fits(heights: list[int], h: int, w: int) -> bool:
    """Whether the unfilled space can still be tiled by dominoes (parity of each stretch of
    columns between full ones; with an odd height each column still to open can fix one)."""
    odd, stretch = 0, 0
    for n in heights:
        if n == h:
            odd += stretch % 2
            stretch = 0
        else:
            stretch += h - n
    odd += stretch % 2
    spare = (w - len(heights)) if h % 2 else 0
    return odd <= spare


def _touching(cols: list[list[int]], kind: str, x: int, y: int) -> set[int]:
    """The colours of the cells that will touch the domino of insertion (kind, x, y), read on the
    board before it (:func:`_options` names the kinds)."""
    def at(cx: int, cy: int) -> int:
        return cols[cx][cy] if 0 <= cx < len(cols) and 0 <= cy < len(cols[cx]) else 0

    if kind == "v":
        near = [(x, y - 1), (x, y), (x - 1, y), (x - 1, y + 1), (x + 1, y), (x + 1, y + 1)]
    elif kind == "h":
        near = [(x, y - 1), (x + 1, y - 1), (x, y), (x + 1, y), (x - 1, y), (x + 2, y)]
    elif kind == "nv":
        near = [(x - 1, 0), (x - 1, 1), (x, 0), (x, 1)]
    elif kind == "nl":
        near = [(x - 1, 0), (x, 0), (x + 1, 0)]
    elif kind == "nr":
        near = [(x - 1, 0), (x - 2, 0), (x, 0)]
    else:
        near = [(x - 1, 0), (x, 0)]
    return {at(cx, cy) for cx, cy in near} - {0}


def _lengths(cols: list[list[int]], kind: str, x: int) -> list[int]:
    """The column heights after insertion (kind, x, .)."""
    n = [len(c) for c in cols]
    if kind == "v":
        n[x] += 2
    elif kind == "h":
        n[x] += 1
        n[x + 1] += 1
    elif kind == "nv":
        n.insert(x, 2)
    elif kind == "nl":
        n[x] += 1
        n.insert(x, 1)
    elif kind == "nr":
        n[x - 1] += 1
        n.insert(x, 1)
    else:
        n[x:x] = [1, 1]
    return n


def _options(cols: list[list[int]], w: int, h: int) -> list[tuple]:
    """Every insertion: ("v", x, y) stacks two cells at height y of column x; ("h", x, y) puts one at
    height y of columns x and x+1; "nv", "nl", "nr", "nn" open columns at x (a new column of two; a
    new one beside column x on its left or right joined at the bottom; two new ones)."""
    out: list[tuple] = []
    n = len(cols)
    for x, col in enumerate(cols):
        if len(col) + 2 <= h:
            out += [("v", x, y) for y in range(len(col) + 1)]
        if x + 1 < n and len(col) < h and len(cols[x + 1]) < h:
            out += [("h", x, y) for y in range(min(len(col), len(cols[x + 1])) + 1)]
    if n < w:
        for x in range(n + 1):
            if h >= 2:
                out.append(("nv", x, 0))
            if x < n and len(cols[x]) < h:
                out.append(("nl", x, 0))
            if x > 0 and len(cols[x - 1]) < h:
                out.append(("nr", x, 0))
            if n + 2 <= w:
                out.append(("nn", x, 0))
    return out


def _insert(cols: list[list[int]], kind: str, x: int, y: int) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """The columns with two placeholder cells (-1) inserted, and where they are."""
    new = [list(c) for c in cols]
    if kind == "v":
        new[x][y:y] = [-1, -1]
        return new, [(x, y), (x, y + 1)]
    if kind == "h":
        new[x].insert(y, -1)
        new[x + 1].insert(y, -1)
        return new, [(x, y), (x + 1, y)]
    if kind == "nv":
        new.insert(x, [-1, -1])
        return new, [(x, 0), (x, 1)]
    if kind == "nl":  # the new column at x, the old column x (now x+1) gets a bottom cell
        new.insert(x, [-1])
        new[x + 1].insert(0, -1)
        return new, [(x, 0), (x + 1, 0)]
    if kind == "nr":  # the old column x-1 gets a bottom cell, the new column at x
        new.insert(x, [-1])
        new[x - 1].insert(0, -1)
        return new, [(x - 1, 0), (x, 0)]
    new[x:x] = [[-1], [-1]]
    return new, [(x, 0), (x + 1, 0)]


def soluble_board(w: int, h: int, nc: int, rng: np.random.Generator) -> list[list[int]]:
    """A full board (columns, bottom up) built by inserting removable dominoes."""
    for _ in range(MAX_TRIES):
        c = int(rng.integers(1, nc + 1))
        cols: list[list[int]] = [] if (w * h) % 2 == 0 else [[c], [c], [c]] if w >= 3 else [[c, c, c]]
        filled = sum(map(len, cols))
        while filled < w * h:
            options = _options(cols, w, h)
            for i in rng.permutation(len(options)).tolist():
                kind, x, y = options[i]
                if not _fits(_lengths(cols, kind, x), h, w):
                    continue
                banned = _touching(cols, kind, x, y)
                free = [c for c in range(1, nc + 1) if c not in banned]
                if free:
                    new, cells = _insert(cols, kind, x, y)
                    colour = free[int(rng.integers(len(free)))]
                    for cx, cy in cells:
                        new[cx][cy] = colour
                    cols, filled = new, filled + 2
                    break
            else:
                break  # stuck: no insertion fits, start again
        if filled == w * h:
            return cols
    raise RuntimeError(f"no soluble {w}x{h} board with {nc} colours after {MAX_TRIES} tries")  # pragma: no cover


def random_grid(w: int, h: int, nc: int, rng: np.random.Generator) -> list[int]:
    """Tatham's random board: two cells of each colour at random places, the rest uniform."""
    grid = [0] * (w * h)
    for c in range(1, nc + 1):
        for _ in range(2):
            free = [i for i, v in enumerate(grid) if not v]
            grid[free[int(rng.integers(len(free)))]] = c
    return [v or int(rng.integers(1, nc + 1)) for v in grid]
