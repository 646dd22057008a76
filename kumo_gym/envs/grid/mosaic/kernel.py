"""The numba kernel of Mosaic's generator (imported on first generation only).

Unit propagation over the CNF of :mod:`.mosaic` (a totalizer per clue, which propagation keeps
arc-consistent) makes exactly the deductions of one rule applied to a fixpoint: a clue whose
black cells already reach its number makes its other cells white, one whose black and open
cells together only just reach it makes the open ones black. This kernel applies that rule on the
grid itself, with a work list of clues, so clue reduction tests a removal in microseconds instead
of running the CNF propagation from scratch. It decides exactly what the CNF's propagation
decides, so the puzzles it keeps are the ones the engine's ``reduce_clues(grade_limit=0)`` kept.

One entry point with one explicit signature, the propagation written once in it, no allocation
(the caller passes every buffer), no reference counting: a small compile on first use (numba
re-optimises a helper inside every caller, so there are none), cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, blocks, images, truth, clue, active, order, val, queue, inq) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, nt.int64[:, ::1], _I8, _I8, _I64, _I8, _I64, _I8, _I64, _I8)


def blocks(H: int, W: int) -> np.ndarray:
    """Per cell, the cells of its 3x3 block (row-major, -1 padded to 9)."""
    out = np.full((H * W, 9), -1, np.int64)
    for r in range(H):
        for c in range(W):
            cells = [a * W + b for a in range(max(r - 1, 0), min(r + 2, H)) for b in range(max(c - 1, 0), min(c + 2, W))]
            out[r * W + c, :len(cells)] = cells
    return out


def scratch(H: int, W: int) -> tuple:
    """``(truth, clue, active, val, queue, inq)`` for :func:`run` on an H x W grid."""
    n = H * W
    return (np.zeros(n, np.int8), np.zeros(n, np.int64), np.zeros(n, np.int8), np.zeros(n, np.int8),
            np.zeros(n + 1, np.int64), np.zeros(n, np.int8))


@kernel(RUN_SIG, _nrt=False)
def run(H, W, blocks, images, truth, clue, active, order, val, queue, inq):
    """Two jobs, one propagation (module docstring).

    With ``images`` (H * W cells each, 1 black / 0 white, one after the other): the index of the
    first image whose full clue set propagation solves, its colours (1 / -1) and clues left in
    ``truth`` and ``clue`` and every clue marked in ``active``; -1 when none is.

    With no images: the clues of ``active`` (a set that solves the grid) dropped at ``order`` in
    turn, each drop kept while propagation still solves the grid (``active`` updated; returns
    0). A drop is tested by whether the rest re-derive every cell of the dropped clue's block
    (then nothing is lost): first from the clues within four cells (cheap, and sound: fewer clues
    deduce less), then from all.
    """
    n = H * W
    nimg = len(images) // n
    k = 0
    t = 0
    local = True
    while True:
        # the next propagation: a window of clues and the cell whose block it waits for
        goal = -1
        r0, r1, c0, c1 = 0, H, 0, W
        if nimg > 0:
            if k == nimg:
                return -1
            for i in range(n):
                truth[i] = 1 if images[k * n + i] else -1
                active[i] = 1
                black = 0
                for q in range(9):
                    j = blocks[i, q]
                    if j < 0:
                        break
                    black += images[k * n + j]
                clue[i] = black
        else:
            if t == len(order):
                return 0
            goal = order[t]
            if local:
                active[goal] = 0
                r0, r1 = max(goal // W - 4, 0), min(goal // W + 5, H)
                c0, c1 = max(goal % W - 4, 0), min(goal % W + 5, W)
        # propagation over a work list of clues; cells take their colour in truth when decided
        head = 0
        tail = 0
        for i in range(n):
            val[i] = 0
            inq[i] = 0
            if active[i] and r0 <= i // W < r1 and c0 <= i % W < c1:
                queue[tail] = i
                tail += 1
                inq[i] = 1
        goal_open = 0
        if goal >= 0:
            for q in range(9):
                if blocks[goal, q] >= 0:
                    goal_open += 1
        open_cells = n
        done = False
        while head != tail and not done:
            i = queue[head]
            head = head + 1 if head < n else 0
            inq[i] = 0
            black = 0
            free = 0
            for q in range(9):
                j = blocks[i, q]
                if j < 0:
                    break
                if val[j] == 0:
                    free += 1
                elif val[j] == 1:
                    black += 1
            if free == 0 or (black != clue[i] and black + free != clue[i]):
                continue
            for q in range(9):
                j = blocks[i, q]
                if j < 0:
                    break
                if val[j] != 0:
                    continue
                val[j] = truth[j]
                open_cells -= 1
                if goal >= 0 and abs(j // W - goal // W) <= 1 and abs(j % W - goal % W) <= 1:
                    goal_open -= 1
                    if goal_open == 0:
                        done = True
                        break
                # every active clue around the newly decided cell is worth another look
                for q2 in range(9):
                    m = blocks[j, q2]
                    if m < 0:
                        break
                    if active[m] and not inq[m] and r0 <= m // W < r1 and c0 <= m % W < c1:
                        inq[m] = 1
                        queue[tail] = m
                        tail = tail + 1 if tail < n else 0
        solved = done if goal >= 0 else open_cells == 0
        # what it means for the job
        if nimg > 0:
            if solved:
                return k
            k += 1
        elif local:
            if solved:
                t += 1
            else:
                local = False
        else:
            if not solved:
                active[goal] = 1
            local = True
            t += 1
