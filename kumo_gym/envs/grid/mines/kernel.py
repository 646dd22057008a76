"""The numba kernel of Mines' oracle (imported on first use): :func:`deduce.play` and the
uniqueness test of ``codec.reduce_view`` on arrays, with the layout known.

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
* :func:`settles` with a focus (the cells a step of the view reduction covered again, and their
  neighbours) searches only those cells: see its docstring for why that is enough.

* :func:`settles_dp`, for the view reduction's tests whose searches run over their budget (the
  count's bounds, nearly fixed on sparse views, make those searches long): the same question by
  dynamic programming along the frontier, the reachable mine counts carried in each state;
* :func:`candidates`: where the generator may move a mine when the oracle is stuck;
* :func:`reduce`: the view reduction's whole loop (the engine's ``minimal_in_runs``, the same runs
  and decisions) in one call, each test asking first :func:`_near`, a short exhaustive search
  for another layout near the cells the test covers again that either finds one (checked as it
  is found), proves there is none (see its docstring for why that is a proof), or hands over to
  the complete test above; most tests end there (at Normal about 230 of 300 a board).

A search that exceeds its node budget returns -1 and the caller takes the next path for that
call (the same answer, slower): the dynamic programme, then the Python path with SAT. Cells are ``i = r * W + c``; ``st`` holds per cell 0 covered and
undecided, 1 opened, 2 a deduced mine, 3 deduced safe and not yet opened.
"""
import numpy as np
from numba import types as nt

from ....solvers.native import kernel

