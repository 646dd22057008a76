"""The numba kernel of Palisade's generator (imported on first generation only): a deduction solver on the
grid's edges, a bounded search that counts solutions up to a limit, and the clue reduction.

Every edge between two neighbouring cells is unknown (0), a border (1) or open (2: the two cells lie in
one region); the grid's edge is always a border. The cells joined by open edges form components, kept
in a union-find with their sizes. The deduction applies these rules until none changes anything, each
of them true of every solution (so a contradiction means no solution):

* ``PAIRS``: two numbered neighbours with numbers p and q in one region make a region of at least
  8 - p - q cells (each has 3 - its number other open sides, to distinct cells), and two 3s one of
  exactly 2 cells: when that cannot be n, the edge between them is a border;
* ``CLUE``: a number that already has its borders makes its other sides open; one that needs every
  side left makes them borders (more borders, or more open sides, than it allows: a contradiction);
* ``EQUIV``: two unknown sides of a numbered cell that lead into one component are both open or both
  borders (open one and the other joins the region too), so a number that cannot take two more
  borders opens both, and one that cannot take two more open sides shuts both;
* ``BIG``: an unknown edge between two components whose sizes add up to more than n is a border (so a
  component of n cells is walled in); an edge inside one component is open, and a border inside one,
  or a component of more than n cells, is a contradiction;
* ``SMALL``: a component of fewer than n cells whose unknown edges all lead into one other component
  joins it (no way out at all: a contradiction);
* ``VERTEX``: where four cells meet, a border with two open edges beside it leaves the fourth edge a
  border too (the border cannot end there);
* ``AREA``: the areas that the borders cut the grid into (cells joined by edges that are not borders)
  hold whole regions, so an area whose size is not a multiple of n is a contradiction.

The puzzle is solved when every area has exactly n cells, no border lies inside an area and every
number counts its area's borders (unknown edges read as open): every solution's regions then lie in
the areas, so they are the areas, and the solution is the only one.

:func:`count` searches: when the deduction is stuck it branches on an unknown edge (border, then open)
and deduces again, counting solutions up to ``limit``; with ``budget`` 0 it only deduces (1: the
deduction solves the puzzle, -1: it is stuck, 0: a contradiction). :func:`reduce` removes numbers the
way Tatham's generator does: in a given order, each removal kept while the puzzle stays solved, by the
deduction alone (level 0) or by the search's count of one (level 1).

Cells are row-major (cell i at ``i // W, i % W``); the edges: first the H (W - 1) between horizontal
neighbours, row by row, then the (H - 1) W between vertical ones. No allocation (the caller passes every
buffer, :func:`scratch`), no reference counting.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
_I8 = nt.int8[::1]
PAIRS, CLUE, EQUIV, BIG, SMALL, VERTEX, AREA = 1, 2, 4, 8, 16, 32, 64
#: every rule of the deduction
ALL = 127
RULES = {"PAIRS": PAIRS, "CLUE": CLUE, "EQUIV": EQUIV, "BIG": BIG, "SMALL": SMALL, "VERTEX": VERTEX, "AREA": AREA}
UNKNOWN, BORDER, OPEN = 0, 1, 2
#: (H, W, n, rules, limit, budget, clue, es, work, sol) -> see :func:`count`
COUNT_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, _I64, _I8, _I64, _I64)
#: (H, W, n, tries, seed, label, div) -> see :func:`divide`
DIVIDE_SIG = nt.boolean(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, _I64, _I64)
#: (H, W, n, seed, draws, search_draws, budget, label, clue, order, es, work, sol, div) -> see :func:`generate`
GENERATE_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, _I64, _I64, _I64, _I8,
                        _I64, _I64, _I64)


def edges(H: int, W: int) -> int:
    return H * (W - 1) + (H - 1) * W


def scratch(H: int, W: int) -> tuple:
    """``(es, work, sol)`` for an H x W grid: the edge states of every depth of the search (the first E
    are the state the search starts from), the integer scratch, and a solution's area per cell."""
    N, E = H * W, edges(H, W)
    return np.zeros((E + 2) * max(E, 1), np.int8), np.zeros(10 * N + 4 * E + 8, np.int64), np.zeros(N, np.int64)


