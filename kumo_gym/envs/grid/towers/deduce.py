"""Towers' deduction for its Easy generator: line-by-line deduction on the grid (the numba kernel
in ``kernel``), driven from here."""
from __future__ import annotations

import itertools

import numpy as np

from .codec import SIDES


def easy_givens(rng: np.random.Generator, n: int, full: dict) -> list[list]:
    """Easy (every edge clue kept): the givens, by line deduction on the grid (a kernel, see
    kernel; what it solves is unique): the shortest prefix of a random cell order
    that it solves (binary search: more givens never deduce less), then givens dropped in a
    seeded order while it still solves the puzzle."""
    from . import kernel

    perms = np.asarray(list(itertools.permutations(range(1, n + 1))), np.int8)
    front = (np.diff(np.maximum.accumulate(perms, axis=1), axis=1) > 0).sum(axis=1).astype(np.int8) + 1
    back = (np.diff(np.maximum.accumulate(perms[:, ::-1], axis=1), axis=1) > 0).sum(axis=1).astype(np.int8) + 1
    clues = np.asarray([v for side in SIDES for v in full[side]], np.int64)
    sol = np.asarray(full["grid"], np.int8).ravel()
    scratch = (np.zeros(n * n, np.int64), np.zeros(n, np.int64), np.zeros(2 * n + 1, np.int64), np.zeros(2 * n, np.int8))
    given = np.zeros(n * n, np.int8)

    def solves(goal: int = -1) -> bool:
        return kernel.solves(n, perms, front, back, clues, given, goal, *scratch)

    order = rng.permutation(n * n)
    lo, hi = 0, n * n
    while lo < hi:
        k = (lo + hi) // 2
        given[:] = 0
        given[order[:k]] = sol[order[:k]]
        if solves():
            hi = k
        else:
            lo = k + 1
    given[:] = 0
    given[order[:lo]] = sol[order[:lo]]
    for j in rng.permutation(lo):
        cell = int(order[j])
        given[cell] = 0
        if not solves(cell):  # the rest decide this cell again: then they decide every cell
            given[cell] = sol[cell]
    return given.reshape(n, n).tolist()
