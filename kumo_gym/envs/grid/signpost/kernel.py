"""The numba kernel of Signpost's generator (imported on first generation only).

Unit propagation over the CNF of :mod:`.signpost` (``x[cell, k]``: exactly one number per cell and
one cell per number, the cell of k has a candidate for k+1 on its arrow's ray and a candidate for
k-1 among the cells pointing at it) is arc consistency on the table ``P[cell * n + k]`` (the cell
may hold k+1): a candidate without a successor or predecessor candidate goes, a cell with one
candidate number takes it from every other cell, and a number with one candidate cell takes that
cell. This kernel runs that closure with support counters and a work stack, so placing the givens
(:func:`place`, Tatham's order: add numbers until deduction solves the grid, then drop the added
ones it can do without) costs microseconds per test instead of a CNF propagation from scratch.

The placement is one entry point with no helper (numba re-optimises a helper inside every
caller, and each function it types costs compile time): the closure is written once and driven
by a small state machine over the steps of the placement, the deduction state is one array, no
allocation (the caller passes every buffer), no reference counting. The closure's fixpoint does
not depend on the order in which it strikes candidates (the deductions are monotone, and they
never strike the true numbering, whose numbers the givens are), so neither does the placement.

Grids of at most 16 cells keep fewer givens, down to what failed-literal probing needs
(:func:`probe_solves`): there the candidates of a cell fit in a bit mask and the closure
(:func:`_close`) is a few sweeps over the cells.

Each kernel compiles on its first call (no eager signature), so a process that generates only
small grids never compiles :func:`place`, nor one at 7x7 the probing (cold start);
both are cached on disk.
"""
import numpy as np

from ....solvers.native import kernel

# the steps of :func:`place`
# (numpy scalars: typed int64, not as literals, which numba's ahead-of-time compiler cannot unify)
_ENDS, _ADD, _DROP, _TEST = np.int64(0), np.int64(1), np.int64(2), np.int64(3)


def slot_size(n: int) -> int:
    """One deduction state of :func:`place` on n cells: the table, the two support counters per
    candidate, and per cell and per number a candidate count and a flag (its single shown)."""
    return 3 * n * n + 4 * n


def stack_size(n: int) -> int:
    """Length of the ``stack`` buffer of :func:`place` on n cells: the candidates without support
    at the start, each support counter reaching zero once, at most 3n shows (one single per cell
    and per number, and the givens) striking 2n candidates each, and the shows themselves."""
    return 9 * n * n + 3 * n


#: the signatures the native build exports (compiled here on first call: no eager signature)
_A, _A2 = "int64[::1]", "int64[:, ::1]"
PLACE_SIG = f"boolean(int64, {_A}, {_A}, {_A}, {_A}, {_A}, {_A}, {_A}, int16[::1], {_A}, {_A}, {_A})"
PROBE_SIG = f"boolean(int64, {_A}, {_A}, {_A}, {_A}, {_A}, {_A}, {_A2})"


