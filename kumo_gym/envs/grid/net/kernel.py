"""The numba kernel of Net's generator (imported on first generation only): a deduction
solver for the tile orientations, with the tree growth and repair around it (``deduce.py``).

Tiles are 4-bit masks of their pipe ends (1 up, 2 right, 4 down, 8 left); ``nbr[4 * i + d]`` is
the tile that side d of tile i faces, -1 at a non-wrapping border or a barrier. The solver keeps
per tile the set of masks its turns still allow (a 16-bit set), per tile side whether the link
there is known open, known closed or unknown, classes of tiles known to be joined, and per tile
side an upper bound on how many tiles a pipe leaving that way can reach (a dead end). A mask is
dropped when it contradicts a known link, joins two tiles of one class (a loop), or joins only
dead ends that together hold fewer tiles than the grid (a separate network). Links every mask
agrees on become known; a tile whose masks all lead from dead ends into one direction makes that
direction, seen from the neighbour, a dead end of at most so many tiles. Every step holds in
every solution, so when each tile keeps one mask the network is the only one.

One function (numba links a called kernel into its caller and compiles it again), no builtin
calls, no allocation (the caller passes every buffer): one compile on first use, cached on disk.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
_RO = nt.Array(nt.int64, 1, "C", readonly=True)
#: bit m set for the masks m of three links: one more would make a cross (never generated)
CROSSING = (1 << 7) | (1 << 11) | (1 << 13) | (1 << 14)
#: (n, nbr, start, tries, seed, tree, poss, edge, dead, dsf, order, parent, grown) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, _RO, nt.int64, nt.int64, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)


@kernel(RUN_SIG, error_model="numpy", _nrt=False)
def run(n, nbr, start, tries, seed, tree, poss, edge, dead, dsf, order, parent, grown):
    """With ``start < 0``: the module docstring's deduction on the masks ``tree``, to its fixpoint;
    the number of tiles left with more than one mask (``poss``), -1 when some tile has none.

    With ``start >= 0``: a random spanning tree without crosses grown from ``start``, one random
    link leaving it at a time (Tatham's way), then, while the deduction leaves tiles undecided,
    grown again from the part around ``start`` that it decided (a repair of the undecided part),
    ``tries`` trees at most: 0 with the masks in ``tree``, -2 when none was solved. ``seed``
    (1 to 2**31 - 2) starts the random numbers. Scratch: ``poss``, ``dsf``, ``parent``, ``grown``
    (n), ``edge``, ``dead`` (4n: 0 unknown, 1 open, 2 closed; the dead-end bounds), ``order`` (4n)."""
    for attempt in range(tries if start >= 0 else 1):
        if start >= 0:  # grow: from the tiles the deduction decided that join ``start`` (none at first)
            for i in range(n):
                parent[i] = -1
                grown[i] = 0
            parent[start] = start
            dsf[0] = start
            head, joined, size = 0, 1, 0
            while head < joined:
                x = dsf[head]
                head += 1
                for d in range(4):
                    y = nbr[4 * x + d]
                    if y < 0 or parent[y] >= 0:
                        continue
                    if attempt > 0 and tree[x] >> d & 1 and not (poss[x] & (poss[x] - 1) or poss[y] & (poss[y] - 1)):
                        grown[x] |= 1 << d
                        grown[y] |= 1 << (d + 2) % 4
                        parent[y] = x
                        dsf[joined] = y
                        joined += 1
                    else:
                        order[size] = 4 * x + d
                        size += 1
            while joined < n and size > 0:
                seed = seed * 48271 % 2147483647  # a Lehmer generator (MINSTD): no overflow in 64 bits
                k = seed % size
                link = order[k]
                size -= 1
                order[k] = order[size]
                i, d, j = link // 4, link % 4, nbr[link]
                if parent[j] >= 0 or CROSSING >> grown[i] & 1:
                    continue  # inside already, or one more link would make a cross
                grown[i] |= 1 << d
                grown[j] |= 1 << (d + 2) % 4
                parent[j] = i
                joined += 1
                for e in range(4):
                    if nbr[4 * j + e] >= 0 and parent[nbr[4 * j + e]] < 0:
                        order[size] = 4 * j + e
                        size += 1
            if joined < n:
                continue
            for i in range(n):
                tree[i] = grown[i]
        for i in range(n):  # the deduction, from scratch
            m, s = tree[i], 0
            for _ in range(4):
                s |= 1 << m
                m = ((m << 1) | (m >> 3)) & 15
            poss[i] = s
            dsf[i] = i
            for d in range(4):
                edge[4 * i + d] = 2 if nbr[4 * i + d] < 0 else 0
                dead[4 * i + d] = n + 1
        left, changed, stamp = 0, True, n
        while changed and left >= 0:
            changed = False
            for i in range(n):
                own = dsf[i]
                new, anded, ored = 0, 15, 0
                for d in range(4):
                    order[d] = 0  # the dead-end bounds this tile sets on its neighbours, by side
                for m in range(16):
                    if not (poss[i] >> m) & 1:
                        continue
                    ok, total, free, fdir = True, 0, 0, 0
                    stamp += 1  # ``parent`` marks the classes this mask joins through unknown links
                    parent[own] = stamp
                    for d in range(4):
                        e = edge[4 * i + d]
                        if not (m >> d) & 1:
                            ok = ok and e != 1
                            continue
                        ok = ok and e != 2
                        if dead[4 * i + d] <= n:
                            total += dead[4 * i + d]
                        else:
                            free += 1
                            fdir = d
                        if e == 0:  # they must all differ
                            ok = ok and parent[dsf[nbr[4 * i + d]]] != stamp
                            parent[dsf[nbr[4 * i + d]]] = stamp
                    if not ok or (free == 0 and total + 1 < n):
                        continue  # ``not ok``, or a closed network short of the whole grid
                    new |= 1 << m
                    anded &= m
                    ored |= m
                    if free == 1:  # every other way is a dead end: so is this one, seen from the neighbour
                        order[fdir] = order[fdir] if order[fdir] > total else total + 1
                    elif free > 1:
                        for d in range(4):
                            if (m >> d) & 1 and dead[4 * i + d] > n:
                                order[d] = n + 1
                if new == 0:
                    left = -1
                    break
                if new != poss[i]:
                    poss[i] = new
                    changed = True
                for d in range(4):
                    j = nbr[4 * i + d]
                    if j < 0:
                        continue
                    back = 4 * j + (d + 2) % 4
                    if edge[4 * i + d] == 0 and ((anded >> d) & 1 or not (ored >> d) & 1):
                        edge[4 * i + d] = edge[back] = 2 - (anded >> d & 1)
                        if (anded >> d) & 1:  # the two classes become one (``dsf``: each tile's class)
                            a, b = dsf[i], dsf[j]
                            for x in range(n):
                                if dsf[x] == a:
                                    dsf[x] = b
                            own = b
                        changed = True
                    if 0 < order[d] < dead[back]:
                        dead[back] = order[d]
                        changed = True
        if left >= 0:
            for i in range(n):
                if poss[i] & (poss[i] - 1):
                    left += 1
        if start < 0 or left == 0:
            return left
    return -2
