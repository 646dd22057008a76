"""Magnets' generator helpers: which draws a level keeps, which counts an ``S`` puzzle hides
, and Magnets' own deduction (the kernel in ``kernel``) that proves ``t``
puzzles unique without search, as Tatham's generator does."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.engine import Encoding, Engine, descend, reduce_clues
from ..geometry import neighbour_table
from .geometry import slot_pairs

#: Tatham's ``S`` puzzles show about half their counts; removed ones come back, at random, up to it
STRIP_KEEP = 0.5


def accepted(eng: Engine, every: list[int], value: np.ndarray, level: str, strip: bool, attempt: int) -> bool:
    """Whether the generator keeps a draw whose every count is shown (``every``, the assumptions)
    at Tatham's level ``level`` (``t`` with ``S`` goes through :func:`deduced` instead): unique,
    probing-solvable at ``e``, preferably not at ``t``."""
    if level == "e":  # kept exactly when probing solves it (grade at most 1): no propagation pass first
        return eng.fixes_answer(eng.probe(every))
    g = eng.grade(every)
    if level == "t" and g == 0 and attempt < 30 and not strip:
        return False
    return g < 2 or eng.unique(every, value, deduce=False)


def strip_counts(enc: Encoding, state: dict, rng: np.random.Generator, value: np.ndarray) -> None:
    """Tatham's ``S`` at ``e``: hide counts (set to None in ``state``) in a seeded random order
    while probing still solves the puzzle, random ones coming back while fewer than half remain."""
    eng = enc.engine
    keys = sorted(k for k in enc.clues if k != ("layout",))
    groups, fixed = [list(enc.clues[k][1]) for k in keys], enc.clues["layout", ][1]
    kept = reduce_clues(eng, groups, rng, value, fixed=fixed, grade_limit=1)
    gone = [j for j in rng.permutation(len(keys)) if not kept[j]]
    for j in gone[:max(0, round(STRIP_KEEP * len(keys)) - sum(kept))]:
        kept[j] = True  # back up to Tatham's density (more counts keep it unique)
    for (key, i), keep in zip(keys, kept):
        state[key][i] = state[key][i] if keep else None


@functools.lru_cache(maxsize=16)
def _grid_arrays(H: int, W: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per grid size: each cell's four neighbours (-1 none) and the lines (rows, then columns)
    as the kernel reads them (cached: read only)."""
    nbr = np.full((H * W, 4), -1, np.int64)
    for r, c in np.ndindex(H, W):
        for q, (y, x) in enumerate(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
            if 0 <= y < H and 0 <= x < W:
                nbr[r * W + c, q] = y * W + x
    cells = np.arange(H * W).reshape(H, W)
    lcells = np.concatenate([cells.ravel(), cells.T.ravel()]).astype(np.int64)
    lstart = np.concatenate([np.arange(H + 1) * W, H * W + np.arange(1, W + 1) * H]).astype(np.int64)
    return nbr.ravel(), lcells, lstart


class Deduction:
    """Magnets' deduction (the kernel in ``kernel``) on one slot layout: ``tp``/``tm``
    hold the + and - count of every line (rows, then columns; -1 hidden) and may be changed
    between calls."""

    def __init__(self, slots: list[list[str]], tp: list[int], tm: list[int]):
        from . import kernel

        self._settle = kernel.settle
        H, W = len(slots), len(slots[0])
        step = {"L": 1, "R": -1, "T": W, "B": -W, "*": 0}
        self.mate = np.arange(H * W, dtype=np.int64) + np.fromiter((step[v] for row in slots for v in row), np.int64, H * W)
        self.nbr, self.lcells, self.lstart = _grid_arrays(H, W)
        self.start = np.where(self.mate == np.arange(H * W), 4, 7).astype(np.int64)
        self.tp, self.tm = np.asarray(tp, np.int64), np.asarray(tm, np.int64)
        self.mask = self.start.copy()

    def solves(self) -> bool:
        """Whether deduction settles every cell (then the puzzle has one solution, in ``mask``:
        1 a + pole, 2 a - pole, 4 blank)."""
        self.mask[:] = self.start
        return self._settle(self.mask, self.mate, self.nbr, self.lcells, self.lstart, self.tp, self.tm) == len(self.mask)


def lay(rng: np.random.Generator, slots: list[list[str]], share: float) -> list[list[int]]:
    """A solution on a slot layout: slots in random order, each left blank with chance ``share``,
    else a magnet in an orientation (chosen at random) that puts no pole beside a like one."""
    H, W = len(slots), len(slots[0])
    near, flat = _flat_neighbours(H, W), [0] * (H * W)  # the grid by flat cell index
    pairs = slot_pairs(slots)[0]
    for k in rng.permutation(len(pairs)).tolist():
        (ar, ac), (br, bc) = pairs[k]
        if rng.random() < share:
            continue
        a, b = ar * W + ac, br * W + bc
        by_a, by_b = [flat[x] for x in near[a]], [flat[x] for x in near[b]]
        ok = [(s, -s) for s in (1, -1) if s not in by_a and -s not in by_b]
        if ok:
            flat[a], flat[b] = ok[int(rng.integers(len(ok)))]
    return [flat[r * W:(r + 1) * W] for r in range(H)]


@functools.lru_cache(maxsize=16)
def _flat_neighbours(H: int, W: int) -> list[list[int]]:
    """Per flat cell index, its orthogonal neighbours' flat indices (cached: read only)."""
    table = neighbour_table(H, W)
    return [[x * W + y for x, y in table[r, c]] for r in range(H) for c in range(W)]


def line_counts(sol: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The + and the - count of every line of ``sol`` (rows, then columns), as the kernel reads them."""
    p, m = sol == 1, sol == -1
    return (np.concatenate([p.sum(1), p.sum(0)]).astype(np.int64),
            np.concatenate([m.sum(1), m.sum(0)]).astype(np.int64))


def deduced(rng: np.random.Generator, slots: list[list[str]], sol: list[list[int]], steps: int) -> Deduction | None:
    """Tatham's ``t`` generator with ``S``: a solution whose every count shown lets deduction
    (:class:`Deduction`) settle the grid, found by local search from ``sol`` (a slot that
    deduction leaves open is laid again, blank or a magnet that fits, and the change is kept when
    it leaves no more cells open); then counts hidden in a seeded random order while deduction
    still settles the grid, random ones coming back while fewer than half remain (Tatham's
    density: this deduction needs a few fewer than his). None when the search fails (the caller
    redraws)."""
    H, W = len(slots), len(slots[0])
    d = Deduction(slots, [0] * (H + W), [0] * (H + W))
    mate, nbr = d.mate, d.nbr.reshape(-1, 4)

    def open_of(cand: np.ndarray) -> np.ndarray:
        d.tp, d.tm = line_counts(cand.reshape(H, W))
        d.solves()
        return np.flatnonzero(d.mask & (d.mask - 1)).tolist()

    def change(cand: np.ndarray, left: np.ndarray) -> np.ndarray:
        a = left[int(rng.integers(len(left)))]
        b, new = int(mate[a]), cand.copy()
        new[a] = new[b] = 0
        opts = [0] if cand[a] else []
        opts += [s for s in (1, -1) if s != cand[a] and all(new[k] != s for k in nbr[a] if k >= 0)
                 and all(new[k] != -s for k in nbr[b] if k >= 0)]
        if opts:
            s = opts[int(rng.integers(len(opts)))]
            new[a], new[b] = s, -s
        return new

    best, left = descend(np.asarray(sol, np.int64).ravel(), open_of, change, steps)
    if len(left):
        return None
    d.tp, d.tm = line_counts(best.reshape(H, W))
    full = np.concatenate([d.tp, d.tm])
    for j in rng.permutation(2 * (H + W)):
        counts, k = (d.tp, j) if j < H + W else (d.tm, j - H - W)
        counts[k] = -1
        if not d.solves():
            counts[k] = full[j]
    gone = [int(j) for j in rng.permutation(2 * (H + W)) if (d.tp[j] if j < H + W else d.tm[j - H - W]) < 0]
    for j in gone[:max(0, round(STRIP_KEEP * len(full)) - int((d.tp >= 0).sum() + (d.tm >= 0).sum()))]:
        (d.tp, d.tm)[j // (H + W)][j % (H + W)] = full[j]  # back up to Tatham's density
    return d if d.solves() else None
