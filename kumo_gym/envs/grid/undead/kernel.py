"""The numba kernel of Undead's Easy generator: bounds deduction on per-cell monster masks
(imported on first generation only).

Each cell without a mirror keeps the monsters it may still hold (bit 1: ghost, 2: vampire, 4:
zombie). Every clue is a count over entries (a cell and the monsters that count there): a sight
line's entries are the cells it passes (ghosts and zombies after a mirror, vampires and zombies
before it; a cell passed twice is two entries), a total's are all the cells with that one
monster. The rule, applied until nothing changes: an entry that would push the least possible
count above the clue cannot count, one without which the greatest possible count falls below the
clue must count. Every deduction holds in every solution (a puzzle this settles has one
solution); on a sight line or a total it is what unit propagation of its counter does (Tatham's
easy reasoning). No allocation, no reference counting.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: (mask, cell, see, start, target) -> -1 contradiction, else the number of cells settled
SETTLE_SIG = nt.int64(nt.int8[::1], _I64, _I64, _I64, _I64)


@kernel(SETTLE_SIG, error_model="numpy", _nrt=False)
def settle(mask, cell, see, start, target):
    """The rule of the module docstring to a fixpoint on ``mask`` (one per cell without a
    mirror). Clue k's entries are ``start[k]:start[k+1]`` of ``cell`` (a cell index) and ``see``
    (the monsters that count there); ``target[k]`` its count."""
    changed = True
    while changed:
        changed = False
        for k in range(len(target)):
            lo = 0
            hi = 0
            for e in range(start[k], start[k + 1]):
                m = mask[cell[e]]
                if m & see[e] != 0:
                    hi += 1
                    if m & (7 - see[e]) == 0:
                        lo += 1
            t = target[k]
            if lo > t or hi < t:
                return -1
            if lo == t or hi == t:
                for e in range(start[k], start[k + 1]):
                    m = mask[cell[e]]
                    if m & see[e] != 0 and m & (7 - see[e]) != 0:
                        mask[cell[e]] = m & (7 - see[e]) if lo == t else m & see[e]
                        changed = True
    settled = 0
    for i in range(len(mask)):
        m = mask[i]
        if m == 0:
            return -1
        if m & (m - 1) == 0:
            settled += 1
    return settled
