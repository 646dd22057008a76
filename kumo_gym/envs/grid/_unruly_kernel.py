"""The numba kernel of Unruly's generator (issue 14; imported on first generation only).

Unit propagation over the CNF of :mod:`.unruly` (three-cell clauses and a sequential counter per
line, which propagation keeps arc-consistent) makes exactly two deductions, applied here on the
grid itself: two equal cells of a three-cell window make the third the other colour, and a line
holding half its cells of one colour gets the other colour everywhere else. :func:`fill` draws a
random valid grid with them the way Tatham's generator does (cells in a random order, each given
a random colour, propagated, the other colour on a contradiction, a fresh draw when both fail);
:func:`reduce` removes givens while propagation still solves the puzzle, deciding exactly what
the engine's ``reduce_clues(grade_limit=0)`` decides over the CNF.

Cells are 1 black, -1 white, 0 open, row-major. No allocation (the caller passes every buffer),
no reference counting: a small compile on first use, cached on disk.
"""
from numba import njit
from numba import types as nt

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (H, W, order, colour, val, counts, trail (H * W + 1)) -> whether the fill succeeded (the grid is in val)
FILL_SIG = nt.boolean(nt.int64, nt.int64, _I64, _I8, _I8, _I64, _I64)
#: (H, W, truth, active, order, val, counts, trail) -> None (active updated in place)
REDUCE_SIG = nt.void(nt.int64, nt.int64, _I8, _I8, _I64, _I8, _I64, _I64)

_CONFLICT = -1
_GOAL = -2


@njit(cache=True, nogil=True, _nrt=False)
def _set(H, W, j, s, val, counts, trail, tlen):
    """Make cell j colour s (it is open); -1 when a line then holds more than half of s.
    ``counts``: black per row, white per row, black per column, white per column. The trail's
    last slot keeps its length, for undoing after a conflict."""
    r = j // W
    c = j % W
    val[j] = s
    trail[tlen] = j
    off = 0 if s == 1 else H
    counts[off + r] += 1
    counts[2 * H + (0 if s == 1 else W) + c] += 1
    trail[len(trail) - 1] = tlen + 1
    if 2 * counts[off + r] > W or 2 * counts[2 * H + (0 if s == 1 else W) + c] > H:
        return _CONFLICT
    return tlen + 1


@njit(cache=True, nogil=True, _nrt=False)
def _propagate(H, W, val, counts, trail, head, tlen, goal):
    """Process the trail from ``head``: the new length, ``_CONFLICT``, or ``_GOAL`` as soon as
    cell ``goal`` (>= 0) is decided."""
    while head < tlen:
        j = trail[head]
        head += 1
        s = val[j]
        r = j // W
        c = j % W
        for axis in range(2):
            # the line through j along this axis: its cells are base + step * k, k < length
            if axis == 0:
                base, step, length, pos = r * W, 1, W, c
                line_count = counts[(0 if s == 1 else H) + r]
            else:
                base, step, length, pos = c, W, H, r
                line_count = counts[2 * H + (0 if s == 1 else W) + c]
            for first in range(max(pos - 2, 0), min(pos, length - 3) + 1):
                same = 0
                free = -1
                for k in range(first, first + 3):
                    v = val[base + step * k]
                    if v == s:
                        same += 1
                    elif v == 0:
                        free = base + step * k
                if same == 3:
                    return _CONFLICT
                if same == 2 and free >= 0:
                    tlen = _set(H, W, free, -s, val, counts, trail, tlen)
                    if tlen < 0:
                        return _CONFLICT
                    if free == goal:
                        return _GOAL
            if 2 * line_count == length:
                for k in range(length):
                    q = base + step * k
                    if val[q] == 0:
                        tlen = _set(H, W, q, -s, val, counts, trail, tlen)
                        if tlen < 0:
                            return _CONFLICT
                        if q == goal:
                            return _GOAL
    return tlen


@njit(cache=True, nogil=True, _nrt=False)
def _undo(H, W, val, counts, trail, mark, tlen):
    for t in range(mark, tlen):
        j = trail[t]
        s = val[j]
        if s == 0:
            continue
        r = j // W
        c = j % W
        counts[(0 if s == 1 else H) + r] -= 1
        counts[2 * H + (0 if s == 1 else W) + c] -= 1
        val[j] = 0


@njit(cache=True, nogil=True, _nrt=False)
def _clear(val, counts):
    for i in range(len(val)):
        val[i] = 0
    for i in range(len(counts)):
        counts[i] = 0


@njit(FILL_SIG, cache=True, nogil=True, _nrt=False)
def fill(H, W, order, colour, val, counts, trail):
    """A random valid grid (module docstring): cell ``order[t]``, when still open, tries colour
    ``colour[t]`` first. False when both colours of some cell contradict (draw again)."""
    _clear(val, counts)
    tlen = 0
    for t in range(H * W):
        i = order[t]
        if val[i] != 0:
            continue
        s = colour[t]
        for attempt in range(2):
            mark = tlen
            end = _set(H, W, i, s, val, counts, trail, tlen)
            if end >= 0:
                end = _propagate(H, W, val, counts, trail, mark, end, -1)
            if end >= 0:
                tlen = end
                break
            # undo everything this try set (the trail's last slot says how far it got)
            _undo(H, W, val, counts, trail, mark, trail[len(trail) - 1])
            if attempt == 1:
                return False
            s = -s
    return True


@njit(REDUCE_SIG, cache=True, nogil=True, _nrt=False)
def reduce(H, W, truth, active, order, val, counts, trail):
    """Drop the givens at ``order`` in turn (``active``: one flag per cell, every cell given at
    the start), keeping each drop while propagation from the remaining givens still decides the
    dropped cell (then it decides every cell, as the full set does)."""
    for t in range(len(order)):
        i = order[t]
        active[i] = 0
        _clear(val, counts)
        tlen = 0
        for j in range(H * W):
            if active[j]:
                tlen = _set(H, W, j, truth[j], val, counts, trail, tlen)
        if _propagate(H, W, val, counts, trail, 0, tlen, i) != _GOAL:
            active[i] = 1
