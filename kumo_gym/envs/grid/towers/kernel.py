"""The numba kernel of Towers' generator: line-by-line deduction (imported on first
generation only).

Each row and each column, with the clues at its two ends, is one constraint: its cells hold a
permutation of 1..n that shows the clued number of towers from each clued end. The solver keeps
the set of heights still possible per cell (a bit mask) and, line by line, keeps only heights that
appear in some permutation of the line that fits every cell's set and both clues (all the Latin
square's deductions within a line and every clue deduction, Tatham's easy and normal reasoning
included); lines whose cells changed are solved again until nothing changes. Every deduction
holds in every solution, so a puzzle this solves is the only solution of its clues, with no
search. The permutations of 1..n with their visible counts come from the caller (n <= 7).

No allocation (the caller passes every buffer), no reference counting: one small compile on
first use, cached on disk.
"""
from numba import types as nt

from ....solvers.native import kernel
from . import line_queue as lines

_I8_2 = nt.int8[:, ::1]
_I64 = nt.int64[::1]
#: (n, perms, front, back, clues, given, goal, dom, uni, queue, inq) -> solved (goal < 0) or goal decided
SOLVES_SIG = nt.boolean(nt.int64, _I8_2, nt.int8[::1], nt.int8[::1], _I64, nt.int8[::1], nt.int64,
                        _I64, _I64, _I64, nt.int8[::1])


@kernel(SOLVES_SIG, _nrt=False)
def solves(n, perms, front, back, clues, given, goal, dom, uni, queue, inq):
    """Line deduction (module docstring) from the edge clues and givens; with ``goal`` >= 0 it
    stops as soon as that cell is decided and says whether it was, else whether every cell is.

    ``perms``: every permutation of 1..n, one per row, with ``front``/``back`` the towers each
    shows from its start/end. ``clues``: 4n numbers, top, bottom, left, right (0: none), each
    side by column or row index; ``given``: per cell (row-major) its height or 0. Scratch:
    ``dom`` (n * n), ``uni`` (n), ``queue`` (2n + 1), ``inq`` (2n)."""
    full = (1 << (n + 1)) - 2
    nn = n * n
    open_cells = nn
    for i in range(nn):
        if given[i] > 0:
            dom[i] = 1 << given[i]
            open_cells -= 1
        else:
            dom[i] = full
    if goal >= 0 and given[goal] > 0:
        return True
    nl = 2 * n
    head, tail = lines.start(queue, inq, nl)
    while head != tail:
        li, head = lines.pop(queue, inq, head)
        # lines 0..n-1: rows (left, right clues), n..2n-1: columns (top, bottom clues)
        if li < n:
            start, step = li * n, 1
            cf, cb = clues[2 * n + li], clues[3 * n + li]
        else:
            start, step = li - n, n
            cf, cb = clues[li - n], clues[li]
        for k in range(n):
            uni[k] = 0
        for p in range(perms.shape[0]):
            if (cf != 0 and front[p] != cf) or (cb != 0 and back[p] != cb):
                continue
            fits = True
            for k in range(n):
                if not (dom[start + step * k] >> perms[p, k]) & 1:
                    fits = False
                    break
            if not fits:
                continue
            for k in range(n):
                uni[k] |= 1 << perms[p, k]
        for k in range(n):
            cell = start + step * k
            d = dom[cell] & uni[k]
            if d == dom[cell]:
                continue
            if d == 0:
                return False  # no permutation fits: the clues contradict each other
            dom[cell] = d
            if d & (d - 1) == 0:
                open_cells -= 1
                if cell == goal:
                    return True
            other = n + cell % n if li < n else cell // n
            tail = lines.push(queue, inq, tail, other)
    if goal >= 0:
        return dom[goal] & (dom[goal] - 1) == 0
    return open_cells == 0
