"""The numba kernel of Range's deduction and generator (imported on first use only).

Range's own deduction, in the spirit of Tatham's solver (his reasoning levels below recursion),
over a grid of cells ``st`` (1 white, -1 black, 0 open, row-major) and the numbers ``clue``
(0: none). To a fixpoint:

* a numbered cell is white; a black cell's four neighbours are white (two blacks side by side:
  a contradiction);
* sight counts: seen from a number n, the reach in each direction (how many cells it sees there)
  lies between the run of white cells next to it and the distance to the first black cell or the
  edge, and can only stop before a cell that is not already white. The four reaches plus 1 must
  make n, which narrows each reach's range from the others' bounds (to a fixpoint); the cells up to the smallest
  reach are white, and when the range is a single reach the cell just beyond it is black;
* connectivity: every cut vertex of the graph of non-black cells is white (each side of it holds
  a white cell, since two non-black neighbours cannot both turn black, so blackening it would
  split the whites), and a non-black graph already in pieces is a contradiction.

Every step follows from the rules, so a fixpoint without open cells is the only solution.

:func:`run` also holds the numbering and clue removal of Tatham's generator (the caller lays the
black cells): every white cell numbered except those facing a black cell under a half turn (a draw
the deduction cannot solve from these is dropped); then numbers removed in half-turn pairs, in a
random order, each removal kept while the deduction still solves the puzzle. One entry point with the deduction written once in it (numba re-optimises a
called helper inside every caller), buffers from the caller (no allocation): a small compile,
cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (H, W, nbr, generate, removal order, black, full, clue, st, work) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, _I64, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64)
NONE = np.zeros(0, np.int64)


def scratch(H: int, W: int) -> tuple:
    """``(nbr, black, full, clue, st, work)`` for :func:`run`: the neighbour table (cell i's
    neighbour in direction d, up, right, down, left, at ``4 * i + d``; -1 off the grid) and the
    buffers."""
    n = H * W
    r, c = np.divmod(np.arange(n), W)
    nbr = np.stack([np.where(r > 0, np.arange(n) - W, -1), np.where(c < W - 1, np.arange(n) + 1, -1),
                    np.where(r < H - 1, np.arange(n) + W, -1), np.where(c > 0, np.arange(n) - 1, -1)], axis=1)
    return (np.ascontiguousarray(nbr.ravel(), np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(5 * n + 4 * max(H, W) + 16, np.int64))


@kernel(RUN_SIG, _nrt=False, error_model="numpy")
def run(H, W, nbr, generate, order, black, full, clue, st, work):
    """Two jobs, one deduction (module docstring).

    With ``generate`` 0: deduce from the cells already set in ``st`` and the numbers ``clue``;
    1 solved, 0 stalled, -1 contradiction.

    Otherwise the numbers of a draw whose black cells are ``black`` (1 black): ``full`` every white cell's number; ``clue`` the numbers kept (none
    facing a black cell), removed in half-turn pairs in the order ``order`` (a pair is tried when its first cell comes). 1 on
    success, 0 when the deduction cannot solve even the full set (draw again).
    """
    n = H * W
    dep, low, par, nxt, stk = 0, n, 2 * n, 3 * n, 4 * n
    b = 5 * n  # per direction of a number: the distance to a black cell or the edge, the white run
    gen = generate > 0
    if gen:
        for i in range(n):
            full[i] = 0
            if not black[i]:
                full[i] = 1
                for d in range(4):
                    j = nbr[4 * i + d]
                    while j >= 0 and not black[j]:
                        full[i] += 1
                        j = nbr[4 * j + d]
            clue[i] = 0 if black[n - 1 - i] else full[i]  # as Tatham: none facing a black cell
    t = -1  # generating: -1 the full set, then positions in ``order``
    while True:
        # ---- the job: which numbers, from which cells
        i, j = -1, -1
        if gen:
            for k in range(n):
                st[k] = 0
            if t >= 0:
                while t < n:
                    i = order[t]
                    if clue[i] != 0 and full[i] > 0:
                        break  # not black, not removed, not a pair found needed
                    t += 1
                if t == n:
                    break
                j = n - 1 - i
                clue[i] = 0
                clue[j] = 0
        # ---- the deduction, to a fixpoint
        status = 1
        for k in range(n):
            if clue[k] > 0:
                if st[k] < 0:
                    status = -1
                st[k] = 1
        while status > 0:
            changed = 0
            for k in range(n):  # a black cell's neighbours are white
                if st[k] < 0:
                    for d in range(4):
                        u = nbr[4 * k + d]
                        if u >= 0:
                            if st[u] < 0:
                                status = -1
                            elif st[u] == 0:
                                st[u] = 1
                                changed += 1
            for k in range(n):  # sight counts
                num = clue[k]
                if num <= 0:
                    continue
                slo, shi = 0, 0
                for d in range(4):  # the cell at distance q in direction d is k + q * step
                    step = W * (d - 1) if d % 2 == 0 else 2 - d
                    edge = (k // W if d == 0 else H - 1 - k // W) if d % 2 == 0 else (W - 1 - k % W if d == 1 else k % W)
                    m = 0
                    while m < edge and st[k + (m + 1) * step] >= 0:
                        m += 1
                    w = 0
                    while w < m and st[k + (w + 1) * step] > 0:
                        w += 1
                    work[b + d] = m
                    work[b + 4 + d] = w
                    work[b + 8 + d] = m
                    slo += w
                    shi += m
                again = True
                while again:  # the reaches' ranges narrowed from the others' until they settle
                    again = False
                    if slo + 1 > num or shi + 1 < num:
                        status = -1
                        break
                    for d in range(4):
                        step = W * (d - 1) if d % 2 == 0 else 2 - d
                        m, lo, hi = work[b + d], work[b + 4 + d], work[b + 8 + d]
                        a = max(lo, num - 1 - shi + hi)
                        z = min(hi, num - 1 - slo + lo)
                        # a reach is possible only where the cell after it is not white (or it is the whole run)
                        while a <= z and a < m and st[k + (a + 1) * step] > 0:
                            a += 1
                        while z >= a and z < m and st[k + (z + 1) * step] > 0:
                            z -= 1
                        if a > z:
                            status = -1
                            break
                        if a != lo or z != hi:
                            work[b + 4 + d] = a
                            work[b + 8 + d] = z
                            slo += a - lo
                            shi += z - hi
                            again = True
                    if status < 0:
                        break
                if status < 0:
                    break
                for d in range(4):
                    step = W * (d - 1) if d % 2 == 0 else 2 - d
                    m, lo, hi = work[b + d], work[b + 4 + d], work[b + 8 + d]
                    for q in range(1, lo + 1):
                        u = k + q * step
                        if st[u] == 0:
                            st[u] = 1
                            changed += 1
                    if lo == hi and lo < m:
                        u = k + (lo + 1) * step
                        if st[u] == 0:
                            st[u] = -1
                            changed += 1
            if status < 0 or changed > 0:
                continue
            # connectivity: open cut vertices of the non-black graph are white (iterative Tarjan)
            root, nonblack = -1, 0
            for k in range(n):
                work[dep + k] = -1
                if st[k] >= 0:
                    nonblack += 1
                    if root < 0:
                        root = k
            if root < 0:
                status = -1
                break
            work[dep + root] = 0
            work[low + root] = 0
            work[par + root] = -1
            work[nxt + root] = 0
            work[stk] = root
            top, seen, kids = 0, 1, 0
            while top >= 0:
                v = work[stk + top]
                if work[nxt + v] < 4:
                    u = nbr[4 * v + work[nxt + v]]
                    work[nxt + v] += 1
                    if u < 0 or st[u] < 0:
                        continue
                    if work[dep + u] < 0:
                        work[dep + u] = work[dep + v] + 1
                        work[low + u] = work[dep + u]
                        work[par + u] = v
                        work[nxt + u] = 0
                        top += 1
                        work[stk + top] = u
                        seen += 1
                        if v == root:
                            kids += 1
                    elif u != work[par + v] and work[dep + u] < work[low + v]:
                        work[low + v] = work[dep + u]
                else:
                    top -= 1
                    p = work[par + v]
                    if p >= 0:
                        work[low + p] = min(work[low + p], work[low + v])
                        if p != root and work[low + v] >= work[dep + p] and st[p] == 0:
                            st[p] = 1
                            changed += 1
            if seen < nonblack:
                status = -1
            elif kids >= 2 and st[root] == 0:
                st[root] = 1
                changed += 1
            if changed == 0:
                break
        if status > 0:
            for k in range(n):
                if st[k] == 0:
                    status = 0
                    break
        # ---- what the outcome means for the job
        if not gen:
            return status
        if t < 0:
            if status != 1:
                return 0
        elif status != 1:
            clue[i] = full[i]
            clue[j] = full[j]
            full[i] = -full[i]  # the pair is needed (signs restored at the end)
            full[j] = -full[j]
        t += 1
    for k in range(n):
        if full[k] < 0:
            full[k] = -full[k]
    return 1
