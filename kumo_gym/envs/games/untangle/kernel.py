"""The numba kernels of Untangle's generator and reference solution (imported on first generation).

They compute exactly what the plain functions of :mod:`.generate` and :mod:`.geometry` state, with
the same integer orientation tests, on int64 arrays: points as ``x``, ``y`` and edges as ``u``,
``v`` (their ends). Each is one entry point with one explicit signature (the fault tests are two compiled helpers);
the caller passes every buffer, so nothing allocates.

* :func:`draw`: the greedy planar graph of :func:`.generate.draw_graph` on given points;
* :func:`fault` (:func:`_fault`, which :func:`prune` calls too): the first rule :func:`.geometry.first_fault` finds broken (0: none), and
  whether two edges meet anywhere but at a shared end (:func:`.geometry.crossings` above 0);
* :func:`prune`: the reference solution's moves dropped one by one while the placement stays
  untangled without them (``UntangleTask._moves_to``).
"""
from numba import types as nt

from ....solvers.native import kernel

_I = nt.int64[::1]
_B = nt.int8[::1]
#: (x, y, deg, adj, refused, order, cand, key, eu, ev) -> number of edges (adj, refused: n*n)
DRAW_SIG = nt.int64(_I, _I, _I, _B, _B, _I, _I, _I, _I, _I)
#: (x, y, eu, ev, m, crossing_only) -> rule index + 1 of the first fault (0: none); with crossing_only,
#: 1 when two edges meet anywhere but at a shared end, else 0
FAULT_SIG = nt.int64(_I, _I, _I, _I, nt.int64, nt.boolean)
#: (sx, sy, tx, ty, eu, ev, m, moved, px, py) -> how many moves are kept (moved: 1 for each kept one)
PRUNE_SIG = nt.int64(_I, _I, _I, _I, _I, _I, nt.int64, _B, _I, _I)
#: (x, y, eu, ev, m, p) -> whether some fault involves point p
MOVED_SIG = nt.boolean(_I, _I, _I, _I, nt.int64, nt.int64)
MAX_DEGREE = 4
#: (ax, ay, bx, by, px, py) -> the side of the line through a and b that p lies on
SIDE_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.int64)


@kernel(SIDE_SIG, inner=True, _nrt=False)
def _side(ax, ay, bx, by, px, py):
    """The sign of the cross product (b - a) x (p - a), exactly: 1 left of a->b, -1 right, 0 on the line."""
    v = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    return (v > 0) - (v < 0)


@kernel(DRAW_SIG, _nrt=False)
def draw(x, y, deg, adj, refused, order, cand, key, eu, ev):
    """:func:`.generate.draw_graph`'s edges on the points ``(x[i], y[i])``, written to ``eu``, ``ev``
    (room for 2n); ``deg``, ``adj`` and ``refused`` (n*n) zeroed, ``order``, ``cand``, ``key`` (n)
    scratch. Returns the number of edges."""
    n = len(x)
    m = 0
    while True:
        added = False
        # the points by (degree, number): insertion sort on degree * n + number
        for i in range(n):
            key[i] = deg[i] * n + i
            order[i] = i
        for i in range(1, n):
            kv = key[order[i]]
            o = order[i]
            q = i - 1
            while q >= 0 and key[order[q]] > kv:
                order[q + 1] = order[q]
                q -= 1
            order[q + 1] = o
        for i in range(n):
            j = order[i]
            if deg[j] >= MAX_DEGREE:
                break
            nc = 0
            for q in range(i + 1, n):
                k = order[q]
                if deg[k] < MAX_DEGREE and adj[j * n + k] == 0 and refused[j * n + k] == 0:
                    cand[nc] = k
                    nc += 1
            # by (squared distance, number)
            for q in range(nc):
                k = cand[q]
                dx = x[k] - x[j]
                dy = y[k] - y[j]
                key[k] = (dx * dx + dy * dy) * n + k
            for q in range(1, nc):
                o = cand[q]
                kv = key[o]
                r = q - 1
                while r >= 0 and key[cand[r]] > kv:
                    cand[r + 1] = cand[r]
                    r -= 1
                cand[r + 1] = o
            for q in range(nc):
                k = cand[q]
                ax = x[j]
                ay = y[j]
                bx = x[k]
                by = y[k]
                ok = True
                # no other point on the segment strictly between its ends
                for p in range(n):
                    if p == j or p == k:
                        continue
                    cx = x[p]
                    cy = y[p]
                    if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) != 0:
                        continue
                    if (cx == ax and cy == ay) or (cx == bx and cy == by):
                        continue
                    if (min(ax, bx) <= cx <= max(ax, bx)) and (min(ay, by) <= cy <= max(ay, by)):
                        ok = False
                        break
                # no edge with four distinct ends meeting it
                if ok:
                    for e in range(m):
                        u = eu[e]
                        v = ev[e]
                        if u == j or u == k or v == j or v == k:
                            continue
                        cx = x[u]
                        cy = y[u]
                        dx = x[v]
                        dy = y[v]
                        o1 = _side(ax, ay, bx, by, cx, cy)
                        o2 = _side(ax, ay, bx, by, dx, dy)
                        o3 = _side(cx, cy, dx, dy, ax, ay)
                        o4 = _side(cx, cy, dx, dy, bx, by)
                        hit = o1 * o2 < 0 and o3 * o4 < 0
                        if not hit:
                            hit = ((ax == cx and ay == cy) or (ax == dx and ay == dy)
                                   or (bx == cx and by == cy) or (bx == dx and by == dy))
                        # an end strictly inside the other segment
                        if not hit and o1 == 0 and not (cx == ax and cy == ay) and not (cx == bx and cy == by):
                            hit = min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)
                        if not hit and o2 == 0 and not (dx == ax and dy == ay) and not (dx == bx and dy == by):
                            hit = min(ax, bx) <= dx <= max(ax, bx) and min(ay, by) <= dy <= max(ay, by)
                        if not hit and o3 == 0 and not (ax == cx and ay == cy) and not (ax == dx and ay == dy):
                            hit = min(cx, dx) <= ax <= max(cx, dx) and min(cy, dy) <= ay <= max(cy, dy)
                        if not hit and o4 == 0 and not (bx == cx and by == cy) and not (bx == dx and by == dy):
                            hit = min(cx, dx) <= bx <= max(cx, dx) and min(cy, dy) <= by <= max(cy, dy)
                        if hit:
                            ok = False
                            break
                if not ok:
                    refused[j * n + k] = 1
                    refused[k * n + j] = 1
                    continue
                eu[m] = j
                ev[m] = k
                m += 1
                adj[j * n + k] = 1
                adj[k * n + j] = 1
                deg[j] += 1
                deg[k] += 1
                added = True
                break
            if added:
                break
        if not added:
            return m


