"""The numba kernel of Unequal's generator: Latin-square and inequality deduction on candidate
masks, and a search that counts solutions up to a limit (imported on first generation
only).

Each cell keeps the values it may still hold as a bit mask (bit v - 1 for value v). The rules,
applied until nothing changes: a settled cell's value leaves its row and column; a value with one
place left in a row or column goes there; for every sign a > b, a keeps only values above b's
least and b only values below a's greatest. Every deduction holds in every solution, so a puzzle
that ends with one value per cell has exactly one solution (Tatham's easy reasoning: singles and
the bounds of each sign).

:func:`search` with a ``limit`` searches: it settles, then splits the open cell with the fewest values, depth first,
on an explicit stack of candidate masks, until it has found ``limit`` solutions or none are left.
It answers the uniqueness questions of clue reduction exactly, as a SAT proof would. One function
(the deduction written out once, inside the search), no allocation (the caller passes every
buffer), no reference counting: one small compile on first use, cached on disk.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (stack, n, ga, gb, limit) -> limit 0: -1 contradiction, else the cells deduction settles;
#: else the number of solutions found (at most limit)
SEARCH_SIG = nt.int64(nt.int64[:, ::1], nt.int64, _I64, _I64, nt.int64)


@kernel(SEARCH_SIG, error_model="numpy", _nrt=False)
def search(stack, n, ga, gb, limit):
    """From the masks in ``stack[0]`` (one per cell, row-major; ``ga[k] > gb[k]`` the signs, as
    cell indices): with ``limit`` 0 the deduction of the module docstring only, else the
    solutions counted up to ``limit``. ``stack`` needs n * n * (n - 1) + 1 rows."""
    nn = n * n
    found = 0
    sp = 1
    while sp > 0:
        sp -= 1
        row = sp
        ok = True
        changed = True
        while changed and ok:
            changed = False
            for i in range(nn):  # a settled value leaves the cell's row and column
                m = stack[row, i]
                if m == 0:
                    ok = False
                    break
                if m & (m - 1) != 0:
                    continue
                r0 = (i // n) * n
                c0 = i % n
                for j in range(n):
                    for k in (r0 + j, c0 + j * n):
                        if k != i and stack[row, k] & m != 0:
                            stack[row, k] &= ~m
                            changed = True
            for line in range(2 * n):  # a value with one place left in a line goes there
                if not ok:
                    break
                for v in range(n):
                    bit = 1 << v
                    where = -1
                    places = 0
                    for j in range(n):
                        k = (line * n + j) if line < n else (j * n + line - n)
                        if stack[row, k] & bit != 0:
                            places += 1
                            where = k
                    if places == 0:
                        ok = False
                        break
                    if places == 1 and stack[row, where] != bit:
                        stack[row, where] = bit
                        changed = True
            for k in range(len(ga)):  # a sign: a above b's least value, b below a's greatest
                if not ok:
                    break
                a = stack[row, ga[k]]
                b = stack[row, gb[k]]
                keep_a = a & ~(2 * (b & -b) - 1)
                top = 1
                while top * 2 <= a:
                    top *= 2  # a's greatest value
                keep_b = b & (top - 1)
                if keep_a == 0 or keep_b == 0:
                    ok = False
                elif keep_a != a or keep_b != b:
                    stack[row, ga[k]] = keep_a
                    stack[row, gb[k]] = keep_b
                    changed = True
        best = -1
        fewest = n + 1
        for i in range(nn):  # the open cell with the fewest values (-1: all settled)
            m = stack[row, i]
            if m & (m - 1) != 0:
                c = 0
                while m != 0:
                    m &= m - 1
                    c += 1
                if c < fewest:
                    fewest = c
                    best = i
        if limit == 0:
            if not ok:
                return -1
            settled = nn
            for i in range(nn):
                if stack[row, i] & (stack[row, i] - 1) != 0:
                    settled -= 1
            return settled
        if not ok:
            continue
        if best < 0:
            found += 1
            if found >= limit:
                return found
            continue
        m = stack[row, best]  # split it: one copy of the masks per value, depth first
        while m != 0:
            bit = m & -m
            m &= m - 1
            if sp > row:
                for i in range(nn):
                    stack[sp, i] = stack[row, i]
            stack[sp, best] = bit
            sp += 1
    return found
