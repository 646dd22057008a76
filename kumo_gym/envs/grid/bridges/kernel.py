"""The numba kernel of Bridges' generator (imported on first generation only).

:func:`generate` draws random solved boards (:func:`_layout`, our own code of Tatham's growth
method) until one is certified unique at the level asked for, all in one call. The certificate is
a deduction solver over the sight lines (the places a bridge can go), each with an interval
``lo..hi`` of bridge counts:

* an island's lines sum to its number: each line is at least the number minus what the others can
  give at most, and at most the number minus what the others give at least (bounds reasoning);
* a line with a bridge empties every line that crosses it;
* the lines that can still carry a bridge must join every island (else a contradiction), and with
  ``no_loops`` the lines that surely carry one must form no cycle.

Every step holds in every solution, so deduction that settles every line proves the board the only
solution. Grade 0: these rules alone settle it; grade 1: with failed-literal probing (each bound
``line <= v`` and ``line > v`` tried in turn; one that leads to a contradiction gives the other);
grade 2: neither does, and a complete search (branch on a line's count, deduce, count solutions up
to two) decides uniqueness. The search is exhaustive, so "one solution" is a proof too; a search
that exceeds its node budget rejects the board (never a wrong answer, only a redraw). Levels 0 and 1
grade without the global rules (connectivity, no loops), as the SAT model's probing grade without
its cuts: a board settled even so is unique all the same (fewer rules allow more solutions).
Level 2 grades with them.

Deduction states live in ``slots`` of one ``lo``/``hi`` buffer (slot d: depth d of the search;
slot 1 the scratch of probing). Random numbers come from a Lehmer generator (MINSTD) seeded by
the caller's numpy generator, so a seed gives the same board in any process. No allocation (the
caller passes every buffer, :func:`scratch`).
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I64 = nt.int64[::1]
#: the search nodes a uniqueness proof may use before the board is redrawn
SEARCH_BUDGET = 20000
#: (H, W, want, expansion, maxb, loops, level, grade_tries, seed, cells, isles, lines, cross, lo, hi, work, out)
GEN_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.boolean, nt.int64, nt.int64, nt.int64,
                   _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64)
#: (H, W, maxb, no_loops, cells, isles, lines, cross, lo, hi, work) -> see :func:`count`
COUNT_SIG = nt.int64(nt.int64, nt.int64, nt.int64, nt.boolean, _I64, _I64, _I64, _I64, _I64, _I64, _I64)
_OPT = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}


def scratch(H: int, W: int) -> tuple:
    """The buffers of :func:`generate` on an H x W grid: ``(cells, isles, lines, cross, lo, hi, work,
    out)`` (at most 2n sight lines on n cells, one crossing per cell)."""
    n = H * W
    lmax = 2 * n
    return (np.empty(4 * n, np.int64), np.empty(11 * n, np.int64), np.empty(10 * n + 2, np.int64),
            np.empty(2 * n, np.int64), np.empty((lmax + 2) * lmax, np.int64), np.empty((lmax + 2) * lmax, np.int64),
            np.empty(2 * lmax + 4, np.int64), np.empty(2 * n + 1, np.int64))


@kernel(nt.int64(_I64), inner=True, **_OPT)
def _rand(state):
    """The next number of the Lehmer generator in ``state[0]`` (below 2**31 - 1)."""
    state[0] = state[0] * 48271 % 2147483647
    return state[0]


@kernel(nt.int64(_I64, nt.int64), inner=True, **_OPT)
def _find(uf, x):
    while uf[x] != x:
        uf[x] = uf[uf[x]]
        x = uf[x]
    return x


@kernel(nt.boolean(nt.int64, nt.int64, nt.int64, nt.int64, nt.int64, nt.boolean, _I64, _I64, _I64), inner=True,
        **_OPT)
def _layout(H, W, want, expansion, maxb, loops, rng, cells, isles):
    """One random solved board, grown from one island: pick an island and a direction, then put a new
    island two or more cells away along free water (the farthest place with probability ``expansion``
    percent) whose sides touch no island, or, with loops allowed and that probability, bridge to the
    island already in sight; each new bridge is 1..maxb strong. Growth stops at ``want`` islands or
    after 50 failed tries in a row. ``cells[:n]``: each island's bridge ends (-1: not an island),
    ``cells[n:2n]``: the bridge through each cell (0 none, k: k across, 10 + k: k down). False when
    the islands miss a side of the grid."""
    n = H * W
    for i in range(n):
        cells[i] = -1
        cells[n + i] = 0
    ir = isles[0:n]
    ic = isles[n:2 * n]
    r0 = _rand(rng) % H
    c0 = _rand(rng) % W
    ir[0], ic[0] = r0, c0
    cells[r0 * W + c0] = 0
    count, misses = 1, 0
    while count < want and misses <= 50:
        k = _rand(rng) % count
        r, c = ir[k], ic[k]
        ways = (1 if c > 0 else 0) + (1 if c < W - 1 else 0) + (1 if r > 0 else 0) + (1 if r < H - 1 else 0)
        pick = _rand(rng) % ways
        dr, dc = 0, 0
        for d in range(4):  # left, right, up, down
            ddr = -1 if d == 2 else (1 if d == 3 else 0)
            ddc = -1 if d == 0 else (1 if d == 1 else 0)
            if 0 <= r + ddr < H and 0 <= c + ddc < W:
                if pick == 0:
                    dr, dc = ddr, ddc
                    break
                pick -= 1
        a, b = r + dr, c + dc
        if cells[a * W + b] >= 0 or cells[n + a * W + b] != 0:
            misses += 1
            continue
        far, target = 0, -1
        while 0 <= a < H and 0 <= b < W:
            if cells[a * W + b] < 0 and cells[n + a * W + b] == 0:
                far += 1
                a, b = a + dr, b + dc
                continue
            if cells[a * W + b] >= 0:
                target = a * W + b
                far -= 1  # keep a cell of water before that island
            break
        if loops and target >= 0 and _rand(rng) % 100 < expansion:
            gap = far + 1  # the water up to that island, bridged
        else:
            if far < 2:
                misses += 1
                continue
            dist = far if _rand(rng) % 100 < expansion else 2 + _rand(rng) % (far - 1)
            a, b = r + dr * dist, c + dc * dist
            if ((0 <= a + dc < H and 0 <= b + dr < W and cells[(a + dc) * W + b + dr] >= 0)
                    or (0 <= a - dc < H and 0 <= b - dr < W and cells[(a - dc) * W + b - dr] >= 0)):
                misses += 1
                continue
            cells[a * W + b] = 0
            ir[count], ic[count] = a, b
            count += 1
            gap = dist - 1
        strength = _rand(rng) % maxb + 1
        code = strength if dr == 0 else 10 + strength
        for s in range(1, gap + 1):
            cells[n + (r + dr * s) * W + c + dc * s] = code
        cells[r * W + c] += strength
        cells[(r + dr * (gap + 1)) * W + c + dc * (gap + 1)] += strength
        misses = 0
    if count < 2:
        return False
    sides = 0
    for k in range(count):
        sides |= (1 if ir[k] == 0 else 0) | (2 if ir[k] == H - 1 else 0) | (4 if ic[k] == 0 else 0) | \
                 (8 if ic[k] == W - 1 else 0)
    return sides == 15


@kernel(nt.int64(nt.int64, nt.int64, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, nt.int64, nt.int64),
        inner=True, **_OPT)
def _shut_crossings(o, m, N, xs, cross, lo, hi, la, lb, inq, q, head, size):
    """Line ``m`` has a bridge: every line crossing it is shut (``hi`` 0) and its islands queued.
    Returns the queue's new size, or -1 when a crossing line already has a bridge (a contradiction)."""
    for x in range(xs[m], xs[m + 1]):
        y = cross[x]
        if lo[o + y] >= 1:
            return -1
        if hi[o + y] > 0:
            hi[o + y] = 0
            for e in (la[y], lb[y]):
                if inq[e] == 0:
                    inq[e] = 1
                    q[(head + size) % N] = e
                    size += 1
    return size


