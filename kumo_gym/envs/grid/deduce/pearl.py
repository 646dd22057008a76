"""Pearl's own deduction (Tatham's way: pearls are removed while a deduction solver still finds the
loop, no SAT needed): the driver of ``_pearl_kernel``; the rules and the SAT encoding, which
certify Tricky's minimal pearl sets, are in ``pearl.py``."""
from __future__ import annotations

import numpy as np

from ..tatham.pearl import BLACK, EMPTY, WHITE

#: the kernel's code of each pearl
CODE = {EMPTY: 0, BLACK: 1, WHITE: 2}
#: the shapes (their sides' bits) of a cell with no pearl, a black one (turns), a white one (straights)
SHAPES = ((0, 3, 5, 6, 9, 10, 12), (3, 6, 9, 12), (5, 10))
#: the bits of a step (dr, dc) from a cell and back into it (bit d: 0 up, 1 right, 2 down, 3 left)
STEP_BITS = {(-1, 0): (1, 4), (0, 1): (2, 8), (1, 0): (4, 1), (0, -1): (8, 2)}


def loop_masks(H: int, W: int, loop: list) -> np.ndarray:
    """Each cell's sides (bit d) in a closed loop given as its cells in order."""
    masks = np.zeros(H * W, np.int64)
    for k, (r, c) in enumerate(loop):
        rr, cc = loop[(k + 1) % len(loop)]
        out, back = STEP_BITS[rr - r, cc - c]
        masks[r * W + c] |= out
        masks[rr * W + cc] |= back
    return masks


def _run(grid: list[list[str]], sol: np.ndarray, given: np.ndarray, order: np.ndarray) -> int:
    from .. import _pearl_kernel

    H, W = len(grid), len(grid[0])
    clue = np.asarray([CODE[v] for row in grid for v in row], np.int64)
    n = H * W
    # per direction: the step to the neighbour, its turns that join back, the straight along it
    border = [2 if (d == 0 and r == 0) or (d == 1 and c == W - 1) or (d == 2 and r == H - 1) or (d == 3 and c == 0)
              else 0 for r in range(H) for c in range(W) for d in range(4)]
    tab = np.asarray([-W, 1, W, -1] + [sum(1 << s for s in SHAPES[1] if s >> (d + 2) % 4 & 1) for d in range(4)]
                     + [1 << 5, 1 << 10] * 2 + [sum(1 << s for s in shapes) for shapes in SHAPES] + border, np.int64)
    return _pearl_kernel.run(H, W, tab, clue, given, sol, order, np.zeros(4 * n, np.int64), np.zeros(n, np.int64),
                             np.zeros(n, np.int64), np.zeros(n, np.int64))


def solves(grid: list[list[str]], sol: np.ndarray) -> int:
    """1 when the deduction finds the loop from the pearls of ``grid`` alone (then it is the only
    one, and it is checked to be ``sol``, :func:`loop_masks`), 0 when it gets stuck, -1 on a
    contradiction (no loop, or one other than ``sol``)."""
    given = np.asarray([v != EMPTY for row in grid for v in row], np.int64)
    return _run(grid, sol, given, np.zeros(0, np.int64))


def strip(rng: np.random.Generator, grid: list[list[str]], sol: np.ndarray) -> list[list[str]] | None:
    """``grid`` (every pearl of the loop ``sol``) less the pearls that can go, tried in a seeded
    random order, with the deduction still finding the loop; None when it cannot find it even with
    every pearl."""
    W = len(grid[0])
    given = np.asarray([v != EMPTY for row in grid for v in row], np.int64)
    cells = np.flatnonzero(given).astype(np.int64)
    if _run(grid, sol, given, cells[rng.permutation(len(cells))]) != 1:
        return None
    return [[v if given[r * W + c] else EMPTY for c, v in enumerate(row)] for r, row in enumerate(grid)]
