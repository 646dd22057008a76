"""The numba kernel of Mines' oracle (imported on first use): :func:`deduce.play`, the generator's
games and the answer view on arrays, with the layout known.

The same deductions as ``deduce.py``, giving the same boards:

* the local rules to a fixpoint (a number whose covered neighbours must all be mines or all safe;
  one number's covered cells inside another's; the global count). Each rule only ever decides
  more when more is known, so the fixpoint is the same whatever the order they are applied in;
* the backbone of the frontier under the count's bounds (every frontier cell fixed in all
  assignments that meet the shown numbers, with between ``left - inner`` and ``left`` mines on
  the frontier), and the two tests of the cells off it. Python asks a SAT solver; here a
  depth-first search with propagation over the numbers' exact counts answers the same questions
  (does an assignment exist with this cell the other way, with a frontier count in this range?).
  The true layout is one assignment, so a cell is tested only when no assignment found so far
  shows it both ways, and a cell proved fixed joins the later searches as a fact. The answers are
  facts about the view, so they are the SAT solver's;
* :func:`play`: the oracle's game move by move (the golden trajectory);
* :func:`closure`: what the oracle can open, every proved-safe cell opened at once (the same
  view as :func:`play` ends at, as every rule only decides more when more is open), with, on
  request, the log of its deductions and their premises from which the answer view is read;
* :func:`settles`: whether a view fixes every mine (the answer view's certificate);
* :func:`perturb`: the generator's moves of mines where the oracle is stuck, each followed by a
  game that goes on from what was open.

A search that exceeds its node budget returns -1 and the caller takes the next path for that
call (the same answer, slower): a larger budget, or the Python path with SAT. Cells are
``i = r * W + c``; ``st`` holds per cell 0 covered and undecided, 1 opened, 2 a deduced mine, 3
deduced safe and not yet opened.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (nbr, nnb, mines, nums, n_mines, start, opened, st, moves, snap, out, work, budget) -> see :func:`play`
PLAY_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, nt.int64, _I64, _I8, _I64, _I8, _I64, _I64, nt.int64)
#: (nbr, nnb, mines, nums, n_mines, start, opened, st, log, view, work, budget) -> see :func:`_closure`
CLOSURE_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, nt.int64, _I64, _I8, _I64, _I8, _I64, nt.int64)
#: (nbr, nnb, mines, nums, n_mines, st, work, budget) -> see :func:`settles`
SETTLES_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, _I8, _I64, nt.int64)
#: nodes one search may visit before the caller falls back to SAT (``budget``)
BUDGET = 1_000
COVERED, OPENED, MINE, SAFE = 0, 1, 2, 3


def tables(H: int, W: int) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr, nnb)``: the neighbours of cell i are ``nbr[8 i : 8 i + nnb[i]]``."""
    nbr = np.full(8 * H * W, -1, np.int64)
    nnb = np.zeros(H * W, np.int64)
    for r in range(H):
        for c in range(W):
            i = r * W + c
            for a in range(r - 1, r + 2):
                for b in range(c - 1, c + 2):
                    if 0 <= a < H and 0 <= b < W and (a, b) != (r, c):
                        nbr[8 * i + nnb[i]] = a * W + b
                        nnb[i] += 1
    return nbr, nnb


def work_size(n: int) -> int:
    """The length of the ``work`` buffer for n cells."""
    return 42 * n + 16


@kernel(inner=True, _nrt=False)
def _around(nbr, nnb, st, i):
    """``(covered, mines)``: how many of cell i's neighbours are covered and undecided, and how
    many are deduced mines."""
    h = 0
    m = 0
    for t in range(8 * i, 8 * i + nnb[i]):
        s = st[nbr[t]]
        if s == COVERED:
            h += 1
        elif s == MINE:
            m += 1
    return h, m


@kernel(inner=True, _nrt=False)
def _tally(st):
    """``(covered, mines)``: how many cells of the board are covered and undecided, and how many
    are deduced mines."""
    unknown = 0
    known = 0
    for i in range(len(st)):
        if st[i] == COVERED:
            unknown += 1
        elif st[i] == MINE:
            known += 1
    return unknown, known


@kernel(inner=True, _nrt=False)
def _touches(nbr, nnb, st, i, state):
    """Whether some neighbour of cell i is in ``state``."""
    for t in range(8 * i, 8 * i + nnb[i]):
        if st[nbr[t]] == state:
            return True
    return False


@kernel(inner=True, _nrt=False)
def _holds(st, state):
    """Whether some cell of the board is in ``state``."""
    for i in range(len(st)):
        if st[i] == state:
            return True
    return False


