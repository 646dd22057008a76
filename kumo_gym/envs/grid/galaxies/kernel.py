"""The numba kernel of Galaxies' generator (imported on first generation only).

:func:`run` draws a random symmetric partition the way ``geometry.random_symmetric_partition``
does (dots seeded on random free cells, at a cell's centre, on its right or lower edge or its
lower-right corner with the weights given, regions grown by a random free neighbour and its mirror
image, a new dot seeded when no region can grow) from pre-drawn uniforms, and then runs Galaxies'
own deduction on its dots, the fixpoint ``deduce.deduce_regions`` computes:

* R1: a cell known in one region is in no other; a cell with one region left is in it;
* R4: a cell is in k's region exactly when its mirror image about dot k is (never when that
  image is off the grid);
* R2: a cell that no path of cells still open to k joins to dot k's cells is not in k's region.

Every step follows from the rules (they are monotone, so the fixpoint does not depend on their
order): when it decides every cell the partition is the puzzle's only solution. One entry point,
buffers from the caller (no allocation): a small compile, cached on disk.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
_F64 = nt.float64[::1]
#: (H, W, seeds, weights, uniforms, nbr, dots, own, grow, opn, known, work) -> see :func:`run`
RUN_SIG = nt.int64(nt.int64, nt.int64, nt.int64, _F64, _F64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)


def scratch(H: int, W: int) -> tuple:
    """``(nbr, dots, own, grow, opn, known, work)`` for :func:`run` on an H x W grid: the neighbour
    table (cell i's neighbour up, right, down, left at ``4 * i + d``, -1 off the grid) and buffers."""
    n = H * W
    r, c = np.divmod(np.arange(n), W)
    nbr = np.stack([np.where(r > 0, np.arange(n) - W, -1), np.where(c < W - 1, np.arange(n) + 1, -1),
                    np.where(r < H - 1, np.arange(n) + W, -1), np.where(c > 0, np.arange(n) - 1, -1)], axis=1)
    return (np.ascontiguousarray(nbr.ravel(), np.int64), np.zeros(2 * n, np.int64), np.zeros(n, np.int64), np.zeros(n * n + n, np.int64),
            np.zeros(n * n, np.int64), np.zeros(n * n, np.int64), np.zeros(5 * n + 8, np.int64))


@kernel(RUN_SIG, _nrt=False, error_model="numpy")
def run(H, W, seeds, weights, uniforms, nbr, dots, own, grow, opn, known, work):
    """Draw a partition into ``own`` (region of each cell, regions numbered as the dots come in
    ``dots``: r2, c2 per dot) and deduce from its dots. Returns ``K + 1`` (K dots) when the
    deduction decides every cell, ``-(K + 1)`` when it does not, 0 when the uniforms ran out.
    ``grow[k * n + cell]``: region k may grow by that cell and its mirror image (the last n
    entries count each region's candidates); ``opn``/``known`` the deduction's per-cell,
    per-region flags (cell * n + region); ``work`` a stack and a queue."""
    n = H * W
    cnt = n * n  # grow[cnt + k]: how many cells region k may grow by
    for i in range(n):
        own[i] = -1
    free, K, t = n, 0, 0
    while free > 0:
        # ---- one step: seed a dot when due (the first ``seeds``, or no region can grow) ...
        k = -1
        if K >= seeds:
            m = 0
            for j in range(K):
                if grow[cnt + j] > 0:
                    m += 1
            if m > 0:
                if t >= len(uniforms):
                    return 0
                pick = int(uniforms[t] * m)
                t += 1
                for j in range(K):
                    if grow[cnt + j] > 0:
                        if pick == 0:
                            k = j
                            break
                        pick -= 1
        stack = 0  # the cells taken this step: work[0:stack]
        if k < 0:
            if t + 2 > len(uniforms):
                return 0
            pick = int(uniforms[t] * free)
            t += 1
            cell = 0
            for i in range(n):
                if own[i] < 0:
                    if pick == 0:
                        cell = i
                        break
                    pick -= 1
            r, c = cell // W, cell % W
            total = 0.0
            for s in range(4):  # centre, right edge, lower edge, corner, where their cells are free
                dr, dc = s // 2, s % 2
                ok = r + dr < H and c + dc < W and own[cell + dc] < 0 and own[cell + dr * W] < 0 and \
                    own[cell + dr * W + dc] < 0
                work[2 * n + s] = 1 if ok else 0
                if ok:
                    total += weights[s]
            u = uniforms[t] * total
            t += 1
            s = 0
            for q in range(4):
                if work[2 * n + q]:
                    s = q
                    if u < weights[q]:
                        break
                    u -= weights[q]
            dr, dc = s // 2, s % 2
            k = K
            K += 1
            dots[2 * k] = 2 * r + dr
            dots[2 * k + 1] = 2 * c + dc
            grow[cnt + k] = 0
            for i in range(n):
                grow[k * n + i] = 0
            for a in range(dr + 1):
                for b in range(dc + 1):
                    work[stack] = cell + a * W + b
                    stack += 1
        else:
            # ... or grow region k by a random cell it may take (row-major order) and its mirror image
            if t >= len(uniforms):
                return 0
            pick = int(uniforms[t] * grow[cnt + k])
            t += 1
            for i in range(n):
                if grow[k * n + i]:
                    if pick == 0:
                        work[0] = i
                        break
                    pick -= 1
            work[1] = (dots[2 * k] - work[0] // W) * W + dots[2 * k + 1] - work[0] % W
            stack = 2
        # ---- take the cells: no region grows into them (or into what mirrors onto them) any more
        for q in range(stack):
            own[work[q]] = k
        free -= stack
        for j in range(K):
            if grow[cnt + j] == 0:
                continue
            for q in range(stack):
                x = work[q]
                if grow[j * n + x]:
                    grow[j * n + x] = 0
                    grow[cnt + j] -= 1
                a = dots[2 * j] - x // W
                b = dots[2 * j + 1] - x % W
                if 0 <= a < H and 0 <= b < W and grow[j * n + a * W + b]:
                    grow[j * n + a * W + b] = 0
                    grow[cnt + j] -= 1
        for q in range(stack):  # region k may grow next to them
            x = work[q]
            for d in range(4):
                y = nbr[4 * x + d]
                if y < 0:
                    continue
                a = dots[2 * k] - y // W
                b = dots[2 * k + 1] - y % W
                if own[y] < 0 and 0 <= a < H and 0 <= b < W and own[a * W + b] < 0 and a * W + b != y \
                        and not grow[k * n + y]:
                    grow[k * n + y] = 1
                    grow[cnt + k] += 1
    # ---- the deduction, from the cells each dot touches
    for i in range(n):
        for j in range(K):
            a, b = dots[2 * j] - i // W, dots[2 * j + 1] - i % W
            opn[i * n + j] = 1 if 0 <= a < H and 0 <= b < W else 0
            known[i * n + j] = 0
    for j in range(K):
        for a in range(dots[2 * j] // 2, (dots[2 * j] + 1) // 2 + 1):
            for b in range(dots[2 * j + 1] // 2, (dots[2 * j + 1] + 1) // 2 + 1):
                known[(a * W + b) * n + j] = 1
    dirty = 3 * n  # work[dirty + j]: region j's flags changed since its last flood
    done = 4 * n + 8  # work[done + i]: cell i is decided (nothing left to learn there)
    for j in range(K):
        work[dirty + j] = 1
    for i in range(n):
        work[done + i] = 0
    while True:
        changed = False
        for i in range(n):
            if work[done + i]:
                continue
            held, left, last = -1, 0, -1
            for j in range(K):
                if known[i * n + j]:
                    if held >= 0 or not opn[i * n + j]:
                        return -(K + 1)  # contradiction (cannot happen: the partition is a solution)
                    held = j
            for j in range(K):
                x = i * n + j
                if not opn[x]:
                    continue
                a, b = dots[2 * j] - i // W, dots[2 * j + 1] - i % W
                y = (a * W + b) * n + j
                if (held >= 0 and j != held) or not opn[y]:  # R1, R4
                    opn[x] = 0
                    work[dirty + j] = 1
                    changed = True
                    continue
                if known[y] and not known[x]:
                    known[x] = 1
                    work[dirty + j] = 1
                    held = j
                    changed = True
                left += 1
                last = j
            if left == 0:
                return -(K + 1)
            if left == 1:
                work[done + i] = 1
                if not known[i * n + last]:
                    known[i * n + last] = 1
                    work[dirty + last] = 1
                    changed = True
        if changed:
            continue  # the cheap rules first, the floods when they stall
        for j in range(K):  # R2: cells open to j that no open path joins to j's known cells
            if not work[dirty + j]:
                continue
            work[dirty + j] = 0
            head, tail = 0, 0
            for i in range(n):
                work[n + i] = 0
                if known[i * n + j]:
                    work[n + i] = 1
                    work[tail] = i
                    tail += 1
            while head < tail:
                x = work[head]
                head += 1
                for d in range(4):
                    y = nbr[4 * x + d]
                    if y >= 0 and not work[n + y] and opn[y * n + j]:
                        work[n + y] = 1
                        work[tail] = y
                        tail += 1
            for i in range(n):
                if opn[i * n + j] and not work[n + i]:
                    opn[i * n + j] = 0
                    work[dirty + j] = 1
                    changed = True
        if not changed:
            break
    for i in range(n):
        held = 0
        for j in range(K):
            held += known[i * n + j]
        if held != 1:
            return -(K + 1)
    return K + 1
