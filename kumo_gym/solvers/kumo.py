"""The KUMO optimal search (Algorithm 3) on bitmasks, compiled with numba (``specs/kumo.md`` §9).

State = (alive truths ``T``, unused actions ``A``), both int64 bitmasks over the instance's truths
and actions in instance order. ``E(T, A)`` is the expected number of further tests:

* base cases, in this order: ``|T| <= 1``; ``A`` empty; some alive truth no remaining action can
  rule out (under uniqueness it is the valid one) -> 0;
* memo key ``T | (A << n)``;
* for each action ``j`` in ``A`` (ascending), with ``w_s = |T| - |M[j][s] & T|`` and
  ``p_s = w_s / (sum w + 1e-9)``, accumulate ``p_s * E(T & ~M[j][s], A - {j})`` over the states
  in domain order, stopping as soon as the sum reaches the best so far (pruning); a strictly
  smaller sum wins, so ties go to the lowest index. Return ``1 + best`` and its action.
  We add one admissible bound (a non-base child costs at least 1), which prunes more without
  changing any value or choice.

The weights are the reference code's heuristic, kept for comparability (§9). ``M[j][s]`` covers
every domain state of ``j``: the oracle does not know which one was drawn. A plain-Python twin of
this algorithm lives in ``tests/kumo/reference_oracle.py`` (used by the tests and the benchmark).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np

NO_ACTION = -1
DEFAULT_MEMO_LIMIT = 20_000_000
#: the budget the environment and the golden export use per instance (then greedy, optimal=False)
PLAY_MEMO_LIMIT = 400_000


@numba.njit(cache=True)
def _popcount(x):
    """Bits set in a non-negative int64 (branch-free SWAR count; masks stay below 2**62)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@numba.njit(cache=True)
def _unrelated(A, n, rel):
    """Bitmask of the truths that no action in ``A`` can rule out."""
    u = np.int64(0)
    for t in range(n):
        if (rel[t] & A) == 0:
            u |= np.int64(1) << t
    return u


@numba.njit(cache=True)
def _slot(keys, key):
    """Linear-probing slot of ``key`` in the open-addressing table ``keys`` (-1 = empty)."""
    mask = keys.shape[0] - 1
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
    i = np.int64(h & np.uint64(mask))
    while keys[i] != -1 and keys[i] != key:
        i = (i + 1) & mask
    return i


@numba.njit(cache=True)
def _rehash(keys, vals, acts, new_keys, new_vals, new_acts):
    for i in range(keys.shape[0]):
        if keys[i] != -1:
            j = _slot(new_keys, keys[i])
            new_keys[j] = keys[i]
            new_vals[j] = vals[i]
            new_acts[j] = acts[i]


@numba.njit(cache=True)
def _search(T, A, n, m, masks, nstates, rel, keys, vals, acts, used, aborted):
    """``(E(T, A), argmin action)``. The memo is an open-addressing table (``keys``/``vals``/
    ``acts``, ``used[0]`` entries); when it passes 60 % load ``aborted[0]`` is set and the search
    unwinds so the caller can grow the table and search again (finished entries are kept)."""
    if aborted[0]:
        return 0.0, -1
    cnt = _popcount(T)
    if cnt <= 1:
        return 0.0, -1
    if A == 0:
        return 0.0, -1
    for t in range(n):
        if (T >> t) & 1 and (rel[t] & A) == 0:
            return 0.0, -1
    key = T | (A << n)
    slot = _slot(keys, key)
    if keys[slot] == key:
        return vals[slot], acts[slot]
    best = np.inf
    best_j = -1
    for j in range(m):
        if not (A >> j) & 1:
            continue
        rest = A & ~(np.int64(1) << j)
        unrel = _unrelated(rest, n, rel)
        total = 0.0
        for s in range(nstates[j]):
            total += cnt - _popcount(masks[j, s] & T)
        # Admissible bound: a child that is not a base case costs at least one more test. An
        # action whose partial sum plus this bound reaches ``best`` can never win (the choice is
        # strict), so skipping it early leaves every value and every choice unchanged.
        lower = 0.0
        if best < np.inf:
            for s in range(nstates[j]):
                child = T & ~masks[j, s]
                if rest != 0 and (child & unrel) == 0 and _popcount(child) > 1:
                    lower += (cnt - _popcount(masks[j, s] & T)) / (total + 1e-9)
            if lower * (1.0 - 1e-12) >= best:
                continue
        acc = 0.0
        for s in range(nstates[j]):
            w = cnt - _popcount(masks[j, s] & T)
            p = w / (total + 1e-9)
            child = T & ~masks[j, s]
            e, _ = _search(child, rest, n, m, masks, nstates, rel, keys, vals, acts, used, aborted)
            acc += p * e
            if acc >= best:
                break
            if best < np.inf and rest != 0 and (child & unrel) == 0 and _popcount(child) > 1:
                lower -= p
            if best < np.inf and (acc + lower) * (1.0 - 1e-12) >= best:
                acc = best
                break
        if acc < best:
            best = acc
            best_j = j
    if aborted[0]:
        return 0.0, -1
    if used[0] * 10 >= keys.shape[0] * 6:
        aborted[0] = 1
        return 0.0, -1
    slot = _slot(keys, key)  # the table may have been written to below; probe again
    keys[slot] = key
    vals[slot] = 1.0 + best
    acts[slot] = best_j
    used[0] += 1
    return 1.0 + best, best_j


