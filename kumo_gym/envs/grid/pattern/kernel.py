"""The numba kernel of Pattern's generator: Tatham's line solver (imported on first
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

One entry point and three word helpers (the two fills, the run windows), each with an explicit
signature and cached on disk; ordinary calls, not inlined in numba's IR, so each helper is
compiled once: the first use in a fresh process costs the same CPU as the older kernel with the
fills written out four times (cold start; measured with an empty cache).
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

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


_WORD = nt.int64(nt.int64, nt.int64)


@kernel(_WORD, inner=True, cache=True, nogil=True, _nrt=False)
def _fill_right(g, m):
    """``g`` spread to higher bits through the runs of ``m`` set bits that hold it (Kogge-Stone:
    five doubling steps reach across 32 bits)."""
    s = 1
    while s < 32:
        g |= m & (g << s)
        m &= m << s
        s <<= 1
    return g


@kernel(_WORD, inner=True, cache=True, nogil=True, _nrt=False)
def _fill_left(g, m):
    """:func:`_fill_right` towards lower bits."""
    s = 1
    while s < 32:
        g |= m & (g >> s)
        m &= m >> s
        s <<= 1
    return g


@kernel(_WORD, inner=True, cache=True, nogil=True, _nrt=False)
def _fits(nw, ln):
    """The starts p at which cells p..p+ln-1 may all be black (bits of ``nw``)."""
    win = nw
    for i in range(1, ln):
        win &= nw >> i
    return win


@kernel(SOLVES_SIG, _nrt=False)
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
            cand = 1 | (_fill_right(1 & nb, nb) << 1)  # after the leading gap, filled right through nb
            nbx = nb | (1 << n)  # the end of the line counts as a white cell after a run
            for j in range(k):
                ln = clue[li, j]
                fs[j] = cand & _fits(nw, ln) & (nbx >> ln)
                cand = _fill_right((fs[j] << ln) & nb, nb) << 1  # after the first gap cells after it
            # backward: bs[j], the starts of run j with runs j+1.. placed after it
            ends = (1 << n) | _fill_left((1 << (n - 1)) & nb, nb)  # where the run may end (exclusive)
            nbs = (nb << 1) | 1  # a start at 0, or after a cell that may be white
            for j in range(k - 1, -1, -1):
                ln = clue[li, j]
                bs[j] = (ends >> ln) & _fits(nw, ln) & nbs
                ends = _fill_left((bs[j] >> 1) & nb, nb)  # the last gap cells before it, filled left
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
                # the gap from its first cell (filled right) to its last (filled left)
                white_ok |= _fill_right(prev_end & nb, nb) & _fill_left(right, nb)
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