_I8 = nt.int8[::1]
_I64 = nt.int64[::1]
#: (nbr, nnb, mines, nums, n_mines, start, opened, st, moves, snap, out, work, budget) -> see :func:`play`
PLAY_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, nt.int64, _I64, _I8, _I64, _I8, _I64, _I64, nt.int64)
#: (nbr, nnb, mines, nums, n_mines, st, work, budget, focus) -> see :func:`settles`
SETTLES_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, _I8, _I64, nt.int64, _I64)
#: (nbr, nnb, mines, st, cand, out) -> see :func:`candidates`
CANDIDATES_SIG = nt.void(_I64, _I64, _I8, _I8, _I64, _I64)
#: nodes one search may visit before the caller falls back to SAT (``budget``)
BUDGET = 1_000
#: nodes all the searches of one :func:`settles` call may visit together before the view
#: reduction takes :func:`settles_dp` instead
VIEW_BUDGET = 3_000
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
def _local(nbr, nnb, nums, n_mines, st):
    """The local rules to their fixpoint; 1 when they decided a cell."""
    n = len(st)
    W = nbr[1]  # the grid's width: cell 0's neighbours are 1, W and W + 1
    progress = 0
    while True:
        changed = 0
        for i in range(n):
            if st[i] != OPENED:
                continue
            h, m = _around(nbr, nnb, st, i)
            if h == 0:
                continue
            k = nums[i] - m
            if k == 0 or k == h:
                for t in range(8 * i, 8 * i + nnb[i]):
                    if st[nbr[t]] == COVERED:
                        st[nbr[t]] = SAFE if k == 0 else MINE
                changed = 1
        if not changed:
            # one number's covered cells inside another's: the rest hold the difference (every
            # pair in one sweep: a deduction changes only cells off the smaller number's
            # neighbourhood, so what the sweep has counted for it stays true)
            for i in range(n):
                if st[i] != OPENED:
                    continue
                hi, mi = _around(nbr, nnb, st, i)
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
                            for v in range(8 * j, 8 * j + nnb[j]):
                                b = nbr[v]
                                if st[b] != COVERED:
                                    continue
                                if abs(b // W - i // W) > 1 or abs(b % W - i % W) > 1:
                                    st[b] = SAFE if k == 0 else MINE
                                    changed = 1
        if not changed:
            unknown, known = _tally(st)
            left = n_mines - known
            if unknown and (left == 0 or left == unknown):
                for i in range(n):
                    if st[i] == COVERED:
                        st[i] = SAFE if left == 0 else MINE
                changed = 1
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
def _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, settle, focus):
    """Python's ``_backbone`` (the frontier's backbone under the count bounds, then the cells off
    the frontier): 1 when it decided a cell, 0 when not, -1 over budget. With ``settle``, 2 as
    soon as some frontier cell can be the other way (the view leaves the layout open).

    With ``focus`` (a cell count, then a flag per cell; settle only): whether some assignment
    differs from the true layout on a focus cell, without deciding anything: 2 (one does), 0
    (none does), -1 over budget."""
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
        # not settled (0 < left < unknown); under a focus any other layout differs there
        return 2 if settle and focus[0] > 0 else 0
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
    focused = focus[0] > 0
    for f in range(F):
        if both[f] or focused and not focus[1 + work[o_cell + f]]:
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
    if focused:
        # a focus cell off the frontier can be the other way when the frontier can leave it room:
        # a mine more there (a count up to left - 1), or one fewer (a count from left - inner + 1)
        want0 = False
        want1 = False
        for i in range(n):
            if st[i] == COVERED and work[o_var + i] < 0 and focus[1 + i]:
                if mines[i]:
                    want1 = True
                else:
                    want0 = True
        for v in range(F):
            order[v] = v
        for side in range(2):
            if side == 0 and not (want0 and left >= 1) or side == 1 and not want1:
                continue
            a = max(0, left - inner) if side == 0 else max(0, left - inner + 1)
            b = left - 1 if side == 0 else left
            if a > b:
                continue
            res = _room(cstart, cvars, ck, vstart, vcons, F, C, a, b, order, pref, val, cm, cu, trail, dstack,
                        budget - spent[0], mark, fixv, truth, spent)
            if res != 0:
                return 2 if res > 0 else -1
        return 0
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
def _flex(nbr, nnb, mines, st, work, budget, out):
    """Whether another layout that agrees with every opened number of the view ``st`` (opened cells
    1, the rest covered), the mine count aside, can hold more mines than ``mines`` (``out[0]``) and
    whether one can hold fewer (``out[1]``): 1 when one can, or when a search went over ``budget``
    (a "may" that costs only speed), else 0. A covered cell next to no opened cell can change
    alone; the frontier asks :func:`_room` for a count above or below the true one."""
    n = len(st)
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
    o_pref = 38 * n + 10
    o_mark = 39 * n + 10
    o_fix = 40 * n + 10
    out[0] = 0
    out[1] = 0
    F = 0
    for i in range(n):
        work[o_var + i] = -1
    for i in range(n):
        if st[i] == OPENED:
            continue
        if _touches(nbr, nnb, st, i, OPENED):
            work[o_var + i] = F
            work[o_cell + F] = i
            F += 1
        elif mines[i]:
            out[1] = 1
        else:
            out[0] = 1
    if F == 0 or out[0] and out[1]:
        return
    C = 0
    nv = 0
    work[o_cstart] = 0
    for i in range(n):
        if st[i] != OPENED:
            continue
        h = 0
        for t in range(8 * i, 8 * i + nnb[i]):
            j = nbr[t]
            if st[j] != OPENED:
                work[o_cvars + nv] = work[o_var + j]
                nv += 1
                h += 1
        if h:
            m = 0
            for t in range(8 * i, 8 * i + nnb[i]):
                j = nbr[t]
                if st[j] != OPENED and mines[j]:
                    m += 1
            work[o_ck + C] = m
            C += 1
            work[o_cstart + C] = nv
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
    pref = work[o_pref:o_pref + F]
    mark = work[o_mark:o_mark + F]
    fixv = work[o_fix:o_fix + F]
    spent = work[41 * n + 12:41 * n + 13]
    spent[0] = 0
    truth = 0
    for v in range(F):
        order[v] = v
        fixv[v] = -1
        pref[v] = mines[work[o_cell + v]]
        truth += pref[v]
    for side in range(2):
        if out[side]:
            continue
        lo = truth + 1 if side == 0 else 0
        hi = F if side == 0 else truth - 1
        if lo > hi:
            continue
        got = _search(cstart, cvars, ck, vstart, vcons, F, C, -1, 0, lo, hi, order, pref, val, cm, cu, trail, dstack,
                      budget, mark, fixv, spent)
        out[side] = 1 if got != 0 else 0


@kernel(inner=True, _nrt=False)
def _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, settle, focus):
    """Python's ``deduce``: the local rules and the backbone until neither decides a cell; -1 over budget."""
    while True:
        a = _local(nbr, nnb, nums, n_mines, st)
        b = _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, settle, focus)
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
    nofocus = work[41 * n + 10:41 * n + 11]  # focus[0] == 0: no focus
    nofocus[0] = 0
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
        _local(nbr, nnb, nums, n_mines, st)
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
                if _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, False, nofocus) < 0:
                    return -1
                take = not _holds(st, COVERED)
            if take:
                have_snap = 1
                _snapshot(st, snap)
        ready = _holds(st, SAFE)
        if not ready:
            if _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, False, nofocus) < 0:
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