@dataclass
class OracleTables:
    """The arrays the search needs, built from instance data (§9 "Inputs per instance")."""

    truths: list
    actions: list
    masks: np.ndarray      # int64[m, S]: truths ruled out by state s of action j
    nstates: np.ndarray    # int64[m]
    rel: np.ndarray        # int64[n]: actions with some state ruling out truth t
    observed: np.ndarray   # int64[m]: truths ruled out by the stored observation of action j

    @property
    def n(self) -> int:
        return len(self.truths)

    @property
    def m(self) -> int:
        return len(self.actions)

    @property
    def all_truths(self) -> int:
        return (1 << self.n) - 1

    @property
    def all_actions(self) -> int:
        return (1 << self.m) - 1


def oracle_tables(data: dict) -> OracleTables:
    """Bitmask tables of an instance in our format (``envs/kumo/generate.py``)."""
    from ..envs.kumo.generate import matching_states

    truths, actions = list(data["truths"]), list(data["actions"])
    tindex = {t: i for i, t in enumerate(truths)}
    n, m = len(truths), len(actions)
    if n + m > 62:
        raise ValueError(f"{n} truths + {m} actions do not fit a 62-bit state")
    smax = max(len(data["outcomes"][a]["states"]) for a in actions) if actions else 1
    masks = np.zeros((m, max(smax, 1)), dtype=np.int64)
    nstates = np.zeros(m, dtype=np.int64)
    rel = np.zeros(n, dtype=np.int64)
    observed = np.zeros(m, dtype=np.int64)
    for j, a in enumerate(actions):
        states = data["outcomes"][a]["states"]
        nstates[j] = len(states)
        for s, st in enumerate(states):
            mask = 0
            for t in st["rules_out"]:
                if t in tindex:
                    mask |= 1 << tindex[t]
                    rel[tindex[t]] |= 1 << j
            masks[j, s] = mask
        for s in matching_states(data, a):
            observed[j] |= masks[j, s]
    return OracleTables(truths, actions, masks, nstates, rel, observed)


@dataclass
class Trajectory:
    """A realised play (§9): the tests taken, what they showed, the prediction."""

    actions: list
    predicted: str | None
    expected: list              # E(T, A) before each decision (root first)
    root_expected: float
    optimal: bool = True        # False when the greedy fallback was used
    non_unique: bool = False    # several survivors and no test left
    alive: list = field(default_factory=list)  # survivors before each decision

    @property
    def tests(self) -> int:
        return len(self.actions)


def _base_prediction(tab: OracleTables, T: int, A: int) -> int | None:
    """The truth index to predict at a base case, or None when search must go on."""
    alive = [t for t in range(tab.n) if T >> t & 1]
    if len(alive) <= 1:
        return alive[0] if alive else -1
    if A == 0:
        return alive[0]
    for t in alive:
        if int(tab.rel[t]) & A == 0:
            return t
    return None