def division_scratch(H: int, W: int) -> np.ndarray:
    """The ``div`` scratch of :func:`divide` and :func:`generate` (its last entry: the random state)."""
    return np.zeros(7 * H * W + 9, np.int64)


@kernel(inner=True, _nrt=False)
def _find(par, x):
    while par[x] != x:
        par[x] = par[par[x]]
        x = par[x]
    return x


@kernel(inner=True, _nrt=False)
def _union(par, sz, a, b):
    """Join the sets of a and b; returns the size of the joined set."""
    a = _find(par, a)
    b = _find(par, b)
    if a == b:
        return sz[a]
    if sz[a] < sz[b]:
        a, b = b, a
    par[b] = a
    sz[a] += sz[b]
    return sz[a]


@kernel(inner=True, _nrt=False)
def _layout(H, W, side, ea, eb):
    """Each cell's four edges (up, right, down, left; -1 on the grid's edge) and each edge's two cells."""
    HE = H * (W - 1)
    for r in range(H):
        for c in range(W):
            i = r * W + c
            side[4 * i] = HE + (r - 1) * W + c if r > 0 else -1
            side[4 * i + 1] = r * (W - 1) + c if c < W - 1 else -1
            side[4 * i + 2] = HE + r * W + c if r < H - 1 else -1
            side[4 * i + 3] = r * (W - 1) + c - 1 if c > 0 else -1
            if c < W - 1:
                ea[r * (W - 1) + c] = i
                eb[r * (W - 1) + c] = i + 1
            if r < H - 1:
                ea[HE + r * W + c] = i
                eb[HE + r * W + c] = i + W