@kernel(FAULT_SIG, inner=True, _nrt=False)
def _fault(x, y, eu, ev, m, crossing_only):
    """The first broken rule of :func:`.geometry.first_fault` as its index in ``RULES`` plus one
    (0: the placement of points ``(x, y)`` with edges ``eu[:m]``, ``ev[:m]`` is untangled). With
    ``crossing_only``: 1 when two edges meet anywhere but at an end they share (as
    :func:`.geometry.crossings` counts them; edges with a common end count when they overlap),
    else 0."""
    n = len(x)
    if not crossing_only:
        for i in range(n):  # 1: points_coincide
            for j in range(i + 1, n):
                if x[i] == x[j] and y[i] == y[j]:
                    return 1
    for rule in range(2, 5):
        if crossing_only and rule != 4:
            continue
        for e in range(m):
            a = eu[e]
            b = ev[e]
            ax = x[a]
            ay = y[a]
            bx = x[b]
            by = y[b]
            if rule == 3:  # edge_through_point
                if ax == bx and ay == by:
                    continue
                for p in range(n):
                    if p == a or p == b:
                        continue
                    cx = x[p]
                    cy = y[p]
                    if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) != 0:
                        continue
                    if (cx == ax and cy == ay) or (cx == bx and cy == by):
                        continue
                    if min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by):
                        return 3
                continue
            for f in range(e + 1, m):
                c = eu[f]
                d = ev[f]
                cx = x[c]
                cy = y[c]
                dx = x[d]
                dy = y[d]
                o1 = _side(ax, ay, bx, by, cx, cy)
                o2 = _side(ax, ay, bx, by, dx, dy)
                o3 = _side(cx, cy, dx, dy, ax, ay)
                o4 = _side(cx, cy, dx, dy, bx, by)
                shared = a == c or a == d or b == c or b == d
                # on one line, sharing a stretch of positive length (:func:`.geometry.overlap`)
                over = False
                if o1 == 0 and o2 == 0 and (ax == bx) == (cx == dx):
                    if ax != bx:
                        lo = max(min(ax, bx), min(cx, dx))
                        hi = min(max(ax, bx), max(cx, dx))
                    else:
                        lo = max(min(ay, by), min(cy, dy))
                        hi = min(max(ay, by), max(cy, dy))
                    over = lo < hi
                if rule == 2:  # edges_overlap, of edges of positive length
                    if over and not (ax == bx and ay == by) and not (cx == dx and cy == dy):
                        return 2
                    continue
                if not crossing_only:  # edges_cross: a proper crossing of edges with four distinct ends
                    if not shared and o1 * o2 < 0 and o3 * o4 < 0:
                        return 4
                    continue
                if shared:
                    if over:
                        return 1
                    continue
                hit = o1 * o2 < 0 and o3 * o4 < 0
                if not hit and o1 == 0:
                    hit = min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by)
                if not hit and o2 == 0:
                    hit = min(ax, bx) <= dx <= max(ax, bx) and min(ay, by) <= dy <= max(ay, by)
                if not hit and o3 == 0:
                    hit = min(cx, dx) <= ax <= max(cx, dx) and min(cy, dy) <= ay <= max(cy, dy)
                if not hit and o4 == 0:
                    hit = min(cx, dx) <= bx <= max(cx, dx) and min(cy, dy) <= by <= max(cy, dy)
                if hit:
                    return 1
    return 0


