"""The numba kernels of Loopy's generator (imported on first generation only): the random region
whose boundary is the loop (square grid), and an exact solution counter that tells whether a clue
set leaves the loop the only one (any tiling; ``search.py`` drives both).

The board is a plain graph: dots, edges (two dots, one or two faces each) and faces (their edges),
in compressed rows. Each edge is unknown (0), on the loop (1) or off it (2). The counter propagates
what every solution must have, to a fixed point: a dot has two edges on the loop or none; a face
with a clue n has exactly n sides on it; the loop's pieces so far are kept as chains (each end knows
the other end and the chain's length), so an edge that would close a chain into a loop is off
unless that loop would hold every edge drawn so far, and one that closes the loop ends the search
there (every other edge off, every clue met or a contradiction). When propagation is stuck it
branches on an edge at a chain's end (the solution's value first) and undoes by a trail. It stops at
two solutions (the answer's and another, which it returns), or when a budget of branches runs out
(the caller then asks SAT). Every step holds in every solution, so the count is exact.

No builtin calls, no allocation (the caller passes every buffer): one compile on first use, cached
on disk.
"""
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
_F64 = nt.float64[::1]
#: (ed, ef, dptr, dedg, fptr, fedg, clue, truth, st, trail, stack, inq, lev, alt, work, colours, budget) -> see :func:`count`
COUNT_SIG = nt.int64(_I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, nt.int64,
                     nt.int64)
#: (H, W, r, c, target, draws, weight, inside, score, cand, cdf) -> see :func:`region`
REGION_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, _F64, _F64, _I64, _I64, _I64, _F64)


@kernel(inner=True, _nrt=False)
def _put(st, trail, meta, pos, v):
    """Set ``st[pos]`` to ``v``, its old value on the trail (``meta[0]``: the trail's length)."""
    t = meta[0]
    trail[2 * t] = pos
    trail[2 * t + 1] = st[pos]
    meta[0] = t + 1
    st[pos] = v


@kernel(inner=True, _nrt=False)
def _push(stack, inq, meta, item):
    """Queue a dot (``item`` < dots) or a face (dots + face) for the rules, once (``meta[1]``: queue length)."""
    if inq[item] == 0:
        inq[item] = 1
        stack[meta[1]] = item
        meta[1] += 1


@kernel(inner=True, _nrt=False)
def _find(st, D, n1, x):
    """The colour class of face ``x`` (the outside is face ``n1 - 1``) and its colour relative to the
    class's root (0 the same, 1 the other): the classes are a union-find without path compression
    (so the trail can undo it) at ``st[D:]``: parents, parities, ranks (``n1`` each)."""
    p = 0
    while st[D + x] != x:
        p ^= st[D + n1 + x]
        x = st[D + x]
    return x, p


