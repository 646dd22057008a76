"""Pearl's own deduction (Tatham's way: pearls are removed while a deduction solver still finds the
loop, no SAT needed): the driver of ``kernel``; the rules and the SAT encoding, which
certify Tricky's minimal pearl sets, are in ``pearl.py``."""
from __future__ import annotations

import functools

import numpy as np

from .codec import BLACK, EMPTY, WHITE
from .geometry import straight

#: the kernel's code of each pearl
CODE = {EMPTY: 0, BLACK: 1, WHITE: 2}
#: the shapes (their sides' bits) of a cell with no pearl, a black one (turns), a white one (straights)
SHAPES = ((0, 3, 5, 6, 9, 10, 12), (3, 6, 9, 12), (5, 10))
#: the bits of a step (dr, dc) from a cell and back into it (bit d: 0 up, 1 right, 2 down, 3 left)
STEP_BITS = {(-1, 0): (1, 4), (0, 1): (2, 8), (1, 0): (4, 1), (0, -1): (8, 2)}


def loop_pearls(loop: list, H: int, W: int) -> list[list[str]]:
    """Every pearl a loop (cells in order) allows: black at a turn between two straights, white
    on a straight beside a turn."""
    n = len(loop)
    line = [straight(loop[i - 1], loop[i], loop[(i + 1) % n]) for i in range(n)]
    grid = [[EMPTY] * W for _ in range(H)]
    for i, (r, c) in enumerate(loop):
        if not line[i] and line[i - 1] and line[(i + 1) % n]:
            grid[r][c] = BLACK
        elif line[i] and not (line[i - 1] and line[(i + 1) % n]):
            grid[r][c] = WHITE
    return grid


def loop_masks(H: int, W: int, loop: list) -> np.ndarray:
    """Each cell's sides (bit d) in a closed loop given as its cells in order."""
    masks = [0] * (H * W)
    for (r, c), (rr, cc) in zip(loop, loop[1:] + loop[:1]):
        out, back = STEP_BITS[rr - r, cc - c]
        masks[r * W + c] |= out
        masks[rr * W + cc] |= back
    return np.asarray(masks, np.int64)


@functools.lru_cache(maxsize=16)
def _table(H: int, W: int) -> np.ndarray:
    """The kernel's ``tab`` (read only): per direction the step to the neighbour, its turns that
    join back, the straight along it; each pearl's shapes; the sides with the border off."""
    border = [2 if (d == 0 and r == 0) or (d == 1 and c == W - 1) or (d == 2 and r == H - 1) or (d == 3 and c == 0)
              else 0 for r in range(H) for c in range(W) for d in range(4)]
    return np.asarray([-W, 1, W, -1] + [sum(1 << s for s in SHAPES[1] if s >> (d + 2) % 4 & 1) for d in range(4)]
                      + [1 << 5, 1 << 10] * 2 + [sum(1 << s for s in shapes) for shapes in SHAPES] + border, np.int64)


def _solver(grid: list[list[str]], sol: np.ndarray):
    """The deduction on ``grid``'s pearls as a function of which are shown (a mask, in reading order)."""
    from . import kernel

    H, W = len(grid), len(grid[0])
    clue, tab = np.asarray([CODE[v] for row in grid for v in row], np.int64), _table(H, W)
    side, shape, dsf, size = np.zeros(4 * H * W, np.int64), *np.zeros((3, H * W), np.int64)
    return lambda given: kernel.run(H, W, tab, clue, given, sol, side, shape, dsf, size)


def solves(grid: list[list[str]], sol: np.ndarray) -> int:
    """1 when the deduction finds the loop from the pearls of ``grid`` alone (then it is the only
    one, and it is checked to be ``sol``, :func:`loop_masks`), 0 when it gets stuck, -1 on a
    contradiction (no loop, or one other than ``sol``)."""
    return _solver(grid, sol)(np.asarray([v != EMPTY for row in grid for v in row], np.int64))


def strip(rng: np.random.Generator, grid: list[list[str]], sol: np.ndarray) -> list[list[str]] | None:
    """``grid`` (every pearl of the loop ``sol``) less the pearls that can go, tried in a seeded
    random order, with the deduction still finding the loop; None when it cannot find it even with
    every pearl. Fewer pearls never help the deduction, so a run of the order whose pearls all go
    at once would also go one by one: runs are tried, doubled after a success and halved after a
    failure (about half the deductions)."""
    W, run = len(grid[0]), _solver(grid, sol)
    given = np.asarray([v != EMPTY for row in grid for v in row], np.int64)
    if run(given) != 1:
        return None
    order = np.flatnonzero(given)[rng.permutation(int(given.sum()))]
    pos, step = 0, 1
    while pos < len(order):
        block = order[pos:pos + step]
        given[block] = 0
        if run(given) == 1:  # gone for good: the next run twice as long
            pos, step = pos + len(block), 2 * len(block)
        else:  # back: a run of one is kept, a longer one is tried again at half its length
            given[block] = 1
            pos, step = pos + (len(block) == 1), max(len(block) // 2, 1)
    return [[v if given[r * W + c] else EMPTY for c, v in enumerate(row)] for r, row in enumerate(grid)]
