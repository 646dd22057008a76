"""The numba kernel of Pattern's generator: Tatham's line solver (issue 14; imported on first
generation only).

A nonogram is unique when line-by-line deduction solves it, which is how Tatham's generator
accepts a picture: for one row or column, every placement of its runs that agrees with the cells
decided so far is considered at once by a forward and a backward table (``F[j, p]``: the first p
cells can hold the first j runs, ``B[j, p]``: the cells from p on can hold the runs from j on); a
cell that is black in every placement is black, white in every placement white. Lines whose
cells changed are solved again until nothing changes. Every deduction holds in every solution,
so a picture this solves is the only solution of its clues: no SAT search is needed.

One entry point, the line tables and the work queue written out in it (no helper: numba
re-optimises an inlined helper inside every caller, and tuple-returning ones cost more), so the
first use in a fresh process compiles one function (issue 14, "cold start": about 0.25 s CPU less
than with the helpers).
"""
import numpy as np
from numba import njit
from numba import types as nt

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, picture: 1 black / 0 white per cell, row-major, scratch...) -> whether line solving decides every cell
SOLVES_SIG = nt.boolean(nt.int64, nt.int64, _I8, nt.int64[:, ::1], _I64, _I8, _I8, nt.int8[:, ::1], nt.int8[:, ::1],
                        _I64, _I64, _I64, _I8)


def scratch(H: int, W: int) -> tuple:
    """The buffers :func:`solves` works in, for an H x W picture."""
    L = max(H, W)
    return (np.zeros((H + W, L // 2 + 2), np.int64), np.zeros(H + W, np.int64), np.zeros(H * W, np.int8),
            np.zeros(L, np.int8), np.zeros((L // 2 + 3, L + 2), np.int8), np.zeros((L // 2 + 3, L + 2), np.int8),
            np.zeros(L + 1, np.int64), np.zeros(L + 1, np.int64), np.zeros(H + W + 1, np.int64), np.zeros(H + W, np.int8))


@njit(SOLVES_SIG, cache=True, nogil=True, _nrt=False)
def solves(H, W, pic, clue, nk, val, vals, F, B, white_before, can_black, queue, inq):
    """Whether line solving (module docstring) decides every cell of the puzzle whose clues are
    the runs of ``pic``. Scratch (see :func:`scratch`): ``clue`` (H + W lines by L // 2 + 2),
    ``nk`` (H + W), ``val`` (H * W), ``vals`` (L), ``F`` and ``B`` (L // 2 + 3 by L + 2),
    ``white_before`` and ``can_black`` (L + 1), ``queue`` (H + W + 1), ``inq`` (H + W); L is
    the longer side."""
    nl = H + W
    for li in range(nl):
        nk[li] = 0
        n = W if li < H else H
        run = 0
        for p in range(n + 1):
            black = False
            if p < n:
                cell = li * W + p if li < H else p * W + (li - H)
                black = pic[cell] == 1
            if black:
                run += 1
            elif run:
                clue[li, nk[li]] = run
                nk[li] += 1
                run = 0
    for i in range(H * W):
        val[i] = 0
    # the work queue: a ring of nl + 1 slots, inq[li] whether line li waits in it; every line first
    for li in range(nl):
        queue[li] = li
        inq[li] = 1
    head = 0
    tail = nl
    open_cells = H * W
    while head != tail and open_cells:
        li = queue[head]
        inq[li] = 0
        head = head + 1 if head + 1 < len(queue) else 0
        n = W if li < H else H
        free = 0
        for p in range(n):
            vals[p] = val[li * W + p if li < H else p * W + (li - H)]
            if vals[p] == 0:
                free += 1
        if free == 0:
            continue  # the crossing lines decided every cell of this one: nothing left to deduce
        k = nk[li]
        # the tables of the line: F, B (a cell p can be white when some F[j, p] and B[j, p + 1]) and
        # can_black (how many placements of a run cover the cell: > 0 when it can be black)
        # white_before[p]: how many cells among the first p are decided white
        white_before[0] = 0
        for p in range(n):
            white_before[p + 1] = white_before[p] + (1 if vals[p] == -1 else 0)
        # every other entry of the tables is written below before it is read
        for j in range(k + 1):
            F[j, 0] = 1 if j == 0 else 0
            B[j, n] = 1 if j == k else 0
        for p in range(1, n + 1):
            for j in range(k + 1):
                ok = vals[p - 1] != 1 and (F[j, p - 1] != 0)
                if not ok and j > 0:
                    s = p - clue[li, j - 1]
                    if s >= 0 and white_before[p] - white_before[s] == 0:
                        if s == 0:
                            ok = F[j - 1, 0] != 0
                        else:
                            ok = vals[s - 1] != 1 and (F[j - 1, s - 1] != 0)
                F[j, p] = 1 if ok else 0
        for p in range(n - 1, -1, -1):
            for j in range(k, -1, -1):
                ok = vals[p] != 1 and (B[j, p + 1] != 0)
                if not ok and j < k:
                    e = p + clue[li, j]
                    if e <= n and white_before[e] - white_before[p] == 0:
                        if e == n:
                            ok = B[j + 1, n] != 0
                        else:
                            ok = vals[e] != 1 and (B[j + 1, e + 1] != 0)
                B[j, p] = 1 if ok else 0
        # black: some run j placed at s covering the cell; marked by a difference array
        for p in range(n + 1):
            can_black[p] = 0
        for j in range(k):
            ln = clue[li, j]
            for s in range(n - ln + 1):
                e = s + ln
                if white_before[e] - white_before[s] != 0:
                    continue
                if s == 0:
                    left = F[j, 0] != 0
                else:
                    left = vals[s - 1] != 1 and (F[j, s - 1] != 0)
                if not left:
                    continue
                if e == n:
                    right = B[j + 1, n] != 0
                else:
                    right = vals[e] != 1 and (B[j + 1, e + 1] != 0)
                if right:
                    can_black[s] += 1
                    can_black[e] -= 1
        run = 0
        for p in range(n):
            run += can_black[p]
            can_black[p] = run
        for p in range(n):
            if vals[p] != 0:
                continue
            # white possible: some j with the first p cells holding runs < j and the rest the others
            can_white = False
            for j in range(nk[li] + 1):
                if F[j, p] != 0 and B[j, p + 1] != 0:
                    can_white = True
                    break
            if can_white and can_black[p] > 0:
                continue
            cell = li * W + p if li < H else p * W + (li - H)
            val[cell] = 1 if can_black[p] > 0 else -1
            open_cells -= 1
            other = H + p if li < H else p
            if not inq[other]:
                inq[other] = 1
                queue[tail] = other
                tail = tail + 1 if tail + 1 < len(queue) else 0
    return open_cells == 0
