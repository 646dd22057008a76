"""The numba kernel of Unruly's generator (imported on first generation only).

Unit propagation over the CNF of :mod:`.unruly` (three-cell clauses and a sequential counter per
line, which propagation keeps arc-consistent) makes exactly two deductions, applied here on the
grid itself: two equal cells of a three-cell window make the third the other colour, and a line
holding half its cells of one colour gets the other colour everywhere else. :func:`run` draws a
random valid grid with them the way Tatham's generator does (cells in a random order, each given
a random colour, propagated, the other colour on a contradiction, a fresh draw when both fail);
removes givens while propagation still solves the puzzle, deciding exactly what
the engine's ``reduce_clues(grade_limit=0)`` decides over the CNF.

Cells are 1 black, -1 white, 0 open, row-major. One entry point (:func:`run`) with the
propagation written once in it (numba re-optimises a called helper inside every caller), no
allocation (the caller passes every buffer), no reference counting: a small compile on first
use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, order, colour, truth, active, val, counts, trail) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, _I64, _I8, _I8, _I8, _I8, _I64, _I64)


def scratch(H: int, W: int) -> tuple:
    """``(val, counts, trail)`` for :func:`run` on an H x W grid."""
    return np.zeros(H * W, np.int8), np.zeros(2 * (H + W), np.int64), np.zeros(H * W + 1, np.int64)


@kernel(inner=True, inline="always", _nrt=False)
def _set(H, W, j, s, val, counts, trail, tlen):
    """Make open cell j colour s and put it on the trail: ``(new trail length, whether both lines
    through j still hold at most half s)``. ``counts``: black per row, white per row, black per
    column, white per column."""
    val[j] = s
    trail[tlen] = j
    a = (0 if s == 1 else H) + j // W
    b = 2 * H + (0 if s == 1 else W) + j % W
    counts[a] += 1
    counts[b] += 1
    return tlen + 1, 2 * counts[a] <= W and 2 * counts[b] <= H


@kernel(RUN_SIG, _nrt=False)
def run(H, W, order, colour, truth, active, val, counts, trail):
    """Two jobs, one propagation (module docstring).

    With ``colour`` (one per position of ``order``): fill a random valid grid into ``val``, cell
    ``order[t]``, when still open, trying ``colour[t]`` first; 1 on success, 0 when both colours
    of some cell contradict (draw again).

    Without: drop the givens at ``order`` in turn (``active``: one flag per cell, every cell of
    ``truth`` given at the start), keeping each drop while propagation from the remaining givens
    still decides the dropped cell (then it decides every cell, as the full set does); returns 0.
    """
    n = H * W
    filling = len(colour) > 0
    t = 0
    second = False       # fill: trying the current cell's other colour
    tlen = 0
    mark = 0
    if filling:
        for i in range(n):
            val[i] = 0
        for i in range(len(counts)):
            counts[i] = 0
    while True:
        # the job's first assignments; propagation then runs from ``head``
        goal = -1
        ok = True
        if filling:
            while t < n and val[order[t]] != 0:
                t += 1
            if t == n:
                return 1
            mark = tlen
            head = tlen
            tlen, ok = _set(H, W, order[t], -colour[t] if second else colour[t], val, counts, trail, tlen)
        else:
            if t == len(order):
                return 0
            goal = order[t]
            active[goal] = 0
            for i in range(n):
                val[i] = 0
            for i in range(len(counts)):
                counts[i] = 0
            tlen = 0
            head = 0
            for i in range(n):
                if active[i]:
                    tlen, fits = _set(H, W, i, truth[i], val, counts, trail, tlen)
                    ok = ok and fits
        done = False
        while ok and not done and head < tlen:
            j = trail[head]
            head += 1
            s = val[j]
            for axis in range(2):
                # the line through j: cells base + step * k for k < length, j at pos
                if axis == 0:
                    base, step, length, pos = (j // W) * W, 1, W, j % W
                    count = counts[(0 if s == 1 else H) + j // W]
                else:
                    base, step, length, pos = j % W, W, H, j // W
                    count = counts[2 * H + (0 if s == 1 else W) + j % W]
                # two of s in a window of three: the third is -s (three: a contradiction)
                for first in range(max(pos - 2, 0), min(pos, length - 3) + 1):
                    same = 0
                    free = -1
                    for k in range(first, first + 3):
                        v = val[base + step * k]
                        if v == s:
                            same += 1
                        elif v == 0:
                            free = base + step * k
                    if same == 3:
                        ok = False
                    elif same == 2 and free >= 0:
                        tlen, ok = _set(H, W, free, -s, val, counts, trail, tlen)
                        done = free == goal
                    if not ok or done:
                        break
                # half the line is s: every open cell of it is -s
                if ok and not done and 2 * count == length:
                    for k in range(length):
                        q = base + step * k
                        if val[q] != 0:
                            continue
                        tlen, ok = _set(H, W, q, -s, val, counts, trail, tlen)
                        done = q == goal
                        if not ok or done:
                            break
                if not ok or done:
                    break
        # what the outcome means for the job
        if not filling:
            if not done:
                active[goal] = 1
            t += 1
        elif ok:
            second = False
            t += 1
        else:
            # undo this try: every cell on the trail from mark, the failing one included
            for q in range(mark, tlen):
                j = trail[q]
                s = val[j]
                counts[(0 if s == 1 else H) + j // W] -= 1
                counts[2 * H + (0 if s == 1 else W) + j % W] -= 1
                val[j] = 0
            tlen = mark
            if second:
                return 0
            second = True
