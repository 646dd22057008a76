"""The numba kernel of the KUMO optimal search (``docs/specs/kumo.md`` §9); see :mod:`kumo_gym.envs.kumo.search`.

Imported only when an instance is large enough to need it, so that a process that plays small
instances never imports numba nor compiles anything.

The search computes exactly the value of the paper's Algorithm 3 (same weights, same arithmetic in
the same order, so the same floating-point numbers), but visits far fewer states:

* **Useless actions are stripped.** An action none of whose states rules out a truth of ``T``
  is never chosen (its children all equal ``T``, so its cost is ``(1 - 1e-10) (1 + best)`` > best)
  and changes no base case, so ``E(T, A) = E(T, A \\ useless)`` exactly; the memo key uses the
  stripped set.
* **Branch and bound with cut-offs passed down** (Ballard's Star1 for expectimin trees). A node
  is searched with a limit ``lam``: it returns its exact value when that is below ``1 + lam``,
  otherwise a proven lower bound. The limit of a child is the value above which its parent's
  action can no longer beat the best action found so far, given the exact values of the earlier
  children and lower bounds of the later ones (0 for a base case, the memo's value or bound, else
  1). Exact values and lower bounds share one open-addressing table. An action is skipped
  before any child is searched when the bound of all its children already reaches the best.
* **Move ordering**: actions are tried in increasing order of ``sum_s p_s (|child_s| - 1)`` over
  the children that are not base cases, so that a good action sets a tight bound early.
* **Aspiration at the root** (in :class:`kumo_gym.envs.kumo.search.OptimalSearch`): the root is first
  searched with small limits (each failure leaves bounds in the table), then without one.

Pruning only skips work whose outcome is proven; every comparison that prunes has a relative
slack of 1e-12 (far above the rounding error of these short sums and far below any real gap), and
a bound that turns out too weak is searched again without a limit. The arg-min is then found as
the paper finds it: actions in ascending index order, a strictly smaller cost wins.
"""
from __future__ import annotations

import numpy as np

from ...solvers.native import kernel

INF = np.inf
#: rows of the float scratch array per depth: ordering key, weight total, lower bound of the
#: action, then one row per state holding that child's lower bound
_F_ORDER, _F_TOTAL, _F_BOUND, _F_CHILD = 0, 1, 2, 3
#: rows of the int scratch array per depth: truths only that action can rule out; visit order
_I_SOLE, _I_ORDER = 0, 1


