"""Unequal's clue reduction for its generator (non-Adjacent puzzles above Trivial), on its own
deduction and search (the kernel in ``kernel``) instead of the rules formula.

Tatham's way: at Easy a clue goes while deduction (Latin singles and the bounds of each sign)
still settles the grid; above Easy the clue set is reduced to a minimal unique one, each
uniqueness question answered exactly by the kernel's search (the same answers a SAT proof gives,
so the same puzzles for the same seed as the SAT-driven reduction).
"""
from __future__ import annotations

import numpy as np

from ....solvers.engine import minimal_in_runs


class Deduction:
    """One solution grid's clues (every given and every sign) as the kernel reads them; which of
    them are shown is passed per question as two boolean masks."""

    def __init__(self, n: int, sol: list[list[int]], gt: list[list]):
        from . import kernel

        self.kernel = kernel
        self.n = n
        self.bits = (1 << (np.asarray(sol, np.int64).ravel() - 1)).astype(np.int64)
        self.ga = np.asarray([a[0] * n + a[1] for a, _ in gt], np.int64)
        self.gb = np.asarray([b[0] * n + b[1] for _, b in gt], np.int64)
        self.stack = np.zeros((n * n * (n - 1) + 1, n * n), np.int64)

    def _load(self, givens: np.ndarray, signs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.stack[0] = np.where(givens, self.bits, (1 << self.n) - 1)
        return self.ga[signs], self.gb[signs]

    def solves(self, givens: np.ndarray, signs: np.ndarray) -> bool:
        """Whether deduction alone settles every cell from the shown clues."""
        ga, gb = self._load(givens, signs)
        return self.kernel.search(self.stack, self.n, ga, gb, 0) == self.n * self.n

    def unique(self, givens: np.ndarray, signs: np.ndarray) -> bool:
        """Whether the shown clues have exactly one solution (search, counting up to two)."""
        ga, gb = self._load(givens, signs)
        return self.kernel.search(self.stack, self.n, ga, gb, 2) == 1


def reduce(rng: np.random.Generator, n: int, sol: list[list[int]], gt: list[list], easy: bool) -> tuple:
    """The shown givens (a boolean per cell, row-major) and signs (one per pair of ``gt``): every
    clue to start with, givens reduced first (in a seeded random order), then signs; at Easy while
    deduction settles the grid, else to a minimal unique set; and (above Easy) whether deduction
    alone settles the reduced puzzle."""
    d = Deduction(n, sol, gt)
    givens, signs = np.ones(n * n, bool), np.ones(len(gt), bool)
    cells = rng.permutation(n * n)  # the order the clue groups are listed in (as the SAT path)
    for mask, order in ((givens, cells[rng.permutation(n * n)]), (signs, rng.permutation(len(gt)))):
        if easy:
            for i in order:
                mask[i] = False
                mask[i] = not d.solves(givens, signs)
        else:
            minimal_in_runs(order, mask, lambda: d.unique(givens, signs))
    return givens, signs, not easy and d.solves(givens, signs)