@kernel(inner=True, _nrt=False)
def _set(ed, ef, st, trail, stack, inq, meta, e, v, nd, ne, nf):
    """Give unknown edge ``e`` value ``v`` (1 on, 2 off) and update the counts of its dots and faces;
    an edge put on joins its dots' chains. False on a contradiction found doing so. ``st``'s layout:
    values (ne), per dot on-count, unknown-count, chain mate, chain length (nd each), per face on-count,
    unknown-count (nf each), the number of edges on, whether the loop is closed, then the colour classes
    (:func:`_find`). An edge joins the classes of its two faces (the same colour when off)."""
    DON, DUNK, MATE, CLEN = ne, ne + nd, ne + 2 * nd, ne + 3 * nd
    FON, FUNK, NON, CLOSED = ne + 4 * nd, ne + 4 * nd + nf, ne + 4 * nd + 2 * nf, ne + 4 * nd + 2 * nf + 1
    if v == 1 and st[CLOSED] == 1:  # the loop is closed: nothing more is on
        return False
    _put(st, trail, meta, e, v)
    a, b = ed[2 * e], ed[2 * e + 1]
    da, db = st[DON + a], st[DON + b]
    for k in range(2):
        d = ed[2 * e + k]
        _put(st, trail, meta, DUNK + d, st[DUNK + d] - 1)
        if v == 1:
            _put(st, trail, meta, DON + d, st[DON + d] + 1)
        _push(stack, inq, meta, d)
        f = ef[2 * e + k]
        if f >= 0:
            _put(st, trail, meta, FUNK + f, st[FUNK + f] - 1)
            if v == 1:
                _put(st, trail, meta, FON + f, st[FON + f] + 1)
            _push(stack, inq, meta, nd + f)
    D, n1 = ne + 4 * nd + 2 * nf + 2, nf + 1
    f1, f2 = ef[2 * e], ef[2 * e + 1]
    if f2 < 0:
        f2 = nf
    ra, pa = _find(st, D, n1, f1)
    rb, pb = _find(st, D, n1, f2)
    want = 1 if v == 1 else 0
    if ra == rb:
        if pa ^ pb != want:
            return False
    else:
        if st[D + 2 * n1 + ra] < st[D + 2 * n1 + rb]:
            ra, pa, rb, pb = rb, pb, ra, pa
        _put(st, trail, meta, D + rb, ra)
        _put(st, trail, meta, D + n1 + rb, pa ^ pb ^ want)
        if st[D + 2 * n1 + ra] == st[D + 2 * n1 + rb]:
            _put(st, trail, meta, D + 2 * n1 + ra, st[D + 2 * n1 + ra] + 1)
    if v == 2:
        return True
    if da >= 2 or db >= 2:
        return False
    _put(st, trail, meta, NON, st[NON] + 1)
    ea, la, eb, lb = a, 0, b, 0
    if da == 1:
        ea, la = st[MATE + a], st[CLEN + a]
    if db == 1:
        eb, lb = st[MATE + b], st[CLEN + b]
    if da == 1 and db == 1 and ea == b:  # the edge closes a chain: the loop, or a contradiction
        if st[NON] != la + 1:
            return False
        _put(st, trail, meta, CLOSED, 1)
        return True
    n = la + lb + 1
    _put(st, trail, meta, MATE + ea, eb)
    _put(st, trail, meta, MATE + eb, ea)
    _put(st, trail, meta, CLEN + ea, n)
    _put(st, trail, meta, CLEN + eb, n)
    return True


@kernel(inner=True, _nrt=False)
def _closer_off(ed, ef, dptr, dedg, st, trail, stack, inq, meta, nd, ne, nf):
    """Every unknown edge joining the two ends of one chain is off when the chain does not hold every
    edge on (closing it would leave those out). Returns False on a contradiction."""
    DON, MATE, CLEN, NON = ne, ne + 2 * nd, ne + 3 * nd, ne + 4 * nd + 2 * nf
    for d in range(nd):
        if st[DON + d] != 1 or st[CLEN + d] == st[NON]:
            continue
        m = st[MATE + d]
        if m < d:
            continue
        for j in range(dptr[d], dptr[d + 1]):
            g = dedg[j]
            if st[g] == 0 and ed[2 * g] + ed[2 * g + 1] - d == m and \
                    not _set(ed, ef, st, trail, stack, inq, meta, g, 2, nd, ne, nf):
                return False
    return True