@kernel(inner=True, _nrt=False)
def _snapshot(st, snap):
    """``snap`` := the view ``st`` (1 per opened cell, else 0)."""
    for i in range(len(st)):
        snap[i] = 1 if st[i] == OPENED else 0


@kernel(inner=True, _nrt=False)
def _event(log, n, p1, p2):
    """A new deduction in the premise log of :func:`closure` (premise numbers ``p1``, ``p2``; -1
    none, -2 the backbone's, listed after the events); its index."""
    e = log[0]
    log[0] = e + 1
    at = 2 + n + 4 * e
    log[at] = p1
    log[at + 1] = p2
    return e


@kernel(inner=True, _nrt=False)
def _number(nbr, nnb, st, i):
    """:func:`_around` of cell i when it is an opened number, else ``(0, 0)`` (nothing to decide)."""
    if st[i] != OPENED:
        return 0, 0
    return _around(nbr, nnb, st, i)


@kernel(inner=True, _nrt=False)
def _singles(nbr, nnb, nums, st, log):
    """One sweep of the first local rule (a number whose covered neighbours must all be mines or
    all safe decides them); 1 when it decided a cell. Each deduction goes to ``log`` when kept."""
    n = len(st)
    keep = len(log) > 0
    changed = 0
    for i in range(n):
        h, m = _number(nbr, nnb, st, i)
        if h == 0:
            continue
        k = nums[i] - m
        if k == 0 or k == h:
            if keep:
                e = _event(log, n, i, -1)
                for t in range(8 * i, 8 * i + nnb[i]):
                    if st[nbr[t]] == COVERED:
                        log[2 + nbr[t]] = e
            for t in range(8 * i, 8 * i + nnb[i]):
                if st[nbr[t]] == COVERED:
                    st[nbr[t]] = SAFE if k == 0 else MINE
            changed = 1
    return changed


