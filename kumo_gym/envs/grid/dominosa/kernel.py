"""The numba kernel of Dominosa's generator (imported on first generation only).

Dominosa's rules are "exactly one" constraints over the domino slots: one slot per cell (a slot
is in the groups of its two cells) and one slot per pair of numbers (a slot is in the group of its
pair). :func:`run` deduces on these groups directly what unit propagation over their pairwise CNF
(the generator's rules formula) deduces: a slot that comes true makes every other slot of its
three groups false; a group left with one slot that is not false makes it true; a group left with
none, or a slot made both, is a contradiction. With ``probe`` it then runs failed-literal probing
on every open slot to a fixpoint (a slot whose truth, or falsity, leads to a contradiction takes
the other value at the root), as the engine's probing does: the fixpoint does not depend on the
order, so the slots it leaves open are exactly those the CNF probing leaves open.

One entry point with the propagation written once in it, no allocation (the caller passes every
buffer), no reference counting: a small compile on first use, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
_I64_2 = nt.int64[:, ::1]
#: (nums, ends, pair_of, side, cell_start, cell_slots, probe, slot_groups, gstart, gslots, counts,
#:  value, nopen, value2, nopen2, queue) -> consistent
RUN_SIG = nt.boolean(_I64, _I64_2, _I64, nt.int64, _I64, _I64, nt.boolean, _I64_2, _I64, _I64, _I64,
                     _I8, _I64, _I8, _I64, _I64)


def scratch(ends: np.ndarray, n_cells: int, n_pairs: int) -> tuple:
    """``(slot_groups, gstart, gslots, counts, value, nopen, value2, nopen2, queue)`` for
    :func:`run` over the slots whose cells are ``ends`` (the cells' groups filled in)."""
    n, G = len(ends), n_cells + n_pairs
    groups = np.zeros((n, 3), np.int64)
    groups[:, :2] = ends
    return (groups, np.zeros(G + 1, np.int64), np.zeros(3 * n, np.int64), np.zeros(n_pairs + 1, np.int64),
            np.zeros(n, np.int8), np.zeros(G, np.int64), np.zeros(n, np.int8), np.zeros(G, np.int64),
            np.zeros(n + 1, np.int64))


@kernel(RUN_SIG, error_model="numpy", _nrt=False)
def run(nums, ends, pair_of, side, cell_start, cell_slots, probe, slot_groups, gstart, gslots, counts,
        value, nopen, value2, nopen2, queue):
    """Propagate (and with ``probe`` probe) from nothing assigned; False on a contradiction.

    ``nums`` are the numbers (row-major), ``ends[s]`` the cells of slot s, ``pair_of[a * side +
    b]`` (a <= b) the index of a pair, and the cells' groups ``cell_slots[cell_start[c]:
    cell_start[c + 1]]``. The pair groups are laid out here: ``slot_groups[s]`` are the three
    groups of slot s (cells first; groups past the cells are pairs) and group g's slots are
    ``gslots[gstart[g]:gstart[g + 1]]``. On return ``value[s]`` is 1 (true), -1 (false) or 0
    (open). The others are scratch: ``nopen`` counts each group's slots not yet propagated as
    false; ``queue`` holds the slots assigned and not yet propagated, ``s + 1`` true and
    ``-(s + 1)`` false (a slot is assigned once, so it enters at most once).
    """
    n = len(value)
    G = len(gstart) - 1
    C = len(cell_start) - 1
    for p in range(len(counts)):
        counts[p] = 0
    for s in range(n):
        a = nums[ends[s, 0]]
        b = nums[ends[s, 1]]
        p = pair_of[a * side + b] if a <= b else pair_of[b * side + a]
        slot_groups[s, 2] = C + p
        counts[p] += 1
    for g in range(C + 1):
        gstart[g] = cell_start[g]
    for j in range(cell_start[C]):
        gslots[j] = cell_slots[j]
    for g in range(C, G):
        gstart[g + 1] = gstart[g] + counts[g - C]
        counts[g - C] = gstart[g]  # now the next free place of the pair's group
    for s in range(n):
        p = slot_groups[s, 2] - C
        gslots[counts[p]] = s
        counts[p] += 1
    for s in range(n):
        value[s] = 0
    val = value
    cnt = nopen
    qlen = 0
    ok = True
    for g in range(G):
        nopen[g] = gstart[g + 1] - gstart[g]
        if nopen[g] == 0:
            return False
        if nopen[g] == 1:
            u = gslots[gstart[g]]
            if value[u] == 0:
                value[u] = 1
                queue[qlen] = u + 1
                qlen += 1
    stage = 0        # 0: root propagation; 1: probing s true; 2: probing s false; 3: root after a failed probe
    s = 0
    changed = False
    while True:
        head = 0
        while head < qlen and ok:
            lit = queue[head]
            head += 1
            t = abs(lit) - 1
            for k in range(3):
                g = slot_groups[t, k]
                if lit > 0:  # every other slot of the group false
                    for j in range(gstart[g], gstart[g + 1]):
                        u = gslots[j]
                        if u != t:
                            if val[u] == 1:
                                ok = False
                            elif val[u] == 0:
                                val[u] = -1
                                queue[qlen] = -(u + 1)
                                qlen += 1
                else:
                    cnt[g] -= 1
                    if cnt[g] == 0:
                        ok = False
                    elif cnt[g] == 1:  # the one slot not propagated as false: true (if it is open)
                        for j in range(gstart[g], gstart[g + 1]):
                            u = gslots[j]
                            if val[u] == 0:
                                val[u] = 1
                                queue[qlen] = u + 1
                                qlen += 1
                if not ok:
                    break
        qlen = 0
        sign = 1  # the value the next probe tries
        if stage == 0 or stage == 3:
            if not ok:
                return False
            if not probe:
                return True
            if stage == 3:
                changed = True
                s += 1
        elif stage == 1 or stage == 2:
            val = value
            cnt = nopen
            if not ok:  # s cannot take the probed value: the other one at the root
                ok = True
                want = -1 if stage == 1 else 1
                value[s] = want
                queue[0] = want * (s + 1)
                qlen = 1
                stage = 3
                continue
            if stage == 1:  # now try s false
                sign = -1
            else:
                s += 1
        if sign == 1:  # the next open slot to probe (rounds until nothing changes)
            while True:
                while s < n and value[s] != 0:
                    s += 1
                if s < n:
                    break
                if not changed:
                    return True
                changed = False
                s = 0
        # probe s = sign on a copy of the root's values
        for j in range(n):
            value2[j] = value[j]
        for g in range(G):
            nopen2[g] = nopen[g]
        val = value2
        cnt = nopen2
        val[s] = sign
        queue[0] = sign * (s + 1)
        qlen = 1
        stage = 1 if sign == 1 else 2