@kernel(nt.boolean(nt.int64, nt.int64, nt.int64, nt.boolean, nt.boolean, nt.int64, _I64, _I64, _I64, _I64, _I64),
        inner=True, **_OPT)
def _settle(o, N, L, glob, no_loops, line, isles, lines, cross, lo, hi):
    """Deduction (module docstring) on slot offset ``o`` of ``lo``/``hi`` to its fixpoint; False on a
    contradiction. ``line`` >= 0: only that line changed since the last fixpoint; -1: start afresh.
    ``glob``: with the global rules (connectivity, and no loops with ``no_loops``)."""
    need = isles[2 * N:3 * N]
    nl = isles[3 * N:4 * N]
    il = isles[4 * N:8 * N]
    inq = isles[8 * N:9 * N]
    q = isles[9 * N:10 * N]
    uf = isles[10 * N:11 * N]
    la = lines[0:L]
    lb = lines[L:2 * L]
    xs = lines[6 * L:7 * L + 1]
    head, size = 0, 0
    for k in range(N):
        inq[k] = 0
    first, last = (0, L) if line < 0 else (line, line + 1)
    for m in range(first, last):  # the changed lines: their islands, and the lines they cross
        for e in (la[m], lb[m]):
            if inq[e] == 0:
                inq[e] = 1
                q[(head + size) % N] = e
                size += 1
        if lo[o + m] >= 1:
            size = _shut_crossings(o, m, N, xs, cross, lo, hi, la, lb, inq, q, head, size)
            if size < 0:
                return False
    if line < 0:
        for k in range(N):
            if inq[k] == 0:
                inq[k] = 1
                q[(head + size) % N] = k
                size += 1
    while size > 0:
        k = q[head]
        head = (head + 1) % N
        size -= 1
        inq[k] = 0
        slo, shi = 0, 0
        for j in range(nl[k]):
            m = il[4 * k + j]
            slo += lo[o + m]
            shi += hi[o + m]
        want = need[k]
        if slo > want or shi < want:
            return False
        for j in range(nl[k]):
            m = il[4 * k + j]
            other = la[m] + lb[m] - k
            low = want - (shi - hi[o + m])
            if low > lo[o + m]:
                if low > hi[o + m]:
                    return False
                was = lo[o + m]
                slo += low - was
                lo[o + m] = low
                if inq[other] == 0:
                    inq[other] = 1
                    q[(head + size) % N] = other
                    size += 1
                if inq[k] == 0:
                    inq[k] = 1
                    q[(head + size) % N] = k
                    size += 1
                if was == 0:
                    size = _shut_crossings(o, m, N, xs, cross, lo, hi, la, lb, inq, q, head, size)
                    if size < 0:
                        return False
            high = want - (slo - lo[o + m])
            if high < hi[o + m]:
                if high < lo[o + m]:
                    return False
                shi -= hi[o + m] - high
                hi[o + m] = high
                if inq[other] == 0:
                    inq[other] = 1
                    q[(head + size) % N] = other
                    size += 1
                if inq[k] == 0:
                    inq[k] = 1
                    q[(head + size) % N] = k
                    size += 1
    if not glob:
        return True
    # the lines that can carry a bridge join every island
    for k in range(N):
        uf[k] = k
    groups = N
    for m in range(L):
        if hi[o + m] > 0:
            x, y = _find(uf, la[m]), _find(uf, lb[m])
            if x != y:
                uf[x] = y
                groups -= 1
    if groups > 1:
        return False
    if no_loops:  # the lines that surely carry one form no cycle
        for k in range(N):
            uf[k] = k
        for m in range(L):
            if lo[o + m] > 0:
                x, y = _find(uf, la[m]), _find(uf, lb[m])
                if x == y:
                    return False
                uf[x] = y
    return True


