"""The numba kernel of Filling's generator: deduction on the grid, and the givens reduced while it
still solves the puzzle (issue 14; imported on first generation only).

The deduction is the core of Tatham's Filling solver (a block that must grow into a cell, his
"forced expansion" and "critical square"), in our own words. A block is a maximal group of like
digits side by side (a union-find over the cells, each block's cells on a ring, kept up to
date as cells are written); an open block has fewer cells than its digit v. Once complete, an
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
from numba import njit
from numba import types as nt

_I64 = nt.int64[::1]
#: (nbr, sol, order, region, given, board, parent, size, ring, mark, queue, todo) -> see run
RUN_SIG = nt.int64(_I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)


def scratch(n: int) -> tuple:
    """``(board, parent, size, ring, mark, queue, todo)`` for :func:`run` on n cells."""
    return tuple(np.zeros(k * n + 2, np.int64) for k in (1, 1, 1, 1, 2, 1, 3))


@njit(_nrt=False)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(_nrt=False)
def _reach(root, v, cap, cut, board, nbr, parent, size, ring, mark, stamp, queue):
    """How many cells that may hold v (module docstring) lie within v - size steps of the block
    at ``root`` (digit v), cell ``cut`` left out (a cell of the block: none), counting stopped at ``cap``; the cells reached
    are ``queue[:count]`` in order of distance (the block's own first). ``mark[c]`` holds
    ``stamp`` for each cell seen, and ``mark[c + n]`` its distance."""
    n = len(nbr) // 4
    limit = v - size[root]
    tail = 0
    j = root
    while tail == 0 or j != root:
        mark[j] = stamp
        mark[j + n] = 0
        queue[tail] = j
        tail += 1
        j = ring[j]
    mark[cut] = stamp
    head = 0
    while head < tail < cap:
        c = queue[head]
        head += 1
        if mark[c + n] == limit:
            continue
        for k in range(4):
            e = nbr[4 * c + k]
            if e < 0 or mark[e] == stamp or (board[e] != 0 and board[e] != v):
                continue
            mark[e] = stamp
            if board[e] == 0:  # the size of the block e would be in, holding v
                grown, r0, r1, r2 = 1, -1, -1, -1
                for k2 in range(4):
                    f = nbr[4 * e + k2]
                    if f >= 0 and board[f] == v:
                        r = _find(parent, f)
                        if r != r0 and r != r1 and r != r2:
                            grown += size[r]
                            r2 = r1
                            r1 = r0
                            r0 = r
                if grown > v:
                    continue
            mark[e + n] = mark[c + n] + 1
            queue[tail] = e
            tail += 1
    return tail


@njit(RUN_SIG, cache=True, nogil=True, error_model="numpy", _nrt=False)
def run(nbr, sol, order, region, given, board, parent, size, ring, mark, queue, todo):
    """With an empty ``order``: deduce from ``given`` (0: empty) into ``board``; returns the
    empty cells left (0: solved) or -1 (a contradiction). Otherwise ``given`` starts as the
    full grid ``sol`` and is reduced in place (module docstring; ``order`` a permutation of the
    cells, ``region[c]`` the index of c's block, overwritten); returns how many times the
    deduction filled the grid other than with ``sol`` (0 unless it is wrong). Scratch:
    ``board``, ``parent``, ``size``, ``ring`` (n), ``mark`` (2n), ``queue`` (n), ``todo`` (3n)."""
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
            parent[i] = i
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
                        if f >= 0 and board[f] == v:
                            a = _find(parent, e)
                            b = _find(parent, f)
                            if a != b:
                                if size[a] < size[b]:
                                    a = b
                                    b = _find(parent, e)
                                parent[b] = a
                                size[a] += size[b]
                                k2 = ring[a]
                                ring[a] = ring[b]
                                ring[b] = k2
                    bad = bad or size[_find(parent, e)] > v
                bad = bad or board[e] != v
                quiet = 0
            m = 0
            # the next open block in turn: the cells it cannot be completed without
            i = (i + 1) % n
            quiet += 1
            v = board[i]
            if v == 0 or parent[i] != i or size[i] == v or bad:
                continue
            stamp += 1
            got = _reach(i, v, n + 1, i, board, nbr, parent, size, ring, mark, stamp, queue)
            bad = got < v
            for q in range(got):  # the empty cells within reach, kept in todo's last third
                todo[2 * n + q] = queue[q] if board[queue[q]] == 0 else -1
            for q in range(got):
                e = todo[2 * n + q]
                stamp += 1
                if e >= 0 and _reach(i, v, v, e, board, nbr, parent, size, ring, mark, stamp, queue) < v:
                    todo[2 * m] = e
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
