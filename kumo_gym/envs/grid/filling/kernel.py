"""The numba kernel of Filling's generator: deduction on the grid, and the givens reduced while it
still solves the puzzle (imported on first generation only).

The deduction is the core of Tatham's Filling solver (a block that must grow into a cell, his
"forced expansion" and "critical square"), in our own words. A block is a maximal group of like
digits side by side (each cell names its block, each block's cells lie on a ring; when two
blocks join, the smaller one's cells take the larger one's name); an open block has fewer cells than its digit v. Once complete, an
open block of s cells lies within v - s steps of itself over cells that may hold v: cells
holding v, and empty cells that would not join blocks of v into one too big by taking v. So
when fewer than v such cells lie within reach without some empty cell, the block must take that
cell (a single way out is the commonest case); when fewer than v lie within reach at all, the
givens contradict each other. The blocks are examined in turn, each conclusion written in at
once, until a whole round of them concludes nothing.

Each conclusion holds in every solution of the puzzle, so a grid they fill completely is its
only solution: no search. :func:`run` reduces a full grid the way Tatham's generator does: whole
blocks blanked first, in a seeded cell order, then single cells, each blanking kept only while
the deduction still fills the grid, and fills it with the solution.

Cells are row-major; ``nbr[4c:4c+4]`` are c's neighbours (-1: none). One entry point, no
allocation (the caller passes every buffer), no reference counting: a small compile on first
use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (nbr, sol, order, region, given, board, root, size, ring, mark, queue, todo) -> see run
RUN_SIG = nt.int64(_I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)


def scratch(n: int) -> tuple:
    """``(board, root, size, ring, mark, queue, todo)`` for :func:`run` on n cells."""
    return tuple(np.zeros(k * n + 2, np.int64) for k in (1, 1, 1, 1, 2, 1, 3))


@kernel(RUN_SIG, error_model="numpy", _nrt=False)
def run(nbr, sol, order, region, given, board, root, size, ring, mark, queue, todo):
    """With an empty ``order``: deduce from ``given`` (0: empty) into ``board``; returns the
    empty cells left (0: solved) or -1 (a contradiction). Otherwise ``given`` starts as the
    full grid ``sol`` and is reduced in place (module docstring; ``order`` a permutation of the
    cells, ``region[c]`` the index of c's block, overwritten); returns how many times the
    deduction filled the grid other than with ``sol`` or met a contradiction (0 unless it is
    wrong). Scratch: ``board``, ``root`` (each cell's block, named by one of its cells),
    ``size`` (a block's, at that cell), ``ring`` (n), ``mark`` (2n), ``queue`` (n), ``todo`` (3n).
    One function, so that it compiles once: the helpers are written in."""
    n = len(nbr) // 4
    trials = 1
    if len(order):
        trials = 2 * n
    wrong = 0
    stamp = 0
    for t in range(trials):
        c = -1
        r = -1
        if len(order):
            c = order[t % n]
            if given[c] == 0 or (t < n and region[c] < 0):
                continue
            r = region[c]
        # trial t < n: blank c's whole block (each block once); then c alone. todo: the givens
        m = 0
        left = n
        for i in range(n):
            root[i] = i
            size[i] = 1
            ring[i] = i
            board[i] = 0
            if given[i] != 0 and not (c >= 0 and (i == c or (t < n and region[i] == r))):
                todo[2 * m] = i
                todo[2 * m + 1] = given[i]
                m += 1
        bad = False
        i = quiet = 0
        while left > 0 and (quiet <= n or m > 0) and not bad:
            for q in range(m):  # write in the conclusions (at first, the givens)
                e = todo[2 * q]
                v = todo[2 * q + 1]
                if board[e] == 0:
                    board[e] = v
                    left -= 1
                    for k in range(4):
                        f = nbr[4 * e + k]
                        if f >= 0 and board[f] == v and root[f] != root[e]:
                            a = root[e]  # the larger block keeps its name, the other's cells take it
                            b = root[f]
                            if size[a] < size[b]:
                                a = b
                                b = root[e]
                            x = b
                            while root[x] != a:
                                root[x] = a
                                x = ring[x]
                            size[a] += size[b]
                            x = ring[a]
                            ring[a] = ring[b]
                            ring[b] = x
                    bad = bad or size[root[e]] > v
                bad = bad or board[e] != v
                quiet = 0
            m = 0
            # the next open block in turn: the cells it cannot be completed without
            i = (i + 1) % n
            quiet += 1
            v = board[i]
            if v == 0 or root[i] != i or size[i] == v or bad:
                continue
            # first (q = 0) every cell that may hold v within v - size steps of the block; then,
            # for each empty one, whether v of them are left without it (counting stopped at v)
            limit = v - size[i]
            got = 0
            q = -1
            while q < got:
                cut = i  # a cell of the block: none left out
                if q >= 0:
                    cut = todo[2 * n + q]
                q += 1
                if cut < 0:
                    continue
                stamp += 1
                tail = 0
                x = i
                while tail == 0 or x != i:
                    mark[x] = stamp
                    mark[x + n] = 0
                    queue[tail] = x
                    tail += 1
                    x = ring[x]
                mark[cut] = stamp
                cap = n + 1
                if q > 0:
                    cap = v
                head = 0
                while head < tail < cap:
                    y = queue[head]
                    head += 1
                    if mark[y + n] == limit:
                        continue
                    for k in range(4):
                        e = nbr[4 * y + k]
                        if e < 0 or mark[e] == stamp or (board[e] != 0 and board[e] != v):
                            continue
                        mark[e] = stamp
                        if board[e] == 0:  # the size of the block e would be in, holding v
                            grown, r0, r1, r2 = 1, -1, -1, -1
                            for k2 in range(4):
                                f = nbr[4 * e + k2]
                                if f >= 0 and board[f] == v:
                                    g = root[f]
                                    if g != r0 and g != r1 and g != r2:
                                        grown += size[g]
                                        r2 = r1
                                        r1 = r0
                                        r0 = g
                            if grown > v:
                                continue
                        mark[e + n] = mark[y + n] + 1
                        queue[tail] = e
                        tail += 1
                if q == 0:
                    bad = tail < v
                    got = tail
                    for p in range(tail):  # the empty cells within reach, kept in todo's last third
                        todo[2 * n + p] = queue[p] if board[queue[p]] == 0 else -1
                elif tail < v:
                    todo[2 * m] = cut
                    todo[2 * m + 1] = v
                    m += 1
        if bad:
            left = -1
        if c < 0:
            return left
        same = 0
        for i in range(n):
            if board[i] == sol[i]:
                same += 1
        if same < n and left <= 0:  # filled otherwise, or a contradiction: never, when the deduction is sound
            wrong += 1
        for i in range(n):
            if i == c or (t < n and region[i] == r):
                if t < n:
                    region[i] = -1
                if same == n:
                    given[i] = 0
    return wrong
