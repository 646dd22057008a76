"""Signpost's generator machinery: the givens placed as Tatham's generator places them, by the Python
driver of the numba kernel (``kernel``) on per-size ray tables, and the small grids'
reduction by probing; the rules and encoding are in ``signpost.py``."""
from __future__ import annotations

import functools

import numpy as np

from ..geometry import ray
from .codec import STEP


@functools.lru_cache(maxsize=8)
def ray_cells(H: int, W: int) -> dict:
    """Per direction, per cell index: the cell indices along its ray (Signpost's arrows)."""
    return {d: [[r2 * W + c2 for r2, c2 in ray(r, c, st, H, W)] for r in range(H) for c in range(W)]
            for d, st in STEP.items()}


def tables(arrows: list[list]) -> list[np.ndarray]:
    """The arrows as two CSR tables (the kernels' input): per cell the cells on its ray, and per
    cell the cells whose rays pass it."""
    H, W = len(arrows), len(arrows[0])
    n = H * W
    rays = ray_cells(H, W)
    out: list[list[int]] = [[] for _ in range(n)]
    into: list[list[int]] = [[] for _ in range(n)]
    for r, row in enumerate(arrows):
        for c, d in enumerate(row):
            if d is not None:
                out[r * W + c] = rays[d][r * W + c]
                for b in out[r * W + c]:
                    into[b].append(r * W + c)
    return [np.asarray(x, np.int64) for lists in (out, into)
            for x in (np.cumsum([0] + [len(v) for v in lists]), [b for v in lists for b in v])]


def chain(path: list, arrows: list[list]) -> tuple:
    """The kernels' view of a solution chain: the ray tables (:func:`tables`), each cell's
    number (0-based, by cell index), the cells in chain order, and the ends that are always
    shown (W*H, and 1 unless the grid has two cells)."""
    W = len(arrows[0])
    cells = [r * W + c for r, c in path]
    number = np.zeros(len(path), np.int64)
    number[cells] = np.arange(len(path))
    return tables(arrows), number, cells, [cells[-1]] + ([cells[0]] if len(path) > 2 else [])


def place_givens(rng: np.random.Generator, path: list, arrows: list[list]) -> set[int]:
    """The cells (indices) whose numbers are shown, placed as Tatham's generator does: 1 and W*H,
    then the numbers of cells taken in a seeded order, skipping cells deduction has already
    numbered, until deduction numbers every cell; then each added number is dropped again (in
    the same order) when deduction still numbers every cell without it. Deduction is unit
    propagation on the SAT encoding, run on the grid by :mod:`.kernel`, so the grid
    it numbers is unique (tests/grid/test_signpost.py checks it against the engine)."""
    from . import kernel

    n = len(path)
    csr, number, _, ends = chain(path, arrows)
    shown = np.zeros(n, np.int64)
    slots = n + 2  # the kernel's deduction states (live, per removal test, the ends alone)
    ok = kernel.place(n, *csr, number, np.asarray(ends, np.int64), rng.permutation(n).astype(np.int64),
                                np.zeros(slots * kernel.slot_size(n), np.int16),
                                np.zeros(kernel.stack_size(n), np.int64), np.zeros(n, np.int64), shown)
    if not ok:
        raise RuntimeError("Signpost: deduction contradicts the chain it was given (a bug)")
    return set(np.flatnonzero(shown).tolist())


def reduce_givens(rng: np.random.Generator, path: list, arrows: list[list]) -> set[int]:
    """Small grids: the cells (indices) whose numbers are shown. Every number shown, then
    numbers other than 1 and W*H (1 too on a two-cell grid, which would otherwise leave nothing
    to fill) removed in a seeded order while deduction with failed-literal probing
    (:func:`.kernel.probe_solves`) still numbers every cell.

    Deduction from more givens deduces more, so the one-at-a-time result is found with fewer
    tests: when removing every remaining number still solves, all go (the usual case); otherwise
    a bisection finds the first number of the order whose removal fails, the ones before it go,
    it stays, and the rest is treated the same way."""
    from . import kernel

    n = len(path)
    csr, number, cells, ends = chain(path, arrows)
    keys = [a for a in cells[:-1] if a not in ends]
    order = [keys[i] for i in rng.permutation(len(keys))]
    shown = np.ones(n, np.int64)
    scratch = np.zeros((2, n), np.int64)

    def solves(removed: list[int]) -> bool:
        shown[removed] = 0
        ok = kernel.probe_solves(n, *csr, number, shown, scratch)
        shown[removed] = 1
        return ok

    p = 0
    while p < len(order):
        if solves(order[p:]):
            shown[order[p:]] = 0
            break
        lo, hi = p, len(order)  # removing order[p:lo] solves, removing order[p:hi] does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if solves(order[p:mid]) else (lo, mid)
        shown[order[p:lo]] = 0
        p = lo + 1
    return set(np.flatnonzero(shown).tolist())