@kernel(inner=True, _nrt=False)
def _colours(ed, ef, fptr, fedg, clue, st, trail, stack, inq, meta, work, nd, ne, nf):
    """The faces' colours (inside or outside the loop; an edge is on where they differ): an unknown edge
    between two faces of one class is set; round a clued face, the unknown sides whose faces share a
    class go on or off together by their relative colours (a class adds one of two counts), and the
    counts a class can add must let the clue be met (bounds on each class). False on a contradiction.
    ``work``: 3 x the most sides a face has."""
    FON, D, n1 = ne + 4 * nd, ne + 4 * nd + 2 * nf + 2, nf + 1
    for e in range(ne):
        if st[e] == 0:
            f2 = ef[2 * e + 1]
            ra, pa = _find(st, D, n1, ef[2 * e])
            rb, pb = _find(st, D, n1, f2 if f2 >= 0 else nf)
            if ra == rb and not _set(ed, ef, st, trail, stack, inq, meta, e, 1 if pa != pb else 2, nd, ne, nf):
                return False
    for f in range(nf):
        n = clue[f]
        if n < 0:
            continue
        rf, pf = _find(st, D, n1, f)
        k = 0
        for j in range(fptr[f], fptr[f + 1]):
            g = fedg[j]
            if st[g] == 0:
                h = ef[2 * g] + ef[2 * g + 1] - f if ef[2 * g + 1] >= 0 else nf
                rh, ph = _find(st, D, n1, h)
                if rh == rf:  # set by a side set just before
                    if not _set(ed, ef, st, trail, stack, inq, meta, g, 1 if ph != pf else 2, nd, ne, nf):
                        return False
                    continue
                work[3 * k] = g
                work[3 * k + 1] = rh
                work[3 * k + 2] = ph ^ pf
                k += 1
        if k == 0:
            continue
        lo, hi = 0, 0  # the fewest and most sides the classes can put on
        for i in range(k):
            first = True
            for j in range(i):
                first = first and work[3 * j + 1] != work[3 * i + 1]
            if first:
                a, b = 0, 0
                for j in range(i, k):
                    if work[3 * j + 1] == work[3 * i + 1]:
                        a += work[3 * j + 2] == 0
                        b += work[3 * j + 2] == 1
                lo += min(a, b)
                hi += max(a, b)
        need = n - st[FON + f]
        if need < lo or need > hi:
            return False
        if lo == hi:
            continue
        for i in range(k):
            first = True
            for j in range(i):
                first = first and work[3 * j + 1] != work[3 * i + 1]
            if not first:
                continue
            a, b = 0, 0
            for j in range(i, k):
                if work[3 * j + 1] == work[3 * i + 1]:
                    a += work[3 * j + 2] == 0
                    b += work[3 * j + 2] == 1
            if a == b:
                continue
            y = -1  # the class's colour against the face's: 1 puts its sides of relative colour 0 on
            if lo - min(a, b) + max(a, b) > need:
                y = 1 if a < b else 0
            elif hi - max(a, b) + min(a, b) < need:
                y = 1 if a > b else 0
            if y < 0:
                continue
            for j in range(i, k):
                g = work[3 * j]
                if work[3 * j + 1] == work[3 * i + 1] and st[g] == 0 and \
                        not _set(ed, ef, st, trail, stack, inq, meta, g, 1 if work[3 * j + 2] ^ y == 1 else 2,
                                 nd, ne, nf):
                    return False
    return True


@kernel(inner=True, _nrt=False)
def _propagate(ed, ef, dptr, dedg, fptr, fedg, clue, st, trail, stack, inq, meta, work, colours, nd, ne, nf):
    """The rules to a fixed point from the queued dots and faces: 0 on a contradiction, 2 when the
    loop is closed (and valid: every clue met; every other edge is then off), else 1."""
    DON, DUNK = ne, ne + nd
    FON, FUNK, CLOSED = ne + 4 * nd, ne + 4 * nd + nf, ne + 4 * nd + 2 * nf + 1
    ok = True
    while ok:
        while ok and meta[1] > 0:
            meta[1] -= 1
            item = stack[meta[1]]
            inq[item] = 0
            if st[CLOSED] == 1:
                continue
            if item < nd:
                on, unk = st[DON + item], st[DUNK + item]
                if on > 2 or (on == 1 and unk == 0):
                    ok = False
                elif unk > 0 and (on == 2 or on == 1 and unk == 1 or on == 0 and unk == 1):
                    v = 1 if on == 1 else 2
                    for j in range(dptr[item], dptr[item + 1]):
                        g = dedg[j]
                        if st[g] == 0:
                            ok = ok and _set(ed, ef, st, trail, stack, inq, meta, g, v, nd, ne, nf)
            else:
                f = item - nd
                n = clue[f]
                if n < 0:
                    continue
                on, unk = st[FON + f], st[FUNK + f]
                if on > n or on + unk < n:
                    ok = False
                elif unk > 0 and (on == n or on + unk == n):
                    v = 2 if on == n else 1
                    for j in range(fptr[f], fptr[f + 1]):
                        g = fedg[j]
                        if st[g] == 0:
                            ok = ok and _set(ed, ef, st, trail, stack, inq, meta, g, v, nd, ne, nf)
        if not ok or st[CLOSED] == 1:
            break
        before = meta[0]
        ok = _closer_off(ed, ef, dptr, dedg, st, trail, stack, inq, meta, nd, ne, nf)
        if ok and meta[0] == before and colours:
            ok = _colours(ed, ef, fptr, fedg, clue, st, trail, stack, inq, meta, work, nd, ne, nf)
        if meta[0] == before:
            break
    while meta[1] > 0:  # empty the queue (after a contradiction)
        meta[1] -= 1
        inq[stack[meta[1]]] = 0
    if not ok:
        return 0
    if st[CLOSED] == 1:
        for f in range(nf):  # the loop is closed: every clue must be met, every other edge off
            if clue[f] >= 0 and st[FON + f] != clue[f]:
                return 0
        for e in range(ne):
            if st[e] == 0:
                _put(st, trail, meta, e, 2)
        return 2
    return 1


