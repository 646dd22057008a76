"""The numba kernel of Pattern's generator: Tatham's line solver (issue 14; imported on first
generation only).

A nonogram is unique when line-by-line deduction solves it, which is how Tatham's generator
accepts a picture: for one row or column, every placement of its runs that agrees with the cells
decided so far is considered at once; a cell that is black in every placement is black, white
in every placement white. Lines whose cells changed are solved again until nothing changes.
Every deduction holds in every solution, so a picture this solves is the only solution of its
clues: no SAT search is needed.

A line (at most 30 cells, Pattern's largest side) is held as bit masks, bit p for cell p: the
cells that may be white (``nb``: not decided black) and those that may be black (``nw``). A
forward pass finds, run by run, the starts a run can take with the runs before it placed
(``fs``): a start needs its cells in ``nw``, the cell after it in ``nb``, and a gap of ``nb``
cells back to where the previous run can end; a gap is the occluded fill of ``nb`` from those
ends (Kogge-Stone shifts, five steps for 32 bits). A backward pass finds the starts with the runs
after it placed (``bs``). A run's starts in both take part in a full placement: its cells may
be black. A cell may be white when it lies in a gap between an end of one such run and a start
of the next (fills from either side). The result is the same as the tables over every placement
of the older kernel (each cell black or white in some full placement), in a few word operations
per run instead of a pass over the line per run.

One entry point with an explicit signature, the fills written out in it (no helper: numba
re-optimises an inlined helper inside every caller), so the first use in a fresh process
compiles one function (issue 14, "cold start"); it is cached on disk.
"""
import numpy as np
from numba import njit
from numba import types as nt

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, picture: 1 black / 0 white per cell, row-major, scratch...) -> whether line solving decides every cell
SOLVES_SIG = nt.boolean(nt.int64, nt.int64, _I8, nt.int64[:, ::1], _I64, _I8, _I64, _I64, _I64, _I8)


def scratch(H: int, W: int) -> tuple:
    """The buffers :func:`solves` works in, for an H x W picture."""
    L = max(H, W)
    return (np.zeros((H + W, L // 2 + 2), np.int64), np.zeros(H + W, np.int64), np.zeros(H * W, np.int8),
            np.zeros(L // 2 + 2, np.int64), np.zeros(L // 2 + 2, np.int64), np.zeros(H + W + 1, np.int64),
            np.zeros(H + W, np.int8))


@njit(SOLVES_SIG, cache=True, nogil=True, _nrt=False)
def solves(H, W, pic, clue, nk, val, fs, bs, queue, inq):
    """Whether line solving (module docstring) decides every cell of the puzzle whose clues are
    the runs of ``pic``. Scratch (see :func:`scratch`): ``clue`` (H + W lines by L // 2 + 2),
    ``nk`` (H + W), ``val`` (H * W: 1 black, -1 white, 0 open), ``fs`` and ``bs`` (L // 2 + 2),
    ``queue`` (H + W + 1), ``inq`` (H + W); L is the longer side."""
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
        nb = 0  # cells that may be white
        nw = 0  # cells that may be black
        free = 0
        for p in range(n):
            v = val[li * W + p if li < H else p * W + (li - H)]
            if v != 1:
                nb |= 1 << p
            if v != -1:
                nw |= 1 << p
            if v == 0:
                free += 1
        if free == 0:
            continue  # the crossing lines decided every cell of this one: nothing left to deduce
        k = nk[li]
        black_ok = 0
        white_ok = 0
        if k == 0:
            white_ok = nb
        else:
            # forward: fs[j], the starts of run j with runs 0..j-1 placed before it
            g = 1 & nb  # the leading gap, filled right through nb
            pr = nb
            g |= pr & (g << 1)
            pr &= pr << 1
            g |= pr & (g << 2)
            pr &= pr << 2
            g |= pr & (g << 4)
            pr &= pr << 4
            g |= pr & (g << 8)
            pr &= pr << 8
            g |= pr & (g << 16)
            cand = 1 | (g << 1)
            nbx = nb | (1 << n)  # the end of the line counts as a white cell after a run
            for j in range(k):
                ln = clue[li, j]
                win = nw
                for i in range(1, ln):
                    win &= nw >> i
                fs[j] = cand & win & (nbx >> ln)
                g = (fs[j] << ln) & nb  # the first gap cells after it, filled right
                pr = nb
                g |= pr & (g << 1)
                pr &= pr << 1
                g |= pr & (g << 2)
                pr &= pr << 2
                g |= pr & (g << 4)
                pr &= pr << 4
                g |= pr & (g << 8)
                pr &= pr << 8
                g |= pr & (g << 16)
                cand = g << 1
            # backward: bs[j], the starts of run j with runs j+1.. placed after it
            g = (1 << (n - 1)) & nb  # the trailing gap, filled left through nb
            pr = nb
            g |= pr & (g >> 1)
            pr &= pr >> 1
            g |= pr & (g >> 2)
            pr &= pr >> 2
            g |= pr & (g >> 4)
            pr &= pr >> 4
            g |= pr & (g >> 8)
            pr &= pr >> 8
            g |= pr & (g >> 16)
            ends = (1 << n) | g  # where the run may end (exclusive)
            nbs = (nb << 1) | 1  # a start at 0, or after a cell that may be white
            for j in range(k - 1, -1, -1):
                ln = clue[li, j]
                win = nw
                for i in range(1, ln):
                    win &= nw >> i
                bs[j] = (ends >> ln) & win & nbs
                g = (bs[j] >> 1) & nb  # the last gap cells before it, filled left
                pr = nb
                g |= pr & (g >> 1)
                pr &= pr >> 1
                g |= pr & (g >> 2)
                pr &= pr >> 2
                g |= pr & (g >> 4)
                pr &= pr >> 4
                g |= pr & (g >> 8)
                pr &= pr >> 8
                g |= pr & (g >> 16)
                ends = g
            # the cells runs can cover, and the gaps between placeable ends and starts
            prev_end = 1  # the gap before run 0 starts at cell 0
            for j in range(k + 1):
                if j < k:
                    ln = clue[li, j]
                    s = fs[j] & bs[j]
                    for i in range(ln):
                        black_ok |= s << i
                    right = (s >> 1) & nb  # the gap's last cell, filled left
                else:
                    s = 0
                    right = (1 << (n - 1)) & nb
                left = prev_end & nb  # the gap's first cell, filled right
                pr = nb
                left |= pr & (left << 1)
                pr &= pr << 1
                left |= pr & (left << 2)
                pr &= pr << 2
                left |= pr & (left << 4)
                pr &= pr << 4
                left |= pr & (left << 8)
                pr &= pr << 8
                left |= pr & (left << 16)
                pr = nb
                right |= pr & (right >> 1)
                pr &= pr >> 1
                right |= pr & (right >> 2)
                pr &= pr >> 2
                right |= pr & (right >> 4)
                pr &= pr >> 4
                right |= pr & (right >> 8)
                pr &= pr >> 8
                right |= pr & (right >> 16)
                white_ok |= left & right
                if j < k:
                    prev_end = s << ln
        for p in range(n):
            cell = li * W + p if li < H else p * W + (li - H)
            if val[cell] != 0:
                continue
            b = (black_ok >> p) & 1
            w = (white_ok >> p) & 1
            if b and w:
                continue
            val[cell] = 1 if b else -1
            open_cells -= 1
            other = H + p if li < H else p
            if not inq[other]:
                inq[other] = 1
                queue[tail] = other
                tail = tail + 1 if tail + 1 < len(queue) else 0
    return open_cells == 0
