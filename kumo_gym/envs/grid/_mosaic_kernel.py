"""The numba kernel of Mosaic's generator (issue 14; imported on first generation only).

Unit propagation over the CNF of :mod:`.mosaic` (a totalizer per clue, which propagation keeps
arc-consistent) makes exactly the deductions of one rule applied to a fixpoint: a clue whose
black cells already reach its number makes its other cells white, one whose black and open
cells together only just reach it makes the open ones black. This kernel applies that rule on the
grid itself, with a work list of clues, so clue reduction tests a removal in microseconds instead
of running the CNF propagation from scratch. It decides exactly what the CNF's propagation
decides, so the puzzles it keeps are the ones the engine's ``reduce_clues(grade_limit=0)`` kept.

One explicit signature, no allocation (the caller passes every buffer), no reference counting:
a small compile on first use, cached on disk.
"""
from numba import njit
from numba import types as nt

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, truth, clue, active, order, val, queue, inq) -> whether every clue together solves it
REDUCE_SIG = nt.boolean(nt.int64, nt.int64, _I8, _I64, _I8, _I64, _I8, _I64, _I8)


@njit(cache=True, nogil=True, _nrt=False)
def _closes(H, W, truth, clue, active, val, queue, inq, r0, r1, c0, c1, goal):
    """Propagate the active clues inside rows r0..r1-1, columns c0..c1-1 (0 open, else the colour
    in ``truth``: deductions from the true clues are always right). With ``goal`` >= 0, stop as
    soon as every cell of the 3x3 block of cell ``goal`` is decided; returns whether that
    happened (``goal`` < 0: whether every cell is decided)."""
    n = H * W
    for i in range(n):
        val[i] = 0
        inq[i] = 0
    head = 0
    tail = 0
    for r in range(r0, r1):
        for c in range(c0, c1):
            i = r * W + c
            if active[i]:
                queue[tail] = i
                tail += 1
                inq[i] = 1
    gr = goal // W if goal >= 0 else 0
    gc = goal % W if goal >= 0 else 0
    goal_open = 0
    if goal >= 0:
        for a in range(max(gr - 1, 0), min(gr + 2, H)):
            for b in range(max(gc - 1, 0), min(gc + 2, W)):
                goal_open += 1
    open_cells = n
    cap = n + 1
    while head != tail:
        i = queue[head]
        head += 1
        if head == cap:
            head = 0
        inq[i] = 0
        r = i // W
        c = i % W
        black = 0
        free = 0
        for a in range(max(r - 1, 0), min(r + 2, H)):
            for b in range(max(c - 1, 0), min(c + 2, W)):
                v = val[a * W + b]
                if v == 0:
                    free += 1
                elif v == 1:
                    black += 1
        if free == 0 or (black != clue[i] and black + free != clue[i]):
            continue
        for a in range(max(r - 1, 0), min(r + 2, H)):
            for b in range(max(c - 1, 0), min(c + 2, W)):
                j = a * W + b
                if val[j] != 0:
                    continue
                val[j] = truth[j]
                open_cells -= 1
                if goal >= 0 and abs(a - gr) <= 1 and abs(b - gc) <= 1:
                    goal_open -= 1
                    if goal_open == 0:
                        return True
                # every active clue around the newly decided cell is worth another look
                for p in range(max(a - 1, r0), min(a + 2, r1)):
                    for q in range(max(b - 1, c0), min(b + 2, c1)):
                        k = p * W + q
                        if active[k] and not inq[k]:
                            inq[k] = 1
                            queue[tail] = k
                            tail += 1
                            if tail == cap:
                                tail = 0
    if goal >= 0:
        return goal_open == 0
    return open_cells == 0


@njit(REDUCE_SIG, cache=True, nogil=True, _nrt=False)
def reduce(H, W, truth, clue, active, order, val, queue, inq):
    """Whether the clues of ``active`` (one flag per cell) solve the grid by propagation; if they
    do, try dropping the clues at ``order`` in turn, keeping each drop while propagation still
    solves it (``active`` is updated in place). ``truth`` holds 1 black / -1 white per cell,
    ``clue`` every cell's count; ``val``, ``queue`` (H * W + 1) and ``inq`` are scratch."""
    if not _closes(H, W, truth, clue, active, val, queue, inq, 0, H, 0, W, -1):
        return False
    for t in range(len(order)):
        i = order[t]
        active[i] = 0
        r = i // W
        c = i % W
        # the clues within four cells first (cheap, and sound: fewer clues deduce less), then all
        if _closes(H, W, truth, clue, active, val, queue, inq,
                   max(r - 4, 0), min(r + 5, H), max(c - 4, 0), min(c + 5, W), i):
            continue
        if not _closes(H, W, truth, clue, active, val, queue, inq, 0, H, 0, W, i):
            active[i] = 1
    return True


#: (H, W, images, truth, clue, active, val, queue, inq) -> the first image that every clue solves, or -1
FIRST_SIG = nt.int64(nt.int64, nt.int64, _I8, _I8, _I64, _I8, _I8, _I64, _I8)


@njit(FIRST_SIG, cache=True, nogil=True, _nrt=False)
def first_solvable(H, W, images, truth, clue, active, val, queue, inq):
    """The index of the first of the images (H * W cells each, 1 black / 0 white, one after the
    other) whose full clue set propagation solves, or -1; its colours (1 / -1) and clues are
    left in ``truth`` and ``clue``."""
    n = H * W
    for k in range(len(images) // n):
        for i in range(n):
            truth[i] = 1 if images[k * n + i] else -1
            active[i] = 1
        for r in range(H):
            for c in range(W):
                black = 0
                for a in range(max(r - 1, 0), min(r + 2, H)):
                    for b in range(max(c - 1, 0), min(c + 2, W)):
                        black += images[k * n + a * W + b]
                clue[r * W + c] = black
        if _closes(H, W, truth, clue, active, val, queue, inq, 0, H, 0, W, -1):
            return k
    return -1