@kernel(inner=True, cache=True)
def _popcount(x):
    """Bits set in a non-negative int64 (branch-free SWAR count; masks stay below 2**62)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@kernel(inner=True, cache=True)
def _slot(keys, key):
    """Linear-probing slot of ``key`` in the open-addressing table ``keys`` (-1 = empty)."""
    mask = keys.shape[0] - 1
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
    i = np.int64(h & np.uint64(mask))
    while keys[i] != -1 and keys[i] != key:
        i = (i + 1) & mask
    return i


#: the signatures the native build exports (compiled here on first call, as before)
_I, _F = "int64[::1]", "float64[::1]"
REHASH_SIG = f"void({_I}, {_F}, int8[::1], {_I}, {_F}, int8[::1])"
SEARCH_SIG = (f"Tuple((float64, int64))(int64, int64, float64, boolean, int64, int64, int64[:, ::1], {_I}, {_I}, "
              f"{_I}, {_I}, {_F}, int8[::1], {_I}, int64[:, :, ::1], float64[:, :, ::1])")


@kernel(None, aot_sig=REHASH_SIG)
def rehash(keys, vals, flags, new_keys, new_vals, new_flags):
    for i in range(keys.shape[0]):
        if keys[i] != -1:
            j = _slot(new_keys, keys[i])
            new_keys[j] = keys[i]
            new_vals[j] = vals[i]
            new_flags[j] = flags[i]


@kernel(inner=True, cache=True)
def _store(keys, vals, flags, used, key, v, exact):
    """Record an exact value (``exact`` 1) or a lower bound (0); an exact value is never weakened."""
    slot = _slot(keys, key)
    if keys[slot] == key:
        if exact == 1:
            vals[slot] = v
            flags[slot] = 1
        elif flags[slot] == 0 and v > vals[slot]:
            vals[slot] = v
        return
    keys[slot] = key
    vals[slot] = v
    flags[slot] = exact
    used[0] += 1


@kernel(inner=True, cache=True)
def _useful(T, A, umask):
    """The actions of ``A`` with some state ruling out a truth of ``T``."""
    out = np.int64(0)
    a = A
    while a != 0:
        low = a & -a
        a ^= low
        if umask[_popcount(low - 1)] & T:
            out |= low
    return out


@kernel(inner=True, cache=True)
def _child_bound(child, rest, n, umask, keys, vals):
    """A lower bound on ``E(child, rest)`` for a child that is not a base case: its table entry
    (exact value or bound), else 1 (it needs at least one more test)."""
    key = child | (_useful(child, rest, umask) << n)
    slot = _slot(keys, key)
    if keys[slot] == key and vals[slot] > 1.0:
        return vals[slot]
    return 1.0


@kernel(None, aot_sig=SEARCH_SIG)
def search(T, A, lam, root, d, n, masks, nstates, rel, umask, keys, vals, flags, used, iscr, fscr):
    """One node of the search (see the module docstring).

    Normal call (``root`` False): ``(E(T, A), 1)`` when ``E(T, A) < 1 + lam``, else ``(bound, 0)``
    with ``E(T, A) >= bound >= about 1 + lam``. Root call: ``(min cost, lowest-index arg-min)``
    over the actions in index order, pruning costs at or above ``lam`` (``-1`` when none is below).
    ``used[0]`` counts table entries; ``used[1]`` is set when the table passes 60 % load, and the
    search then unwinds so that the caller can grow the table and search again.
    """
    none = -1 if root else 1
    child_root = d < 0  # False as a runtime bool: a literal would compile a second specialisation
    if used[1]:
        return 0.0, none
    cnt = _popcount(T)
    if cnt <= 1:
        return 0.0, none
    A = _useful(T, A, umask)
    if A == 0:
        return 0.0, none
    key = T | (A << n)
    if not root:
        slot = _slot(keys, key)
        if keys[slot] == key:
            if flags[slot] == 1:
                return vals[slot], 1
            if vals[slot] >= 1.0 + lam:
                return vals[slot], 0
    # base case "a truth no remaining action can rule out"; meanwhile, for each action, the truths
    # that only it can rule out (its children keep a base case when they keep one of those)
    a = A
    while a != 0:
        low = a & -a
        a ^= low
        iscr[d, _I_SOLE, _popcount(low - 1)] = 0
    for t in range(n):
        if (T >> t) & 1:
            r = rel[t] & A
            if r == 0:
                return 0.0, none
            if r & (r - 1) == 0:
                iscr[d, _I_SOLE, _popcount(r - 1)] |= np.int64(1) << t
    # per action: weight total, a lower bound (a child that is not a base case needs another
    # test), and the ordering key, the same sum weighted by the child's survivors (fewer is better)
    k = 0
    a = A
    while a != 0:
        low = a & -a
        j = _popcount(low - 1)
        a ^= low
        rest = A ^ low
        sole = iscr[d, _I_SOLE, j]
        total = 0.0
        for s in range(nstates[j]):
            total += cnt - _popcount(masks[j, s] & T)
        key_order = 0.0
        bound = 0.0
        for s in range(nstates[j]):
            child = T & ~masks[j, s]
            c = _popcount(child)
            if rest != 0 and (child & sole) == 0 and c > 1:
                q = (cnt - _popcount(masks[j, s] & T)) / (total + 1e-9)
                bound += q
                key_order += q * (c - 1)
        fscr[d, _F_TOTAL, j] = total
        fscr[d, _F_BOUND, j] = bound
        i = k
        if not root:  # insertion sort; equal keys keep index order
            while i > 0 and fscr[d, _F_ORDER, i - 1] > key_order:
                iscr[d, _I_ORDER, i] = iscr[d, _I_ORDER, i - 1]
                fscr[d, _F_ORDER, i] = fscr[d, _F_ORDER, i - 1]
                i -= 1
        iscr[d, _I_ORDER, i] = j
        fscr[d, _F_ORDER, i] = key_order
        k += 1
    best = lam
    best_j = -1
    for idx in range(k):
        j = iscr[d, _I_ORDER, idx]
        bound = fscr[d, _F_BOUND, j]
        if best < INF and bound * (1.0 - 1e-12) >= best:
            continue
        rest = A & ~(np.int64(1) << j)
        total = fscr[d, _F_TOTAL, j]
        sole = iscr[d, _I_SOLE, j]
        if best < INF:
            # tighten with what the memo already knows of the children (exact values or bounds)
            bound = 0.0
            for s in range(nstates[j]):
                child = T & ~masks[j, s]
                lower = 0.0
                if rest != 0 and (child & sole) == 0 and _popcount(child) > 1:
                    lower = _child_bound(child, rest, n, umask, keys, vals)
                    bound += (cnt - _popcount(masks[j, s] & T)) / (total + 1e-9) * lower
                fscr[d, _F_CHILD + s, j] = lower
            if bound * (1.0 - 1e-12) >= best:
                continue
        else:
            for s in range(nstates[j]):
                fscr[d, _F_CHILD + s, j] = 1.0
        acc = 0.0
        pruned = False
        for s in range(nstates[j]):
            w = cnt - _popcount(masks[j, s] & T)
            p = w / (total + 1e-9)
            child = T & ~masks[j, s]
            e = 0.0
            if rest != 0 and (child & sole) == 0 and _popcount(child) > 1:
                bound -= p * fscr[d, _F_CHILD + s, j]  # now: the bound of the later children only
                lam_c = INF
                if best < INF:
                    # the child must cost below 1 + lam_c for this action to beat ``best``; the
                    # margin makes a bound returned at the limit decide the test below
                    lam_c = (best - acc - bound) / p - 1.0
                    lam_c += 1e-8 * (1.0 + abs(lam_c))
                e, exact = search(child, rest, lam_c, child_root, d + 1, n, masks, nstates, rel, umask, keys,
                                  vals, flags, used, iscr, fscr)
                if used[1]:
                    return 0.0, none
                if exact == 0:
                    if (acc + p * e + bound) * (1.0 - 1e-12) >= best:
                        pruned = True
                        break
                    e, exact = search(child, rest, INF, child_root, d + 1, n, masks, nstates, rel, umask, keys,
                                      vals, flags, used, iscr, fscr)
                    if used[1]:
                        return 0.0, none
            acc += p * e  # the paper's sum, term by term in state order
            if acc >= best:
                pruned = True
                break
            if best < INF and (acc + bound) * (1.0 - 1e-12) >= best:
                pruned = True
                break
        if not pruned and acc < best:
            best = acc
            best_j = j
    if root:
        return best, best_j
    if used[0] * 10 >= keys.shape[0] * 6:
        used[1] = 1
        return 0.0, 1
    if best_j < 0:
        v = 1.0 + lam - 1e-10 * (1.0 + abs(lam))
        v = max(v, 1.0)
        _store(keys, vals, flags, used, key, v, none - 1)
        return v, 0
    e = 1.0 + best
    _store(keys, vals, flags, used, key, e, none)
    return e, 1
