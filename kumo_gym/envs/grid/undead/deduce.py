"""Undead's deduction for its Easy generator: the clues of a mirror layout as the kernel in
``kernel`` reads them, and the cells it leaves open for a candidate solution."""
from __future__ import annotations

import numpy as np

from .codec import MONSTERS
from .geometry import sight_lines

#: a monster's bit in the kernel's masks, and the monsters a sight line counts before and after a mirror
BIT = {"G": 1, "V": 2, "Z": 4}
SEEN = {False: 6, True: 5}


def opener(layout: list[list[str]], free: list[tuple[int, int]]):
    """``open_cells(sol)``: the cells (of ``free``, those without a mirror) that the kernel's
    deduction leaves open in the puzzle of ``sol`` (every total and sight count shown) on this
    mirror layout; the sight lines are traced once."""
    from . import kernel

    index = {cell: i for i, cell in enumerate(free)}
    entries = [[(i, BIT[t]) for i in range(len(free))] for t in MONSTERS]  # the totals
    entries += [[(index[c], SEEN[turned]) for c, turned in line] for line in sight_lines(layout).values()]
    cell = np.asarray([i for es in entries for i, _ in es], np.int64)
    see = np.asarray([s for es in entries for _, s in es], np.int64)
    owner = np.repeat(np.arange(len(entries)), [len(es) for es in entries])
    start = np.zeros(len(entries) + 1, np.int64)
    np.cumsum([len(es) for es in entries], out=start[1:])
    mask = np.zeros(len(free), np.int8)

    def open_cells(sol: list[list[str]]) -> list[tuple[int, int]]:
        bits = np.fromiter((BIT[sol[r][c]] for r, c in free), np.int64, len(free))
        target = np.bincount(owner, weights=(bits[cell] & see) != 0, minlength=len(entries)).astype(np.int64)
        mask[:] = 7
        kernel.settle(mask, cell, see, start, target)
        return [free[i] for i in np.flatnonzero(mask & (mask - 1))]

    return open_cells
