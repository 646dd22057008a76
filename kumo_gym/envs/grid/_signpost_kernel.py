"""The numba kernel of Signpost's generator (issue 14; imported on first generation only).

Unit propagation over the CNF of :mod:`.signpost` (``x[cell, k]``: exactly one number per cell and
one cell per number, the cell of k has a candidate for k+1 on its arrow's ray and a candidate for
k-1 among the cells pointing at it) is arc consistency on the table ``P[cell * n + k]`` (the cell
may hold k+1): a candidate without a successor or predecessor candidate goes, a cell with one
candidate number takes it from every other cell, and a number with one candidate cell takes that
cell. This kernel runs that closure with support counters and a work stack, so placing the givens
(:func:`place`, Tatham's order: add numbers until deduction solves the grid, then drop the added
ones it can do without) costs microseconds per test instead of a CNF propagation from scratch.

One explicit signature, no allocation (the caller passes every buffer), no reference counting:
a small compile on first use, cached on disk.
"""
from numba import njit
from numba import types as nt

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
_I16 = nt.int16[::1]
#: (n, ray_start, ray_cells, into_start, into_cells, number, ends, order, P, rowc, colc, fsup, bsup,
#:  stack, added, shown, done) -> whether the givens placed solve the grid
PLACE_SIG = nt.boolean(nt.int64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I8, _I64, _I64, _I16, _I16,
                       _I64, _I64, _I8, _I8)


@njit(inline="always", _nrt=False)
def _rm(n, a, k, P, rowc, colc, stack, top):
    """Strike number k+1 from cell a (pushed for its consequences); returns the new stack top."""
    i = a * n + k
    if P[i]:
        P[i] = 0
        rowc[a] -= 1
        colc[k] -= 1
        stack[top] = i
        top += 1
    return top


@njit(cache=True, nogil=True, _nrt=False)
def _singles(n, a, k, P, rowc, colc, stack, top, done):
    """Cell a left with one candidate number, or number k+1 left with one candidate cell: that
    pair is shown (:func:`_show`: the rest of its row and column struck; its own line has no other
    candidate). Each single is handled once (``done[a]`` / ``done[n + k]``); the new stack top."""
    if rowc[a] == 1 and not done[a]:
        done[a] = 1
        for kk in range(n):
            if P[a * n + kk]:
                top = _show(n, a, kk, P, rowc, colc, stack, top)
                break
    if colc[k] == 1 and not done[n + k]:
        done[n + k] = 1
        for c in range(n):
            if P[c * n + k]:
                top = _show(n, c, k, P, rowc, colc, stack, top)
                break
    return top


@njit(cache=True, nogil=True, _nrt=False)
def _closure(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, top, goal, done):
    """Process the stack to a fixpoint; False on a contradiction (a cell or a number without
    candidates). With ``goal`` >= 0 (an index ``cell * n + k``), True as soon as that cell is
    left with that number alone. ``done[a]`` / ``done[n + k]``: cell a's number / number k's cell
    already struck everywhere else (each single is handled once)."""
    g = goal // n if goal >= 0 else -1
    while top > 0:
        if g >= 0 and rowc[g] == 1 and P[goal]:
            return True
        top -= 1
        i = stack[top]
        a = i // n
        k = i - a * n
        if rowc[a] == 0 or colc[k] == 0:
            return False
        if k >= 1:  # cells pointing at a lose a's k as the successor of their k-1
            for t in range(is_[a], is_[a + 1]):
                j = ic[t] * n + k - 1
                fsup[j] -= 1
                if fsup[j] == 0 and P[j]:
                    top = _rm(n, ic[t], k - 1, P, rowc, colc, stack, top)
        if k + 1 < n:  # cells on a's ray lose a's k as the predecessor of their k+1
            for t in range(rs[a], rs[a + 1]):
                j = rc[t] * n + k + 1
                bsup[j] -= 1
                if bsup[j] == 0 and P[j]:
                    top = _rm(n, rc[t], k + 1, P, rowc, colc, stack, top)
        top = _singles(n, a, k, P, rowc, colc, stack, top, done)
    return True


@njit(cache=True, nogil=True, _nrt=False)
def _init(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, done):
    """Counters of a table ``P``, and the stack of what they already strike (-1: a contradiction)."""
    for a in range(n):
        rowc[a] = 0
        colc[a] = 0
        done[a] = 0
        done[n + a] = 0
    for a in range(n):
        for k in range(n):
            if P[a * n + k]:
                rowc[a] += 1
                colc[k] += 1
            f = 0
            if k + 1 < n:
                for t in range(rs[a], rs[a + 1]):
                    f += P[rc[t] * n + k + 1]
            fsup[a * n + k] = f
            b = 0
            if k >= 1:
                for t in range(is_[a], is_[a + 1]):
                    b += P[ic[t] * n + k - 1]
            bsup[a * n + k] = b
    top = 0
    for a in range(n):
        if rowc[a] == 0 or colc[a] == 0:
            return -1
    for a in range(n):
        for k in range(n):
            if P[a * n + k] and (k + 1 < n and fsup[a * n + k] == 0 or k >= 1 and bsup[a * n + k] == 0):
                top = _rm(n, a, k, P, rowc, colc, stack, top)
    for a in range(n):
        top = _singles(n, a, a, P, rowc, colc, stack, top, done)
    return top


