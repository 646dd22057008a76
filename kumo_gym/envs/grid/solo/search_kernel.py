"""The numba search kernel of Solo's generator above Trivial (imported on first use).

:func:`minimal` reduces the givens of a solution to a minimal half-turn-symmetric set: each
removal is tested by counting solutions up to two, with :mod:`.kernel`'s two deductions
(naked and hidden singles, exactly what unit propagation over the CNF deduces) to a fixpoint at
every level of a search that branches on the open cell with the fewest candidates (chosen during
the last naked-singles pass, which saw the grid the deductions left). It keeps
exactly the set the engine's SAT-tested ``reduce_clues`` keeps for the same removal order, with
no SAT call. One entry point, no allocation (the caller passes every buffer), no reference
counting; cached on disk when compiled on first use.

No helper (measured with an empty cache): both deductions place a single through the
same lines of one loop, since a placing helper, even inlined, cost about 0.14 s more first
compile.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]

#: (n, units, unit_of, order, pair_a, pair_b, grid, given, used, work, branch) -> see :func:`minimal`
MINIMAL_SIG = nt.boolean(nt.int64, nt.int64[:, ::1], nt.int64[:, ::1], _I64, _I64, _I64, _I64, _I8, _I64, _I64,
                         _I64)


def minimal_scratch(n: int) -> tuple:
    """``(work, branch)`` for :func:`minimal` on an n x n grid: a grid per search level."""
    return np.zeros((n * n + 1) * n * n, np.int64), np.zeros(2 * (n * n + 1), np.int64)


@kernel(MINIMAL_SIG, _nrt=False)
def minimal(n, units, unit_of, order, pair_a, pair_b, grid, given, used, work, branch):
    """Above Trivial: drop the pairs ``pair_a[i], pair_b[i]`` for i in ``order`` from the givens
    (``given`` set to 1 everywhere at the start; ``grid`` holds the solution) while the puzzle stays
    unique, which is the one-at-a-time result of the engine's ``reduce_clues`` (a minimal set).

    Each test counts solutions up to two by search: the two deductions of ``kernel.run`` to a
    fixpoint on the grid of a level (``work``, n*n cells per level; 0 unknown), then the open
    cell with the fewest candidates branches (``branch``: its cell and the candidates not yet
    tried, per level). When the deductions alone solve the level-0 grid the puzzle is unique
    without search. Returns True when they do not solve the final set (grade >= 1).
    """
    nn = n * n
    full = (1 << (n + 1)) - 2
    for cell in range(nn):
        given[cell] = 1
    hard = False  # the deductions alone leave the current set open
    for i in order:
        a, b = pair_a[i], pair_b[i]
        given[a] = 0
        given[b] = 0
        for cell in range(nn):
            work[cell] = grid[cell] if given[cell] else 0
        count = 0
        open0 = False
        lvl = 0
        while True:
            base = lvl * nn
            for u in range(3 * n):
                used[u] = 0
            left = 0
            for cell in range(nn):
                v = work[base + cell]
                if v:
                    for q in range(3):
                        used[unit_of[cell, q]] |= 1 << v
                else:
                    left += 1
            status = 2  # 0 contradiction, 1 solved, 2 open
            progress = True
            best, best_free, best_cand = -1, n + 1, 0
            while progress and left > 0 and status == 2:
                progress = False
                # scope u = -1: every cell, for naked singles; then each unit u, for its hidden singles
                for u in range(-1, 3 * n):
                    hidden = 0  # the values that only one open cell of unit u can take
                    if u < 0:
                        # the cell to branch on should this pass be the last (nothing placed after
                        # it): the first open cell with two candidates, else the first with fewest
                        best, best_free, best_cand = -1, n + 1, 0
                    else:
                        once, twice = 0, 0
                        for k in range(n):
                            cell = units[u, k]
                            if work[base + cell] == 0:
                                cand = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                                twice |= once & cand
                                once |= cand
                        if full & ~used[u] & ~once:
                            status = 0  # a value that no cell of the unit can take
                            break
                        hidden = once & ~twice
                        if hidden == 0:
                            continue
                    for k in range(nn if u < 0 else n):
                        cell = k if u < 0 else units[u, k]
                        if work[base + cell] == 0:
                            cand = full & ~(used[unit_of[cell, 0]] | used[unit_of[cell, 1]] | used[unit_of[cell, 2]])
                            if u >= 0:
                                bit = cand & hidden
                            elif cand == 0:
                                status = 0  # a cell with no candidate
                                break
                            elif cand & (cand - 1) == 0:
                                bit = cand
                            else:
                                bit = 0
                                if best_free > 2:
                                    free = 0  # the candidates' count
                                    for v in range(1, n + 1):
                                        free += (cand >> v) & 1
                                    if free < best_free:
                                        best, best_free, best_cand = cell, free, cand
                            if bit != 0:  # a single: its value goes in
                                bit &= -bit
                                v = 0
                                while (bit >> v) != 1:
                                    v += 1
                                work[base + cell] = v
                                left -= 1
                                progress = True
                                for q in range(3):
                                    used[unit_of[cell, q]] |= bit
                    if status == 0:
                        break
            if status == 2 and left == 0:
                status = 1
            if lvl == 0:
                open0 = status == 2
            if status == 1:
                count += 1
                if count > 1:
                    break
            at = lvl - 1  # the level whose next candidate is tried
            if status == 2:  # the deductions stalled: branch on the cell the last naked pass chose
                branch[2 * lvl], branch[2 * lvl + 1] = best, best_cand
                at = lvl
            while at >= 0 and branch[2 * at + 1] == 0:
                at -= 1
            if at < 0:
                break  # every branch tried
            bit = branch[2 * at + 1] & -branch[2 * at + 1]
            branch[2 * at + 1] &= ~bit
            v = 0
            while (bit >> v) != 1:
                v += 1
            src, dst = at * nn, (at + 1) * nn
            for cell in range(nn):
                work[dst + cell] = work[src + cell]
            work[dst + branch[2 * at]] = v
            lvl = at + 1
        if count == 1:
            hard = open0
        else:
            given[a] = 1
            given[b] = 1
    return hard