@kernel(None, aot_sig=PLACE_SIG, error_model="numpy", _nrt=False)
def place(n, rs, rc, is_, ic, number, ends, order, S, stack, added, shown):
    """(int64 arrays but ``S``, int16.) Tatham's placement of the givens: the ``ends`` shown, then the cells of ``order`` not yet
    numbered by deduction shown one by one until deduction numbers every cell, then each added
    one hidden again (same order) when deduction still numbers every cell without it. ``shown``
    (per cell, zeros on entry; 1: shown) is the result; returns whether it solves the grid.

    ``S`` holds n + 2 slots (:func:`slot_size`) of the deduction state: ``P`` (1: a candidate),
    then the successor and predecessor support counts of each candidate, then per cell its
    candidate count, per number its candidate count, per cell and per number a flag (the single
    already shown). Slot 0 is live, slot n + 1 the closure of the ends, slot 1 + i that of the
    ends and ``added[i:]``. Removal test i starts from slot 2 + i, shows the kept ones before i
    and stops as soon as deduction gives cell ``added[i]`` its number again: the remaining
    givens then imply all the givens before the removal, which solved the grid.

    ``stack`` (:func:`stack_size`) holds the work: ``i < n * n`` a candidate to strike (then its
    consequences), ``n * n + i`` a show (cell ``i // n`` takes number ``i % n + 1``).
    """
    nn = n * n
    size = 3 * nn + 4 * n
    cnt = 3 * nn  # the counts: cell a at cnt + a, number k at cnt + n + k; the flags after them
    base = n + 1
    # the start: every candidate, the ones without a successor or predecessor to strike (the
    # last number needs no successor, the first no predecessor: n, a count never decremented)
    top = 0
    for i in range(nn):
        a = i // n
        k = i - a * n
        S[i] = 1
        S[nn + i] = rs[a + 1] - rs[a] if k + 1 < n else n
        S[2 * nn + i] = is_[a + 1] - is_[a] if k >= 1 else n
        if S[nn + i] == 0 or S[2 * nn + i] == 0:
            stack[top] = i
            top += 1
    for a in range(2 * n):
        S[cnt + a] = n
        S[cnt + 2 * n + a] = 0
    for t in range(len(ends)):
        stack[top] = nn + ends[t] * n + number[ends[t]]
        top += 1
    step = _ENDS
    pos = 0         # the step's position (in order / added)
    nadd = 0
    goal = -1       # a removal test: the candidate it waits for
    while True:
        # the closure of the stack: a contradiction, or the goal reached
        ok = True
        reached = False
        while True:
            if goal >= 0 and S[cnt + goal // n] == 1 and S[goal]:
                reached = True
                break
            if top == 0:
                break
            top -= 1
            i = stack[top]
            if i >= nn:  # a show: the rest of the cell's row and of the number's column struck
                i -= nn
                a = i // n
                k = i - a * n
                if not S[i]:
                    ok = False
                    break
                for t in range(2 * n):
                    j = a * n + t if t < n else (t - n) * n + k
                    if j != i and S[j]:
                        stack[top] = j
                        top += 1
                continue
            if not S[i]:
                continue
            a = i // n
            k = i - a * n
            S[i] = 0
            S[cnt + a] -= 1
            S[cnt + n + k] -= 1
            if S[cnt + a] == 0 or S[cnt + n + k] == 0:
                ok = False
                break
            # cells pointing at a lose a's k as the successor of their k-1, cells on a's ray
            # lose it as the predecessor of their k+1
            nin = is_[a + 1] - is_[a] if k >= 1 else 0
            nout = rs[a + 1] - rs[a] if k + 1 < n else 0
            for t in range(nin + nout):
                if t < nin:
                    j = ic[is_[a] + t] * n + k - 1
                    off = nn
                else:
                    j = rc[rs[a] + t - nin] * n + k + 1
                    off = 2 * nn
                S[off + j] -= 1
                if S[off + j] == 0 and S[j]:
                    stack[top] = j
                    top += 1
            # a cell with one candidate number, a number with one candidate cell: shown once
            for s in range(2):
                c = a if s == 0 else n + k
                if S[cnt + c] == 1 and not S[cnt + 2 * n + c]:
                    S[cnt + 2 * n + c] = 1
                    for t in range(n):
                        j = a * n + t if s == 0 else t * n + k
                        if S[j]:
                            stack[top] = nn + j
                            top += 1
                            break
        # what the closure means for the step
        dst = -1  # the slot that keeps it
        if step == _TEST:
            if not reached:
                shown[added[pos]] = 1
            pos += 1
        elif not ok:
            return False
        elif step == _ENDS:
            dst = base
            step = _ADD
        elif step == _DROP:  # slot 1 + i: the ends and added[i:]
            dst = 1 + pos
            pos -= 1
        if dst >= 0:
            for t in range(size):
                S[dst * size + t] = S[t]
        if step == _ADD:
            solved = True
            for a in range(n):
                if S[cnt + a] != 1:
                    solved = False
                    break
            while not solved and pos < n and S[cnt + order[pos]] <= 1:
                pos += 1
            if not solved and pos < n:  # the next added number, on the live state
                j = order[pos]
                pos += 1
                added[nadd] = j
                nadd += 1
                stack[0] = nn + j * n + number[j]
                top = 1
                continue
            if not solved:
                return False
            step = _DROP
            pos = nadd - 1
        if step == _DROP and pos <= 0:
            for t in range(len(ends)):
                shown[ends[t]] = 1
            for t in range(nadd):
                shown[added[t]] = 1
            step = _TEST
            pos = 0
        if step == _TEST and pos >= nadd:
            return True
        # the next closure starts from slot 2 + pos (the ends' slot for the last added number)
        src = base if pos == nadd - 1 else 2 + pos
        for t in range(size):
            S[t] = S[src * size + t]
        j = added[pos]
        stack[0] = nn + j * n + number[j]
        top = 1
        if step == _TEST:  # the kept ones before it shown, its own number awaited
            shown[j] = 0
            goal = j * n + number[j]
            top = 0
            for u in range(pos):
                if shown[added[u]]:
                    stack[top] = nn + added[u] * n + number[added[u]]
                    top += 1


@kernel(inner=True, cache=True, nogil=True, error_model="numpy", _nrt=False)
def _close(n, C, s, rs, rc, is_, ic):
    """Arc consistency on slot ``s`` of ``C`` (per cell, a bit mask of its candidate numbers):
    a number with no successor candidate on the cell's ray (no predecessor candidate among the
    cells pointing at it) goes, a cell with one candidate takes it from every other cell, a
    number with one candidate cell takes that cell. The same deductions as unit propagation on
    the SAT encoding (see :func:`place`), swept to the fixpoint; False on a contradiction."""
    full = (1 << n) - 1
    last = 1 << (n - 1)
    while True:
        changed = False
        once = 0
        twice = 0
        fixed = 0
        for a in range(n):
            m = C[s, a]
            succ = 0
            for t in range(rs[a], rs[a + 1]):
                succ |= C[s, rc[t]]
            pred = 0
            for t in range(is_[a], is_[a + 1]):
                pred |= C[s, ic[t]]
            m2 = m & ((succ >> 1) | last) & ((pred << 1) | 1)
            if m2 == 0:
                return False
            if m2 != m:
                C[s, a] = m2
                changed = True
            twice |= once & m2
            once |= m2
            if m2 & (m2 - 1) == 0:
                if fixed & m2:
                    return False
                fixed |= m2
        if once != full:
            return False
        hidden = once & ~twice
        for a in range(n):
            m = C[s, a]
            if m & (m - 1) == 0:
                continue
            h = m & hidden
            if h:
                if h & (h - 1):
                    return False
                m2 = h
            else:
                m2 = m & ~fixed
            if m2 != m:
                C[s, a] = m2
                changed = True
        if not changed:
            return True


@kernel(None, aot_sig=PROBE_SIG, error_model="numpy", _nrt=False)
def probe_solves(n, rs, rc, is_, ic, number, shown, C):
    """Whether the numbers of the ``shown`` cells (``number``: each cell's, from 0) let arc
    consistency (:func:`_close`) with failed-literal probing number every cell: a cell's
    candidate whose closure contradicts goes, a candidate whose removal contradicts is the
    cell's number, to the fixpoint. ``C`` is scratch, two slots of n masks. Deduction only, so a
    grid it numbers has one numbering."""
    full = (1 << n) - 1
    for a in range(n):
        C[0, a] = (1 << number[a]) if shown[a] else full
    if not _close(n, C, 0, rs, rc, is_, ic):
        return False
    changed = True
    while changed:
        changed = False
        solved = True
        for a in range(n):
            m = C[0, a]
            if m & (m - 1) == 0:
                continue
            solved = False
            b = m
            while b:
                low = b & -b
                b ^= low
                m = C[0, a]
                if not m & low or m == low:
                    continue
                for v in range(2):  # the candidate alone, then the cell without it
                    for t in range(n):
                        C[1, t] = C[0, t]
                    C[1, a] = low if v == 0 else m & ~low
                    if not _close(n, C, 1, rs, rc, is_, ic):
                        C[0, a] = m & ~low if v == 0 else low
                        if not _close(n, C, 0, rs, rc, is_, ic):
                            return False
                        changed = True
                        break
        if solved:
            return True
    for a in range(n):
        m = C[0, a]
        if m & (m - 1):
            return False
    return True