@kernel(nt.int64(nt.int64, nt.int64, nt.boolean, nt.int64, _I64, _I64, _I64, _I64, _I64, _I64), inner=True, **_OPT)
def _solutions(N, L, no_loops, budget, isles, lines, cross, lo, hi, work):
    """How many solutions (up to two) extend the settled state of slot 0, by a complete search;
    -1 when it takes more than ``budget`` nodes. ``work[:2L+4]``: the branch line and next value per depth."""
    bl = work[0:L + 2]
    bv = work[L + 2:2 * L + 4]
    found, nodes, d = 0, 0, 0
    pick = -1
    for m in range(L):
        if lo[m] < hi[m] and (pick < 0 or hi[m] - lo[m] < hi[pick] - lo[pick]):
            pick = m
    if pick < 0:
        return 1
    bl[0], bv[0] = pick, lo[pick]
    while d >= 0:
        o = d * L
        m, v = bl[d], bv[d]
        if v > hi[o + m]:
            d -= 1
            continue
        bv[d] = v + 1
        p = o + L
        for i in range(L):
            lo[p + i] = lo[o + i]
            hi[p + i] = hi[o + i]
        lo[p + m] = v
        hi[p + m] = v
        nodes += 1
        if nodes > budget:
            return -1
        if not _settle(p, N, L, True, no_loops, m, isles, lines, cross, lo, hi):
            continue
        pick = -1
        for i in range(L):
            if lo[p + i] < hi[p + i] and (pick < 0 or hi[p + i] - lo[p + i] < hi[pick] - lo[pick]):
                pick = i
        if pick < 0:
            found += 1
            if found >= 2:
                return found
            continue
        d += 1
        bl[d], bv[d] = pick, lo[p + pick]
    return found