@kernel(inner=True, _nrt=False)
def _pairs(nbr, nnb, nums, st, log):
    """One sweep of the second local rule: one number's covered cells inside another's, the rest
    hold the difference (every pair in one sweep: a deduction changes only cells off the smaller
    number's neighbourhood, so what the sweep has counted for it stays true); ``log`` as for
    :func:`_singles`."""
    n = len(st)
    keep = len(log) > 0
    W = nbr[1]  # the grid's width: cell 0's neighbours are 1, W and W + 1
    changed = 0
    for i in range(n):
        hi, mi = _number(nbr, nnb, st, i)
        if hi == 0:
            continue
        # every number sharing a covered cell with i is a neighbour of one of i's neighbours
        for t in range(8 * i, 8 * i + nnb[i]):
            a = nbr[t]
            if st[a] != COVERED:
                continue
            for u in range(8 * a, 8 * a + nnb[a]):
                j = nbr[u]
                if j == i or st[j] != OPENED:
                    continue
                hj, mj = _around(nbr, nnb, st, j)
                if hj <= hi:
                    continue
                inside = 0  # i's covered cells that are j's neighbours
                for v in range(8 * i, 8 * i + nnb[i]):
                    b = nbr[v]
                    if st[b] == COVERED and abs(b // W - j // W) <= 1 and abs(b % W - j % W) <= 1:
                        inside += 1
                if inside != hi:
                    continue
                k = (nums[j] - mj) - (nums[i] - mi)
                if k == 0 or k == hj - hi:
                    e = -1
                    for v in range(8 * j, 8 * j + nnb[j]):
                        b = nbr[v]
                        if keep and st[b] == COVERED and (abs(b // W - i // W) > 1 or abs(b % W - i % W) > 1):
                            if e < 0:
                                e = _event(log, n, i, j)
                            log[2 + b] = e
                    for v in range(8 * j, 8 * j + nnb[j]):
                        b = nbr[v]
                        if st[b] == COVERED and (abs(b // W - i // W) > 1 or abs(b % W - i % W) > 1):
                            st[b] = SAFE if k == 0 else MINE
                            changed = 1
    return changed


@kernel(inner=True, _nrt=False)
def _count(n_mines, st, log):
    """The last local rule: when the mines left are none, or as many as the cells left, the count
    decides every cell left; 1 when it did. ``log`` as for :func:`_singles`."""
    n = len(st)
    unknown, known = _tally(st)
    left = n_mines - known
    if not unknown or left != 0 and left != unknown:
        return 0
    if len(log):
        # (its own loop: numba 0.68 (LLVM 22) on AVX-512 vectorizes a loop that stores to both
        # arrays wrongly; seen here)
        e = _event(log, n, -1, -1)
        for i in range(n):
            if st[i] == COVERED:
                log[2 + i] = e
    for i in range(n):
        if st[i] == COVERED:
            st[i] = SAFE if left == 0 else MINE
    return 1




@kernel(inner=True, _nrt=False)
def _local(nbr, nnb, nums, n_mines, st, log):
    """The local rules to their fixpoint; 1 when they decided a cell. ``log`` (empty: not kept):
    the premise log of :func:`closure`, which records every deduction."""
    progress = 0
    while True:
        changed = _singles(nbr, nnb, nums, st, log)
        if not changed:
            changed = _pairs(nbr, nnb, nums, st, log)
        if not changed:
            changed = _count(n_mines, st, log)
        if not changed:
            return progress
        progress = 1


@kernel(inner=True, _nrt=False)
def _assign(v, x, val, trail, tlen, vstart, vcons, cm, cu):
    """:func:`_search`'s step: variable v takes x, is pushed on the trail at ``tlen``, and each of
    its constraints counts it (one fewer unknown, x more mines)."""
    val[v] = x
    trail[tlen] = v
    for t in range(vstart[v], vstart[v + 1]):
        c = vcons[t]
        cu[c] -= 1
        cm[c] += x


@kernel(inner=True, _nrt=False)
def _search(cstart, cvars, ck, vstart, vcons, F, C, forced, fval, lo, hi, order, pref, val, cm, cu, trail, dstack,
            budget, mark, fixv, spent):
    """Whether some assignment of the F frontier variables meets every constraint c (exactly
    ``ck[c]`` mines among ``cvars[cstart[c]:cstart[c + 1]]``) with between lo and hi mines in all,
    and variable ``forced`` (if >= 0) equal to ``fval``: 1 (the assignment left in ``val``), 0, or
    -1 over budget. Variables are decided in ``order``, each tried first at ``pref`` (the true
    layout, which meets every constraint: the search mostly looks for a small change to it)."""
    for v in range(F):
        val[v] = -1
    for c in range(C):
        cm[c] = 0
        cu[c] = cstart[c + 1] - cstart[c]
    tm = 0
    tu = F
    tlen = 0
    stamp = 0
    for v in range(F):
        mark[v] = 0
    # the cells already proved fixed, as facts (they hold in every assignment)
    for v in range(F):
        if fixv[v] >= 0:
            x = fixv[v]
            _assign(v, x, val, trail, tlen, vstart, vcons, cm, cu)
            tlen += 1
            tm += x
            tu -= 1
    qhead = 0
    depth = 0
    nodes = 0
    pos = 0
    pending_v = forced
    pending_x = fval
    while True:
        # assign pending_v = pending_x (if any), then propagate; on conflict backtrack
        ok = True
        if pending_v >= 0:
            v = pending_v
            if val[v] >= 0:
                ok = val[v] == pending_x
            else:
                _assign(v, pending_x, val, trail, tlen, vstart, vcons, cm, cu)
                tlen += 1
                tm += pending_x
                tu -= 1
            pending_v = -1
        while ok and qhead < tlen:
            v = trail[qhead]
            qhead += 1
            if tm > hi or tm + tu < lo:
                ok = False
                break
            for t in range(vstart[v], vstart[v + 1]):
                c = vcons[t]
                if cm[c] > ck[c] or cm[c] + cu[c] < ck[c]:
                    ok = False
                    break
                if cu[c] > 0 and (cm[c] == ck[c] or cm[c] + cu[c] == ck[c]):
                    x = 0 if cm[c] == ck[c] else 1
                    for u in range(cstart[c], cstart[c + 1]):
                        w = cvars[u]
                        if val[w] < 0:
                            _assign(w, x, val, trail, tlen, vstart, vcons, cm, cu)
                            tlen += 1
                            tm += x
                            tu -= 1
                    if cm[c] != ck[c]:
                        ok = False
                        break
            if ok and (tm > hi or tm + tu < lo):
                ok = False
        if ok:
            # the count's bounds over what is left: numbers whose covered cells share none take
            # exactly their missing mines, every other covered cell zero or one
            stamp += 1
            need = 0
            free = 0
            for c in range(C):
                if cu[c] == 0:
                    continue
                clash = False
                for u in range(cstart[c], cstart[c + 1]):
                    w = cvars[u]
                    if val[w] < 0 and mark[w] == stamp:
                        clash = True
                        break
                if clash:
                    continue
                need += ck[c] - cm[c]
                for u in range(cstart[c], cstart[c + 1]):
                    w = cvars[u]
                    if val[w] < 0:
                        mark[w] = stamp
                        free -= 1
            free += tu
            if tm + need > hi or tm + need + free < lo:
                ok = False
        if ok:
            if tu == 0:
                spent[0] += nodes
                return 1
            nodes += 1
            if nodes > budget:
                spent[0] += nodes
                return -1
            # the most constrained number first (fewest ways left to place its missing mines; the
            # first in ``order`` of its open cells), so that a wrong choice fails at once
            best = -1
            bscore = 1 << 30
            for c in range(C):
                if cu[c] == 0:
                    continue
                r = ck[c] - cm[c]
                score = min(r, cu[c] - r) * 16 + cu[c]
                if score < bscore:
                    bscore = score
                    best = c
            v = -1
            if best >= 0:
                for u in range(cstart[best], cstart[best + 1]):
                    if val[cvars[u]] < 0:
                        v = cvars[u]
                        break
            else:
                while pos < F and val[order[pos]] >= 0:
                    pos += 1
                v = order[pos]
            dstack[3 * depth] = v
            dstack[3 * depth + 1] = tlen
            dstack[3 * depth + 2] = pos
            depth += 1
            pending_v = v
            pending_x = pref[v]
            continue
        # conflict: undo to the last decision still holding its first value and take the other
        while True:
            if depth == 0:
                spent[0] += nodes
                return 0
            depth -= 1
            v = dstack[3 * depth]
            back = dstack[3 * depth + 1]
            while tlen > back:
                tlen -= 1
                w = trail[tlen]
                x = val[w]
                val[w] = -1
                tm -= x
                tu += 1
                for s in range(vstart[w], vstart[w + 1]):
                    d = vcons[s]
                    cu[d] += 1
                    cm[d] -= x
            qhead = tlen
            pos = dstack[3 * depth + 2]
            if dstack[3 * depth] >= 0:
                # the preferred value failed: try the other, and mark the decision as on its last value
                dstack[3 * depth] = -1 - v
                depth += 1
                pending_v = v
                pending_x = 1 - pref[v]
                break


@kernel(inner=True, _nrt=False)
def _room(cstart, cvars, ck, vstart, vcons, F, C, lo, hi, order, pref, val, cm, cu, trail, dstack, budget, mark, fixv,
          truth, spent):
    """Whether some assignment meets every constraint with between lo and hi mines on the frontier:
    1 (the true layout's ``truth`` mines already do, or :func:`_search` found one), 0, or -1 over
    budget."""
    if lo <= truth <= hi:
        return 1
    return _search(cstart, cvars, ck, vstart, vcons, F, C, -1, 0, lo, hi, order, pref, val, cm, cu, trail, dstack,
                   budget, mark, fixv, spent)


@kernel(inner=True, _nrt=False)
def _var_index(work, F, C, nv, o_cstart, o_cvars, o_vstart, o_val, o_vcons):
    """The constraints of each variable, from the variables of each constraint (both in ``work`` at the given
    offsets): ``vcons[vstart[v]:vstart[v + 1]]`` lists variable v's; ``val`` is used as fill pointers."""
    for v in range(F + 1):
        work[o_vstart + v] = 0
    for t in range(nv):
        work[o_vstart + work[o_cvars + t] + 1] += 1
    for v in range(F):
        work[o_vstart + v + 1] += work[o_vstart + v]
    for v in range(F):
        work[o_val + v] = work[o_vstart + v]
    for c in range(C):
        for t in range(work[o_cstart + c], work[o_cstart + c + 1]):
            v = work[o_cvars + t]
            work[o_vcons + work[o_val + v]] = c
            work[o_val + v] += 1


@kernel(inner=True, _nrt=False)
def _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, settle):
    """Python's ``_backbone`` (the frontier's backbone under the count bounds, then the cells off
    the frontier): 1 when it decided a cell, 0 when not, -1 over budget. With ``settle``, 2 as
    soon as some frontier cell can be the other way (the view leaves the layout open)."""
    n = len(st)
    # work layout: var of cell (n), cell of var (n), cstart (n + 1), cvars (8 n), ck (n),
    # vstart (n + 1), vcons (8 n), order (n), val (n), cm (n), cu (n), trail (n), dstack (3 n), both (n)
    o_var = 0
    o_cell = n
    o_cstart = 2 * n
    o_cvars = 3 * n + 1
    o_ck = 11 * n + 1
    o_vstart = 12 * n + 1
    o_vcons = 13 * n + 2
    o_order = 21 * n + 2
    o_val = 22 * n + 2
    o_cm = 23 * n + 2
    o_cu = 24 * n + 2
    o_trail = 25 * n + 2
    o_dstack = 26 * n + 2
    o_both = 29 * n + 2
    o_pref = 38 * n + 10
    o_mark = 39 * n + 10
    o_fix = 40 * n + 10
    unknown, known = _tally(st)
    if unknown == 0:
        return 0
    left = n_mines - known
    # the frontier: covered cells next to an opened one, as variables in cell order
    F = 0
    for i in range(n):
        work[o_var + i] = -1
    for i in range(n):
        if st[i] == COVERED and _touches(nbr, nnb, st, i, OPENED):
            work[o_var + i] = F
            work[o_cell + F] = i
            F += 1
    if F == 0:
        # only the count speaks, and the local rules have used it: the layout is open when it is
        # not settled (0 < left < unknown)
        return 0
    inner = unknown - F
    C = 0
    nv = 0
    work[o_cstart] = 0
    for i in range(n):
        if st[i] != OPENED:
            continue
        m = 0
        h = 0
        for t in range(8 * i, 8 * i + nnb[i]):
            j = nbr[t]
            if st[j] == COVERED:
                work[o_cvars + nv] = work[o_var + j]
                nv += 1
                h += 1
            elif st[j] == MINE:
                m += 1
        if h:
            work[o_ck + C] = nums[i] - m
            C += 1
            work[o_cstart + C] = nv
    # variable -> constraints
    _var_index(work, F, C, nv, o_cstart, o_cvars, o_vstart, o_val, o_vcons)
    cstart = work[o_cstart:o_cstart + C + 1]
    cvars = work[o_cvars:o_cvars + nv]
    ck = work[o_ck:o_ck + C]
    vstart = work[o_vstart:o_vstart + F + 1]
    vcons = work[o_vcons:o_vcons + nv]
    order = work[o_order:o_order + F]
    val = work[o_val:o_val + F]
    cm = work[o_cm:o_cm + C]
    cu = work[o_cu:o_cu + C]
    trail = work[o_trail:o_trail + F]
    dstack = work[o_dstack:o_dstack + 3 * F]
    both = work[o_both:o_both + F]
    pref = work[o_pref:o_pref + F]
    mark = work[o_mark:o_mark + F]
    fixv = work[o_fix:o_fix + F]
    # the nodes the searches have visited: with ``settle`` the budget is for all of them together
    spent = work[41 * n + 12:41 * n + 13]
    spent[0] = 0
    lo = max(0, left - inner)
    hi = left
    truth = 0
    for v in range(F):
        both[v] = 0
        fixv[v] = -1
        pref[v] = mines[work[o_cell + v]]
        truth += pref[v]
    decided = 0
    for f in range(F):
        if both[f]:
            continue
        x = 1 - mines[work[o_cell + f]]
        # the order: breadth first from f over shared numbers, then the rest in the same way
        for v in range(F):
            val[v] = -2
        head = 0
        tail = 0
        for root in range(-1, F):
            r0 = f if root < 0 else root
            if val[r0] != -2:
                continue
            val[r0] = 0
            order[tail] = r0
            tail += 1
            while head < tail:
                v = order[head]
                head += 1
                for t in range(vstart[v], vstart[v + 1]):
                    c = vcons[t]
                    for u in range(cstart[c], cstart[c + 1]):
                        w = cvars[u]
                        if val[w] == -2:
                            val[w] = 0
                            order[tail] = w
                            tail += 1
        got = _search(cstart, cvars, ck, vstart, vcons, F, C, f, x, lo, hi, order, pref, val, cm, cu, trail, dstack,
                      budget - spent[0] if settle else budget, mark, fixv, spent)
        if got < 0:
            return -1
        if got == 0:
            st[work[o_cell + f]] = MINE if x == 0 else SAFE
            fixv[f] = 1 - x
            decided = 1
        elif settle:
            return 2  # another layout: the view does not fix every mine
        else:
            for v in range(F):
                if val[v] != mines[work[o_cell + v]]:
                    both[v] = 1
    if inner:
        for v in range(F):
            order[v] = v
        res = 1
        if left >= 1:
            res = _room(cstart, cvars, ck, vstart, vcons, F, C, max(0, left - inner), left - 1, order, pref, val, cm,
                        cu, trail, dstack, budget, mark, fixv, truth, spent)
            if res < 0:
                return -1
        if left >= 1 and res == 0:
            for i in range(n):
                if st[i] == COVERED and work[o_var + i] < 0:
                    st[i] = SAFE
            decided = 1
        else:
            res = _room(cstart, cvars, ck, vstart, vcons, F, C, max(0, left - inner + 1), left, order, pref, val, cm,
                        cu, trail, dstack, budget, mark, fixv, truth, spent)
            if res < 0:
                return -1
            if res == 0:
                for i in range(n):
                    if st[i] == COVERED and work[o_var + i] < 0:
                        st[i] = MINE
                decided = 1
    return decided


@kernel(inner=True, _nrt=False)
def _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, settle):
    """Python's ``deduce``: the local rules and the backbone until neither decides a cell; -1 over budget."""
    while True:
        a = _local(nbr, nnb, nums, n_mines, st, work[:0])
        b = _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, settle)
        if b < 0 or b == 2:
            return b
        if a == 0 and b == 0:
            return 0


@kernel(inner=True, _nrt=False)
def _flood(nbr, nnb, mines, nums, start, st, stack):
    """Open ``start`` as Tatham does (a zero opens its neighbours); returns the cells opened."""
    top = 0
    stack[0] = start
    top = 1
    count = 0
    while top:
        top -= 1
        i = stack[top]
        if st[i] == OPENED or mines[i]:
            continue
        st[i] = OPENED
        count += 1
        if nums[i] == 0:
            for t in range(8 * i, 8 * i + nnb[i]):
                if st[nbr[t]] != OPENED:
                    stack[top] = nbr[t]
                    top += 1
    return count


@kernel(PLAY_SIG, _nrt=False)
def play(nbr, nnb, mines, nums, n_mines, start, opened, st, moves, snap, out, work, budget):
    """Python's ``deduce.play`` on the layout ``mines``: ``st`` ends as the view it stopped at,
    ``moves`` holds the openings, ``snap`` (1 per opened cell) the earliest view that fixes every
    mine. ``out``: solved (1/0), the number of moves, whether a snapshot was taken. Returns 0, or
    -1 when a search went over budget (then nothing is valid)."""
    n = len(st)
    stack = work[30 * n + 2:38 * n + 10]
    for i in range(n):
        st[i] = COVERED
        snap[i] = 0
    shown = _flood(nbr, nnb, mines, nums, start, st, stack)
    for t in range(len(opened)):
        if st[opened[t]] != OPENED:
            st[opened[t]] = OPENED
            shown += 1
    n_safe = n - n_mines
    nmoves = 0
    have_snap = 0
    while shown < n_safe:
        _local(nbr, nnb, nums, n_mines, st, work[:0])
        if not have_snap:
            unknown = 0
            off = 0  # a covered cell next to no opened cell
            for i in range(n):
                if st[i] != COVERED:
                    continue
                unknown += 1
                if not _touches(nbr, nnb, st, i, OPENED):
                    off = 1
            take = unknown == 0
            if not take and not off:
                if _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, False) < 0:
                    return -1
                take = not _holds(st, COVERED)
            if take:
                have_snap = 1
                _snapshot(st, snap)
        ready = _holds(st, SAFE)
        if not ready:
            if _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, False) < 0:
                return -1
            ready = _holds(st, SAFE)
        if not ready:
            out[0] = 0
            out[1] = nmoves
            out[2] = have_snap
            return 0
        # a zero opens a region; a cell next to no zero is never opened by one; the rest last
        zero = -1
        lone = -1
        first = -1
        for i in range(n):
            if st[i] != SAFE:
                continue
            if first < 0:
                first = i
            if zero < 0 and nums[i] == 0:
                zero = i
            if lone < 0:
                near0 = 0
                for t in range(8 * i, 8 * i + nnb[i]):
                    j = nbr[t]
                    if nums[j] == 0 and not mines[j]:
                        near0 = 1
                        break
                if not near0:
                    lone = i
        pick = zero if zero >= 0 else lone if lone >= 0 else first
        shown += _flood(nbr, nnb, mines, nums, pick, st, stack)
        moves[nmoves] = pick
        nmoves += 1
    if not have_snap:
        have_snap = 1
        _snapshot(st, snap)
    out[0] = 1
    out[1] = nmoves
    out[2] = have_snap
    return 0