@kernel(SETTLES_SIG, _nrt=False)
def settles(nbr, nnb, mines, nums, n_mines, st, work, budget, focus):
    """Whether the view ``st`` (opened cells 1, the rest 0) fixes every mine of the layout: 1 or 0;
    -1 over budget. ``st`` is left as the deduction ends.

    ``focus``: the number of focus cells, then a flag per cell. When the view is a view known to
    fix every mine with some opened cells covered again, any other layout must break what one of
    those cells showed (else the larger view would not fix every mine), so it differs from the
    true one on such a cell or a neighbour: the focus. Then only those cells are searched."""
    if focus[0] > 0:
        _local(nbr, nnb, nums, n_mines, st)
        got = _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, True, focus)
        if got < 0:
            return -1
        return 0 if got == 2 else 1
    got = _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, True, focus)
    if got < 0:
        return -1
    if got == 2:
        return 0
    return 0 if _holds(st, COVERED) else 1


@kernel(CANDIDATES_SIG, _nrt=False)
def candidates(nbr, nnb, mines, st, cand, out):
    """Where the generator may move a mine when the oracle is stuck at the view ``st``: ``cand[:out[0]]``
    the mines among the covered undecided cells on the frontier (else among all covered undecided
    cells), ``cand[n:n + out[1]]`` the safe ones off the frontier (else all safe covered undecided
    cells); each in cell order, as ``deduce.generate`` lists them."""
    n = len(st)
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
            if st[i] == COVERED and not mines[i]:
                cand[n + nt_] = i
                nt_ += 1
    out[0] = nf
    out[1] = nt_


#: (nbr, nnb, mines, nums, n_mines, st, focus, work, tab, lst) -> see :func:`settles_dp`
SETTLES_DP_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, _I8, _I64, _I64, _I64, _I64)
#: the window of :func:`settles_dp`'s mine counts: deltas -DP_OFF .. DP_OFF from the true layout's
DP_OFF = 31
#: the most frontier cells :func:`settles_dp` keeps open at once (a state is a bit per cell)
DP_WIDTH = 62
#: :func:`settles_dp`'s hash tables: 2 ** DP_SLOTS slots each, at most half of them used
DP_SLOTS = 19


def dp_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(tab, lst)``: the tables :func:`settles_dp` works in (reusable: it leaves them as it found them)."""
    cap = 1 << DP_SLOTS
    tab = np.zeros(6 * cap, np.int64)
    tab[:2 * cap] = -1
    return tab, np.zeros(2 * cap, np.int64)


@kernel(inner=True, _nrt=False)
def _bits(x):
    """The number of set bits of x (0 <= x < 2 ** 62)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101 >> 56) & 0xFF


@kernel(inner=True, _nrt=False)
def _window(mask, a, b):
    """Whether ``mask`` (bit ``d + DP_OFF`` for a delta d) holds some delta in a .. b."""
    for d in range(max(a, -DP_OFF), min(b, DP_OFF) + 1):
        if (mask >> (d + DP_OFF)) & 1:
            return True
    return False


@kernel(inner=True, _nrt=False)
def _put(keys, masks, used, side, cap, shift, s, b0, b1, m):
    """:func:`settles_dp`'s tables: OR the masks ``b0, b1`` into state s of table ``side`` (which
    lists ``m`` slots in use); returns the new count of slots in use, or -1 when the table is half full."""
    h = ((s * -7046029254386353131) >> shift) & (cap - 1)
    while True:
        k = keys[side * cap + h]
        if k == s:
            break
        if k == -1:
            if 2 * (m + 1) > cap:
                return -1
            keys[side * cap + h] = s
            masks[(2 * side) * cap + h] = 0
            masks[(2 * side + 1) * cap + h] = 0
            used[side * cap + m] = h
            m += 1
            break
        h = (h + 1) & (cap - 1)
    masks[(2 * side) * cap + h] |= b0
    masks[(2 * side + 1) * cap + h] |= b1
    return m