@kernel(nt.int64(nt.int64, nt.int64, nt.boolean, nt.boolean, _I64, _I64, _I64, _I64, _I64), inner=True, **_OPT)
def _grade(N, L, glob, no_loops, isles, lines, cross, lo, hi):
    """Slot 0 settled from scratch (``glob``: with the global rules, :func:`_settle`): 0 when that
    decides every line, 1 when probing does, 2 when neither (slot 0 then holds probing's fixpoint),
    -1 on a contradiction."""
    if not _settle(0, N, L, glob, no_loops, -1, isles, lines, cross, lo, hi):
        return -1
    open_ = 0
    for m in range(L):
        open_ += 1 if lo[m] < hi[m] else 0
    if open_ == 0:
        return 0
    progress = True
    while progress:
        progress = False
        for m in range(L):
            v = lo[m]
            while v < hi[m]:
                for side in range(2):  # side 0: try "m <= v"; side 1: try "m > v"
                    for i in range(L):
                        lo[L + i] = lo[i]
                        hi[L + i] = hi[i]
                    if side == 0:
                        hi[L + m] = v
                    else:
                        lo[L + m] = v + 1
                    if _settle(L, N, L, glob, no_loops, m, isles, lines, cross, lo, hi):
                        continue
                    if side == 0:
                        lo[m] = v + 1
                    else:
                        hi[m] = v
                    if not _settle(0, N, L, glob, no_loops, m, isles, lines, cross, lo, hi):
                        return -1
                    progress = True
                    break
                v += 1
    for m in range(L):
        if lo[m] < hi[m]:
            return 2
    return 1


@kernel(nt.void(nt.int64, nt.int64, _I64, _I64, _I64, _I64, _I64), inner=True, **_OPT)
def _start(L, maxb, need, la, lb, lo, hi):
    """Slot 0 before any deduction: every line 0 up to the fewest of maxb and its islands' numbers."""
    for m in range(L):
        lo[m] = 0
        hi[m] = min(maxb, need[la[m]], need[lb[m]])


@kernel(nt.UniTuple(nt.int64, 2)(nt.int64, nt.int64, _I64, _I64, _I64, _I64), inner=True, **_OPT)
def _build(H, W, cells, isles, lines, cross):
    """The deduction's tables of the board in ``cells`` (island numbers, -1 elsewhere, then the
    drawn bridges): ``(N, L)`` the islands and sight lines, laid out in ``isles`` (cell, -, number,
    line count, four lines each, then the deduction's scratch), ``lines`` (from island, to island,
    direction, first water cell, water cells, the drawn bridges, crossing offsets into ``cross``)."""
    n = H * W
    idx = cells[2 * n:3 * n]
    hat = cells[3 * n:4 * n]
    # the islands in row-major order with their numbers (isles: cell, -, need, line count, lines...)
    N = 0
    for i in range(n):
        if cells[i] >= 0:
            idx[i] = N
            isles[N] = i
            N += 1
        else:
            idx[i] = -1
    for k in range(N):
        isles[2 * N + k] = cells[isles[k]]
        isles[3 * N + k] = 0
    # the sight lines, at stride 2n first (their count L is not known yet): from island, to
    # island, direction (0 across, 1 down), first water cell, water cells
    L = 0
    for k in range(N):
        i = isles[k]
        r, c = i // W, i % W
        for d in range(2):
            dr, dc = (0, 1) if d == 0 else (1, 0)
            a, b, gap = r + dr, c + dc, 0
            while a < H and b < W and idx[a * W + b] < 0:
                a, b, gap = a + dr, b + dc, gap + 1
            if a < H and b < W and gap > 0:
                lines[L] = k
                lines[2 * n + L] = idx[a * W + b]
                lines[4 * n + L] = d
                lines[6 * n + L] = (r + dr) * W + c + dc
                lines[8 * n + L] = gap
                L += 1
    for blk in range(1, 5):  # repacked at stride L (each block moves down: no overlap)
        for m in range(L):
            lines[blk * L + m] = lines[2 * blk * n + m]
    la = lines[0:L]
    lb = lines[L:2 * L]
    ld = lines[2 * L:3 * L]
    lf = lines[3 * L:4 * L]
    ln = lines[4 * L:5 * L]
    sol = lines[5 * L:6 * L]
    xs = lines[6 * L:7 * L + 1]
    cur = lines[7 * L + 1:8 * L + 1]
    # each line's bridges in the drawn board, and the crossing lists (xs offsets into cross)
    for i in range(n):
        hat[i] = -1
    for m in range(L + 1):
        xs[m] = 0
    for m in range(L):
        code = cells[n + lf[m]]
        sol[m] = code if ld[m] == 0 and 1 <= code <= 4 else (code - 10 if ld[m] == 1 and code >= 11 else 0)
        if ld[m] == 0:
            for s in range(ln[m]):
                hat[lf[m] + s] = m
    for m in range(L):
        if ld[m] == 1:
            for s in range(ln[m]):
                h = hat[lf[m] + s * W]
                if h >= 0:
                    xs[m + 1] += 1
                    xs[h + 1] += 1
    for m in range(L):
        xs[m + 1] += xs[m]
        cur[m] = xs[m]
    for m in range(L):
        if ld[m] == 1:
            for s in range(ln[m]):
                h = hat[lf[m] + s * W]
                if h >= 0:
                    cross[cur[m]] = h
                    cur[m] += 1
                    cross[cur[h]] = m
                    cur[h] += 1
    for m in range(L):
        for e in (la[m], lb[m]):
            isles[4 * N + 4 * e + isles[3 * N + e]] = m
            isles[3 * N + e] += 1
    return N, L


