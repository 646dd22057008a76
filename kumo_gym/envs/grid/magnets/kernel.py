"""The numba kernel of Magnets' generator: deduction on per-cell option masks (imported on first generation only).

Each cell keeps the set of what it may still hold (bit 1: a + pole, 2: a - pole, 4: blank). The
rules, applied until nothing changes:

* a slot's two cells agree: one end may be + only if the other may be -, and blank only together;
* a cell next to a settled pole (outside its slot) cannot hold the same pole;
* every shown count, the + and the - of a line and, when both are shown, its blanks (the line's
  length minus the two), is met by bounds: the line is cut into units, a slot lying along the
  line (which adds one + and one -, or two blanks) or a single cell, each with the values it may
  still add; a value of a unit that would push the line's least total above the count, or its
  greatest total below it, is struck out (Tatham's full-line, "needs all", polarised-slot,
  single-neutral and slot-counting rules are all cases of it).

* when a line's counts leave no blank to place, its runs of poles alternate, so a run of odd
  length holds one more of the pole it starts with: when the runs not yet settled must all
  start with the same pole to meet the counts, they do (Tatham's odd-length rule, generalised).

Every deduction holds in every solution, so a puzzle that ends with one option per cell has
exactly one solution. No allocation (the caller passes every buffer), no reference counting.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (mask, mate, nbr, lcells, lstart, tp, tm) -> -1 contradiction, else the number of cells settled
SETTLE_SIG = nt.int64(_I64, _I64, _I64, _I64, _I64, _I64, _I64)


@kernel(SETTLE_SIG, error_model="numpy", _nrt=False)
def settle(mask, mate, nbr, lcells, lstart, tp, tm):
    """The rules of the module docstring to a fixpoint on ``mask`` (one per cell, row-major).
    ``mate[i]``: the other cell of i's slot (i itself for a single cell); ``nbr[4i:4i+4]``: its
    neighbours (-1 none); line L's cells, in order, are ``lcells[lstart[L]:lstart[L+1]]``;
    ``tp``/``tm``: per line its + and - count, -1 hidden."""
    n = len(mask)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            m = mask[i]
            j = mate[i]
            if j != i:
                pm = mask[j]
                m &= (pm & 4) | ((pm & 1) << 1) | ((pm & 2) >> 1)
            for q in range(4 * i, 4 * i + 4):
                k = nbr[q]
                if k >= 0 and k != j and (mask[k] == 1 or mask[k] == 2):
                    m &= 7 - mask[k]
            if m == 0:
                return -1
            if m != mask[i]:
                mask[i] = m
                changed = True
        for line in range(len(lstart) - 1):
            a, b = lstart[line], lstart[line + 1]
            for kind in range(3):  # 0: + poles, 1: - poles, 2: blanks
                if kind == 0:
                    t = tp[line]
                elif kind == 1:
                    t = tm[line]
                elif tp[line] >= 0 and tm[line] >= 0:
                    t = b - a - tp[line] - tm[line]
                else:
                    t = -1
                if t < 0:
                    continue
                bit = 1 << kind
                lo = 0
                hi = 0
                for rnd in range(2):  # 0: the bounds, 1: strike out what breaks them
                    for p in range(a, b):
                        c = lcells[p]
                        if p > a and lcells[p - 1] == mate[c]:
                            continue  # the second cell of a slot along the line: counted with the first
                        along = p + 1 < b and lcells[p + 1] == mate[c]
                        # the options by which the unit adds k to the count (yes) or nothing (no)
                        if along:
                            yes = 4 if kind == 2 else 3
                        else:
                            yes = bit
                        no = 7 - yes
                        k = 2 if along and kind == 2 else 1
                        m = mask[c]
                        if rnd == 0:
                            if m & yes != 0:
                                hi += k
                                if m & no == 0:
                                    lo += k
                        elif m & yes != 0 and m & no != 0 and (lo + k > t or hi - k < t):
                            keep = no if lo + k > t else yes  # overshoot: adds nothing; short: adds k
                            mask[c] &= keep
                            if along:
                                mask[mate[c]] &= keep
                            changed = True
                    if rnd == 0 and (lo > t or hi < t):
                        return -1
            if tp[line] < 0 or tm[line] < 0:
                continue
            # runs of poles alternate: an odd run holds one more of the pole it starts with
            need = tp[line] - tm[line]
            odd = 0
            start = a
            sign = 0  # the pole the current run starts with, once one of its cells is settled
            for p in range(a, b + 1):
                m = 4 if p == b else mask[lcells[p]]
                if m == 4:  # the run ends
                    if (p - start) % 2 == 1:
                        if sign == 0:
                            odd += 1
                        else:
                            need -= sign
                    start = p + 1
                    sign = 0
                elif m & 4 != 0:
                    odd = -1  # a cell may still be blank: the runs are not known
                    break
                elif m != 3 and sign == 0:
                    sign = (1 if m == 1 else -1) * (1 if (p - start) % 2 == 0 else -1)
            if odd <= 0 or (need != odd and need != -odd):
                continue
            start = a
            sign = 0
            for p in range(a, b + 1):  # every open odd run starts with the pole in excess
                m = 4 if p == b else mask[lcells[p]]
                if m == 4:
                    if (p - start) % 2 == 1 and sign == 0:
                        mask[lcells[start]] = 1 if need > 0 else 2
                        changed = True
                    start = p + 1
                    sign = 0
                elif m != 3:
                    sign = 1
    settled = 0
    for i in range(n):
        if mask[i] == 1 or mask[i] == 2 or mask[i] == 4:
            settled += 1
    return settled
