"""The numba kernels of Map's generator (imported on first generation only).

* :func:`grow`: the grown map of :func:`.geometry.grow_map` and its region graph as neighbour
  lists (region i's neighbours ``nb[start[i]:start[i + 1]]``), which the other two take;
* :func:`colour`: a random four-colouring of the region graph (a backtracking search that colours
  next the region with the fewest colours left, ties by a random priority, trying each region's
  colours in a random order);
* :func:`reduce`: the clue reduction of ``reduce_colours`` at grade 0 or 1, and the grade of the
  result.

The deduction works on each region's set of colours still possible (four bits). It is exactly
unit propagation and failed-literal probing on the region-level formula of
:func:`.geometry.colouring_model` (at least one colour per region, no two, neighbours differ),
where ``x[i, k]`` is false once colour k has left region i's set and true once it is the only one
left: a region with one colour left takes it from its neighbours, and a set that empties is a
conflict. Probing tries each colour of each open region both ways (the region takes it; the colour
leaves it); a conflict keeps the other way. Both fixpoints are unique, so the decisions are those
of the clause-level deduction. One explicit signature per entry point; the caller passes every
buffer.
"""
from numba import types as nt

from ....solvers.native import kernel

_I = nt.int64[::1]
_B = nt.int8[::1]
#: (H, W, seeds, picks, label, offer_cell, offer_region, first, adj, start, nb) -> picks used
GROW_SIG = nt.int64(nt.int64, nt.int64, _I, nt.float64[::1], _I, _I, _I, _I, _B, _I, _I)
#: (start, nb, pref, priority, col, order, tried, limit) -> whether a colouring was found within limit steps
COLOUR_SIG = nt.boolean(_I, _I, _I, _I, _I, _I, _I, nt.int64)
#: (start, nb, col, order, grade, shown, left, dom, trail_r, trail_d, queue, least) -> the grade of the
#: clues kept (0, 1, 2)
REDUCE_SIG = nt.int64(_I, _I, _I, _I, nt.int64, _B, _I, _B, _I, _B, _I, nt.int64)
FOUR = 4
FULL = 15


@kernel(GROW_SIG, _nrt=False)
def grow(H, W, seeds, picks, label, offer_cell, offer_region, first, adj, start, nb):
    """:func:`.geometry.grow_map` on the seed cells ``seeds`` with the uniform draws ``picks``:
    ``label`` (H*W, filled with -1) gets each cell's region, renumbered in order of first
    appearance row by row; the region graph as neighbour lists, region i's neighbours
    ``nb[start[i]:start[i + 1]]`` in increasing order (``start``: n + 1). ``adj`` (n*n, zeroed: 1
    for each pair of regions sharing a cell edge), ``offer_cell``, ``offer_region`` (4 H W) and
    ``first`` (n) are scratch. Returns the number of draws used (-1 if ``picks`` ran out, -2 if
    ``nb`` is too short; 4 H W draws always suffice, one per offer made)."""
    n = len(seeds)
    m = 0
    for k in range(n):
        s = seeds[k]
        label[s] = k
    for k in range(n):
        s = seeds[k]
        r = s // W
        c = s - r * W
        # the edge neighbours in the order up, down, left, right
        if r > 0:
            offer_cell[m] = s - W
            offer_region[m] = k
            m += 1
        if r < H - 1:
            offer_cell[m] = s + W
            offer_region[m] = k
            m += 1
        if c > 0:
            offer_cell[m] = s - 1
            offer_region[m] = k
            m += 1
        if c < W - 1:
            offer_cell[m] = s + 1
            offer_region[m] = k
            m += 1
    left = H * W - n
    t = 0
    while left > 0:
        if t == len(picks):
            return -1
        j = int(picks[t] * m)
        t += 1
        i = offer_cell[j]
        k = offer_region[j]
        offer_cell[j] = offer_cell[m - 1]
        offer_region[j] = offer_region[m - 1]
        m -= 1
        if label[i] < 0:
            label[i] = k
            left -= 1
            r = i // W
            c = i - r * W
            if r > 0 and label[i - W] < 0:
                offer_cell[m] = i - W
                offer_region[m] = k
                m += 1
            if r < H - 1 and label[i + W] < 0:
                offer_cell[m] = i + W
                offer_region[m] = k
                m += 1
            if c > 0 and label[i - 1] < 0:
                offer_cell[m] = i - 1
                offer_region[m] = k
                m += 1
            if c < W - 1 and label[i + 1] < 0:
                offer_cell[m] = i + 1
                offer_region[m] = k
                m += 1
    # renumber by first appearance
    for k in range(n):
        first[k] = -1
    nxt = 0
    for i in range(H * W):
        k = label[i]
        if first[k] < 0:
            first[k] = nxt
            nxt += 1
        label[i] = first[k]
    for i in range(H * W):
        r = i // W
        c = i - r * W
        a = label[i]
        if c < W - 1:
            b = label[i + 1]
            if a != b:
                adj[a * n + b] = 1
                adj[b * n + a] = 1
        if r < H - 1:
            b = label[i + W]
            if a != b:
                adj[a * n + b] = 1
                adj[b * n + a] = 1
    m = 0
    for a in range(n):
        start[a] = m
        for b in range(n):
            if adj[a * n + b]:
                if m == len(nb):
                    return -2
                nb[m] = b
                m += 1
    start[n] = m
    return t