@kernel(inner=True, _nrt=False)
def _choose(ed, dptr, dedg, fptr, fedg, clue, st, nd, ne, nf):
    """The edge to branch on: an unknown one at a chain's end (the end with fewest unknown edges),
    else one round a clued face, else any unknown one; -1 when none is left."""
    DON, DUNK = ne, ne + nd
    best, bu = -1, 1 << 30
    for d in range(nd):
        if st[DON + d] == 1 and 0 < st[DUNK + d] < bu:
            bu = st[DUNK + d]
            best = d
    if best >= 0:
        for j in range(dptr[best], dptr[best + 1]):
            if st[dedg[j]] == 0:
                return dedg[j]
    for f in range(nf):
        if clue[f] > 0:
            for j in range(fptr[f], fptr[f + 1]):
                if st[fedg[j]] == 0:
                    return fedg[j]
    for e in range(ne):
        if st[e] == 0:
            return e
    return -1


@kernel(inner=True, _nrt=False)
def _undo(st, trail, meta, mark):
    """Undo the trail back to length ``mark``."""
    t = meta[0]
    while t > mark:
        t -= 1
        st[trail[2 * t]] = trail[2 * t + 1]
    meta[0] = t


@kernel(COUNT_SIG, error_model="numpy", _nrt=False)
def count(ed, ef, dptr, dedg, fptr, fedg, clue, truth, st, trail, stack, inq, lev, alt, work, colours, budget):
    """How many loops the clues allow, up to 2 (-1: more than ``budget`` branches were needed).
    ``clue``: per face its number or -1; ``truth``: per edge 1 (on the answer's loop) or 2, the value
    tried first; on 2, ``alt`` holds the other loop's edges (1 on, 2 off). ``colours``: 1 to reason with
    the faces' colour classes too (:func:`_colours`), 0 for the counts and chains alone. Scratch: ``st``
    (edges + 4 dots + 5 faces + 5), ``trail`` (40 edges + 16), ``stack`` and ``inq`` (dots + faces,
    ``inq`` zero), ``lev`` (3 edges + 6; its last entry gets the number of branches), ``work`` (3 x the
    most sides of a face)."""
    nd, ne, nf = len(dptr) - 1, len(ed) // 2, len(fptr) - 1
    DON, DUNK, MATE, CLEN = ne, ne + nd, ne + 2 * nd, ne + 3 * nd
    FON, FUNK, NON, CLOSED = ne + 4 * nd, ne + 4 * nd + nf, ne + 4 * nd + 2 * nf, ne + 4 * nd + 2 * nf + 1
    meta = lev[3 * ne + 3:3 * ne + 5]  # the trail's and the queue's lengths
    meta[0] = 0
    meta[1] = 0
    for e in range(ne):
        st[e] = 0
    for d in range(nd):
        st[DON + d] = 0
        st[DUNK + d] = dptr[d + 1] - dptr[d]
        st[MATE + d] = d
        st[CLEN + d] = 0
        _push(stack, inq, meta, d)
    for f in range(nf):
        st[FON + f] = 0
        st[FUNK + f] = fptr[f + 1] - fptr[f]
        if clue[f] >= 0:
            _push(stack, inq, meta, nd + f)
    st[NON] = 0
    st[CLOSED] = 0
    D, n1 = ne + 4 * nd + 2 * nf + 2, nf + 1
    for x in range(n1):
        st[D + x] = x
        st[D + n1 + x] = 0
        st[D + 2 * n1 + x] = 0
    found, level, branches = 0, 0, 0
    lev[3 * ne + 5] = 0
    r = _propagate(ed, ef, dptr, dedg, fptr, fedg, clue, st, trail, stack, inq, meta, work, colours, nd, ne, nf)
    while True:
        if r != 0:
            e = -1
            if r == 1:
                e = _choose(ed, dptr, dedg, fptr, fedg, clue, st, nd, ne, nf)
            if e >= 0:
                branches += 1
                lev[3 * ne + 5] = branches
                if branches > budget:
                    return -1
                lev[3 * level] = meta[0]
                lev[3 * level + 1] = e
                lev[3 * level + 2] = 0
                level += 1
                r = 0
                if _set(ed, ef, st, trail, stack, inq, meta, e, truth[e], nd, ne, nf):
                    r = _propagate(ed, ef, dptr, dedg, fptr, fedg, clue, st, trail, stack, inq, meta, work, colours, nd, ne, nf)
                else:
                    while meta[1] > 0:
                        meta[1] -= 1
                        inq[stack[meta[1]]] = 0
                continue
            if st[CLOSED] == 1:  # a loop: every edge is known
                same = True
                for g in range(ne):
                    same = same and st[g] == truth[g]
                found += 1
                if not same:
                    for g in range(ne):
                        alt[g] = st[g]
                if found >= 2:
                    return 2
        # back to the last branch whose other value is untried
        r = 0
        while level > 0 and r == 0:
            L = level - 1
            _undo(st, trail, meta, lev[3 * L])
            if lev[3 * L + 2] == 1:
                level -= 1
                continue
            lev[3 * L + 2] = 1
            e = lev[3 * L + 1]
            if _set(ed, ef, st, trail, stack, inq, meta, e, 3 - truth[e], nd, ne, nf):
                r = _propagate(ed, ef, dptr, dedg, fptr, fedg, clue, st, trail, stack, inq, meta, work, colours, nd, ne, nf)
            else:
                while meta[1] > 0:
                    meta[1] -= 1
                    inq[stack[meta[1]]] = 0
        if level == 0 and r == 0:
            return found