@kernel(GEN_SIG, error_model="numpy", _nrt=False)
def generate(H, W, want, expansion, maxb, loops, level, grade_tries, seed, cells, isles, lines, cross, lo, hi, work,
             out):
    """Boards (:func:`_layout`) until one is unique at the level asked for: levels 0 and 1 take
    grade 0 or 1, level 2 grade 1 or 2 (beyond the rules alone; grade 2 proved unique by the
    search); after ``grade_tries`` draws the first unique board of another grade is taken. ``out[:2n]``: the board (each island's number or
    -1, then each cell's bridge code, as ``cells``); ``out[2n]`` the generator's state. Returns the
    board's grade, -1 when 5000 draws gave none."""
    n = H * W
    rng = out[2 * n:2 * n + 1]
    rng[0] = seed % 2147483646 + 1
    spare = -1
    no_loops = not loops
    for attempt in range(5000):
        if not _layout(H, W, want, expansion, maxb, loops, rng, cells, isles):
            continue
        N, L = _build(H, W, cells, isles, lines, cross)
        la = lines[0:L]
        lb = lines[L:2 * L]
        # levels 0 and 1: deduction without the global rules, as the SAT model's grade without its
        # cuts (sound all the same: fewer rules allow more solutions, and the board is one)
        if level < 2:
            _start(L, maxb, isles[2 * N:3 * N], la, lb, lo, hi)
            g = _grade(N, L, False, no_loops, isles, lines, cross, lo, hi)
            if g < 0:
                continue  # (never: the drawn board solves its own numbers)
            if g <= 1:
                for i in range(2 * n):
                    out[i] = cells[i]
                return g
            if spare >= 0:
                if attempt >= grade_tries:
                    return spare
                continue
        _start(L, maxb, isles[2 * N:3 * N], la, lb, lo, hi)
        g = _grade(N, L, True, no_loops, isles, lines, cross, lo, hi)
        if g < 0:
            continue
        if g == 2 and _solutions(N, L, no_loops, SEARCH_BUDGET, isles, lines, cross, lo, hi, work) != 1:
            continue
        if level == 2 and g >= 1:
            for i in range(2 * n):
                out[i] = cells[i]
            return g
        if spare < 0:
            for i in range(2 * n):
                out[i] = cells[i]
            spare = g
        if attempt >= grade_tries:
            return spare
    return -1


@kernel(COUNT_SIG, error_model="numpy", _nrt=False)
def count(H, W, maxb, no_loops, cells, isles, lines, cross, lo, hi, work):
    """How many solutions (0, 1 or 2 for two or more) the islands of ``cells[:n]`` (numbers, -1
    elsewhere; ``cells[n:2n]`` zeros) have, by the generator's deduction and search; -1 when the
    search exceeds its budget. The tests compare it with the SAT engine."""
    N, L = _build(H, W, cells, isles, lines, cross)
    _start(L, maxb, isles[2 * N:3 * N], lines[0:L], lines[L:2 * L], lo, hi)
    g = _grade(N, L, True, no_loops, isles, lines, cross, lo, hi)
    if g < 0:
        return 0
    if g <= 1:
        return 1
    return _solutions(N, L, no_loops, 50 * SEARCH_BUDGET, isles, lines, cross, lo, hi, work)


def count_of(grid: list[list], maxb: int, no_loops: bool) -> int:
    """:func:`count` of a state grid (island numbers, anything else water)."""
    H, W = len(grid), len(grid[0])
    cells, isles, lines, cross, lo, hi, work, _ = scratch(H, W)
    cells[:H * W] = [v if isinstance(v, int) else -1 for row in grid for v in row]
    cells[H * W:2 * H * W] = 0
    return int(count(H, W, int(maxb), bool(no_loops), cells, isles, lines, cross, lo, hi, work))