def log_size(n: int, listed: int = 16) -> int:
    """The length of :func:`closure`'s premise log for n cells, with room for ``listed`` x n numbers
    in the backbone's premise lists (n x n is always enough: a backbone deduction decides a cell)."""
    return 2 + 5 * n + listed * n


@kernel(inner=True, _nrt=False)
def _needed(log, n, st, view, work):
    """:func:`closure`'s answer view from its premise log (see there)."""
    n_ev = log[0]
    # the cells each deduction decided, by a counting sort: deduction e's are
    # work[first[e]:first[e + 1]]
    first = work[0:n_ev + 1]
    cells = work[n + 1:2 * n + 1]
    for e in range(n_ev + 1):
        first[e] = 0
    for i in range(n):
        if log[2 + i] >= 0:
            first[log[2 + i] + 1] += 1
    for e in range(n_ev):
        first[e + 1] += first[e]
    fill = work[2 * n + 2:2 * n + 2 + n_ev]
    for e in range(n_ev):
        fill[e] = first[e]
    for i in range(n):
        e = log[2 + i]
        if e >= 0:
            cells[fill[e]] = i
            fill[e] += 1
    for i in range(n):
        view[i] = 1 if st[i] == OPENED and log[2 + i] < 0 else 0  # the first opening
    for e in range(n_ev - 1, -1, -1):
        needed = False
        for t in range(first[e], first[e + 1]):
            if not view[cells[t]]:
                needed = True
                break
        if not needed:
            continue
        at = 2 + n + 4 * e
        if log[at] >= 0:
            view[log[at]] = 1
            if log[at + 1] >= 0:
                view[log[at + 1]] = 1
        elif log[at] == -2:
            for t in range(log[at + 2], log[at + 3]):
                view[log[2 + 5 * n + t]] = 1


