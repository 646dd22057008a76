"""The KUMO optimal search (Algorithm 3, ``docs/specs/kumo.md`` §9) and the pure rules of instance data.

State = (alive truths ``T``, unused actions ``A``), both int64 bitmasks over the instance's truths
and actions in instance order. ``E(T, A)`` is the expected number of further tests:

* base cases, in this order: ``|T| <= 1``; ``A`` empty; some alive truth no remaining action can
  rule out (under uniqueness it is the valid one) -> 0;
* for each action ``j`` in ``A`` (ascending), with ``w_s = |T| - |M[j][s] & T|`` and
  ``p_s = w_s / (sum w + 1e-9)``, accumulate ``p_s * E(T & ~M[j][s], A - {j})`` over the states
  in domain order, stopping as soon as the sum reaches the best so far; a strictly smaller sum
  wins, so ties go to the lowest index. Return ``1 + best`` and its action.

The weights are the reference code's heuristic, kept for comparability (docs/specs/kumo.md §9). ``M[j][s]`` covers
every domain state of ``j``: the oracle does not know which one was drawn.

Two implementations give the same floating-point values and the same actions:

* :func:`plain_search`: the paper's algorithm as written, in plain Python with a dict memo. It is
  the reference the tests and ``benchmarks/kumo.py`` compare against, and it plays small
  instances (``n_truths + n_actions <= PLAIN_MAX_SIZE``, Easy included), so that a process that
  only plays those never imports numba.
* :mod:`kumo_gym.envs.kumo.kernel`: a numba branch-and-bound search (useless actions
  stripped from the memo key, cut-offs passed down, move ordering, lower bounds in the memo) that
  solves Hard instances (12 truths, 16 actions) exactly in milliseconds.

The first part of this module holds the rules of instance data that the search and the game
share (which state an observation matches, which truths it rules out): pure functions over the
instance dict, so that solvers never import the environments.
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

NO_ACTION = -1
#: memo entries allowed per instance by default (a Hard instance of our domains needs 10^3-10^6)
DEFAULT_MEMO_LIMIT = 8_000_000
#: the budget of the environment and the golden export (then greedy, ``optimal=False``); no Hard
#: instance (12 truths, 16 actions) of any built-in domain comes near it
PLAY_MEMO_LIMIT = DEFAULT_MEMO_LIMIT
#: instances with at most this many truths + actions are solved by :func:`plain_search`
PLAIN_MAX_SIZE = 12


# ---- instance data (docs/specs/kumo.md §2, §5 step 8, docs/specs/kumo.md §8) -----------------------------------------
def outcome_matches(kind: str, state, value) -> bool:
    """Whether observation ``value`` falls in ``state`` of an action of type ``kind`` (docs/specs/kumo.md §2).

    ``float``: the state is a **closed** interval ``[lo, hi]`` and ``value`` a number with
    ``lo <= value <= hi`` (a reversed interval, kept as KUMO's engine keeps it, matches nothing);
    ``str``: exact equality. This is the only implementation of the rule: the domain's
    ``State.matches``, the generator, the verifier and the oracle all call it.
    """
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        lo, hi = state
        return lo <= value <= hi
    return isinstance(value, str) and value == state


def matching_states(data: dict, action: str) -> list[int]:
    """Indices of the states of ``action`` matched by its stored observation (all that match).

    ``observation_states`` is used when present (instances are validated on load, so it agrees
    with the observation); otherwise the states are matched with :func:`outcome_matches`.
    """
    if "observation_states" in data and action in data["observation_states"]:
        return list(data["observation_states"][action])
    value = data["observations"][action]
    out = data["outcomes"][action]
    return [k for k, s in enumerate(out["states"]) if outcome_matches(out["type"], s["state"], value)]


def ruled_out_by(data: dict, action: str) -> set[str]:
    """Truths ruled out by the stored observation of ``action`` (union over matching states)."""
    states = data["outcomes"][action]["states"]
    return {t for k in matching_states(data, action) for t in states[k]["rules_out"]}


def survivors(data: dict, actions: Iterable[str] | None = None) -> list[str]:
    """Instance truths not ruled out by the observations of ``actions`` (default: all of them)."""
    out: set[str] = set()
    for a in data["actions"] if actions is None else actions:
        out |= ruled_out_by(data, a)
    return [t for t in data["truths"] if t not in out]


# ---- tables ------------------------------------------------------------------------------------------
@dataclass
class OracleTables:
    """The arrays the search needs, built from instance data (docs/specs/kumo.md §9 "Inputs per instance")."""

    truths: list
    actions: list
    masks: np.ndarray      # int64[m, S]: truths ruled out by state s of action j
    nstates: np.ndarray    # int64[m]
    rel: np.ndarray        # int64[n]: actions with some state ruling out truth t
    observed: np.ndarray   # int64[m]: truths ruled out by the stored observation of action j
    umask: np.ndarray = None  # int64[m]: truths some state of action j rules out

    def __post_init__(self):
        if self.umask is None:
            self.umask = np.bitwise_or.reduce(self.masks, axis=1) if self.masks.size else np.zeros(
                len(self.actions), dtype=np.int64)

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

    def state_lists(self) -> list[list[int]]:
        """``masks`` as Python lists without the padding (the plain search's input)."""
        return [[int(self.masks[j, s]) for s in range(int(self.nstates[j]))] for j in range(self.m)]


def oracle_tables(data: dict) -> OracleTables:
    """Bitmask tables of an instance in our format (``envs/kumo/generate.py``)."""
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


# ---- the paper's algorithm in plain Python -------------------------------------------------------------
class SearchTimeout(Exception):
    """:func:`plain_search` passed its deadline."""


def plain_search(masks: list[list[int]], rel: list[int], n: int, deadline: float | None = None):
    """Algorithm 3 exactly as the paper's code reads: returns ``E(T, A) -> (expected, action)``.

    ``masks[j][s]`` and ``rel[t]`` are Python ints (:meth:`OracleTables.state_lists`); the memo is
    the returned function's ``memo`` dict. ``deadline`` (a ``time.perf_counter`` value) raises
    :class:`SearchTimeout` once passed (the benchmark's timeout).
    """
    memo: dict[int, tuple[float, int]] = {}

    def search(T: int, A: int) -> tuple[float, int]:
        cnt = T.bit_count()
        if cnt <= 1 or A == 0:
            return 0.0, NO_ACTION
        for t in range(n):
            if T >> t & 1 and rel[t] & A == 0:
                return 0.0, NO_ACTION
        key = T | (A << n)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if deadline is not None and time.perf_counter() > deadline:
            raise SearchTimeout
        best, best_j = math.inf, NO_ACTION
        for j, states in enumerate(masks):
            if not A >> j & 1:
                continue
            rest = A & ~(1 << j)
            total = 0.0
            for mk in states:
                total += cnt - (mk & T).bit_count()
            acc = 0.0
            for mk in states:
                p = (cnt - (mk & T).bit_count()) / (total + 1e-9)
                acc += p * search(T & ~mk, rest)[0]
                if acc >= best:
                    break
            if acc < best:
                best, best_j = acc, j
        memo[key] = (1.0 + best, best_j)
        return memo[key]

    search.memo = memo
    return search


# ---- the search --------------------------------------------------------------------------------------
@dataclass
class Trajectory:
    """A realised play (docs/specs/kumo.md §9): the tests taken, what they showed, the prediction."""

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


#: limits tried at the root before the unlimited search (each failure leaves bounds in the memo)
_ASPIRATION = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.5)


class OptimalSearch:
    """Algorithm 3 for one instance, memo shared across calls (so a whole play costs one search).

    ``backend="auto"`` uses :func:`plain_search` for instances with at most
    :data:`PLAIN_MAX_SIZE` truths + actions and the numba kernel otherwise (``"plain"`` and
    ``"numba"`` force one). Both give the same values and actions. The numba memo starts small and
    doubles whenever it passes 60 % load; past ``memo_limit`` entries :meth:`best` raises
    MemoryError (callers fall back to the greedy baseline).
    """

    def __init__(self, tables: OracleTables, memo_limit: int = DEFAULT_MEMO_LIMIT, backend: str = "auto"):
        if backend not in ("auto", "plain", "numba"):
            raise ValueError(f"backend {backend!r} is not one of: auto, plain, numba")
        self.tab = tables
        self.memo_limit = int(memo_limit)
        if backend == "auto":
            backend = "plain" if tables.n + tables.m <= PLAIN_MAX_SIZE else "numba"
        self.backend = backend
        if backend == "plain":
            self._plain = plain_search(tables.state_lists(), [int(r) for r in tables.rel], tables.n)
            return
        from . import kernel as _kumo_kernel

        self._kernel = _kumo_kernel
        m, depth = max(tables.m, 1), tables.m + 2
        self._iscr = np.zeros((depth, 2, m), dtype=np.int64)
        self._fscr = np.zeros((depth, 3 + tables.masks.shape[1], m), dtype=np.float64)
        self._alloc(1 << 12 if tables.n + tables.m <= 20 else 1 << 16)
        self.used = np.zeros(2, dtype=np.int64)

    def _alloc(self, cap: int) -> None:
        self.keys = np.full(cap, -1, dtype=np.int64)
        self.vals = np.zeros(cap, dtype=np.float64)
        self.flags = np.zeros(cap, dtype=np.int8)

    def _grow(self) -> None:
        if self.used[0] >= self.memo_limit:
            raise MemoryError(f"the memo passed memo_limit={self.memo_limit} states")
        keys, vals, flags = self.keys, self.vals, self.flags
        self._alloc(2 * keys.shape[0])
        self._kernel.rehash(keys, vals, flags, self.keys, self.vals, self.flags)

    def _call(self, T: int, A: int, lam: float, root: bool) -> tuple[float, int]:
        tab = self.tab
        while True:
            self.used[1] = 0
            v, f = self._kernel.search(np.int64(T), np.int64(A), float(lam), root, 0, tab.n, tab.masks, tab.nstates,
                                       tab.rel, tab.umask, self.keys, self.vals, self.flags, self.used, self._iscr,
                                       self._fscr)
            if not self.used[1]:
                return float(v), int(f)
            self._grow()

    def best(self, T: int | None = None, A: int | None = None) -> tuple[float, int]:
        """``(E(T, A), best action index or -1)``; the whole instance by default."""
        tab = self.tab
        T = tab.all_truths if T is None else int(T)
        A = tab.all_actions if A is None else int(A)
        if self.backend == "plain":
            return self._plain(T, A)
        for lam in _ASPIRATION:
            e, exact = self._call(T, A, lam, False)
            if exact:
                break
        else:
            e, _ = self._call(T, A, math.inf, False)
        if e == 0.0:
            return 0.0, NO_ACTION
        # the arg-min as the paper picks it: ascending index, strictly smaller wins
        best, j = self._call(T, A, (e - 1.0) * (1.0 + 1e-9) + 1e-12, True)
        return 1.0 + best, j

    @property
    def states_visited(self) -> int:
        """Memo entries (for the numba backend, lower-bound entries included)."""
        return len(self._plain.memo) if self.backend == "plain" else int(self.used[0])

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
    """Play a baseline (docs/specs/kumo.md §9): ``greedy``, ``first_action`` (the reference's Vanilla) or ``random``."""
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