@kernel(COLOUR_SIG, _nrt=False)
def colour(start, nb, pref, priority, col, order, tried, limit):
    """A four-colouring of the region graph (region i's neighbours ``nb[start[i]:start[i + 1]]``)
    into ``col`` (n): depth first, each step colouring the uncoloured region with the fewest
    colours its coloured neighbours leave (ties: the lowest ``priority``), with the first colour
    of its row of ``pref`` (n*4, a permutation of 0..3 per region) not taken, backtracking when
    none is left. ``order``, ``tried`` (n) are scratch. False when ``limit`` steps did not suffice."""
    n = len(col)
    for i in range(n):
        col[i] = -1
    d = 0
    fresh = True
    steps = 0
    while d < n:
        steps += 1
        if steps > limit:
            return False
        if fresh:
            best = -1
            best_free = 5
            for i in range(n):
                if col[i] >= 0:
                    continue
                used = 0
                for q in range(start[i], start[i + 1]):
                    if col[nb[q]] >= 0:
                        used |= 1 << col[nb[q]]
                free = FOUR - ((used & 1) + ((used >> 1) & 1) + ((used >> 2) & 1) + ((used >> 3) & 1))
                if free < best_free or (free == best_free and priority[i] < priority[best]):
                    best = i
                    best_free = free
            order[d] = best
            tried[d] = 0
        r = order[d]
        col[r] = -1
        used = 0
        for q in range(start[r], start[r + 1]):
            if col[nb[q]] >= 0:
                used |= 1 << col[nb[q]]
        placed = False
        while tried[d] < FOUR:
            c = pref[r * FOUR + tried[d]]
            tried[d] += 1
            if not (used >> c) & 1:
                col[r] = c
                placed = True
                break
        if placed:
            d += 1
            fresh = True
        else:
            d -= 1
            if d < 0:
                return False
            fresh = False
    return True


@kernel(REDUCE_SIG, error_model="numpy", _nrt=False)
def reduce(start, nb, col, order, grade, shown, left, dom, trail_r, trail_d, queue, least):
    """The clue reduction: ``shown`` (n, all 1) loses the regions of ``order`` in turn, each kept
    out when deduction at ``grade`` (0 propagation, 1 probing; module docstring) from the clues
    left fixes its colour, the last region of a colour always staying. Then, when ``least`` is 1,
    the grade of what is left (0 when propagation fixes every region, 1 when probing does, else
    2); 1 without that test. ``left`` (4) counts the regions of each colour; ``dom`` (n),
    ``trail_r``, ``trail_d`` (4 n + 4: a probe's changes, undone after it) and ``queue`` (n + 1)
    are scratch."""
    n = len(col)
    for step in range(len(order) + 1):
        if step < len(order):
            target = order[step]
            if left[col[target]] == 1:
                continue
            shown[target] = 0
            g = grade
        else:
            if least == 0:
                return 1
            target = -1
            g = 1
        # propagation from the clues shown
        for i in range(n):
            dom[i] = FULL
        qn = 0
        for i in range(n):
            if shown[i]:
                dom[i] = 1 << col[i]
                queue[qn] = i
                qn += 1
        qh = 0
        while qh < qn:
            i = queue[qh]
            qh += 1
            bit = dom[i]
            for q in range(start[i], start[i + 1]):
                j = nb[q]
                if dom[j] & bit:
                    dom[j] &= ~bit
                    d = dom[j]
                    if d & (d - 1) == 0:  # one colour left (never none: the clues fit a colouring)
                        queue[qn] = j
                        qn += 1
        done = True
        if target >= 0:
            done = dom[target] == 1 << col[target]
        else:
            for i in range(n):
                if dom[i] & (dom[i] - 1):
                    done = False
                    break
            if done:
                return 0
        if not done and g == 1:
            # failed-literal probing to a fixpoint, stopping once the target is fixed
            changed = True
            while changed and not done:
                changed = False
                for i in range(n):
                    if done:
                        break
                    for c in range(FOUR):
                        bit = 1 << c
                        for way in range(2):
                            if not dom[i] & bit or dom[i] == bit:
                                break
                            # the probe: region i takes colour c (way 0) or loses it (way 1)
                            tl = 1
                            trail_r[0] = i
                            trail_d[0] = dom[i]
                            dom[i] = bit if way == 0 else dom[i] & ~bit
                            conflict = False
                            qn = 0
                            if dom[i] & (dom[i] - 1) == 0:
                                queue[qn] = i
                                qn += 1
                            qh = 0
                            while qh < qn and not conflict:
                                a = queue[qh]
                                qh += 1
                                b = dom[a]
                                for q in range(start[a], start[a + 1]):
                                    j = nb[q]
                                    if dom[j] & b:
                                        trail_r[tl] = j
                                        trail_d[tl] = dom[j]
                                        tl += 1
                                        dom[j] &= ~b
                                        d = dom[j]
                                        if d == 0:
                                            conflict = True
                                            break
                                        if d & (d - 1) == 0:
                                            queue[qn] = j
                                            qn += 1
                            while tl > 0:  # undo the probe
                                tl -= 1
                                dom[trail_r[tl]] = trail_d[tl]
                            if not conflict:
                                continue
                            # the other way holds at the root: propagate it there
                            dom[i] = dom[i] & ~bit if way == 0 else bit
                            changed = True
                            qn = 0
                            if dom[i] & (dom[i] - 1) == 0:
                                queue[qn] = i
                                qn += 1
                            qh = 0
                            while qh < qn:
                                a = queue[qh]
                                qh += 1
                                b = dom[a]
                                for q in range(start[a], start[a + 1]):
                                    j = nb[q]
                                    if dom[j] & b:
                                        dom[j] &= ~b
                                        d = dom[j]
                                        if d & (d - 1) == 0:
                                            queue[qn] = j
                                            qn += 1
                            if target >= 0:
                                done = dom[target] == 1 << col[target]
                        if done:
                            break
            if target < 0:
                for i in range(n):
                    if dom[i] & (dom[i] - 1):
                        return 2
                return 1
        if target >= 0:
            if done:
                left[col[target]] -= 1
            else:
                shown[target] = 1
    return 1