@kernel(inner=True, _nrt=False)
def _closure(nbr, nnb, mines, nums, n_mines, start, opened, st, log, view, work, budget):
    """Everything the oracle can open on the layout ``mines`` from the first click ``start`` (and the
    safe cells ``opened``, the generator's shortcut), opening every deduced-safe cell at once: the
    local rules to their fixpoint, every safe cell opened, again; the backbone (:func:`_backbone`)
    where the local rules stall. Returns 1 when every cell is decided (the board needs no guess),
    0 when stuck (``st`` is then the view :func:`play` stops at: what either can open is the same,
    as every rule only decides more when more is open), -1 when a search went over ``budget``.

    With a ``log`` (:func:`log_size`; empty: none), every deduction is recorded with its premises
    (the one or two numbers of a local rule, none for the count's, every number with a covered
    neighbour for the backbone's) and, when solved, ``view`` gets the answer view (1 per shown
    cell): the first opening and the premises of every deduction that decides a cell not shown,
    found from the last deduction back (a cell shown needs no deduction). Each deduction kept
    follows from shown numbers and cells decided before it, so the view fixes every mine."""
    n = len(st)
    keep = len(log) > 0
    stack = work[30 * n + 2:38 * n + 10]
    for i in range(n):
        st[i] = COVERED
    if keep:
        log[0] = 0  # deductions
        log[1] = 0  # the backbone's premises listed
        for i in range(n):
            log[2 + i] = -1  # the deduction that decided cell i
    _flood(nbr, nnb, mines, nums, start, st, stack)
    for t in range(len(opened)):
        st[opened[t]] = OPENED
    bb = 2 + 5 * n  # the backbone's premise lists
    while True:
        # the first rule and the openings it allows until they stall, then the other rules
        changed = _singles(nbr, nnb, nums, st, log)
        fresh = 0
        covered = 0
        for i in range(n):
            if st[i] == SAFE:
                st[i] = OPENED
                fresh = 1
            elif st[i] == COVERED:
                covered = 1
        if not covered:
            break
        if fresh or changed or _pairs(nbr, nnb, nums, st, log) or _count(n_mines, st, log):
            continue
        e = -1
        if keep:
            e = _event(log, n, -2, -1)
            at = 2 + n + 4 * e
            log[at + 2] = log[1]
            for i in range(n):
                if st[i] == OPENED and _touches(nbr, nnb, st, i, COVERED):
                    if bb + log[1] >= len(log):
                        return -1
                    log[bb + log[1]] = i
                    log[1] += 1
            log[at + 3] = log[1]
        got = _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, False)
        if got < 0:
            return -1
        if got == 0:
            return 0
        if keep:
            for i in range(n):
                if (st[i] == SAFE or st[i] == MINE) and log[2 + i] < 0:
                    log[2 + i] = e
    if keep:
        _needed(log, n, st, view, work)
    return 1


