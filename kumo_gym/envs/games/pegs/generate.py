"""Pegs boards (docs/games.md, Pegs): Tatham's fixed cross and octagon layouts, and random boards
grown backwards from a single peg so that every one can be won.

A random board starts as one peg in the centre cell of an empty W x H area. A backward jump takes
a peg on ``a`` and, where the next two cells ``b``, ``t`` in a line hold no peg, empties ``a`` and
puts pegs on ``b`` and ``t`` (played forwards it is the jump from ``t`` over ``b`` into ``a``). Each
step draws uniformly among the backward jumps that bring the fewest new cells into the board (0, 1
or 2; after W*H/2 steps a jump must not need 2), so the board grows into its own holes before it
spreads. Growth stops when no backward jump is left, or, with ``pegs=N``, when N pegs stand; a
board without the ``pegs`` cap is drawn again until it touches all four edges, as Tatham's does.
The backward jumps, reversed, are a winning line: :func:`grown_board` returns it beside the board, and the
task takes it as the board's solution instead of searching for one (a 9x9 board grown to the edges can take
the search minutes).
"""
from __future__ import annotations

import numpy as np

from .codec import OCTAGON_CLASSES, layout

PEG, HOLE, OFF = "P", "H", "O"


def fixed_board(kind: str, rng: np.random.Generator) -> str:
    """The cross with its centre empty, or the octagon with a start hole drawn as Tatham draws it
    (one of his three classes, then a cell of it)."""
    if kind == "cross":
        return layout("cross")
    group = OCTAGON_CLASSES[int(rng.integers(len(OCTAGON_CLASSES)))]
    return layout("octagon", group[int(rng.integers(len(group)))])


def _grow(w: int, h: int, pegs: int | None, rng: np.random.Generator) -> tuple[list[str], list[tuple[int, int, int]]]:
    grid = [OFF] * (w * h)
    back: list[tuple[int, int, int]] = []
    grid[(h // 2) * w + w // 2] = PEG
    steps = 0
    while pegs is None or grid.count(PEG) < pegs:
        best, options = 3, []
        max_cost = 2 if steps < w * h // 2 else 1
        for a in range(w * h):
            if grid[a] != PEG:
                continue
            r, c = divmod(a, w)
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if not (0 <= r + 2 * dr < h and 0 <= c + 2 * dc < w):
                    continue
                b, t = (r + dr) * w + c + dc, (r + 2 * dr) * w + c + 2 * dc
                if grid[b] == PEG or grid[t] == PEG:
                    continue
                cost = (grid[b] == OFF) + (grid[t] == OFF)
                if cost > max_cost or cost > best:
                    continue
                if cost < best:
                    best, options = cost, []
                options.append((a, b, t))
        if not options:
            break
        a, b, t = options[int(rng.integers(len(options)))]
        grid[a], grid[b], grid[t] = HOLE, PEG, PEG
        back.append((a, b, t))
        steps += 1
    return grid, back


def grown_board(w: int, h: int, pegs: int | None, rng: np.random.Generator) -> tuple[str, list[tuple[int, int, int]]]:
    """A random board and its winning line, the forward jumps ``(from, over, to)`` as cell indices: the
    backward jumps that grew it, reversed."""
    while True:
        grid, back = _grow(w, h, pegs, rng)
        rows = [grid[r * w:(r + 1) * w] for r in range(h)]
        touches = (any(x != OFF for x in rows[0]) and any(x != OFF for x in rows[-1])
                   and any(row[0] != OFF for row in rows) and any(row[-1] != OFF for row in rows))
        if (touches or pegs is not None) and grid.count(PEG) >= 2:
            return "".join(grid), [(t, b, a) for a, b, t in reversed(back)]