@kernel(FAULT_SIG, _nrt=False)
def fault(x, y, eu, ev, m, crossing_only):
    """:func:`_fault` (the entry point)."""
    return _fault(x, y, eu, ev, m, crossing_only)


@kernel(MOVED_SIG, inner=True, _nrt=False)
def _faulty_at(x, y, eu, ev, m, p):
    """Whether the placement has a fault that involves point ``p`` (its spot, or an edge ending at
    it): the faults a placement gains when only ``p`` moves."""
    n = len(x)
    px = x[p]
    py = y[p]
    for q in range(n):
        if q != p and x[q] == px and y[q] == py:
            return True
    for e in range(m):
        a = eu[e]
        b = ev[e]
        ax = x[a]
        ay = y[a]
        bx = x[b]
        by = y[b]
        if a != p and b != p:  # p strictly inside another edge
            if (bx - ax) * (py - ay) - (by - ay) * (px - ax) == 0 and not (px == ax and py == ay) \
                    and not (px == bx and py == by) and min(ax, bx) <= px <= max(ax, bx) \
                    and min(ay, by) <= py <= max(ay, by) and not (ax == bx and ay == by):
                return True
            continue
        if not (ax == bx and ay == by):  # another point strictly inside an edge of p
            for q in range(n):
                if q == a or q == b:
                    continue
                cx = x[q]
                cy = y[q]
                if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) != 0:
                    continue
                if (cx == ax and cy == ay) or (cx == bx and cy == by):
                    continue
                if min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by):
                    return True
        for f in range(m):  # an edge of p overlapping or crossing another edge
            if f == e:
                continue
            c = eu[f]
            d = ev[f]
            cx = x[c]
            cy = y[c]
            dx = x[d]
            dy = y[d]
            o1 = _side(ax, ay, bx, by, cx, cy)
            o2 = _side(ax, ay, bx, by, dx, dy)
            if (o1 == 0 and o2 == 0 and (ax == bx) == (cx == dx) and not (ax == bx and ay == by)
                    and not (cx == dx and cy == dy)):
                if ax != bx:
                    lo = max(min(ax, bx), min(cx, dx))
                    hi = min(max(ax, bx), max(cx, dx))
                else:
                    lo = max(min(ay, by), min(cy, dy))
                    hi = min(max(ay, by), max(cy, dy))
                if lo < hi:
                    return True
            if a == c or a == d or b == c or b == d or o1 * o2 >= 0:
                continue
            if _side(cx, cy, dx, dy, ax, ay) * _side(cx, cy, dx, dy, bx, by) < 0:
                return True
    return False


@kernel(PRUNE_SIG, _nrt=False)
def prune(sx, sy, tx, ty, eu, ev, m, moved, px, py):
    """From placement ``(sx, sy)``, the moves of the points with ``moved[p] == 1`` to ``(tx, ty)``,
    in point order, dropped one by one while the placement stays untangled (:func:`fault` 0)
    without them, in passes until a whole pass drops none (so every kept move is needed); ``moved`` is updated, ``px``, ``py`` are scratch. Returns how many are kept.

    The placement with every move made is tested once; when it is untangled, so is every
    placement kept on the way, and dropping a move changes one point, so only the faults that
    involve that point (:func:`_faulty_at`) are looked for."""
    n = len(sx)
    kept = 0
    for q in range(n):
        kept += moved[q]
        if moved[q] == 1:
            px[q] = tx[q]
            py[q] = ty[q]
        else:
            px[q] = sx[q]
            py[q] = sy[q]
    clean = _fault(px, py, eu, ev, m, False) == 0
    changed = True
    while changed:  # a drop can make an earlier kept move unneeded: pass again until none goes
        changed = False
        for p in range(n):
            if moved[p] == 0:
                continue
            px[p] = sx[p]
            py[p] = sy[p]
            if clean:
                fine = not _faulty_at(px, py, eu, ev, m, p)
            else:
                fine = _fault(px, py, eu, ev, m, False) == 0
            if fine:
                moved[p] = 0
                kept -= 1
                changed = True
            else:
                px[p] = tx[p]
                py[p] = ty[p]
    return kept
