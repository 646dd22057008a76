"""Loopy's generator without SAT: the drivers of ``kernel`` (the square grid's random region, and the
count of the loops a clue set allows on any board, by deduction and at most a budget of branches).

A clue set passes when the count ends at one loop within its budget: deduction alone (budget 0, the
square grid's levels ``e`` and ``n``) or deduction with a bounded search (``t``, ``h``), as Tatham
removes clues while his solver of the level still solves the puzzle. Either way the loop is proved
the only one. The other tilings give the count a large budget and ask SAT past it, so that their
clue sets are the minimal unique ones SAT alone would give."""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..geometry import number_loops
from .tiling import Tiling, tiling

#: how likely a face joins the region, by how many region faces are round it (geometry.WEIGHT as floats)
_WEIGHT = np.asarray((0, 16.0, 4.0, 1.0, 0.5, 0.25, 0.25, 0.25, 0.25), np.float64)
#: the branches a count may take on the square grid, by Tatham's level: none (deduction alone) at easy
#: and normal, a bounded search at tricky and hard
LEVEL_BUDGET = {"e": 0, "n": 0, "t": 10, "h": 50}
#: the work a count may do on the other tilings before SAT is asked instead: branches times edges (a
#: branch costs about a pass over the edges): 20000 branches at 200 edges, fewer on larger boards
TILING_WORK = 4_000_000