@njit(cache=True, nogil=True, _nrt=False)
def _show(n, j, m, P, rowc, colc, stack, top):
    """Give cell j its number m+1 (strike the rest of its row and column); -1 when it cannot hold it."""
    if not P[j * n + m]:
        return -1
    for k in range(n):
        if k != m:
            top = _rm(n, j, k, P, rowc, colc, stack, top)
    for c in range(n):
        if c != j:
            top = _rm(n, c, m, P, rowc, colc, stack, top)
    return top


@njit(cache=True, nogil=True, _nrt=False)
def _solved(n, rowc):
    for a in range(n):
        if rowc[a] != 1:
            return False
    return True


@njit(cache=True, nogil=True, _nrt=False)
def _copy(n, src, dst, P, rowc, colc, fsup, bsup, done):
    """Copy the whole deduction state from slot ``src`` to slot ``dst`` of the buffers (slot 0 is
    the live one)."""
    nn = n * n
    for i in range(nn):
        P[dst * nn + i] = P[src * nn + i]
        fsup[dst * nn + i] = fsup[src * nn + i]
        bsup[dst * nn + i] = bsup[src * nn + i]
    for a in range(n):
        rowc[dst * n + a] = rowc[src * n + a]
        colc[dst * n + a] = colc[src * n + a]
    for a in range(2 * n):
        done[dst * 2 * n + a] = done[src * 2 * n + a]


@njit(PLACE_SIG, cache=True, nogil=True, _nrt=False)
def place(n, rs, rc, is_, ic, number, ends, order, P, rowc, colc, fsup, bsup, stack, added, shown, done):
    """Tatham's placement of the givens: the ``ends`` shown, then the cells of ``order`` not yet
    numbered by deduction shown one by one until deduction numbers every cell, then each added
    one hidden again (same order) when deduction still numbers every cell without it. ``shown``
    (per cell, 1: shown) is the result; returns whether it solves the grid.

    The buffers hold n + 2 slots of the deduction state (the table and its counters): slot 0 is
    live, slot n + 1 the closure of the ends, slot 1 + i that of the ends and ``added[i:]``.
    Removal test i starts from slot 2 + i, shows the kept ones before i and stops as soon as
    deduction gives cell ``added[i]`` its number again: the remaining givens then imply all the
    givens before the removal, which solved the grid."""
    nn = n * n
    base = n + 1
    for i in range(nn):
        P[i] = 1
    top = _init(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, done)
    for e in ends:
        top = _show(n, e, number[e], P, rowc, colc, stack, top)
        if top < 0:
            return False
    if not _closure(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, top, -1, done):
        return False
    _copy(n, 0, base, P, rowc, colc, fsup, bsup, done)
    nadd = 0
    for j in order:
        if _solved(n, rowc):
            break
        if rowc[j] > 1:
            added[nadd] = j
            nadd += 1
            top = _show(n, j, number[j], P, rowc, colc, stack, 0)
            if top < 0 or not _closure(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, top, -1, done):
                return False
    if not _solved(n, rowc):
        return False
    for i in range(nadd - 1, 0, -1):  # slot 1 + i: the ends and added[i:], each from the next
        _copy(n, base if i == nadd - 1 else 2 + i, 0, P, rowc, colc, fsup, bsup, done)
        top = _show(n, added[i], number[added[i]], P, rowc, colc, stack, 0)
        if top < 0 or not _closure(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, top, -1, done):
            return False
        _copy(n, 0, 1 + i, P, rowc, colc, fsup, bsup, done)
    for c in range(n):
        shown[c] = 0
    for e in ends:
        shown[e] = 1
    for t in range(nadd):
        shown[added[t]] = 1
    for t in range(nadd):
        j = added[t]
        shown[j] = 0
        _copy(n, base if t == nadd - 1 else 2 + t, 0, P, rowc, colc, fsup, bsup, done)
        top = 0
        ok = True
        for u in range(t):
            c = added[u]
            if ok and shown[c]:
                top = _show(n, c, number[c], P, rowc, colc, stack, top)
                ok = top >= 0
        if not (ok and _closure(n, rs, rc, is_, ic, P, rowc, colc, fsup, bsup, stack, top, j * n + number[j], done)
                and rowc[j] == 1 and P[j * n + number[j]]):
            shown[j] = 1
    return True