@kernel(inner=True, _nrt=False)
def _deduce(H, W, n, rules, clue, es, side, ea, eb, par, sz, apar, asz, out, oedge):
    """The deduction (module docstring) on the edge states ``es``, in place: -1 a contradiction, 0 solved
    (``apar`` then holds the areas, the solution's regions), 1 stuck."""
    N = H * W
    E = len(ea)
    for i in range(N):
        par[i] = i
        sz[i] = 1
    for e in range(E):
        if es[e] == OPEN and _union(par, sz, ea[e], eb[e]) > n:
            return -1
    if rules & PAIRS:
        for e in range(E):
            p = clue[ea[e]]
            q = clue[eb[e]]
            if p >= 0 and q >= 0 and (8 - p - q > n or (p == 3 and q == 3 and n != 2)):
                if es[e] == OPEN:
                    return -1
                es[e] = BORDER
    changed = True
    while changed:
        changed = False
        for e in range(E):
            s = es[e]
            if s == OPEN:
                continue
            A = _find(par, ea[e])
            B = _find(par, eb[e])
            if s == BORDER:
                if A == B:
                    return -1
            elif A == B:
                es[e] = OPEN
                changed = True
            elif rules & BIG and sz[A] + sz[B] > n:
                es[e] = BORDER
                changed = True
        for i in range(N):
            k = clue[i]
            if k < 0:
                continue
            b = 0
            o = 0
            u = 0
            for d in range(4):
                e = side[4 * i + d]
                if e < 0 or es[e] == BORDER:
                    b += 1
                elif es[e] == OPEN:
                    o += 1
                else:
                    u += 1
            if b > k or o > 4 - k:
                return -1
            if u == 0:
                continue
            if rules & CLUE and (b == k or 4 - o == k):
                for d in range(4):
                    e = side[4 * i + d]
                    if e >= 0 and es[e] == UNKNOWN:
                        if b == k:
                            es[e] = OPEN
                            if _union(par, sz, ea[e], eb[e]) > n:
                                return -1
                        else:
                            es[e] = BORDER
                changed = True
                continue
            if rules & EQUIV and u >= 2 and (b + 2 > k or o + 2 > 4 - k):
                done = False
                for d1 in range(4):
                    e1 = side[4 * i + d1]
                    if done or e1 < 0 or es[e1] != UNKNOWN:
                        continue
                    j1 = ea[e1] + eb[e1] - i
                    for d2 in range(d1 + 1, 4):
                        e2 = side[4 * i + d2]
                        if done or e2 < 0 or es[e2] != UNKNOWN:
                            continue
                        if _find(par, j1) != _find(par, ea[e2] + eb[e2] - i):
                            continue
                        done = True
                        if b + 2 > k:
                            es[e1] = OPEN
                            es[e2] = OPEN
                            _union(par, sz, ea[e1], eb[e1])
                            if _union(par, sz, ea[e2], eb[e2]) > n:
                                return -1
                        else:
                            es[e1] = BORDER
                            es[e2] = BORDER
                if done:
                    changed = True
        if rules & SMALL:
            for i in range(N):
                out[i] = -1
            for e in range(E):
                if es[e] != UNKNOWN:
                    continue
                A = _find(par, ea[e])
                B = _find(par, eb[e])
                if A == B:
                    continue
                if out[A] == -1:
                    out[A] = B
                    oedge[A] = e
                elif out[A] != B:
                    out[A] = -2
                if out[B] == -1:
                    out[B] = A
                    oedge[B] = e
                elif out[B] != A:
                    out[B] = -2
            for i in range(N):
                if par[i] == i and sz[i] < n and out[i] == -1:
                    return -1
            for i in range(N):
                if out[i] >= 0 and sz[_find(par, i)] < n:
                    e = oedge[i]
                    if es[e] == UNKNOWN and _find(par, ea[e]) != _find(par, eb[e]):
                        es[e] = OPEN
                        changed = True
                        if _union(par, sz, ea[e], eb[e]) > n:
                            return -1
        if rules & VERTEX:
            for r in range(1, H):
                for c in range(1, W):
                    ul = (r - 1) * W + c - 1
                    e1 = side[4 * ul + 1]
                    e2 = side[4 * (ul + 1) + 2]
                    e3 = side[4 * (ul + W) + 1]
                    e4 = side[4 * ul + 2]
                    o = 0
                    b = 0
                    u = -1
                    for e in (e1, e2, e3, e4):
                        if es[e] == OPEN:
                            o += 1
                        elif es[e] == BORDER:
                            b += 1
                        else:
                            u = e
                    if o == 2 and b == 1:
                        es[u] = BORDER
                        changed = True
    # the areas between the borders
    for i in range(N):
        apar[i] = i
        asz[i] = 1
    for e in range(E):
        if es[e] != BORDER:
            _union(apar, asz, ea[e], eb[e])
    solved = True
    for i in range(N):
        if apar[i] == i:
            if rules & AREA and asz[i] % n:
                return -1
            if asz[i] != n:
                solved = False
    if not solved:
        return 1
    for e in range(E):
        if es[e] == BORDER and _find(apar, ea[e]) == _find(apar, eb[e]):
            return 1
    for i in range(N):
        if clue[i] >= 0:
            b = 0
            for d in range(4):
                e = side[4 * i + d]
                if e < 0 or _find(apar, ea[e]) != _find(apar, eb[e]):
                    b += 1
            if b != clue[i]:
                return 1
    return 0


@kernel(inner=True, _nrt=False)
def _count(H, W, n, rules, limit, budget, clue, es, work, sol):
    """:func:`count` on the layout in ``work``."""
    N = H * W
    E = H * (W - 1) + (H - 1) * W
    side = work[:4 * N]
    ea = work[4 * N:4 * N + E]
    eb = work[4 * N + E:4 * N + 2 * E]
    o = 4 * N + 2 * E
    par = work[o:o + N]
    sz = work[o + N:o + 2 * N]
    apar = work[o + 2 * N:o + 3 * N]
    asz = work[o + 3 * N:o + 4 * N]
    out = work[o + 4 * N:o + 5 * N]
    oedge = work[o + 5 * N:o + 6 * N]
    chosen = work[o + 6 * N:o + 6 * N + E + 2]
    tried = work[o + 6 * N + E + 2:o + 6 * N + 2 * E + 4]
    found = 0
    nodes = 0
    d = 0
    while True:
        cur = es[d * E:(d + 1) * E]
        r = _deduce(H, W, n, rules, clue, cur, side, ea, eb, par, sz, apar, asz, out, oedge)
        branch = -1
        if r == 0:
            if found == 0:
                for i in range(N):
                    sol[i] = _find(apar, i)
            found += 1
            if found >= limit:
                return found
        elif r == 1:  # the unknown edge between the two largest components that may still join
            best = -1
            for e in range(E):
                if cur[e] == UNKNOWN:
                    s = sz[_find(par, ea[e])] + sz[_find(par, eb[e])]
                    if s > best:
                        best = s
                        branch = e
        if branch >= 0:
            nodes += 1
            if nodes > budget:
                return -1
            chosen[d] = branch
            tried[d] = 0
            nxt = es[(d + 1) * E:(d + 2) * E]
            for e in range(E):
                nxt[e] = cur[e]
            nxt[branch] = BORDER
            d += 1
            continue
        # back to the last branch whose open side is untried
        while d > 0 and tried[d - 1] == 1:
            d -= 1
        if d == 0:
            return found
        tried[d - 1] = 1
        prev = es[(d - 1) * E:d * E]
        cur = es[d * E:(d + 1) * E]
        for e in range(E):
            cur[e] = prev[e]
        cur[chosen[d - 1]] = OPEN


