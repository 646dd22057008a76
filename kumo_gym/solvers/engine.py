"""The grid generation engine (docs/specs/grid_puzzles.md §8).

Every grid puzzle describes itself to the engine as an :class:`Encoding`: a
:class:`~kumo_gym.solvers.sat.Formula` of its rules, the answer variables and how to read a grid
back from them, the clues as assumption literals (``clues[key] = (rule, literals)``) and,
for global rules that a CNF does not state compactly (connectivity, one loop), a ``cuts``
callback. On top of that description the engine gives, once for all puzzles:

* :class:`Engine`, one per rules formula (so one per *layout*: a formula that does not depend on
  the clue values serves every instance of that size, and clue removal is dropping
  assumptions). It answers "is the known solution the only one under these clues?" the way
  Tatham's generators do, by deduction first: if unit propagation (or failed-literal probing)
  from the clues fixes every answer variable, the puzzle is unique and no search runs. Only when
  deduction stalls does one incremental SAT solver, kept for the layout, settle it under
  assumptions (the solution's blocking clause switched on by an activation literal).
* :func:`reduce_clues`: docs/specs/grid_puzzles.md §8 step 3. Clue groups are dropped in a seeded random order while the
  puzzle stays unique, and at a grade target while propagation (0) or probing (1) still solves it
  (then uniqueness needs no SAT at all).
* The lazy-cut loop of docs/specs/grid_puzzles.md §8: ``cuts(values)`` inspects a model and returns clauses that forbid
  what breaks the global rule in it (a closed-off component, a sub-loop), or ``[]`` when the
  model is fine; every solve re-solves with the cuts added until the model passes or the
  formula is UNSAT. Cuts must follow from the rules alone (never from the clues), which is what
  lets the layout's solver keep them for every later instance. A uniqueness proof therefore
  enumerates with the cuts in place.
* :func:`break_rule`: near misses for the reward-integrity suite. For a rule R it keeps
  every other constraint, removes one instance of R (a tagged constraint or a clue), adds its
  negation, and solves; the model breaks exactly that instance. Rules enforced by cuts are
  broken by models of the formula that the cuts reject.

Determinism (docs/specs/grid_puzzles.md §8): the shared solver only ever answers yes/no questions (SAT or UNSAT does not
depend on what it learnt before); anything whose *model* feeds an instance (:meth:`Engine.sample`)
runs on a fresh solver, so an instance never depends on what was generated before it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from pysat.solvers import Solver

from .propagation import ClauseArrays
from .sat import DEFAULT_SOLVER, Formula

#: after this many activation literals the layout's solver is rebuilt (bounded memory over
#: millions of resets; the answers it gives do not depend on it)
REBUILD_AFTER = 400
#: how often the cut loop may re-solve before giving up (a cut callback that never converges is
#: a bug in the puzzle)
MAX_CUT_ROUNDS = 10_000

Values = np.ndarray
Cuts = Callable[[np.ndarray], list[list[int]]]
#: process-wide counters of the lazy-cut loop (benchmarks report them per instance): ``solves``
#: cut-loop runs, ``rounds`` re-solves after a cut, ``max_rounds`` the longest single run
CUT_STATS = {"solves": 0, "rounds": 0, "max_rounds": 0}


@dataclass
class Encoding:
    """A puzzle instance as the engine sees it (see the module docstring).

    ``decode(values) -> grid`` reads the answer grid from a value array (``values[v] > 0``: v is
    true). ``clues`` maps a clue key (a cell, a line...) to ``(rule code, assumption literals)``.
    ``cut_rule`` names the rule that ``cuts`` enforces. ``solver`` names the pysat solver of the
    layout (puzzles whose uniqueness proofs run faster on another one may choose it).
    """

    formula: Formula
    answer: np.ndarray
    decode: Callable[[np.ndarray], list[list]]
    clues: dict[Hashable, tuple[str, tuple[int, ...]]] = field(default_factory=dict)
    cuts: Cuts | None = None
    cut_rule: str | None = None
    extra: dict = field(default_factory=dict)
    solver: str = DEFAULT_SOLVER

    def __post_init__(self):
        self.answer = np.asarray(self.answer, np.int32)

    def with_clues(self, clues: dict, decode: Callable[[np.ndarray], list[list]] | None = None) -> Encoding:
        """The same rules with another clue set (the layout's engine is shared), and optionally
        another ``decode`` (when the answer grid shows clues, as Light Up's numbers)."""
        return dataclasses.replace(self, clues={k: (r, tuple(map(int, lits))) for k, (r, lits) in clues.items()},
                                   decode=decode or self.decode)

    def assumptions(self, keys=None) -> list[int]:
        keys = self.clues if keys is None else keys
        return [lit for k in keys for lit in self.clues[k][1]]

    @property
    def engine(self) -> Engine:
        """The engine of this formula (created once and kept on the formula)."""
        eng = getattr(self.formula, "_engine", None)
        if eng is None:
            eng = Engine(self.formula, self.answer, self.cuts, solver=self.solver)
            self.formula._engine = eng
        return eng

    def values_of(self, model: Sequence[int]) -> np.ndarray:
        return values_of(model, self.formula.n_vars)

    def solution_values(self, grid_lits: Sequence[int]) -> np.ndarray:
        """A value array with the given literals set (the known solution, for blocking)."""
        return values_of(grid_lits, self.formula.n_vars)


def values_of(model: Sequence[int] | None, n_vars: int) -> np.ndarray | None:
    """A pysat model (signed literals) as an int8 value array over 0..n_vars."""
    if model is None:
        return None
    value = np.zeros(n_vars + 1, np.int8)
    m = np.asarray(model, np.int64)
    m = m[np.abs(m) <= n_vars]
    value[np.abs(m)] = np.where(m > 0, 1, -1)
    return value


class Engine:
    """Deduction and incremental SAT over one rules formula (see the module docstring)."""

    def __init__(self, formula: Formula, answer: np.ndarray, cuts: Cuts | None = None, *,
                 solver: str = DEFAULT_SOLVER):
        self.formula = formula
        self.solver_name = solver
        self.answer = np.asarray(answer, np.int32)
        self._answer64 = self.answer.astype(np.int64)  # the probing candidates, as the kernel reads them
        self.cuts = cuts
        formula._arrays = formula._arrays or (-1, None)  # freeze the formula: no new variables from now on
        self.n_vars = formula.n_vars
        self._solver: Solver | None = None
        self._top = self.n_vars
        self._activations = 0
        self._cut_clauses: list[list[int]] = []
        #: counters for benchmarks: deductions that settled uniqueness, SAT calls, cut rounds
        self.stats = {"deduced": 0, "sat": 0, "cuts": 0}

    # ---- deduction --------------------------------------------------------------------------
    @property
    def arrays(self):
        """The clause arrays of the compiled deduction (built on first use)."""
        return self.formula.arrays()

    def propagate(self, assumptions: Sequence[int]) -> Values | None:
        return self.arrays.propagate(assumptions)

    def probe(self, assumptions: Sequence[int]) -> Values | None:
        return self.arrays.probe(assumptions, self._answer64)

    def fixes_answer(self, value: Values | None) -> bool:
        """Whether ``value`` (a propagation result) decides every answer variable."""
        return value is not None and bool(value[self.answer].all())

    def grade(self, assumptions: Sequence[int]) -> int:
        """docs/specs/grid_puzzles.md §8: 0 propagation solves it, 1 failed-literal probing does, 2 search is needed."""
        if self.fixes_answer(self.propagate(assumptions)):
            return 0
        return 1 if self.fixes_answer(self.probe(assumptions)) else 2

    def cut_grade(self, assumptions: Sequence[int]) -> int:
        """The docs/specs/grid_puzzles.md §8 grade of a puzzle whose global rule is a cut (connectivity, block sizes),
        which plain propagation of the rules formula cannot see: propagation (0) or probing (1) over the
        formula plus the cuts that a uniqueness proof of the puzzle needed, 2 when even that
        stalls (or the puzzle is not unique). The proof runs on a fresh solver, so the grade of an
        instance is the same in any process."""
        assumptions = [int(a) for a in assumptions]
        cuts: list[list[int]] = []
        with Solver(name=self.solver_name, bootstrap_with=self.formula.clauses) as s:
            value = self._solve_cut(s, assumptions, cuts)
            if value is None:
                return 2
            s.add_clause(block(value, self.answer))
            if self._solve_cut(s, assumptions, cuts) is not None:
                return 2
        arrays = ClauseArrays.from_clauses(list(self.formula.clauses) + cuts, self.n_vars)
        if self.fixes_answer(arrays.propagate(assumptions)):
            return 0
        return 1 if self.fixes_answer(arrays.probe(assumptions, self._answer64)) else 2

    # ---- the layout's incremental solver ----------------------------------------------------
    @property
    def solver(self) -> Solver:
        if self._solver is None or self._activations >= REBUILD_AFTER:
            if self._solver is not None:
                self._solver.delete()
            self._solver = Solver(name=self.solver_name, bootstrap_with=self.formula.clauses)
            for cl in self._cut_clauses:
                self._solver.add_clause(cl)
            self._activations = 0
        return self._solver

    def _activation(self) -> int:
        _ = self.solver  # rebuild first if due, so the new literal lives in the solver that uses it
        self._activations += 1
        self._top += 1
        return self._top

    def _retire(self, act: int) -> None:
        self.solver.add_clause([-act])

    def _solve_cut(self, solver: Solver, assumptions: list[int], kept: list[list[int]] | None) -> Values | None:
        """Solve, adding cut clauses until the model passes the global rule (or UNSAT); every cut
        added is also appended to ``kept`` (the layout's solver: the cuts its rebuild restores;
        :meth:`cut_grade`: the cuts its deduction adds), unless None."""
        if self.cuts is not None:
            CUT_STATS["solves"] += 1
        for rounds in range(MAX_CUT_ROUNDS):
            self.stats["sat"] += 1
            if not solver.solve(assumptions=assumptions):
                return None
            value = values_of(solver.get_model(), self.n_vars)
            cuts = self.cuts(value) if self.cuts is not None else []
            if not cuts:
                return value
            self.stats["cuts"] += 1
            CUT_STATS["rounds"] += 1
            CUT_STATS["max_rounds"] = max(CUT_STATS["max_rounds"], rounds + 1)
            for cl in cuts:
                solver.add_clause(list(cl))
                if kept is not None:
                    kept.append(list(cl))
        raise RuntimeError("the cut loop did not converge; the puzzle's cuts callback must forbid the model it rejects")

    def solve(self, assumptions: Sequence[int] = ()) -> Values | None:
        """A model under ``assumptions`` (with cuts), or None. Yes/no use only: which model comes
        back depends on the solver's history; use :meth:`sample` for models that feed instances."""
        return self._solve_cut(self.solver, [int(a) for a in assumptions], self._cut_clauses)

    def models(self, assumptions: Sequence[int] = (), limit: int = 2) -> list[Values]:
        """Up to ``limit`` models that differ on the answer variables (block and re-solve)."""
        act = self._activation()
        out: list[Values] = []
        try:
            while len(out) < limit:
                value = self._solve_cut(self.solver, [act, *map(int, assumptions)], self._cut_clauses)
                if value is None:
                    break
                out.append(value)
                self.solver.add_clause([-act] + block(value, self.answer))
        finally:
            self._retire(act)
        return out

    def unique(self, assumptions: Sequence[int], solution: Values, *, deduce: bool = True) -> bool:
        """Whether ``solution`` (a value array of a model) is the only solution under ``assumptions``.

        Deduction first: propagation fixing every answer variable settles it. Otherwise one SAT
        call on the layout's solver with the solution blocked must be UNSAT (cuts in place).
        """
        return self.alternative(assumptions, solution, deduce=deduce) is None

    def alternative(self, assumptions: Sequence[int], solution: Values, *, deduce: bool = True) -> Values | None:
        """Another solution under ``assumptions`` (differing from ``solution`` on the answer), or
        None when ``solution`` is the only one (see :meth:`unique`)."""
        assumptions = [int(a) for a in assumptions]
        if deduce and self.fixes_answer(self.propagate(assumptions)):
            self.stats["deduced"] += 1
            return None
        act = self._activation()
        try:
            self.solver.add_clause([-act] + block(solution, self.answer))
            return self._solve_cut(self.solver, [act, *assumptions], self._cut_clauses)
        finally:
            self._retire(act)

    def sample(self, assumptions: Sequence[int] = (), phases: Sequence[int] | None = None,
               avoid: Values | None = None) -> Values | None:
        """A model on a fresh solver (deterministic: the same call gives the same model in any
        process), with random ``phases`` for random solutions (docs/specs/grid_puzzles.md §8 samplers); with ``avoid``,
        one that differs from that model on the answer (a second solution to repair, as Net's
        generator does)."""
        with Solver(name=self.solver_name, bootstrap_with=self.formula.clauses) as s:
            if phases is not None:
                s.set_phases([int(p) for p in phases])
            if avoid is not None:
                s.add_clause(block(avoid, self.answer))
            return self._solve_cut(s, [int(a) for a in assumptions], None)


    def sampler(self, guards: Sequence[int] = ()) -> Callable[[Sequence[int], Values], Values | None]:
        """``sample(assumptions, avoid)`` (as :meth:`sample` with ``avoid``) on one fresh solver
        shared by the calls of the function returned, built on its first call: the models depend
        only on the sequence of calls made through it, so they are deterministic wherever that
        sequence is (a generator's own draw: Pearl's second loops). Each avoided model is blocked
        for its call only (an activation literal); the cuts found stay (they are rules).

        ``guards``: variables that switch rules on (Pearl's pearls). The clauses holding a guard's
        negation join the solver only once a call assumes the guard: a guard no clause holds
        positively can always be false, which satisfies them, so the models keep every rule of
        the assumed guards and building the solver takes fewer clauses."""
        base, deferred = self._split_guards(tuple(int(g) for g in guards))
        held: dict = {"solver": None, "top": self.n_vars, "added": set()}

        def sample(assumptions: Sequence[int], avoid: Values) -> Values | None:
            if held["solver"] is None:
                held["solver"] = Solver(name=self.solver_name, bootstrap_with=base)
            solver = held["solver"]
            for lit in assumptions:
                if lit in deferred and lit not in held["added"]:
                    held["added"].add(lit)
                    for cl in deferred[lit]:
                        solver.add_clause(cl)
            held["top"] += 1
            act = held["top"]
            solver.add_clause([-act] + block(avoid, self.answer))
            try:
                return self._solve_cut(solver, [act, *map(int, assumptions)], None)
            finally:
                solver.add_clause([-act])

        return sample

    def _split_guards(self, guards: tuple) -> tuple[list, dict]:
        """The formula's clauses without those of the guards (see :meth:`sampler`), and those per
        guard; kept per guard tuple."""
        cache = self.__dict__.setdefault("_guard_splits", {})
        if guards not in cache:
            clauses = self.formula.clauses
            positive = {lit for cl in clauses for lit in cl if lit > 0}
            free = {g for g in guards if g not in positive}
            base, deferred = [], {}
            for cl in clauses:
                g = next((-lit for lit in cl if -lit in free), None)
                (base if g is None else deferred.setdefault(g, [])).append(cl)
            cache[guards] = (base, deferred)
        return cache[guards]


def block(value: Values, answer: np.ndarray) -> list[int]:
    """The clause false exactly under ``value``'s assignment of the answer variables."""
    answer = np.asarray(answer, np.int64)
    return np.where(value[answer] > 0, -answer, answer).tolist()


def random_phases(rng: np.random.Generator, variables: Sequence[int], p_true: float = 0.5) -> list[int]:
    """Random preferred polarities (a random model from the solver, docs/specs/grid_puzzles.md §8 samplers)."""
    variables = np.asarray(variables, np.int64)
    return np.where(rng.random(len(variables)) < p_true, variables, -variables).tolist()


# ---- clue reduction (docs/specs/grid_puzzles.md §8 step 3) -----------------------------------------------------------
def reduce_clues(engine: Engine, groups: Sequence[Sequence[int]], rng: np.random.Generator, solution: Values, *,
                 grade_limit: int | None = None, fixed: Sequence[int] = (),
                 near: Callable[[int], Sequence[int]] | None = None, derive: bool = True,
                 runs: bool = True, keep: int = 0, deduce: bool = True,
                 candidates: Sequence[int] | None = None) -> list[bool]:
    """Drop clue groups in a seeded random order while the puzzle stays unique; the kept mask.

    ``groups`` are lists of assumption literals (one clue, a symmetric pair of givens...);
    ``fixed`` are assumptions that always stay (clues that are never removed). With
    ``grade_limit`` 0 or 1 a removal is kept only while propagation (0) or failed-literal probing
    (1) still fixes every answer variable, which also proves uniqueness, so no SAT call is made;
    with None the clue set is reduced to a minimal unique one (deduction first, SAT otherwise).
    ``near(i)`` may list the groups around group i (Mosaic: clues within two cells): deduction
    from those alone is tried first, which is sound (fewer clues deduce less) and far cheaper on big grids. ``derive=False``
    tests the grade itself after each removal instead of whether deduction re-derives the removed
    clue (for clues deduction never derives, such as Pearl's pearl guards). ``runs=False`` tests
    graded removals one at a time rather than in runs (cheaper where a failed run costs a full
    probing: Tracks). ``keep``: removals stop once that many groups are left (a puzzle's
    calibrated clue density; the rest of the order is not tested). ``deduce=False``: the
    uniqueness tests of a minimal set go straight to SAT (where propagation rarely settles them).
    ``candidates``: the variables probing (``grade_limit`` 1) tries, by default the answer's (Palisade
    probes its same-region literals only: fewer, and closer to the deduction its densities match).

    For minimal sets, every second solution the solver finds is kept: a later removal that leaves
    a clue set this solution also satisfies is refused without another SAT call (the answer is
    the same either way, so this changes the speed, never the puzzle).
    """
    active = np.ones(len(groups), bool)
    fixed = np.asarray(fixed, np.int64)
    flat = np.asarray([x for g in groups for x in g], np.int64)
    owner = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    every = np.concatenate([fixed, flat])
    # when the whole clue set meets the grade target, the remaining clues do too exactly when
    # deduction from them re-derives the clue just removed (then the closure is unchanged), so
    # each test can stop as soon as it has (a large saving on big grids)
    tried = engine._answer64 if candidates is None else np.asarray(candidates, np.int64)
    if not derive or grade_limit is None:
        rederive = False
    elif candidates is None:
        rederive = engine.grade(every) <= grade_limit
    else:
        rederive = engine.fixes_answer(engine.arrays.probe(every, tried) if grade_limit == 1 else engine.propagate(every))
    order = rng.permutation(len(groups))
    if grade_limit is None:
        return _reduce_in_runs(engine, order, active, fixed, flat, owner, solution, keep, deduce)
    if runs and rederive and near is None and not keep:
        probe = tried if grade_limit == 1 else ()
        return _rederive_in_runs(engine, order, active, fixed, flat, owner, probe)
    left = len(groups)
    for i in order:
        if left <= keep:
            break
        active[i] = False
        lits = np.concatenate([fixed, flat[active[owner]]])
        if rederive:
            probe = tried if grade_limit == 1 else ()
            ok = False
            if near is not None:
                local = np.zeros(len(groups), bool)  # a mask: np.isin costs far more on small sets
                local[[int(j) for j in near(int(i)) if active[j] and j != i]] = True
                ok = engine.arrays.derives(np.concatenate([fixed, flat[local[owner]]]), groups[i], probe)
            ok = ok or engine.arrays.derives(lits, groups[i], probe)
        elif grade_limit == 0:
            ok = engine.fixes_answer(engine.propagate(lits))
        else:  # probing starts with propagation
            ok = engine.fixes_answer(engine.arrays.probe(lits, tried))
        if not ok:
            active[i] = True
        else:
            left -= 1
    return active.tolist()


def _rederive_in_runs(engine: Engine, order: np.ndarray, active: np.ndarray, fixed: np.ndarray, flat: np.ndarray,
                      owner: np.ndarray, probe) -> list[bool]:
    """:func:`reduce_clues` at a grade target met by the whole clue set, testing runs of removals
    at once: deduction from the remaining clues must re-derive every group of the run. Deduction
    is monotone, so then it re-derives each of them one at a time too (and the closure stays the
    whole set's): the kept mask is the one-at-a-time result, with fewer deductions. When a run
    fails, the groups before the first one it does not re-derive are dropped all the same (for
    the same reason), and that one is tested alone next; the run length doubles after a success."""
    p, k, n = 0, 1, len(order)
    starts = np.zeros(len(order) + 1, np.int64)  # group g's literals are flat[starts[g]:starts[g + 1]]
    np.cumsum(np.bincount(owner, minlength=len(order)), out=starts[1:])
    while p < n:
        run = order[p:p + k]
        active[run] = False
        lits = np.concatenate([fixed, flat[active[owner]]])
        goal = np.concatenate([flat[starts[g]:starts[g + 1]] for g in run])
        value = engine.arrays.derived(lits, goal, probe)
        if value is None:
            done = 0
        else:
            done = 0
            for g in run:
                got = flat[starts[g]:starts[g + 1]]
                if not (value[np.abs(got)] == np.sign(got)).all():
                    break
                done += 1
        if done == len(run):
            p, k = p + len(run), 2 * k
            continue
        active[run[done:]] = True  # the first groups stay dropped; the next is tested alone
        if done == len(run) - 1:
            p += 1  # the run was exactly the one-at-a-time test of its last group: that one is needed
        p, k = p + done, 1
    return active.tolist()


def _still_unique(engine: Engine, lits: np.ndarray, solution: Values, others: list[np.ndarray], deduce: bool) -> bool:
    """Whether ``solution`` is the only solution under ``lits``. ``others`` are second solutions
    found so far: one that satisfies ``lits`` answers no without a SAT call; a new one is added."""
    idx, sign = np.abs(lits), np.sign(lits)
    if any(bool((alt[idx] * sign > 0).all()) for alt in others):
        return False
    alt = engine.alternative(lits.tolist(), solution, deduce=deduce)
    if alt is None:
        return True
    others.append(alt)
    return False


def minimal_in_runs(order: np.ndarray, active: np.ndarray, unique: Callable[[], bool], keep: int = 0) -> None:
    """Drop the groups of ``order`` from ``active`` (a boolean mask, changed in place) while
    ``unique()`` (which reads ``active``) holds, to a minimal unique set or down to ``keep`` groups,
    testing runs of removals at once.

    Uniqueness is monotone (fewer clues never remove solutions), so when dropping the next k
    groups of the order together leaves the puzzle unique, dropping them one at a time would
    have too: the kept mask is exactly the one-at-a-time result, with fewer uniqueness tests. A
    run that fails is halved until a single group is tested; the run length doubles after a
    success (and never takes the groups left below ``keep``). Any puzzle's own uniqueness test can
    drive it (Unequal's search kernel; the engine's SAT test in :func:`reduce_clues`).
    """
    p, k, n, left = 0, 1, len(order), len(order)
    while p < n and left > keep:
        run = order[p:p + min(k, left - keep)]
        active[run] = False
        if unique():
            left -= len(run)
            p, k = p + len(run), 2 * k
        else:
            active[run] = True
            if len(run) == 1:
                p, k = p + 1, 1
            else:
                k = max(1, len(run) // 2)


def _reduce_in_runs(engine: Engine, order: np.ndarray, active: np.ndarray, fixed: np.ndarray, flat: np.ndarray,
                    owner: np.ndarray, solution: Values, keep: int, deduce: bool) -> list[bool]:
    """:func:`reduce_clues` to a minimal unique set (or down to ``keep`` groups): :func:`minimal_in_runs`
    on the engine's uniqueness test (deduction, else SAT, with the second solutions found so far)."""
    others: list[np.ndarray] = []
    minimal_in_runs(order, active, lambda: _still_unique(engine, np.concatenate([fixed, flat[active[owner]]]),
                                                         solution, others, deduce), keep)
    return active.tolist()


def descend(start, open_of: Callable, change: Callable, steps: int):
    """A generator's local search: ``open_of(candidate)`` lists what deduction leaves undecided in
    it (cells, slots), ``change(candidate, open)`` returns a modified copy; a change is kept when it
    leaves no more open than before. Stops when nothing is open or after ``steps`` changes; returns
    ``(best candidate, what it leaves open)`` (an empty list: deduction settles it, so it is unique)."""
    best, left = start, open_of(start)
    for _ in range(steps):
        if not left:
            break
        cand = change(best, left)
        cand_left = open_of(cand)
        if len(cand_left) <= len(left):
            best, left = cand, cand_left
    return best, left


# ---- near misses -------------------------------------------------------------------------
@dataclass(frozen=True)
class Breach:
    """One rule instance to break: a tagged constraint (``index`` into formula.constraints) or a
    clue (``clue`` key), or the cut rule itself (both None)."""

    rule: str
    index: int | None = None
    clue: Hashable | None = None


def breaches(enc: Encoding, rule: str) -> list[Breach]:
    """Every instance of ``rule`` in ``enc``, in the order the encoding added them."""
    out = [Breach(rule, index=i) for i, c in enumerate(enc.formula.constraints) if c.rule == rule]
    out += [Breach(rule, clue=k) for k, (r, _) in enc.clues.items() if r == rule]
    if enc.cut_rule == rule and enc.cuts is not None:
        out.append(Breach(rule))
    return out


def _negation(f: Formula, lits: Sequence[int], lo: int, hi: int) -> tuple[list[list[int]], int]:
    """Clauses saying the count of ``lits`` is outside ``[lo, hi]``, on variables above f's."""
    from pysat.formula import IDPool

    neg = Formula()
    neg.pool = IDPool(start_from=f.n_vars + 1)
    n = len(lits)
    if lo <= 0 and hi >= n:
        return [[]], neg.n_vars  # the constraint always holds: it cannot be broken
    if lo <= 0:
        neg.at_least(lits, hi + 1)
    elif hi >= n:
        neg.at_most(lits, lo - 1)
    else:
        below = neg.var(("__below__",))
        neg.at_most(lits, lo - 1, guard=below)
        neg.at_least(lits, hi + 1, guard=-below)
    return neg.clauses, max(neg.n_vars, f.n_vars)


def break_rule(enc: Encoding, breach: Breach, *, siblings: bool = False, phases: Sequence[int] | None = None,
               alone: bool = False, bare: bool = False) -> Values | None:
    """A model of ``enc`` with ``breach`` negated and everything else kept (None: impossible).

    With ``siblings`` every other instance of the same rule is dropped as well (for rules whose
    instances are not independent, such as a matching stated per tree and per tent); the model
    then still breaks only that rule. With ``alone`` every tagged constraint and clue is dropped
    but the negated one (for rules that cannot break on their own; pass the solution as
    ``phases`` to stay near it). The cut rule is broken by a model the cuts reject; with ``bare``
    (and ``alone``) every tagged constraint is dropped for it as well (Galaxies: on a small puzzle
    every symmetric labelling may be connected, while asymmetric ones need not be).
    """
    f = enc.formula
    cons = f.constraints
    drop = set()
    if bare or breach.index is not None or breach.clue is not None:
        drop = {i for i, c in enumerate(cons) if alone or bare or (siblings and c.rule == breach.rule) or i == breach.index}
    skip = np.zeros(len(f.clauses), bool)
    for i in drop:
        skip[cons[i].start:cons[i].end] = True
    clauses = [cl for cl, s in zip(f.clauses, skip) if not s]
    assumptions = [lit for k, (r, lits) in enc.clues.items()
                   if k != breach.clue and not (siblings and r == breach.rule) and not alone for lit in lits]
    if breach.index is not None:
        c = cons[breach.index]
        extra, _ = _negation(f, c.lits, c.lo, c.hi)
        clauses += extra
    elif breach.clue is not None:
        clauses.append([-lit for lit in enc.clues[breach.clue][1]])
    with Solver(name=DEFAULT_SOLVER, bootstrap_with=clauses) as s:
        if phases is not None:
            s.set_phases([int(p) for p in phases])
        for _ in range(MAX_CUT_ROUNDS):
            if not s.solve(assumptions=assumptions):
                return None
            value = values_of(s.get_model(), f.n_vars)
            cut = enc.cuts(value) if enc.cuts is not None else []
            if breach.index is None and breach.clue is None:
                if cut:
                    return value  # the cut rule itself: a model that breaks it
                s.add_clause(block(value, enc.answer))  # this one keeps the global rule: another
                continue
            if not cut:
                return value
            for cl in cut:
                s.add_clause(list(cl))
    return None