@kernel(CLOSURE_SIG, _nrt=False)
def closure(nbr, nnb, mines, nums, n_mines, start, opened, st, log, view, work, budget):
    """See :func:`_closure`."""
    return _closure(nbr, nnb, mines, nums, n_mines, start, opened, st, log, view, work, budget)


@kernel(SETTLES_SIG, _nrt=False)
def settles(nbr, nnb, mines, nums, n_mines, st, work, budget):
    """Whether the view ``st`` (opened cells 1, the rest 0) fixes every mine of the layout: 1 or 0;
    -1 over budget. ``st`` is left as the deduction ends."""
    got = _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, True)
    if got < 0:
        return -1
    if got == 2:
        return 0
    return 0 if _holds(st, COVERED) else 1


@kernel(inner=True, _nrt=False)
def _candidates(nbr, nnb, mines, st, start, cand, out):
    """Where the generator may move a mine when the oracle is stuck at the view ``st``: ``cand[:out[0]]``
    the mines among the covered undecided cells on the frontier (else among all covered undecided
    cells), ``cand[n:n + out[1]]`` the safe ones off the frontier, else (as Tatham's last resort)
    every safe covered undecided cell and every opened cell outside the first click's 3x3 block
    (a mine between two cells that only the count tells apart cannot leave by swapping them);
    each in cell order."""
    n = len(st)
    W = nbr[1]  # the grid's width: cell 0's neighbours are 1, W and W + 1
    nf = 0
    nt_ = 0
    for i in range(n):
        if st[i] != COVERED:
            continue
        front = _touches(nbr, nnb, st, i, OPENED)
        if front and mines[i]:
            cand[nf] = i
            nf += 1
        elif not front and not mines[i]:
            cand[n + nt_] = i
            nt_ += 1
    if nf == 0:
        for i in range(n):
            if st[i] == COVERED and mines[i]:
                cand[nf] = i
                nf += 1
    if nt_ == 0:
        for i in range(n):
            near = abs(i // W - start // W) <= 1 and abs(i % W - start % W) <= 1
            if st[i] == COVERED and not mines[i] or st[i] == OPENED and not near:
                cand[n + nt_] = i
                nt_ += 1
    out[0] = nf
    out[1] = nt_


#: (nbr, nnb, mines, nums, n_mines, start, st, opened, work, cand, counts, draws, out, budget) -> :func:`perturb`
PERTURB_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, nt.int64, _I8, _I64, _I64, _I64, _I64, nt.float64[::1], _I64,
                       nt.int64)