@kernel(COUNT_SIG, error_model="numpy", _nrt=False)
def count(H, W, n, rules, limit, budget, clue, es, work, sol):
    """How many solutions the numbers ``clue`` (per cell, -1: none) allow from the edge states in the first
    E entries of ``es`` (its other entries: the search's), counting up to ``limit``, with the deduction
    rules ``rules`` (a mask, :data:`ALL`); -1 when more than ``budget`` branches were needed. ``sol`` gets
    the first solution's regions (each cell's region named by one of its cells)."""
    N = H * W
    E = H * (W - 1) + (H - 1) * W
    _layout(H, W, work[:4 * N], work[4 * N:4 * N + E], work[4 * N + E:4 * N + 2 * E])
    return _count(H, W, n, rules, limit, budget, clue, es, work, sol)


@kernel(inner=True, _nrt=False)
def _reduce(H, W, n, level, budget, clue, order, es, work, sol):
    """Tatham's clue reduction: ``clue`` holds every cell's number (a solved division's); -1 when the
    deduction (level 0), or the search (level 1, within ``budget`` branches), does not prove that
    division the only solution, else the numbers are removed in ``order`` (a permutation of the cells),
    each removal kept while that still holds, and the count of those left is returned."""
    N = H * W
    E = H * (W - 1) + (H - 1) * W
    left = N
    for t in range(-1, N):
        j = -1
        keep = -1
        if t >= 0:
            j = order[t]
            keep = clue[j]
            clue[j] = -1
        for e in range(E):
            es[e] = UNKNOWN
        if level == 0:
            ok = _count(H, W, n, ALL, 1, 0, clue, es, work, sol) == 1
        else:
            ok = _count(H, W, n, ALL, 2, budget, clue, es, work, sol) == 1
        if t < 0:
            if not ok:
                return -1
        elif ok:
            left -= 1
        else:
            clue[j] = keep
    return left


@kernel(inner=True, _nrt=False)
def _rand(state, m):
    """A number below m from the Lehmer generator (MINSTD) in ``state[0]``."""
    state[0] = state[0] * 48271 % 2147483647
    return state[0] % m


@kernel(inner=True, _nrt=False)
def _step(H, W, c, d):
    """The cell next to cell ``c`` in direction ``d`` (0 up, 1 right, 2 down, 3 left), -1 off the grid."""
    r = c // W
    x = c - r * W
    if d == 0:
        return c - W if r > 0 else -1
    if d == 1:
        return c + 1 if x < W - 1 else -1
    if d == 2:
        return c + W if r < H - 1 else -1
    return c - 1 if x > 0 else -1


@kernel(inner=True, _nrt=False)
def _grow(H, W, n, start, label, cells, frontier, mark, stamp, state):
    """A region of n cells grown from ``start`` over free cells (``label`` -1), each step adding a random
    entry of the frontier (the free neighbours of the cells so far, once per cell that offers it) into
    ``cells``; False when the frontier runs dry first. ``mark[c] == stamp``: c is in the region."""
    cells[0] = start
    mark[start] = stamp
    m = 0
    size = 1
    c = start
    while True:
        for d in range(4):
            f = _step(H, W, c, d)
            if f >= 0 and label[f] < 0 and mark[f] != stamp:
                frontier[m] = f
                m += 1
        if size == n:
            return True
        k = 0
        for q in range(m):
            if mark[frontier[q]] != stamp:
                frontier[k] = frontier[q]
                k += 1
        m = k
        if m == 0:
            return False
        c = frontier[_rand(state, m)]
        cells[size] = c
        size += 1
        mark[c] = stamp


