"""The numba kernel of Solo's generator (imported on first generation only).

Unit propagation over the CNF of :func:`.latin.latin_formula` (one-hot cells; "exactly one" per
cell and per value of every row, column and box, which propagation keeps arc-consistent, with
auxiliary variables private to each constraint) makes exactly Tatham's two simplest deductions:
a value placed in a cell leaves the other cells of its row, column and box (so a cell's
candidates are the values none of its units holds yet) and a cell left with one candidate takes
it (naked single); a value that a unit still lacks and only one of its open cells can take goes
there (hidden single). :func:`run` applies them on the grid itself, with one bit per value:

* filling a random solution the way :func:`.latin.random_latin` did it in Python (randomised
  backtracking, most constrained cell first, values in the order of random keys, a step budget
  after which the caller draws new keys), so a seed gives the same grid;
* dropping symmetric pairs of givens in a seeded order while the two deductions from the rest
  still solve the whole grid, which is what the engine's ``reduce_clues(grade_limit=0)``
  decides over the CNF (and proves the puzzle unique without search).

The levels above Trivial use :mod:`.search_kernel` (a module of its own, so a Trivial
first reset does not compile it).

One entry point and no helper (numba re-optimises an inlined helper inside every caller), no
allocation (the caller passes every buffer), no reference counting: one small compile on first
use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (n, units, unit_of, ranked, budget, order, pair_a, pair_b, grid, given, used, stack) -> see :func:`run`
RUN_SIG = nt.boolean(nt.int64, nt.int64[:, ::1], nt.int64[:, ::1], _I64, nt.int64, _I64, _I64, _I64, _I64, _I8,
                     _I64, _I64)


def scratch(n: int) -> tuple:
    """``(grid, given, used, stack)`` for :func:`run` on an n x n grid."""
    return np.zeros(n * n, np.int64), np.zeros(n * n, np.int8), np.zeros(3 * n, np.int64), np.zeros(3 * n * n, np.int64)


@kernel(RUN_SIG, _nrt=False)
def run(n, units, unit_of, ranked, budget, order, pair_a, pair_b, grid, given, used, stack):
    """Two jobs (module docstring); cells are row-major, values 1..n, ``grid`` 0 for empty.

    ``units``: the cells of every row, column and box (3n x n); ``unit_of``: per cell its row,
    column and box index into ``units`` (n*n x 3); ``used``: per unit the bits of its values.

    With an empty ``order``: fill ``grid`` (zeroed) with a random solution, cell by cell, trying
    the values of cell k in the order ``ranked[k*n:(k+1)*n]`` (0-based); False when more than
    ``budget`` cells were entered (draw new keys). ``stack``: 3 n*n.

    With ``order``: ``grid`` holds the solution; drop the pairs of cells ``pair_a[i], pair_b[i]``
    (the same cell for the centre) for i in ``order`` while the deductions from the cells still
    ``given`` (set to 1 everywhere at the start) solve the grid. Returns True.
    """
    nn = n * n
    full = (1 << (n + 1)) - 2  # bit v for value v
    if len(order) == 0:
        for u in range(3 * n):
            used[u] = 0
        steps = 0
        d = 0
        descend = True
        while True:
            if descend:
                if d == nn:
                    return True
                steps += 1
                if steps > budget:
                    return False
                best, best_free, best_avail = -1, n + 1, 0
                for cell in range(nn):
                    if grid[cell] == 0:
                        avail = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                        k = 0  # the candidates' count (popcount written out: no helper to compile)
                        x = avail
                        while x:
                            x &= x - 1
                            k += 1
                        if k < best_free:
                            best, best_free, best_avail = cell, k, avail
                            if k <= 1:
                                break
                stack[3 * d], stack[3 * d + 1], stack[3 * d + 2] = best, best_avail, 0
            cell, avail = stack[3 * d], stack[3 * d + 1]
            placed = False
            while stack[3 * d + 2] < n:
                v = ranked[cell * n + stack[3 * d + 2]] + 1
                stack[3 * d + 2] += 1
                if (avail >> v) & 1:
                    grid[cell] = v
                    for q in range(3):
                        used[unit_of[cell, q]] |= 1 << v
                    placed = True
                    break
            if placed:
                d += 1
                descend = True
                continue
            if d == 0:
                return False
            d -= 1
            cell = stack[3 * d]
            for q in range(3):
                used[unit_of[cell, q]] &= ~(1 << grid[cell])
            grid[cell] = 0
            descend = False
    for cell in range(nn):
        given[cell] = 1
    for i in order:
        a, b = pair_a[i], pair_b[i]
        given[a] = 0
        given[b] = 0
        # the deductions from the remaining givens, to a fixpoint (or until every cell is known)
        for u in range(3 * n):
            used[u] = 0
        left = nn
        for cell in range(nn):
            if given[cell]:
                left -= 1
                for q in range(3):
                    used[unit_of[cell, q]] |= 1 << grid[cell]
        known = stack  # 1 per cell known, in the first nn entries
        for cell in range(nn):
            known[cell] = given[cell]
        progress = True
        while progress and left > 0:
            progress = False
            for cell in range(nn):  # naked singles
                if known[cell] == 0:
                    cand = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                    if cand != 0 and cand & (cand - 1) == 0:
                        known[cell] = 1
                        left -= 1
                        progress = True
                        for q in range(3):
                            used[unit_of[cell, q]] |= cand
            for u in range(3 * n):  # hidden singles
                once, twice = 0, 0
                for k in range(n):
                    cell = units[u, k]
                    if known[cell] == 0:
                        cand = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                        twice |= once & cand
                        once |= cand
                hidden = once & ~twice
                if hidden == 0:
                    continue
                for k in range(n):
                    cell = units[u, k]
                    if known[cell] == 0:
                        cand = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                        bit = cand & hidden
                        if bit != 0:
                            bit &= -bit
                            known[cell] = 1
                            left -= 1
                            progress = True
                            for q in range(3):
                                used[unit_of[cell, q]] |= bit
        if left > 0:
            given[a] = 1
            given[b] = 1
    return True

