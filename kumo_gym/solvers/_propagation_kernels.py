"""The numba kernel behind :mod:`kumo_gym.solvers.propagation` (imported on first use only).

One function (no helper, and no call to a builtin such as ``min`` that numba would compile as a
function of its own), one explicit signature, no allocation (the caller passes every buffer) and
no reference counting (``_nrt=False``): numba compiles a single small function at import, which
keeps the first use in a fresh process (empty cache) short (about 1.1 s
CPU with an inlined helper and ``min``, 0.95 s without; a separately compiled
``assign`` helper added 0.13 s, so every literal, given or implied, is assigned at one site of
one loop instead). The trail doubles as the propagation queue; ``nfalse[c]``
counts the false literals of clause c; a probe is undone by walking the trail back and
decrementing the counters of the entries it had processed.
"""
from numba import types as nt

from .native import kernel

_A = nt.int64[::1]
_B = nt.int8[::1]
#: (lits, starts, occ_start, occ, todo, candidates, target, n_target, value, nfalse, trail, seen) -> ok
DEDUCE_SIG = nt.boolean(_A, _A, _A, _A, _A, _A, _B, nt.int64, _B, _A, _A, _A)


@kernel(DEDUCE_SIG, error_model="numpy", _nrt=False)
def deduce(lits, starts, occ_start, occ, todo, candidates, target, n_target, value, nfalse, trail, seen):
    """Propagate ``todo`` (the unit clauses' literals, then the assumptions); then, when
    ``candidates`` is not empty, failed-literal probing on them to a fixpoint. Returns whether
    the result is consistent; the values are left in ``value`` (zeroed by the caller, length
    n_vars + 1), ``nfalse`` (one per clause), ``trail`` (n_vars + 2) and ``seen`` (2 n_vars + 4)
    must be zeroed too.

    A literal that a successful probe implied is not probed itself until the root changes
    (``seen[code] == epoch``): had it failed, so would the probe that implied it. The fixpoint
    (the values returned) is the same with or without the skip, probing being confluent; with a
    target (``n_target > 0``), where the search may stop before the fixpoint, nothing is skipped.

    ``target[v]`` is 1 or -1 for the ``n_target`` literals the caller waits for: once all of them
    hold at the root the search stops early (returns True; the values are then incomplete).
    """
    hits = 0
    head = 0
    tlen = 0
    # the trail is also the queue; entries below head were processed
    ok = True
    mark = -1          # trail length before the current probe (-1: at the root)
    probe_i = 0        # next candidate index
    sign = 1
    changed = False
    pending = 0        # a literal to assign next (0: none)
    k = 0
    epoch = 1          # root states: seen[code] == epoch marks a literal implied at this one
    while True:
        # 1. the literal to put on the trail first
        if k < len(todo):
            lit = todo[k]
            k += 1
        elif pending != 0:
            lit = pending
            pending = 0
        else:
            lit = 0
        # 2. put it on the trail, then propagate. Every literal, given or implied, is assigned at the
        # one site at the top of this loop; the clauses of the trail entry being processed are
        # visited one per turn (j up to j_end), so an implied literal is assigned before the
        # next clause is looked at. The given literals all go in before propagation starts.
        j = 0
        j_end = 0
        while True:
            if lit != 0:
                v = abs(lit)
                s = 1 if lit > 0 else -1
                if value[v] == -s:
                    ok = False
                elif value[v] == 0:
                    value[v] = s
                    if mark < 0 and target[v] == s:
                        hits += 1
                        if hits == n_target:
                            return True
                    trail[tlen] = lit
                    tlen += 1
                lit = 0
                if ok and k < len(todo):
                    lit = todo[k]
                    k += 1
                    continue
            if j == j_end:  # the next trail entry's clauses (those where its negation occurs)
                if head >= tlen or not ok:
                    break
                neg = -trail[head]
                head += 1
                code = 2 * abs(neg) + (1 if neg < 0 else 0)
                j = occ_start[code]
                j_end = occ_start[code + 1]
                continue
            c = occ[j]
            j += 1
            nfalse[c] += 1  # counted even after a conflict: the undo below takes it back
            if not ok or nfalse[c] < starts[c + 1] - starts[c] - 1:
                continue
            satisfied = False
            free = 0
            last = 0
            for q in range(starts[c], starts[c + 1]):
                l = lits[q]
                val = value[abs(l)]
                if val == 0:
                    free += 1
                    last = l
                elif (val > 0) == (l > 0):
                    satisfied = True
                    break
            if satisfied:
                continue
            if free == 0:
                ok = False
            elif free == 1:
                lit = last  # implied: assigned at the top of the next turn
        # 3. decide what the outcome means
        if mark >= 0:
            if ok and n_target == 0:  # what this probe implied need not be probed at this root
                for q in range(mark, tlen):
                    lit = trail[q]
                    seen[2 * abs(lit) + (1 if lit < 0 else 0)] = epoch
            # undo the probe
            while tlen > mark:
                tlen -= 1
                lit = trail[tlen]
                if tlen < head:
                    neg = -lit
                    code = 2 * abs(neg) + (1 if neg < 0 else 0)
                    for j in range(occ_start[code], occ_start[code + 1]):
                        nfalse[occ[j]] -= 1
                value[abs(lit)] = 0
            if tlen < head:  # noqa: PLR1730 (numba compiles min() as a function of its own)
                head = tlen
            probed = candidates[probe_i]
            mark = -1
            if not ok:
                ok = True
                pending = -sign * probed   # failed probe: the negation holds at the root
                epoch += 1
                changed = True
                probe_i += 1
                sign = 1
                continue
            if sign == 1:
                sign = -1
            else:
                sign = 1
                probe_i += 1
        elif not ok:
            return False
        # 4. next probe (a literal already implied at this root by a successful probe is passed over)
        while True:
            while probe_i < len(candidates) and value[candidates[probe_i]] != 0:
                probe_i += 1
                sign = 1
            if probe_i >= len(candidates):
                if not changed or len(candidates) == 0:
                    return True
                changed = False
                probe_i = 0
                sign = 1
                while probe_i < len(candidates) and value[candidates[probe_i]] != 0:
                    probe_i += 1
                if probe_i >= len(candidates):
                    return True
            lit = sign * candidates[probe_i]
            if n_target == 0 and seen[2 * abs(lit) + (1 if lit < 0 else 0)] == epoch:
                if sign == 1:
                    sign = -1
                else:
                    sign = 1
                    probe_i += 1
                continue
            break
        mark = tlen
        pending = lit