@kernel(inner=True, _nrt=False)
def _settles_dp(nbr, nnb, mines, nums, n_mines, st, focus, work, tab, lst):
    """:func:`settles` under a focus, by dynamic programming over the frontier instead of a search:
    1 when no layout consistent with the view ``st`` (the cells it has decided stay decided)
    differs from ``mines`` on a focus cell, 0 when one does, -1 when the programme does not fit
    (more than ``DP_WIDTH`` frontier cells open at once, more states than its tables hold, or a
    count off the window). For the views whose
    search runs over its budget: the count's bounds make those searches long, and here the count
    is one more thing the table records.

    The frontier cells are taken one at a time (breadth first along each component, from a far
    end of it); a state is the values of the cells taken whose numbers are not all complete, and
    it holds, as bit masks, the differences from the true count its assignments reach, apart for
    the assignments that differ from the true layout on a focus cell. A number is checked when its
    last cell is taken; a cell leaves the state once all its numbers are checked."""
    n = len(st)
    o_var = 0
    o_cell = n
    o_order = 2 * n
    o_pos = 3 * n
    o_mark = 4 * n
    o_die = 5 * n
    o_slot = 6 * n
    o_cp = 7 * n
    o_sv = 8 * n
    o_chk = 8 * n + DP_WIDTH
    F = 0
    for i in range(n):
        work[o_var + i] = -1
        if st[i] == COVERED and _touches(nbr, nnb, st, i, OPENED):
            work[o_var + i] = F
            work[o_cell + F] = i
            F += 1
    for v in range(F):
        work[o_pos + v] = -1
        work[o_mark + v] = -1
    # the order: per component, breadth first from the last cell a first sweep reaches
    T = 0
    for v0 in range(F):
        if work[o_pos + v0] >= 0:
            continue
        tail_end = T
        for sweep in range(2):
            head = T
            tail = T
            if sweep == 0:
                work[o_mark + v0] = v0
                work[o_order + tail] = v0
            else:
                far = work[o_order + tail_end - 1]
                work[o_pos + far] = T
                work[o_order + tail] = far
            tail += 1
            while head < tail:
                v = work[o_order + head]
                head += 1
                a = work[o_cell + v]
                for t in range(8 * a, 8 * a + nnb[a]):
                    j = nbr[t]
                    if st[j] != OPENED:
                        continue
                    for u in range(8 * j, 8 * j + nnb[j]):
                        w = nbr[u]
                        if st[w] != COVERED:
                            continue
                        x = work[o_var + w]
                        if sweep == 0 and work[o_mark + x] != v0:
                            work[o_mark + x] = v0
                            work[o_order + tail] = x
                            tail += 1
                        elif sweep == 1 and work[o_pos + x] < 0:
                            work[o_pos + x] = tail
                            work[o_order + tail] = x
                            tail += 1
            tail_end = tail
        T = tail_end
    # the step at which each number is complete, and after which each cell can leave the state
    for i in range(n):
        work[o_cp + i] = -1
        if st[i] != OPENED:
            continue
        for t in range(8 * i, 8 * i + nnb[i]):
            w = nbr[t]
            if st[w] == COVERED:
                work[o_cp + i] = max(work[o_cp + i], work[o_pos + work[o_var + w]])
    for v in range(F):
        a = work[o_cell + v]
        d = 0
        for t in range(8 * a, 8 * a + nnb[a]):
            j = nbr[t]
            if st[j] == OPENED:
                d = max(d, work[o_cp + j])
        work[o_die + v] = d
    for k in range(DP_WIDTH):
        work[o_sv + k] = -1
    # two hash tables of states (the states before a cell is taken and after), each keys, masks
    # and the list of its slots in use; keys are -1 when free, and are left so
    cap = len(lst) // 2
    lg = 0
    while (1 << lg) < cap:
        lg += 1
    shift = 64 - lg
    keys = tab[:2 * cap]
    masks = tab[2 * cap:]
    src = 0
    used = lst
    m = _put(keys, masks, used, 0, cap, shift, 0, 1 << DP_OFF, 0, 0)
    ok = m >= 0
    for t in range(F):
        if not ok:
            break
        v = work[o_order + t]
        i = work[o_cell + v]
        b = -1
        for k in range(DP_WIDTH):
            if work[o_sv + k] < 0:
                b = k
                break
        if b < 0:
            ok = False
            break
        work[o_sv + b] = v
        work[o_slot + v] = b
        bit = 1 << b
        tv = mines[i]
        fv = focus[1 + i] != 0
        # the numbers complete at this cell, and the cells that then leave the state
        nchk = 0
        for u in range(8 * i, 8 * i + nnb[i]):
            j = nbr[u]
            if st[j] != OPENED or work[o_cp + j] != t:
                continue
            cmask = 0
            need = nums[j]
            for w8 in range(8 * j, 8 * j + nnb[j]):
                w = nbr[w8]
                if st[w] == COVERED:
                    cmask |= 1 << work[o_slot + work[o_var + w]]
                elif st[w] == MINE:
                    need -= 1
            work[o_chk + 2 * nchk] = cmask
            work[o_chk + 2 * nchk + 1] = need
            nchk += 1
        gone = 0
        for k in range(DP_WIDTH):
            u = work[o_sv + k]
            if u >= 0 and work[o_die + u] <= t:
                gone |= 1 << k
                work[o_sv + k] = -1
        dst = 1 - src
        m2 = 0
        for q in range(m):
            slot = used[src * cap + q]
            s = keys[src * cap + slot]
            a0 = masks[(2 * src) * cap + slot]
            a1 = masks[(2 * src + 1) * cap + slot]
            keys[src * cap + slot] = -1
            if not ok:
                continue
            for x in range(2):
                s2 = s | bit if x else s
                good = True
                for c in range(nchk):
                    if _bits(s2 & work[o_chk + 2 * c]) != work[o_chk + 2 * c + 1]:
                        good = False
                        break
                if not good:
                    continue
                if x == tv:
                    b0 = a0
                    b1 = a1
                else:
                    if tv == 0:
                        if ((a0 | a1) >> (2 * DP_OFF)) & 1:
                            ok = False
                        b0 = a0 << 1
                        b1 = a1 << 1
                    else:
                        if (a0 | a1) & 1:
                            ok = False
                        b0 = a0 >> 1
                        b1 = a1 >> 1
                    if fv:
                        b1 |= b0
                        b0 = 0
                got = _put(keys, masks, used, dst, cap, shift, s2 & ~gone, b0, b1, m2)
                if got < 0:
                    ok = False
                else:
                    m2 = got
        m = m2
        src = dst
    all0 = 0
    all1 = 0
    for q in range(m):
        slot = used[src * cap + q]
        if ok and keys[src * cap + slot] == 0:
            all0 = masks[(2 * src) * cap + slot]
            all1 = masks[(2 * src + 1) * cap + slot]
        keys[src * cap + slot] = -1
    if not ok:
        return -1
    unknown, known = _tally(st)
    left = n_mines - known
    inner = unknown - F
    truth = 0
    for v in range(F):
        truth += mines[work[o_cell + v]]
    lo = max(0, left - inner)
    if _window(all1, lo - truth, left - truth):
        return 0  # a frontier that differs on a focus cell
    want0 = False
    want1 = False
    for i in range(n):
        if st[i] == COVERED and work[o_var + i] < 0 and focus[1 + i]:
            if mines[i]:
                want1 = True
            else:
                want0 = True
    both = all0 | all1
    if want0 and left >= 1 and _window(both, lo - truth, left - 1 - truth):
        return 0  # room for a mine more off the frontier
    if want1 and _window(both, max(0, left - inner + 1) - truth, left - truth):
        return 0  # room for one fewer
    return 1