def tiling_budget(g: Graph) -> int:
    """The branches a count may take on a tiling's graph (:data:`TILING_WORK`, at least 200)."""
    return max(200, TILING_WORK // g.sizes[1])


@dataclass(frozen=True)
class Graph:
    """A board as the kernel reads it: per edge its two dots (``ed``) and faces (``ef``, -1 for the
    outside), per dot its edges and per face its sides in compressed rows."""

    ed: np.ndarray
    ef: np.ndarray
    dptr: np.ndarray
    dedg: np.ndarray
    fptr: np.ndarray
    fedg: np.ndarray

    @property
    def sizes(self) -> tuple[int, int, int]:
        return len(self.dptr) - 1, len(self.ed) // 2, len(self.fptr) - 1


def _graph(n_dots: int, edges: list[tuple[int, int]], face_edges: list[list[int]]) -> Graph:
    ef = np.full(2 * len(edges), -1, np.int64)
    for f, es in enumerate(face_edges):
        for e in es:
            ef[2 * e + (ef[2 * e] >= 0)] = f
    at: list[list[int]] = [[] for _ in range(n_dots)]
    for i, (a, b) in enumerate(edges):
        at[a].append(i)
        at[b].append(i)
    rows = lambda lists: (np.cumsum([0] + [len(x) for x in lists]).astype(np.int64),
                          np.asarray([x for row in lists for x in row], np.int64))
    dptr, dedg = rows(at)
    fptr, fedg = rows(face_edges)
    return Graph(np.asarray(edges, np.int64).ravel(), ef, dptr, dedg, fptr, fedg)


@functools.lru_cache(maxsize=32)
def square(H: int, W: int) -> tuple[Graph, dict]:
    """The H x W square grid's graph (face r W + c, dot r (W + 1) + c) and its edge numbers by dot pair."""
    dot = lambda r, c: r * (W + 1) + c
    index: dict = {}
    edges = []
    faces = []
    for r in range(H):
        for c in range(W):
            row = []
            for a, b in (((r, c), (r, c + 1)), ((r, c + 1), (r + 1, c + 1)), ((r + 1, c), (r + 1, c + 1)),
                         ((r, c), (r + 1, c))):
                if (a, b) not in index:
                    index[a, b] = len(edges)
                    edges.append((dot(*a), dot(*b)))
                row.append(index[a, b])
            faces.append(row)
    return _graph((H + 1) * (W + 1), edges, faces), index


def square_loop(inside: np.ndarray) -> tuple[set, list[list[int]], list[list[int]]]:
    """The boundary of a region of the square grid whose boundary is one simple loop, as
    :func:`geometry.boundary`, :func:`geometry.clues_of` and :func:`number_loops` give them (its edges,
    each face's number and the answer grid) at numpy's speed."""
    H, W = inside.shape
    P = np.zeros((H + 2, W + 2), bool)
    P[1:H + 1, 1:W + 1] = inside
    hz = P[0:H + 1, 1:W + 1] != P[1:H + 2, 1:W + 1]  # (r, c)-(r, c + 1)
    vt = P[1:H + 1, 0:W + 1] != P[1:H + 1, 1:W + 2]  # (r, c)-(r + 1, c)
    full = (hz[:-1].astype(np.int64) + hz[1:] + vt[:, :-1] + vt[:, 1:]).tolist()
    edges = {((r, c), (r, c + 1)) for r, c in np.argwhere(hz).tolist()}
    edges |= {((r, c), (r + 1, c)) for r, c in np.argwhere(vt).tolist()}
    h, v = hz.tolist(), vt.tolist()
    grid = [[-1] * (W + 1) for _ in range(H + 1)]
    r0, c0 = (int(x) for x in np.argwhere(hz)[0])  # the first dot in reading order, heading right
    grid[r0][c0] = k = 1
    pr, pc, r, c = r0, c0, r0, c0 + 1
    while (r, c) != (r0, c0) and k <= len(edges):
        k += 1
        grid[r][c] = k
        for nr, nc, on in ((r, c + 1, c < W and h[r][c]), (r, c - 1, c > 0 and h[r][c - 1]),
                           (r + 1, c, r < H and v[r][c]), (r - 1, c, r > 0 and v[r - 1][c])):
            if on and (nr, nc) != (pr, pc):
                pr, pc, r, c = r, c, nr, nc
                break
    if k != len(edges):  # not one simple loop: number it the general way
        grid = number_loops(H + 1, W + 1, edges)
    return edges, full, grid


def tiled(t: Tiling) -> Graph:
    """A tiling's graph (its own dot, edge and face numbers)."""
    return _tiled(t.kind, t.W, t.H, t.desc)


@functools.lru_cache(maxsize=32)
def _tiled(kind: int, W: int, H: int, desc: str | None) -> Graph:
    t = tiling(kind, W, H, desc)
    return _graph(len(t.dots), list(t.edges), [list(es) for es in t.face_edges])


def random_region(rng: np.random.Generator, H: int, W: int, share: float) -> np.ndarray:
    """:func:`geometry.random_region` compiled: the same region from the same generator state, which it
    leaves where that function leaves it (one uniform number per face added)."""
    from . import kernel

    r, c = int(rng.integers(H)), int(rng.integers(W))
    target = max(1, round(share * H * W))
    state = rng.bit_generator.state
    draws = rng.random(max(target - 1, 1))
    inside = np.zeros(H * W, np.int64)
    scratch = np.empty(H * W, np.int64), np.empty(H * W, np.int64), np.empty(H * W, np.float64)
    used = kernel.region(H, W, r, c, target, draws, _WEIGHT, inside, *scratch)
    if used != len(draws):
        rng.bit_generator.state = state
        rng.random(used)
    return inside.reshape(H, W).astype(bool)


class Counter:
    """The uniqueness test of one loop's clues: ``unique(active)`` says whether the clues of the faces
    ``active`` marks are shown to leave ``truth`` (per edge 1 on, 2 off) the only loop within ``budget``
    branches. Second loops found are kept: one whose counts meet every active clue answers no at once.
    Past the budget ``fallback(active)`` answers (by default no: the clue set is not shown unique)."""

    def __init__(self, g: Graph, full: np.ndarray, truth: np.ndarray, budget: int,
                 fallback: Callable[[np.ndarray], bool] | None = None):
        nd, ne, nf = g.sizes
        self.g, self.full, self.truth = g, full.astype(np.int64), truth.astype(np.int64)
        self.budget, self.fallback = budget, fallback
        self.st = np.zeros(ne + 4 * nd + 5 * nf + 5, np.int64)
        self.trail = np.zeros(40 * ne + 16, np.int64)
        self.work = np.zeros(3 * int(np.diff(g.fptr).max()), np.int64)
        self.stack = np.zeros(nd + nf, np.int64)
        self.inq = np.zeros(nd + nf, np.int64)
        self.lev = np.zeros(3 * ne + 6, np.int64)
        self.alt = np.zeros(ne, np.int64)
        self.others = np.zeros((0, nf), np.int64)
        self.fallbacks = 0
        from . import kernel

        self._count = kernel.count

    def counts(self, edges_on: np.ndarray) -> np.ndarray:
        """Each face's sides among the edges marked (1 on)."""
        g = self.g
        on = (edges_on == 1).astype(np.int64)
        return np.add.reduceat(on[g.fedg], g.fptr[:-1])

    def unique(self, active: np.ndarray) -> bool:
        if len(self.others) and ((self.others == self.full) | ~active).all(axis=1).any():
            return False
        g = self.g
        clue = np.where(active, self.full, -1)
        n = self._count(g.ed, g.ef, g.dptr, g.dedg, g.fptr, g.fedg, clue, self.truth, self.st, self.trail,
                         self.stack, self.inq, self.lev, self.alt, self.work, 1, self.budget)
        if n < 0:
            self.fallbacks += 1
            return self.fallback is not None and self.fallback(active)
        if n >= 2:
            self.others = np.vstack([self.others, self.counts(self.alt)])
        return n == 1


def reduce(rng: np.random.Generator, counter: Counter, keep: int) -> np.ndarray:
    """The clues kept: removed in a seeded random order while the counter still shows the loop the only
    one, down to ``keep``, testing runs of removals (:func:`minimal_in_runs`; the order is drawn as
    ``reduce_clues`` draws it). Deduction is monotone (fewer clues never deduce more), so at budget 0 the
    result is the one-at-a-time one; with a search budget a run may pass where one at a time would
    not have, and every set kept is still shown unique."""
    from ....solvers.engine import minimal_in_runs

    n = len(counter.full)
    order = rng.permutation(n)
    active = np.ones(n, bool)
    minimal_in_runs(order, active, lambda: counter.unique(active), keep)
    return active
