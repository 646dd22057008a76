"""The numba kernel of Pearl's generator (imported on first generation only): a deduction
solver for the loop (Tatham's way: pearls are removed while it still finds the loop;
``deduce.py`` drives it).

Each side of each cell (``4 * cell + d``, d: 0 up, 1 right, 2 down, 3 left) is unknown (0), on the
loop (1) or off it (2). Each cell keeps the shapes it may still take, as a mask over the seven
shapes (bit s for the shape whose sides are the bits of s: 0 empty, 5 and 10 straight, 3, 6, 9
and 12 turns). Repeatedly: a shape that disagrees with a known side goes; a side that every shape
left has (or none has) is on (off), on both cells it joins; a black pearl's loop neighbour is
the straight that leads away from it, and a side towards a neighbour that cannot be is off; a
white pearl's straight needs a neighbour that can turn back into it, and with one neighbour a
straight the other turns; when that is stuck, the loop's pieces so far: a closed one is the loop
(every other cell empty, a contradiction if one cannot be), and a side that would close a piece
holding fewer cells than are known to be on the loop is off. Every step
holds in every solution, so when no side is left unknown the loop is the only one.

One function, no builtin calls, no allocation (the caller passes every buffer): one compile on
first use, cached on disk.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (H, W, tab, clue, given, sol, side, shape, dsf, size) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)
#: the straights and the turns as masks of shapes
STRAIGHTS, TURNS = 1 << 5 | 1 << 10, 1 << 3 | 1 << 6 | 1 << 9 | 1 << 12


@kernel(RUN_SIG, error_model="numpy", _nrt=False)
def run(H, W, tab, clue, given, sol, side, shape, dsf, size):
    """The deduction on the pearls of ``clue`` (0 none, 1 black, 2 white) shown where ``given`` is
    1: 1 when it finds the loop (checked against ``sol``, each cell's sides in the loop the pearls
    came from, bit d), 0 when it gets stuck, -1 on a contradiction (or a loop other than ``sol``:
    a bug). ``tab``: per direction d the step to the neighbour (``tab[d]``), the neighbour's turns
    that join back (``tab[4 + d]``) and the straight along d (``tab[8 + d]``); the shapes a cell
    with no pearl, a black and a white one may take (``tab[12:15]``); the sides with the grid's
    border off (``tab[15:]``). Scratch: ``side`` (4 H W), ``shape``, ``dsf``, ``size`` (H W)."""
    n = H * W
    for i in range(4 * n):  # the grid's border sides are off
        side[i] = tab[15 + i]
    for i in range(n):
        shape[i] = tab[12 + clue[i] * given[i]]
    ok, changed = True, True
    while ok and changed:
        changed = False
        for i in range(n):  # shapes against sides, and back
            on, off = 0, 0
            for d in range(4):
                on |= (side[4 * i + d] == 1) << d
                off |= (side[4 * i + d] == 2) << d
            keep, any_, all_ = 0, 0, 15
            for s in range(13):
                if shape[i] >> s & 1 and not s & off and not on & ~s:
                    keep |= 1 << s
                    any_ |= s
                    all_ &= s
            ok &= keep != 0
            changed |= keep != shape[i]
            shape[i] = keep
            for d in range(4):
                if side[4 * i + d] == 0 and (not any_ >> d & 1 or all_ >> d & 1):
                    side[4 * i + d] = side[4 * (i + tab[d]) + (d + 2) % 4] = 1 if all_ >> d & 1 else 2
                    changed = True
        if changed or not ok:
            continue
        for i in range(n):  # the pearls
            pearl = clue[i] * given[i]
            for d in range(4):
                j, line = i + tab[d], tab[8 + d]
                if pearl == 0 or side[4 * i + d] == 2:
                    continue
                if pearl == 1 and side[4 * i + d] == 1 and shape[j] & ~line:
                    shape[j] &= line  # a black pearl's neighbour leads straight on
                    changed = True
                elif pearl == 1 and side[4 * i + d] == 0 and not shape[j] & line:
                    side[4 * i + d] = side[4 * j + (d + 2) % 4] = 2
                    changed = True
                elif pearl == 2 and d < 2 and shape[i] & line:  # the straight along d, and its neighbours
                    k = i + tab[d + 2]
                    if not shape[j] & tab[4 + d] and not shape[k] & tab[6 + d]:
                        shape[i] &= ~line  # neither can turn
                        changed = True
                    elif shape[i] == line and not shape[j] & ~STRAIGHTS and shape[k] & ~TURNS:
                        shape[k] &= TURNS
                        changed = True
                    elif shape[i] == line and not shape[k] & ~STRAIGHTS and shape[j] & ~TURNS:
                        shape[j] &= TURNS
                        changed = True
        if changed:
            continue
        known, closed = 0, -1  # the loop's pieces so far (a label each), and the cells known to be on it
        for i in range(n):
            dsf[i], size[i] = i, 0
            known += not shape[i] & 1
        for i in range(n):
            for d in range(1, 3):
                if side[4 * i + d] == 1:
                    a, b = dsf[i], dsf[i + tab[d]]
                    ok &= a != b or closed == -1  # two closed loops
                    closed = a if a == b else closed
                    for k in range(n):
                        if dsf[k] == b:
                            dsf[k] = a
        for i in range(n):
            size[dsf[i]] += 1
        for i in range(n):
            if closed >= 0 and dsf[i] != closed and shape[i] != 1:  # the loop: every other cell is empty
                ok &= shape[i] & 1 == 1
                shape[i] = 1
                changed = True
            for d in range(1, 3):  # a side that would close a short loop
                if side[4 * i + d] == 0 and dsf[i] == dsf[i + tab[d]] and size[dsf[i]] < known:
                    side[4 * i + d] = side[4 * (i + tab[d]) + (d + 2) % 4] = 2
                    changed = True
    result = 1 if ok else -1
    for i in range(4 * n):
        if side[i] == 0 and ok:
            result = 0
        elif result == 1 and (side[i] == 1) != (sol[i // 4] >> i % 4 & 1 == 1):
            result = -1
    return result