@kernel(SETTLES_DP_SIG, _nrt=False)
def settles_dp(nbr, nnb, mines, nums, n_mines, st, focus, work, tab, lst):
    """:func:`_settles_dp` (an entry point for the tests)."""
    return _settles_dp(nbr, nnb, mines, nums, n_mines, st, focus, work, tab, lst)



#: how far (in king moves) from the cells a test covers again :func:`_near` looks, and the nodes it
#: may visit, before the view reduction's test takes the complete search
NEAR_RADIUS = 4
NEAR_BUDGET = 400


def aux_size(n: int) -> int:
    """The length of the ``aux`` buffer of :func:`reduce` for n cells."""
    return 11 * n + 8


@kernel(inner=True, _nrt=False)
def _flip(nbr, nnb, mines, st, bal, ind, c, sign):
    """:func:`_near`'s step: cell c changes (``sign`` 1) or changes back (-1); the balance of each
    opened neighbour moves by what the change adds to its count. Returns the change to the mine
    count."""
    d = sign * (1 if mines[c] == 0 else -1)
    ind[c] = 1 if sign > 0 else 0
    for t in range(8 * c, 8 * c + nnb[c]):
        j = nbr[t]
        if st[j] == OPENED:
            bal[j] += d
    return d


@kernel(inner=True, _nrt=False)
def _near(nbr, nnb, mines, st, focus, rcells, nr, aux, budget, flex):
    """The view reduction's quick test, near the cells it covers again (``rcells[:nr]``): 0 when it
    finds another layout that agrees with the view ``st`` (opened cells 1, every other cell
    covered) and the mine count, 1 when it proves there is none, -1 when it cannot tell (the
    caller asks the complete test). The view S before the step fixes every mine; ``focus``: the
    cells covered again and their neighbours, as :func:`settles` takes it.

    A change D (a set of covered cells, each a mine taken away or one added) is *balanced* when
    every opened number still counts right. It searches the balanced D inside the window (the
    cells within ``NEAR_RADIUS`` king moves of a cell covered again) that hold a focus cell: a
    DPLL over "cell in D" (a number out of balance takes a covered neighbour that moves its count
    back; a choice refuted is out of D in the siblings that follow it; a number that can no
    longer get back into balance refutes the branch), stopping at each D found in balance. A
    number with a covered neighbour outside the window is *loose*. Then:

    * a balanced D whose mine count the covered cells next to no opened cell (which no number
      sees) can make up (``d`` of their mines made safe, or ``-d`` of their safe cells made
      mines, outside D) is another layout: 0;
    * when the search ends without a loose number out of balance and within ``budget`` nodes,
      every balanced D with a focus cell is the union of some it found and of a balanced D
      without a focus cell, which keeps every number of S: a balanced D' holding a focus cell
      leads the search, along the branches that agree with it (a number whose covered cells all
      lie in the window is balanced by cells of D' there), to a balanced D'' inside D', and D'
      minus D'' is balanced, so the same holds for it. Any other layout is such a D with
      total 0 (it differs from the true one on a focus cell). So when the D found add mines only
      (``flex[2]``) or take them away only (``flex[3]``), and no balanced D of S takes them the
      other way (``flex[1]``, ``flex[0]``: "may", held by the caller), no other layout exists: 1;
    * otherwise: -1."""
    n = len(st)
    W = nbr[1]  # the grid's width: cell 0's neighbours are 1, W and W + 1
    H = n // W
    bal = aux[0:n]
    ind = aux[n:2 * n]
    out = aux[2 * n:3 * n]
    win = aux[3 * n:4 * n]
    etrail = aux[4 * n:5 * n]
    fnum = aux[5 * n:6 * n + 2]
    fidx = aux[6 * n + 2:7 * n + 4]
    fcell = aux[7 * n + 4:8 * n + 6]
    fex = aux[8 * n + 6:9 * n + 8]
    roots = aux[9 * n + 8:10 * n + 8]
    for i in range(n):
        bal[i] = 0
        ind[i] = 0
        out[i] = 0
        win[i] = 0
    for q in range(nr):
        c = rcells[q]
        r0 = c // W
        c0 = c % W
        for a in range(max(0, r0 - NEAR_RADIUS), min(H, r0 + NEAR_RADIUS + 1)):
            for b in range(max(0, c0 - NEAR_RADIUS), min(W, c0 + NEAR_RADIUS + 1)):
                win[a * W + b] = 1
    nroot = 0
    inner_m = 0
    inner_s = 0
    for i in range(n):
        if st[i] == OPENED:
            continue
        if focus[1 + i]:
            roots[nroot] = i
            nroot += 1
        if not _touches(nbr, nnb, st, i, OPENED):
            if mines[i]:
                inner_m += 1
            else:
                inner_s += 1
    lh = False  # a number with cells outside the window came out of balance
    apos = False  # a D with every number in balance and more mines in all
    aneg = False  # ... and fewer
    found = 0
    nodes = 0
    net = 0
    etop = 0
    L = 0
    fnum[0] = -1
    fidx[0] = 0
    fcell[0] = -1
    fex[0] = 0
    over = False
    while True:
        c = fcell[L]
        if c >= 0:
            # the branch with c in D is done: c is out of D in the siblings that follow
            net += _flip(nbr, nnb, mines, st, bal, ind, c, -1)
            out[c] = 1
            etrail[etop] = c
            etop += 1
            fcell[L] = -1
        picked = -1
        j = fnum[L]
        if j < 0:
            while fidx[L] < nroot:
                c = roots[fidx[L]]
                fidx[L] += 1
                if out[c] == 0 and ind[c] == 0:
                    picked = c
                    break
        else:
            e = bal[j]
            need = -1 if e > 0 else 1
            if e != 0:
                avail = 0
                for t in range(8 * j + fidx[L], 8 * j + nnb[j]):
                    c = nbr[t]
                    if st[c] != OPENED and win[c] and ind[c] == 0 and out[c] == 0 and \
                            (1 if mines[c] == 0 else -1) == need:
                        avail += 1
                if avail >= abs(e):
                    while fidx[L] < nnb[j]:
                        c = nbr[8 * j + fidx[L]]
                        fidx[L] += 1
                        if st[c] != OPENED and win[c] and ind[c] == 0 and out[c] == 0 and \
                                (1 if mines[c] == 0 else -1) == need:
                            picked = c
                            break
        if picked < 0:
            while etop > fex[L]:
                etop -= 1
                out[etrail[etop]] = 0
            if L == 0:
                break
            L -= 1
            continue
        net += _flip(nbr, nnb, mines, st, bal, ind, picked, 1)
        fcell[L] = picked
        nodes += 1
        if nodes > budget:
            over = True
            break
        # the next number to balance: the most constrained one out of balance and not loose
        best = -1
        bscore = 1 << 30
        loose = -1
        dead = False
        for q in range(L + 1):
            a = fcell[q]
            for t in range(8 * a, 8 * a + nnb[a]):
                j = nbr[t]
                if st[j] != OPENED or bal[j] == 0:
                    continue
                e = bal[j]
                need = -1 if e > 0 else 1
                avail = 0
                strict = True
                for u in range(8 * j, 8 * j + nnb[j]):
                    w = nbr[u]
                    if st[w] == OPENED:
                        continue
                    if not win[w]:
                        strict = False
                    elif ind[w] == 0 and out[w] == 0 and (1 if mines[w] == 0 else -1) == need:
                        avail += 1
                if not strict:
                    if loose < 0 and avail > 0:
                        loose = j
                    continue
                if avail < abs(e):
                    dead = True
                    break
                if avail < bscore:
                    bscore = avail
                    best = j
            if dead:
                break
        if dead:
            continue
        if best >= 0:
            L += 1
            fnum[L] = best
            fidx[L] = 0
            fcell[L] = -1
            fex[L] = etop
            continue
        if loose >= 0:
            lh = True
            L += 1
            fnum[L] = loose
            fidx[L] = 0
            fcell[L] = -1
            fex[L] = etop
            continue
        unbalanced = False
        for q in range(L + 1):
            a = fcell[q]
            for t in range(8 * a, 8 * a + nnb[a]):
                if st[nbr[t]] == OPENED and bal[nbr[t]] != 0:
                    unbalanced = True
        if unbalanced:
            lh = True
            continue
        cm = inner_m
        cs = inner_s
        for q in range(L + 1):
            a = fcell[q]
            if not _touches(nbr, nnb, st, a, OPENED):
                if mines[a]:
                    cm -= 1
                else:
                    cs -= 1
        if net == 0 or (net > 0 and cm >= net) or (net < 0 and cs >= -net):
            found = 1
            break
        if net > 0:
            apos = True
        else:
            aneg = True
    # leave the flags clear (``bal`` is cleared on entry)
    if found or over:
        for q in range(L + 1):
            if fcell[q] >= 0:
                ind[fcell[q]] = 0
        for q in range(etop):
            out[etrail[q]] = 0
    if found:
        return 0
    if over or lh:
        return -1
    flex[2] = 1 if apos else 0
    flex[3] = 1 if aneg else 0
    if apos and (aneg or flex[1]) or aneg and flex[0]:
        return -1
    return 1