@kernel(inner=True, _nrt=False)
def _pockets_fit(H, W, n, label, mark, stamp, stack):
    """Whether every pocket of free cells (side by side) has a multiple of n cells."""
    N = H * W
    for s in range(N):
        if label[s] >= 0 or mark[s] == stamp:
            continue
        mark[s] = stamp
        stack[0] = s
        top = 1
        size = 0
        while top > 0:
            top -= 1
            c = stack[top]
            size += 1
            for d in range(4):
                f = _step(H, W, c, d)
                if f >= 0 and label[f] < 0 and mark[f] != stamp:
                    mark[f] = stamp
                    stack[top] = f
                    top += 1
        if size % n:
            return False
    return True


@kernel(inner=True, _nrt=False)
def _divide(H, W, n, tries, state, label, div):
    """A random division into regions of n cells (:func:`.geometry.random_division`) into ``label``."""
    N = H * W
    mark = div[:N]
    stack = div[N:2 * N]
    cells = div[2 * N:3 * N]
    frontier = div[3 * N:7 * N + 8]
    for i in range(N):
        mark[i] = 0
    stamp = 0
    for _ in range(1000):
        for i in range(N):
            label[i] = -1
        k = 0
        placed = True
        for start in range(N):
            if label[start] >= 0:
                continue
            fits = False
            for _t in range(tries):
                stamp += 1
                if not _grow(H, W, n, start, label, cells, frontier, mark, stamp, state):
                    continue
                for q in range(n):
                    label[cells[q]] = k
                stamp += 1
                if _pockets_fit(H, W, n, label, mark, stamp, stack):
                    fits = True
                    break
                for q in range(n):
                    label[cells[q]] = -1
            if not fits:
                placed = False
                break
            k += 1
        if placed:
            return True
    return False


@kernel(DIVIDE_SIG, error_model="numpy", _nrt=False)
def divide(H, W, n, tries, seed, label, div):
    """:func:`_divide` from the Lehmer seed ``seed`` (1 .. 2**31 - 2); False when 1000 attempts failed.
    ``div``: scratch (7 H W + 8)."""
    state = div[7 * H * W + 8:7 * H * W + 9]
    state[0] = seed
    return _divide(H, W, n, tries, state, label, div)


@kernel(GENERATE_SIG, error_model="numpy", _nrt=False)
def generate(H, W, n, seed, draws, search_draws, budget, label, clue, order, es, work, sol, div):
    """Tatham's generator: random divisions (:func:`_divide`, 40 tries a region) until one whose full
    numbering ``draws`` times the deduction, then ``search_draws`` times the search (``budget`` branches a
    proof), proves unique, and its numbers reduced (:func:`_reduce`, in a random order). Returns the
    numbers left (``label``: the regions, ``clue``: the numbers, -1 none), -1 when every draw failed, -2
    when no division was found. Random numbers: the Lehmer generator seeded with ``seed``."""
    N = H * W
    state = div[7 * N + 8:7 * N + 9]
    state[0] = seed
    for attempt in range(draws + search_draws):
        if not _divide(H, W, n, 40, state, label, div):
            return -2
        for i in range(N):
            r = i // W
            c = i - r * W
            b = 0
            if r == 0 or label[i - W] != label[i]:
                b += 1
            if r == H - 1 or label[i + W] != label[i]:
                b += 1
            if c == 0 or label[i - 1] != label[i]:
                b += 1
            if c == W - 1 or label[i + 1] != label[i]:
                b += 1
            clue[i] = b
        for i in range(N):
            order[i] = i
        for i in range(N - 1, 0, -1):
            j = _rand(state, i + 1)
            t = order[i]
            order[i] = order[j]
            order[j] = t
        _layout(H, W, work[:4 * N], work[4 * N:4 * N + H * (W - 1) + (H - 1) * W],
                work[4 * N + H * (W - 1) + (H - 1) * W:4 * N + 2 * (H * (W - 1) + (H - 1) * W)])
        left = _reduce(H, W, n, int(attempt >= draws), budget, clue, order, es, work, sol)
        if left >= 0:
            return left
    return -1