@kernel(PERTURB_SIG, _nrt=False)
def perturb(nbr, nnb, mines, nums, n_mines, start, st, opened, work, cand, counts, draws, out, budget):
    """The generator's moves (``deduce.generate``), from the view ``st`` the oracle is stuck at on the
    layout ``mines``: a mine on the frontier (:func:`_candidates`; drawn with ``draws[2 k]``) moves to
    a safe cell off it (``draws[2 k + 1]``; or, when there is none, to any covered safe cell or an
    opened one outside the first click's block), ``nums`` follows, and the oracle goes on from the cells
    it had opened (:func:`_closure`), until it opens every safe cell or the draws run out. ``out[0]``:
    the move to make next (from it on entry, after the last on return); ``out[1]``: how many cells
    the last game went on from (``opened[:out[1]]``). Returns 1 when the last game solved the
    board, 0 when no move is left (draws spent, or no cell to move a mine to or from), -1 when the
    last game's search went over ``budget`` (``st`` is then not its view)."""
    n = len(st)
    nolog = work[:0]
    noview = st[:0]
    while 2 * out[0] + 1 < len(draws):
        _candidates(nbr, nnb, mines, st, start, cand, counts)
        nf = counts[0]
        nt_ = counts[1]
        if nf == 0 or nt_ == 0:
            return 0
        k = out[0]
        a = cand[min(nf - 1, int(draws[2 * k] * nf))]
        b = cand[n + min(nt_ - 1, int(draws[2 * k + 1] * nt_))]
        out[0] = k + 1
        mines[a] = 0
        mines[b] = 1
        st[b] = COVERED  # (an opened cell is not opened any more)
        for t in range(8 * a, 8 * a + nnb[a]):
            nums[nbr[t]] -= 1
        for t in range(8 * b, 8 * b + nnb[b]):
            nums[nbr[t]] += 1
        m = 0
        for i in range(n):
            if st[i] == OPENED:
                opened[m] = i
                m += 1
        out[1] = m
        got = _closure(nbr, nnb, mines, nums, n_mines, start, opened[:m], st, nolog, noview, work, budget)
        if got != 0:
            return got
    return 0