@kernel(inner=True, _nrt=False)
def _view_test(nbr, nnb, mines, nums, n_mines, base, cells, active, settled, st, focus, work, aux, flex, budget):
    """One test of the view reduction: :func:`settles` on the view ``base`` with ``cells[q]`` opened
    where ``active[q]``, focused on the cells of the last settled view (``settled``) covered again
    and their neighbours; :func:`_near` first. 1 or 0, -1 when the complete search went over budget
    (``st`` and ``focus`` then as :func:`_settles_dp` takes them). ``flex[4]``: 1 when :func:`_near`
    answered (its ``flex[2:4]`` then say what the view newly allows)."""
    n = len(st)
    flex[4] = 0
    for i in range(n):
        st[i] = base[i]
        focus[1 + i] = 0
    for q in range(len(cells)):
        if active[q]:
            st[cells[q]] = OPENED
        elif settled[q]:
            c = cells[q]
            focus[1 + c] = 1
            for t in range(8 * c, 8 * c + nnb[c]):
                focus[1 + nbr[t]] = 1
    count = 0
    for i in range(n):
        count += focus[1 + i]
    focus[0] = count
    if count > 0:
        # the cells covered again since the last settled view, for the quick test
        rcells = aux[10 * n + 8:11 * n + 8]
        nr = 0
        for q in range(len(cells)):
            if not active[q] and settled[q]:
                rcells[nr] = cells[q]
                nr += 1
        quick = _near(nbr, nnb, mines, st, focus, rcells, nr, aux[:10 * n + 8], NEAR_BUDGET, flex)
        if quick >= 0:
            flex[4] = 1
            return quick
        _local(nbr, nnb, nums, n_mines, st)
        got = _backbone(nbr, nnb, mines, nums, n_mines, st, work, budget, True, focus)
        if got < 0:
            return -1
        return 0 if got == 2 else 1
    got = _deduce(nbr, nnb, mines, nums, n_mines, st, work, budget, True, focus)
    if got < 0:
        return -1
    if got == 2:
        return 0
    return 0 if _holds(st, COVERED) else 1


