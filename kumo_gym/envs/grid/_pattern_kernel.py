"""The numba kernel of Pattern's generator: Tatham's line solver (issue 14; imported on first
generation only).

A nonogram is unique when line-by-line deduction solves it, which is how Tatham's generator
accepts a picture: for one row or column, every placement of its runs that agrees with the cells
decided so far is considered at once by a forward and a backward table (``F[j, p]``: the first p
cells can hold the first j runs, ``B[j, p]``: the cells from p on can hold the runs from j on); a
cell that is black in every placement is black, white in every placement white. Lines whose
cells changed are solved again until nothing changes. Every deduction holds in every solution,
so a picture this solves is the only solution of its clues: no SAT search is needed.
"""
import numpy as np
from numba import njit
from numba import types as nt

#: (H, W, picture: 1 black / 0 white per cell, row-major) -> whether line solving decides every cell
SOLVES_SIG = nt.boolean(nt.int64, nt.int64, nt.int8[::1])


@njit(cache=True, nogil=True)
def _line(vals, n, clue, k, F, B, white_before, can_black):
    """The tables of one line (``vals``: 1 black, -1 white, 0 open; ``clue[0:k]`` its runs):
    fills ``F`` and ``B`` (a cell p can be white when some ``F[j, p] and B[j, p + 1]``) and
    ``can_black[0:n]`` (how many placements of a run cover the cell: > 0 when it can be black)."""
    # white_before[p]: how many cells among the first p are decided white
    white_before[0] = 0
    for p in range(n):
        white_before[p + 1] = white_before[p] + (1 if vals[p] == -1 else 0)
    # every other entry of the tables is written below before it is read
    for j in range(k + 1):
        F[j, 0] = j == 0
        B[j, n] = j == k
    for p in range(1, n + 1):
        for j in range(k + 1):
            ok = vals[p - 1] != 1 and F[j, p - 1]
            if not ok and j > 0:
                s = p - clue[j - 1]
                if s >= 0 and white_before[p] - white_before[s] == 0:
                    if s == 0:
                        ok = F[j - 1, 0]
                    else:
                        ok = vals[s - 1] != 1 and F[j - 1, s - 1]
            F[j, p] = ok
    for p in range(n - 1, -1, -1):
        for j in range(k, -1, -1):
            ok = vals[p] != 1 and B[j, p + 1]
            if not ok and j < k:
                e = p + clue[j]
                if e <= n and white_before[e] - white_before[p] == 0:
                    if e == n:
                        ok = B[j + 1, n]
                    else:
                        ok = vals[e] != 1 and B[j + 1, e + 1]
            B[j, p] = ok
    # black: some run j placed at s covering the cell; marked by a difference array
    for p in range(n + 1):
        can_black[p] = 0
    for j in range(k):
        ln = clue[j]
        for s in range(n - ln + 1):
            e = s + ln
            if white_before[e] - white_before[s] != 0:
                continue
            if s == 0:
                left = F[j, 0]
            else:
                left = vals[s - 1] != 1 and F[j, s - 1]
            if not left:
                continue
            if e == n:
                right = B[j + 1, n]
            else:
                right = vals[e] != 1 and B[j + 1, e + 1]
            if right:
                can_black[s] += 1
                can_black[e] -= 1
    run = 0
    for p in range(n):
        run += can_black[p]
        can_black[p] = run


@njit(SOLVES_SIG, cache=True, nogil=True)
def solves(H, W, pic):
    """Whether line solving (module docstring) decides every cell of the puzzle whose clues are
    the runs of ``pic``."""
    L = max(H, W)
    nl = H + W
    clue = np.zeros((nl, L // 2 + 2), np.int64)
    nk = np.zeros(nl, np.int64)
    for li in range(nl):
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
    val = np.zeros(H * W, np.int8)
    vals = np.zeros(L, np.int8)
    F = np.zeros((L // 2 + 3, L + 2), np.bool_)
    B = np.zeros((L // 2 + 3, L + 2), np.bool_)
    white_before = np.zeros(L + 1, np.int64)
    can_black = np.zeros(L + 1, np.int64)
    queue = np.zeros(nl + 1, np.int64)
    inq = np.ones(nl, np.bool_)
    for li in range(nl):
        queue[li] = li
    head, tail, cap = 0, nl, nl + 1
    open_cells = H * W
    while head != tail and open_cells:
        li = queue[head]
        head += 1
        if head == cap:
            head = 0
        inq[li] = False
        n = W if li < H else H
        for p in range(n):
            vals[p] = val[li * W + p if li < H else p * W + (li - H)]
        _line(vals, n, clue[li], nk[li], F, B, white_before, can_black)
        for p in range(n):
            if vals[p] != 0:
                continue
            # white possible: some j with the first p cells holding runs < j and the rest the others
            can_white = False
            for j in range(nk[li] + 1):
                if F[j, p] and B[j, p + 1]:
                    can_white = True
                    break
            if can_white and can_black[p] > 0:
                continue
            cell = li * W + p if li < H else p * W + (li - H)
            val[cell] = 1 if can_black[p] > 0 else -1
            open_cells -= 1
            other = H + p if li < H else p
            if not inq[other]:
                inq[other] = True
                queue[tail] = other
                tail += 1
                if tail == cap:
                    tail = 0
    return open_cells == 0