@kernel(REGION_SIG, error_model="numpy", _nrt=False)
def region(H, W, r, c, target, draws, weight, inside, score, cand, cdf):
    """Grow the square grid's random region from face (r, c) as :func:`geometry.random_region` does,
    with ``draws`` the uniform numbers its choices take in turn (each choice as numpy's weighted
    choice makes it from one such number): ``inside`` (H W, zero) gets the region; returns how many
    numbers were used. Scratch: ``score`` (H W, -1: not next to the region), ``cand``, ``cdf`` (H W)."""
    for i in range(H * W):
        score[i] = -1
    count, used = 1, 0
    while True:
        inside[r * W + c] = 1
        score[r * W + c] = -1
        for k in range(8):
            dr = -1 if k in (0, 1, 7) else (1 if k in (3, 4, 5) else 0)
            dc = 1 if k in (1, 2, 3) else (-1 if k in (5, 6, 7) else 0)
            rr, cc = r + dr, c + dc
            if 0 <= rr < H and 0 <= cc < W and inside[rr * W + cc] == 0:
                # the ring round (rr, cc): one unbroken run of region faces holding a side neighbour
                n, runs, side, prev = 0, 0, False, False
                for j in range(9):
                    q = j % 8
                    qr = -1 if q in (0, 1, 7) else (1 if q in (3, 4, 5) else 0)
                    qc = 1 if q in (1, 2, 3) else (-1 if q in (5, 6, 7) else 0)
                    ar, ac = rr + qr, cc + qc
                    x = 0 <= ar < H and 0 <= ac < W and inside[ar * W + ac] == 1
                    if j > 0 and x and not prev:
                        runs += 1
                    if j < 8:
                        n += x
                        if x and q % 2 == 0:
                            side = True
                    prev = x
                score[rr * W + cc] = n if runs == 1 and side else 0
        m = 0
        for i in range(H * W):
            if score[i] > 0:
                cand[m] = i
                m += 1
        if count >= target or m == 0:
            return used
        total = 0.0
        for j in range(m):
            total += weight[score[cand[j]]]
        acc = 0.0
        for j in range(m):
            acc += weight[score[cand[j]]] / total
            cdf[j] = acc
        last = cdf[m - 1]
        u = draws[used]
        used += 1
        pick = 0
        for j in range(m):
            if cdf[j] / last <= u:
                pick = j + 1
        pick = min(pick, m - 1)
        r, c = cand[pick] // W, cand[pick] % W
        count += 1