class OptimalSearch:
    """Algorithm 3 for one instance, memo shared across calls (so a whole play costs one search).

    The memo starts small and doubles whenever it passes 60 % load; past ``memo_limit`` entries
    :meth:`best` raises MemoryError (callers fall back to the greedy baseline).
    """

    def __init__(self, tables: OracleTables, memo_limit: int = DEFAULT_MEMO_LIMIT, initial_capacity: int = 1 << 16):
        self.tab = tables
        self.memo_limit = int(memo_limit)
        self._alloc(initial_capacity)
        self.used = np.zeros(1, dtype=np.int64)

    def _alloc(self, cap: int) -> None:
        self.keys = np.full(cap, -1, dtype=np.int64)
        self.vals = np.zeros(cap, dtype=np.float64)
        self.acts = np.zeros(cap, dtype=np.int64)

    def _grow(self) -> None:
        keys, vals, acts = self.keys, self.vals, self.acts
        self._alloc(2 * keys.shape[0])
        _rehash(keys, vals, acts, self.keys, self.vals, self.acts)

    def best(self, T: int | None = None, A: int | None = None) -> tuple[float, int]:
        """``(E(T, A), best action index or -1)``; the whole instance by default."""
        tab = self.tab
        T = tab.all_truths if T is None else int(T)
        A = tab.all_actions if A is None else int(A)
        aborted = np.zeros(1, dtype=np.int64)
        while True:
            aborted[0] = 0
            e, j = _search(np.int64(T), np.int64(A), tab.n, tab.m, tab.masks, tab.nstates, tab.rel,
                           self.keys, self.vals, self.acts, self.used, aborted)
            if not aborted[0]:
                return float(e), int(j)
            if self.used[0] >= self.memo_limit:
                raise MemoryError(f"the memo passed memo_limit={self.memo_limit} states")
            self._grow()

    @property
    def states_visited(self) -> int:
        return int(self.used[0])

    def play(self) -> Trajectory:
        return _play(self.tab, self.best)


def greedy_choice(tab: OracleTables, T: int, A: int) -> tuple[float, int]:
    """The greedy baseline: the action with the largest mean ruled-out count among alive truths."""
    best, best_j = -1.0, -1
    for j in range(tab.m):
        if A >> j & 1:
            k = int(tab.nstates[j])
            score = sum((int(tab.masks[j, s]) & T).bit_count() for s in range(k)) / max(k, 1)
            if score > best:
                best, best_j = score, j
    return math.nan, best_j


def _play(tab: OracleTables, choose, optimal: bool = True) -> Trajectory:
    T, A = tab.all_truths, tab.all_actions
    taken, expected, alive_log = [], [], []
    root = None
    while True:
        pred = _base_prediction(tab, T, A)
        alive_log.append([tab.truths[t] for t in range(tab.n) if T >> t & 1])
        if pred is not None:
            n_alive = (T).bit_count()
            expected.append(0.0)
            return Trajectory(taken, tab.truths[pred] if pred >= 0 else None, expected,
                              root if root is not None else 0.0, optimal=optimal,
                              non_unique=A == 0 and n_alive > 1, alive=alive_log)
        e, j = choose(T, A)
        root = e if root is None else root
        expected.append(e)
        taken.append(tab.actions[j])
        T &= ~int(tab.observed[j])
        A &= ~(1 << j)


def oracle_play(data: dict, memo_limit: int = DEFAULT_MEMO_LIMIT) -> Trajectory:
    """The oracle's realised play on an instance; greedy (``optimal=False``) past ``memo_limit``."""
    tab = oracle_tables(data)
    try:
        return OptimalSearch(tab, memo_limit).play()
    except MemoryError:
        return _play(tab, lambda T, A: greedy_choice(tab, T, A), optimal=False)


def baseline_play(data: dict, policy: str = "greedy", rng: np.random.Generator | None = None) -> Trajectory:
    """Play a baseline (§9): ``greedy``, ``first_action`` (the reference's Vanilla) or ``random``."""
    tab = oracle_tables(data)
    if policy == "greedy":
        return _play(tab, lambda T, A: greedy_choice(tab, T, A), optimal=False)
    if policy == "first_action":
        return _play(tab, lambda T, A: (math.nan, (A & -A).bit_length() - 1), optimal=False)
    if policy == "random":
        rng = rng or np.random.default_rng(0)

        def pick(T, A):
            left = [j for j in range(tab.m) if A >> j & 1]
            return math.nan, left[int(rng.integers(len(left)))]
        return _play(tab, pick, optimal=False)
    raise ValueError(f"policy {policy!r} is not one of: greedy, first_action, random")
