"""The numba kernels of Slant's generator (imported on first generation only): the clue reduction
of each Tatham level.

Easy (:func:`reduce`), Tatham's two Easy rules applied to a fixpoint on the grid itself: a numbered
point whose touching diagonals already reach its number gets the other diagonal in its open
cells, one whose touching and open cells only just reach it gets touching diagonals there; and a
cell whose one diagonal would join two grid points the known diagonals already connect gets the
other one (it would close a loop). Every deduction holds in every solution, so when they decide
every cell the filling is the only one: a removal of a number is kept exactly when the numbers
left still let them decide every cell.

Hard (:func:`reduce_hard`): failed-literal probing over the SAT model's rules (the point counts
and the four-cell loops), the deduction the engine's ``reduce_clues`` with grade 1 runs on the
clause arrays, here on the grid: the same numbers are kept, several times faster.

:func:`reduce` is one entry point with one explicit signature and no helpers (numba re-optimises a
helper inside every caller); :func:`reduce_hard` calls two small helpers. No allocation (the
caller passes every buffer): small compiles on first use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, clue, active, order, val, parent) -> see :func:`reduce`
REDUCE_SIG = nt.int64(nt.int64, nt.int64, _I64, _I8, _I64, _I8, _I64)


def scratch(H: int, W: int) -> tuple:
    """``(active, val, parent)`` for :func:`reduce` on an H x W grid."""
    return np.ones((H + 1) * (W + 1), np.int8), np.zeros(H * W, np.int8), np.zeros((H + 1) * (W + 1), np.int64)


@kernel(REDUCE_SIG, _nrt=False)
def reduce(H, W, clue, active, order, val, parent):
    """The numbers of ``active`` (every point's, ``clue``) dropped at ``order`` in turn, each drop
    kept while Easy deduction (module docstring) still decides every cell; ``active`` updated
    (``val``, 1 ``\\`` / -1 ``/`` / 0 open, and ``parent`` are scratch). Returns how many numbers are left."""
    n = H * W
    W1 = W + 1
    P = (H + 1) * W1
    for oi in range(len(order)):
        p = order[oi]
        if active[p] == 0:
            continue
        active[p] = 0
        for i in range(n):
            val[i] = 0
        left = n
        changed = True
        while changed and left > 0:
            changed = False
            for q in range(P):
                if active[q] == 0:
                    continue
                r = q // W1
                c = q - r * W1
                t = 0
                u = 0
                for j in range(4):  # the cells around q: up-left, up-right, down-left, down-right
                    a = r - 1 + j // 2
                    b = c - 1 + j % 2
                    if 0 <= a < H and 0 <= b < W:
                        v = val[a * W + b]
                        touch = 1 if j == 0 or j == 3 else -1
                        if v == 0:
                            u += 1
                        elif v == touch:
                            t += 1
                k = clue[q]
                if u > 0 and (t == k or t + u == k):
                    for j in range(4):
                        a = r - 1 + j // 2
                        b = c - 1 + j % 2
                        if 0 <= a < H and 0 <= b < W and val[a * W + b] == 0:
                            touch = 1 if j == 0 or j == 3 else -1
                            val[a * W + b] = touch if t + u == k else -touch
                            left -= 1
                    changed = True
            # the loop rule: join the points of the known diagonals, then settle open cells one
            # of whose diagonals would join two points already connected
            for i in range(P):
                parent[i] = i
            for i in range(n):
                if val[i] != 0:
                    r = i // W
                    c = i - r * W
                    x = r * W1 + c + (0 if val[i] > 0 else 1)
                    y = (r + 1) * W1 + c + (1 if val[i] > 0 else 0)
                    while parent[x] != x or parent[y] != y:  # both up to their roots
                        x, y = parent[x], parent[y]
                    parent[x] = y
            for i in range(n):
                if val[i] != 0:
                    continue
                r = i // W
                c = i - r * W
                for s in range(2):  # s = 0: would "\" close a loop; s = 1: would "/"
                    x = r * W1 + c + s
                    y = (r + 1) * W1 + c + 1 - s
                    while parent[x] != x:
                        parent[x] = parent[parent[x]]
                        x = parent[x]
                    while parent[y] != y:
                        parent[y] = parent[parent[y]]
                        y = parent[y]
                    if x == y:
                        val[i] = -1 if s == 0 else 1  # the other diagonal
                        x = r * W1 + c + (1 - s)
                        y = (r + 1) * W1 + c + s
                        while parent[x] != x or parent[y] != y:
                            x, y = parent[x], parent[y]
                        parent[x] = y
                        left -= 1
                        changed = True
                        break
        if left > 0:
            active[p] = 1
    kept = 0
    for q in range(P):
        kept += active[q]
    return kept



#: (H, W, clue, active, order, val, trail, seen) -> see :func:`reduce_hard`
HARD_SIG = nt.int64(nt.int64, nt.int64, _I64, _I8, _I64, _I8, _I64, _I64)
_INNER = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}


def hard_scratch(H: int, W: int) -> tuple:
    """``(active, val, trail, seen)`` for :func:`reduce_hard` on an H x W grid."""
    return (np.ones((H + 1) * (W + 1), np.int8), np.zeros(H * W, np.int8), np.zeros(H * W + 1, np.int64),
            np.zeros(2 * H * W, np.int64))


@kernel(nt.int64(nt.int64, nt.int64, nt.int64, _I64, _I8, _I8, _I64, nt.int64), inner=True, **_INNER)
def _point(H, W, q, clue, active, val, trail, tlen):
    """The rule of point ``q`` (:func:`reduce_hard`) on ``val``: the cells it decides go on the
    trail; the new trail length, or ``-1 - tlen`` on a contradiction."""
    W1 = W + 1
    r = q // W1
    c = q - r * W1
    inner = 0 < r < H and 0 < c < W
    if active[q] != 0:
        lo = clue[q]
        hi = clue[q]
        if inner and lo < 1:
            lo = 1
    elif inner:
        lo = 1
        hi = 4
    else:
        return tlen
    t = 0
    u = 0
    for j in range(4):  # the cells around q: up-left, up-right, down-left, down-right
        a = r - 1 + j // 2
        b = c - 1 + j % 2
        if 0 <= a < H and 0 <= b < W:
            v = val[a * W + b]
            if v == 0:
                u += 1
            elif v == (1 if j == 0 or j == 3 else -1):
                t += 1
    if t > hi or t + u < lo:
        return -1 - tlen
    if u > 0 and (t == hi or t + u == lo):
        for j in range(4):
            a = r - 1 + j // 2
            b = c - 1 + j % 2
            if 0 <= a < H and 0 <= b < W and val[a * W + b] == 0:
                touch = 1 if j == 0 or j == 3 else -1
                val[a * W + b] = touch if t + u == lo else -touch
                trail[tlen] = a * W + b
                tlen += 1
    return tlen


@kernel(nt.int64(nt.int64, nt.int64, _I64, _I8, _I8, _I64, nt.int64, nt.int64), inner=True, **_INNER)
def _drain(H, W, clue, active, val, trail, head, tlen):
    """Propagation of the cells on the trail from ``head`` (and of those they decide): the new
    trail length, or ``-1 - tlen`` on a contradiction."""
    W1 = W + 1
    while head < tlen:
        i = trail[head]
        head += 1
        r = i // W
        c = i - r * W
        for j in range(4):  # the cell's corners
            tlen = _point(H, W, (r + j // 2) * W1 + c + j % 2, clue, active, val, trail, tlen)
            if tlen < 0:
                return tlen
    return tlen


@kernel(HARD_SIG, error_model="numpy", _nrt=False)
def reduce_hard(H, W, clue, active, order, val, trail, seen):
    """Hard's clue reduction: the numbers of ``active`` (every point's, ``clue``) dropped at ``order``
    in turn, each drop kept while failed-literal probing still decides every cell; ``active``
    updated. Returns how many numbers are left.

    The deduction is the SAT model's (``SlantTask._rules``: a counter per point, whose number
    fixes it, and the four-cell loops around each inner point) as unit propagation reaches it,
    without the clause arrays: per point, bounds on how many of its cells' diagonals touch it (its
    number, exactly; an inner point at least one, else its four diagonals close a loop); a point
    whose touching diagonals reach the upper bound gets the other diagonal in its open cells, one
    whose touching and open cells only just reach the lower bound gets touching diagonals there
    (more, or fewer: a contradiction). Probing tries each open cell's ``\\`` and then ``/``: one that
    leads to a contradiction gives the other at the root, to a fixpoint (a diagonal that a successful
    probe implied is not probed itself until the root changes: had it failed, so would that probe).
    When the whole set decides every cell, a drop is kept exactly when deduction from the rest
    decides the cells around the dropped point again (then it decides all it did before), so a
    test stops there; when it does not, no drop is kept.

    ``val`` (1 ``\\`` / -1 ``/`` / 0 open), ``trail`` (the assignments, also the propagation
    queue) and ``seen`` are scratch."""
    n = H * W
    W1 = W + 1
    P = (H + 1) * W1
    epoch = 0
    for oi in range(-1, len(order)):
        p = -1
        if oi >= 0:
            p = order[oi]
            if active[p] == 0:
                continue
            active[p] = 0
        for i in range(n):
            val[i] = 0
        tlen = 0
        for q in range(P):
            tlen = _point(H, W, q, clue, active, val, trail, tlen)
            if tlen < 0:
                break
        if tlen >= 0:
            tlen = _drain(H, W, clue, active, val, trail, 0, tlen)
        solved = False
        if tlen >= 0:
            epoch += 1
            changed = True
            while True:
                if p < 0:
                    solved = tlen == n
                else:
                    r = p // W1
                    c = p - r * W1
                    solved = True
                    for j in range(4):
                        a = r - 1 + j // 2
                        b = c - 1 + j % 2
                        if 0 <= a < H and 0 <= b < W and val[a * W + b] == 0:
                            solved = False
                if solved or not changed:
                    break
                changed = False
                for i in range(n):
                    for s in (1, -1):
                        if val[i] != 0:
                            break
                        if seen[2 * i + (0 if s > 0 else 1)] == epoch:
                            continue
                        mark = tlen
                        val[i] = s
                        trail[tlen] = i
                        got = _drain(H, W, clue, active, val, trail, mark, tlen + 1)
                        end = got if got >= 0 else -1 - got
                        for k in range(mark, end):
                            j = trail[k]
                            if got >= 0:
                                seen[2 * j + (0 if val[j] > 0 else 1)] = epoch
                            val[j] = 0
                        if got >= 0:
                            continue
                        val[i] = -s  # the probe failed: the other diagonal, at the root
                        trail[tlen] = i
                        tlen = _drain(H, W, clue, active, val, trail, mark, tlen + 1)
                        epoch += 1
                        changed = True
                        if tlen < 0:
                            break
                    if tlen < 0:
                        break
                if tlen < 0:
                    solved = False
                    break
        if p < 0:
            if not solved:
                break  # the whole set leaves cells open: no drop can be kept
        elif not solved:
            active[p] = 1
    kept = 0
    for q in range(P):
        kept += active[q]
    return kept
