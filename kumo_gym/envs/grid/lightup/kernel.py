"""The numba kernel of Light Up's generator at Tatham's easy level (imported on first
generation only).

Unit propagation over the CNF of :mod:`.lightup` (at most one light per stretch of white cells,
one clause per white cell asking for a light in its row or column stretch, a totalizer per
numbered black cell; the cardinality encodings keep arc consistency under propagation and their
auxiliary variables are private) makes exactly three deductions, applied here on the grid
itself: a light darkens every other cell of its two stretches; a cell that no light reaches yet,
with one undecided cell left among those that could light it, gets a light there; a number with
as many lights around it as it says darkens its other neighbours, and one with exactly as many
undecided neighbours as lights missing lights them all. :func:`run` follows Tatham's generator:
black cells by symmetric orbits; lights in a random order wherever none shines yet (Tatham's
fills every white cell and lets each light, in a random order, put out those it shines on,
which gives the same lights unless his check that this leaves no cell dark refuses a step); every
black cell numbered; numbers
dropped in a seeded order while these deductions still decide every cell (which proves the
puzzle unique without search), as the engine's ``reduce_clues(grade_limit=0)`` decides over the
CNF.

Cells are row-major. The caller's tables: ``orbit[4c:4c+4]`` the images of cell c under the
symmetry and ``nbr[4c:4c+4]`` its neighbours (-1: none). A stretch q (rows first, then columns)
is ``members[first[q]:first[q+1]]``; ``rs``/``cs`` give each white cell's row and column
stretch. One entry point, no allocation (the caller passes every buffer), no reference counting:
a small compile on first use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (H, W, centre, seeds, draws, orbit, nbr, black, light, number, active, rs, cs, first, members, val, nlit)
RUN_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64,
                   _I64, _I64, _I64, _I64, _I64)


def scratch(H: int, W: int) -> tuple:
    """``(black, light, number, active, rs, cs, first, members, val, nlit)`` for :func:`run`."""
    n = H * W
    return tuple(np.zeros(size, np.int64) for size in (n, n, n, n, n, n, 2 * n + 1, 2 * n, n, 2 * n))


@kernel(inner=True, inline="always", _nrt=False)
def _cross(k, a, b, first, members):
    """Cell k of stretch a followed by stretch b (a cell's row and column; it appears twice)."""
    if k < first[a + 1] - first[a]:
        return members[first[a] + k]
    return members[first[b] + k - (first[a + 1] - first[a])]


@kernel(RUN_SIG, _nrt=False)
def run(H, W, centre, seeds, draws, orbit, nbr, black, light, number, active, rs, cs, first, members, val, nlit):
    """Layouts, lights, numbers and their reduction (module docstring); returns the first attempt
    (row of ``draws``) whose deductions from every number decide the grid, or -1 when none does.

    ``draws`` holds rows of 3 n + 1 numbers, one per attempt: three orders of the cells, then a flag: the layout's (the first
    ``seeds`` cells not yet black turn black with their orbits; ``centre``, the centre of a
    quarter turn or -1, only when the flag is set), the lights' and the numbers' removal order.
    On success ``black``, ``light`` (1 per light), ``number`` (per black cell, its lit
    neighbours) and ``active`` (1 per number kept) describe the puzzle."""
    n = H * W
    for attempt in range(len(draws) // (3 * n + 1)):
        row = attempt * (3 * n + 1)
        nblack, placed = 0, 0
        for cell in range(n):
            black[cell] = 0
        for j in range(n):
            cell = draws[row + j]
            if placed == seeds:
                break
            if black[cell] or cell == centre:
                continue
            placed += 1
            for k in range(4 * cell, 4 * cell + 4):
                if orbit[k] >= 0 and not black[orbit[k]]:
                    black[orbit[k]] = 1
                    nblack += 1
        if centre >= 0 and draws[row + 3 * n]:
            black[centre] = 1
            nblack += 1
        if nblack == n:
            continue
        # the stretches: maximal runs of white cells along rows (cell order), then columns
        ns, size = 0, 0
        for pos in range(2 * n):
            cell = pos if pos < n else (pos - n) % H * W + (pos - n) // H
            if black[cell]:
                continue
            along = pos < n
            prev = cell - 1 if along else cell - W
            if (cell % W == 0 if along else cell < W) or black[prev]:
                first[ns] = size
                ns += 1
            members[size] = cell
            size += 1
            if along:
                rs[cell] = ns - 1
            else:
                cs[cell] = ns - 1
        first[ns] = size
        # the lights: in a random order, a light wherever none shines yet
        for q in range(ns):
            nlit[q] = 0
        for j in range(n):
            x = draws[row + n + j]
            light[x] = 0
            if not black[x] and nlit[rs[x]] == 0 and nlit[cs[x]] == 0:
                light[x] = 1
                nlit[rs[x]] = 1
                nlit[cs[x]] = 1
        for cell in range(n):
            number[cell] = 0
            active[cell] = black[cell]
            for k in range(4 * cell, 4 * cell + 4):
                if black[cell] and nbr[k] >= 0 and not black[nbr[k]]:
                    number[cell] += light[nbr[k]]
        for t in range(-1, n):
            drop = draws[row + 2 * n + t] if t >= 0 else -1
            if drop >= 0 and not black[drop]:
                continue
            if drop >= 0:
                active[drop] = 0
            # the deductions from the active numbers, to a fixpoint (or until every cell is decided)
            for q in range(ns):
                nlit[q] = 0
            for cell in range(n):
                val[cell] = 0
            open_cells = n - nblack
            changed = True
            while changed and open_cells > 0:
                changed = False
                for cell in range(n):
                    x, count = -1, 0
                    if black[cell]:  # a number: its undecided neighbours, if they are all lights or none
                        if not active[cell]:
                            continue
                        lit = 0
                        for k in range(4 * cell, 4 * cell + 4):
                            if nbr[k] >= 0 and not black[nbr[k]]:
                                if val[nbr[k]] == 1:
                                    lit += 1
                                elif val[nbr[k]] == 0:
                                    x, count = nbr[k], count + 1
                        if count == 0 or (lit != number[cell] and lit + count != number[cell]):
                            continue
                        s = -1 if lit == number[cell] else 1
                    else:  # a cell no light reaches: the one cell left that can light it
                        a, b = rs[cell], cs[cell]
                        if nlit[a] > 0 or nlit[b] > 0:
                            continue
                        for k in range(first[a + 1] - first[a] + first[b + 1] - first[b]):
                            o = _cross(k, a, b, first, members)
                            if val[o] == 0 and (o != cell or k < first[a + 1] - first[a]):
                                x, count = o, count + 1
                        if count != 1:
                            continue
                        s = 1
                    # decide x (one cell per step; the fixpoint is the same): a light puts out its cross
                    changed = True
                    val[x] = s
                    open_cells -= 1
                    if s == 1:
                        a, b = rs[x], cs[x]
                        nlit[a] += 1
                        nlit[b] += 1
                        for k in range(first[a + 1] - first[a] + first[b + 1] - first[b]):
                            o = _cross(k, a, b, first, members)
                            if val[o] == 0:
                                val[o] = -1
                                open_cells -= 1
            if drop < 0 and open_cells > 0:
                break  # even every number leaves cells open: the next attempt
            if drop >= 0 and open_cells > 0:
                active[drop] = 1
        else:
            return attempt
    return -1
