"""The numba kernel of Slant's Easy generator (imported on first generation only).

Easy deduction, Tatham's two Easy rules applied to a fixpoint on the grid itself: a numbered
point whose touching diagonals already reach its number gets the other diagonal in its open
cells, one whose touching and open cells only just reach it gets touching diagonals there; and a
cell whose one diagonal would join two grid points the known diagonals already connect gets the
other one (it would close a loop). Every deduction holds in every solution, so when they decide
every cell the filling is the only one: a removal of a number is kept exactly when the numbers
left still let them decide every cell.

One entry point with one explicit signature, no helpers (numba re-optimises a helper inside
every caller), no allocation (the caller passes every buffer): a small compile on first use,
cached on disk.
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