#: (nbr, nnb, mines, nums, n_mines, base, cells, order, active, settled, st, focus, work, aux, tab, lst, state,
#: budget) -> see :func:`reduce`
REDUCE_SIG = nt.int64(_I64, _I64, _I8, _I64, nt.int64, _I8, _I64, _I64, nt.boolean[::1], nt.boolean[::1], _I8, _I64,
                      _I64, _I64, _I64, _I64, _I64, nt.int64)
#: the nodes :func:`_flex`'s searches may visit before it answers "may"
FLEX_BUDGET = 20_000


@kernel(inner=True, _nrt=False)
def _settle_run(nbr, nnb, mines, base, cells, active, settled, order, p, ln, got, state, st, work, quick):
    """The engine's ``minimal_in_runs`` step after the run ``order[p:p + ln]`` was tested (``got``):
    kept out on success (the run doubles), put back on failure (the run halves; a single group
    stays). Updates ``state`` (see :func:`reduce`); on success, what the new settled view allows
    the mine count (``state[6:8]``, see :func:`_near`): from :func:`_near` when it answered
    (``quick``), else from :func:`_flex`."""
    if got == 1:
        state[2] -= ln
        state[0] = p + ln
        state[1] *= 2
        for q in range(len(active)):
            settled[q] = active[q]
        if quick:
            state[6] |= state[8]
            state[7] |= state[9]
        else:
            state[6] = 1
            state[7] = 1
    else:
        for q in range(p, p + ln):
            active[order[q]] = True
        if ln == 1:
            state[0] = p + 1
            state[1] = 1
        else:
            state[1] = max(1, ln // 2)


@kernel(inner=True, _nrt=False)
def _settled_flex(nbr, nnb, mines, base, cells, settled, st, work, state):
    """:func:`_flex` on the settled view, into ``state[6:8]`` (1 once it holds stays 1: a smaller
    view allows more)."""
    if state[6] and state[7]:
        return
    for i in range(len(st)):
        st[i] = base[i]
    for q in range(len(cells)):
        if settled[q]:
            st[cells[q]] = OPENED
    got = state[11:13]
    _flex(nbr, nnb, mines, st, work, FLEX_BUDGET, got)
    state[6] |= got[0]
    state[7] |= got[1]


@kernel(REDUCE_SIG, _nrt=False)
def reduce(nbr, nnb, mines, nums, n_mines, base, cells, order, active, settled, st, focus, work, aux, tab, lst, state,
           budget):
    """``codec.reduce_view``'s whole reduction: the engine's ``minimal_in_runs`` over ``order`` (the
    same runs, so the same decisions) with :func:`_view_test`, then :func:`settles_dp`, as the
    uniqueness test. ``state`` (13 numbers, zero to begin): the loop's position ``p, k, left``
    (``k`` and ``left`` set here when ``state[5]`` is 0), whether a test waits for SAT and its
    answer, whether the loop has begun, then what the settled view allows the mine count
    (:func:`_near`'s ``flex``) and room for :func:`_flex`. Returns 0 when done, or 1 when a test
    needs SAT (neither kernel path fitted): ``active`` then lacks the run under test, ``state[3]``
    is 1, and the caller puts the answer in ``state[4]`` and calls again."""
    n_g = len(order)
    flex = state[6:11]
    if not state[5]:
        state[5] = 1
        state[0] = 0
        state[1] = 1
        state[2] = n_g
        state[6] = 0
        state[7] = 0
        _settled_flex(nbr, nnb, mines, base, cells, settled, st, work, state)
    if state[3]:
        state[3] = 0
        p = state[0]
        ln = min(state[1], state[2], n_g - p)
        _settle_run(nbr, nnb, mines, base, cells, active, settled, order, p, ln, state[4], state, st, work, False)
    while state[0] < n_g and state[2] > 0:
        p = state[0]
        ln = min(state[1], state[2], n_g - p)
        for q in range(p, p + ln):
            active[order[q]] = False
        got = _view_test(nbr, nnb, mines, nums, n_mines, base, cells, active, settled, st, focus, work, aux, flex,
                         budget)
        quick = flex[4] == 1
        if got < 0:
            got = _settles_dp(nbr, nnb, mines, nums, n_mines, st, focus, work, tab, lst)
        if got < 0:
            state[3] = 1
            return 1
        _settle_run(nbr, nnb, mines, base, cells, active, settled, order, p, ln, got, state, st, work, quick)
    return 0


#: (nbr, nnb, mines, st, focus, rcells, nr, aux, budget, flex) -> see :func:`near`
NEAR_SIG = nt.int64(_I64, _I64, _I8, _I8, _I64, _I64, nt.int64, _I64, nt.int64, _I64)
#: (nbr, nnb, mines, st, work, budget, out) -> see :func:`flex`
FLEX_SIG = nt.void(_I64, _I64, _I8, _I8, _I64, nt.int64, _I64)


@kernel(NEAR_SIG, _nrt=False)
def near(nbr, nnb, mines, st, focus, rcells, nr, aux, budget, flex):
    """:func:`_near` (an entry point for the tests)."""
    return _near(nbr, nnb, mines, st, focus, rcells, nr, aux, budget, flex)


@kernel(FLEX_SIG, _nrt=False)
def flex(nbr, nnb, mines, st, work, budget, out):
    """:func:`_flex` (an entry point for the tests)."""
    _flex(nbr, nnb, mines, st, work, budget, out)
