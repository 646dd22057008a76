"""python-sat helpers shared by the constraint puzzles (docs/specs/grid_puzzles.md §8).

Encodings are small functions that add clauses to a :class:`Formula`; solving, enumeration
(block the model found, solve again) and uniqueness certificates are separate steps, in the
python-sat style (docs/architecture.md §9).

* :class:`Formula` -- an ``IDPool`` of named variables plus a clause list, with cardinality
  constraints through :mod:`pysat.card` (``exactly``, ``at_most``, ``at_least``) and counters
  whose outputs clues can fix by assumption (:meth:`Formula.count`). A constraint added with
  ``rule="R2"`` is recorded with its rule code and its bounds (:class:`Constraint`), so a near
  miss can later remove it and add its negation (the near misses of the adversarial suite).
* :func:`solve`, :func:`enumerate_models`, :func:`count_models` -- one-shot use.
* :class:`UniquenessOracle` -- an incremental solver for clue reduction: it holds the rules and
  the clause that blocks the known solution, so "is the solution still unique with these clues"
  is one ``solve(assumptions=clues)`` that must be UNSAT.
* :func:`grade` -- the difficulty proxy of docs/specs/grid_puzzles.md §8: 0 when unit propagation alone fixes every
  answer variable, 1 when failed-literal probing (to a fixpoint) is also needed, 2 when search is needed
  (compiled propagation, :mod:`kumo_gym.solvers.propagation`).

The grid generation engine built on these (incremental certificates, clue reduction, lazy cuts,
near misses) is :mod:`kumo_gym.solvers.engine`.

Budgets are conflict counts, never wall-clock limits, so results do not depend on machine load
(docs/specs/grid_puzzles.md §8 "Determinism"). Clause order is whatever the encoder produced, which must be
deterministic.
"""
from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

#: CaDiCaL 1.5.3, one of the two solvers named by docs/specs/grid_puzzles.md §8 (Glucose 4 is the other).
DEFAULT_SOLVER = "cadical153"


class BudgetExceeded(RuntimeError):
    """A solve call ran out of its conflict budget before deciding."""


@dataclass(frozen=True)
class Constraint:
    """One rule instance of an encoding: ``lo <= (number of true lits) <= hi``.

    ``rule`` is the verifier's rule code it encodes (``R2``); its clauses are
    ``formula.clauses[start:end]``. A clause is the constraint ``1 <= sum``. Negating it means
    the count leaves ``[lo, hi]``, which is how near misses break exactly one rule instance.
    """

    rule: str
    lits: tuple[int, ...]
    lo: int
    hi: int
    start: int
    end: int


class Count:
    """The outputs of a counter over some literals: ``ge(k)`` is true iff at least k are true.

    Clues fix counts by assumption (``eq(k)`` is a list of assumption literals), so one encoding
    serves every clue value and clue removal is dropping assumptions.
    """

    def __init__(self, formula: Formula, outputs: list[int]):
        self.f = formula
        self.outputs = outputs

    def __len__(self) -> int:
        return len(self.outputs)

    def ge(self, k: int) -> int:
        """The literal "at least ``k`` are true" (constant true for k <= 0, false beyond the size)."""
        if k <= 0:
            return self.f.true
        if k > len(self.outputs):
            return -self.f.true
        return self.outputs[k - 1]

    def eq(self, k: int) -> list[int]:
        """Assumption literals meaning "exactly ``k`` are true" (trivially true ones left out)."""
        # ge(k) and -ge(k + 1) inlined: encoders call this once per clue and clue value
        true, outs = self.f.true, self.outputs
        n = len(outs)
        lo = true if k <= 0 else (-true if k > n else outs[k - 1])
        hi = -(true if k + 1 <= 0 else (-true if k + 1 > n else outs[k]))
        return [lit for lit in (lo, hi) if lit != true]

    def le(self, k: int) -> list[int]:
        lit = -self.ge(k + 1)
        return [] if lit == self.f.true else [lit]


class Formula:
    """Named boolean variables and a clause list.

    ``var(key)`` returns the variable id of a hashable key (created on first use, ids in order of
    first use, so clause sets are deterministic when the encoder is). Cardinality helpers take
    literals and add the clauses of a ``pysat.card`` encoding, whose auxiliary variables come from
    the same pool.
    """

    def __init__(self):
        self.pool = IDPool()
        self.clauses: list[list[int]] = []
        #: the rule-tagged constraints, in the order added (see :class:`Constraint`)
        self.constraints: list[Constraint] = []
        self._true: int | None = None
        self._arrays = None

    def copy(self) -> Formula:
        """An independent formula with the same variables, clauses and tagged constraints (build
        a shared part once, then copy it and add what differs; the copy is not yet frozen)."""
        out = Formula()
        out.pool = copy.copy(self.pool)
        out.pool.obj2id, out.pool.id2obj = dict(self.pool.obj2id), dict(self.pool.id2obj)
        out.pool._occupied = list(self.pool._occupied)
        out.clauses, out.constraints, out._true = list(self.clauses), list(self.constraints), self._true
        return out

    def var(self, key: Hashable) -> int:
        if self._arrays is not None and key not in self.pool.obj2id:
            raise RuntimeError("the formula is already in use by a solver; build every variable first")
        return self.pool.id(key)

    @property
    def n_vars(self) -> int:
        return self.pool.top

    def grid(self, name: str, *shape: int):
        """A numpy int32 array of fresh variables ``(name, index...)`` of the given shape (cells,
        cell x value ...), numbered in row-major order."""
        import numpy as np

        return np.array([self.var((name, *idx)) for idx in np.ndindex(*shape)], np.int32).reshape(shape)

    @property
    def true(self) -> int:
        """A variable fixed true by a unit clause (the constant of :class:`Count`)."""
        if self._true is None:
            self._true = self.var(("__true__",))
            self.clauses.append([self._true])
        return self._true

    def add(self, clause: Iterable[int], rule: str | None = None) -> None:
        clause = list(clause)
        self.clauses.append(clause)
        if rule is not None:  # _tagged, inlined: encoders add many one-clause constraints
            end = len(self.clauses)
            self.constraints.append(Constraint(rule, tuple(map(int, clause)), 1, len(clause), end - 1, end))

    def extend(self, clauses: Iterable[Iterable[int]]) -> None:
        self.clauses.extend(list(c) for c in clauses)

    def _tagged(self, rule: str, lits, lo: int, hi: int, emit) -> None:
        start = len(self.clauses)
        emit()
        self.constraints.append(Constraint(rule, tuple(map(int, lits)), int(lo), int(hi), start, len(self.clauses)))

    def arrays(self):
        """The clauses as :class:`~kumo_gym.solvers.propagation.ClauseArrays` (built once; the
        formula must not grow afterwards)."""
        arrays = self._arrays
        if arrays is not None and arrays[1] is not None and arrays[0] == len(self.clauses):
            return arrays[1]  # the usual case: deduction asks on every clue-removal test
        from .propagation import ClauseArrays

        if self._arrays is None or self._arrays[0] != len(self.clauses) or self._arrays[1] is None:
            self._arrays = (len(self.clauses), ClauseArrays.from_clauses(self.clauses, self.n_vars))
        return self._arrays[1]

    def count(self, lits: Sequence[int]) -> Count:
        """A totalizer over ``lits``: outputs ``ge(k)`` defined both ways (so propagation works
        from the count to the literals and back, and negating a count is meaningful)."""
        _ = self.true  # the constant of Count, created now: the formula must be complete before it is solved
        nodes = [[int(x)] for x in lits]
        if not nodes:
            return Count(self, [])
        while len(nodes) > 1:
            merged = [self._merge(nodes[i], nodes[i + 1]) for i in range(0, len(nodes) - 1, 2)]
            if len(nodes) % 2:
                merged.append(nodes[-1])
            nodes = merged
        return Count(self, nodes[0])

    def _merge(self, a: list[int], b: list[int]) -> list[int]:
        p, q = len(a), len(b)
        pool = self.pool
        if pool._occupied or pool.with_neg:
            r = [pool.id(("__count__", pool.top + 1)) for _ in range(p + q)]
        else:  # the same ids and keys as pool.id would give (the next ones in turn), without its per-call cost
            top = pool.top
            r = list(range(top + 1, top + p + q + 1))
            for v in r:
                key = ("__count__", v)
                pool.obj2id[key] = v
                pool.id2obj[v] = key
            pool.top = top + p + q
        add = self.clauses.append
        for i in range(p + 1):
            for j in range(q + 1):
                if i + j > 0:  # at least i in a and j in b -> at least i + j
                    if i and j:
                        add([-a[i - 1], -b[j - 1], r[i + j - 1]])
                    else:
                        add([-a[i - 1] if i else -b[j - 1], r[i + j - 1]])
                if i + j < p + q:  # fewer than i + 1 in a and j + 1 in b -> fewer than i + j + 1
                    if i < p and j < q:
                        add([a[i], b[j], -r[i + j]])
                    else:
                        add([a[i] if i < p else b[j], -r[i + j]])
        return r

    def _card(self, lits: Sequence[int], k: int, kind: str) -> None:
        lits = list(lits)
        n = len(lits)
        if kind in ("at_most", "exactly") and k < 0 or kind in ("at_least", "exactly") and k > n:
            self.add([])  # unsatisfiable on purpose: the bound cannot be met
            return
        if kind == "at_most" and k >= n or kind == "at_least" and k <= 0:
            return
        if kind == "exactly" and k == 0 or kind == "at_most" and k == 0:
            self.extend([[-x] for x in lits])
            return
        if kind == "exactly" and k == n or kind == "at_least" and k == n:
            self.extend([[x] for x in lits])
            return
        if kind == "at_least" and k == 1:
            self.add(lits)
            return
        if k == 1 and n <= 6:
            # pairwise is smaller than a counter for short lists, and needs no auxiliaries
            for i in range(n):
                for j in range(i + 1, n):
                    self.add([-lits[i], -lits[j]])
            if kind == "exactly":
                self.add(lits)
            return
        enc = {"at_most": CardEnc.atmost, "at_least": CardEnc.atleast, "exactly": CardEnc.equals}[kind]
        cnf = enc(lits=lits, bound=k, vpool=self.pool, encoding=EncType.seqcounter)
        self.clauses.extend(cnf.clauses)

    def _guarded(self, guard: int | None, lits: Sequence[int], k: int, kind: str) -> None:
        if guard is None:
            self._card(lits, k, kind)
            return
        # every clause of the encoding gets "not guard": with the guard false the constraint is
        # off (its auxiliary variables are then free), so clue reduction can switch it by assumption
        start = len(self.clauses)
        self._card(lits, k, kind)
        self.clauses[start:] = [[-guard] + cl for cl in self.clauses[start:]]

    def _bounded(self, lits, k: int, kind: str, guard: int | None, rule: str | None) -> None:
        if rule is None:
            self._guarded(guard, lits, k, kind)
            return
        lits = list(lits)
        lo, hi = {"exactly": (k, k), "at_most": (0, k), "at_least": (k, len(lits))}[kind]
        self._tagged(rule, lits, lo, hi, lambda: self._guarded(guard, lits, k, kind))

    def exactly(self, lits: Sequence[int], k: int, guard: int | None = None, rule: str | None = None) -> None:
        """Exactly ``k`` of ``lits`` are true (only when ``guard`` is true, if one is given).

        ``rule`` records the constraint as one instance of that rule (for near misses)."""
        self._bounded(lits, k, "exactly", guard, rule)

    def at_most(self, lits: Sequence[int], k: int, guard: int | None = None, rule: str | None = None) -> None:
        self._bounded(lits, k, "at_most", guard, rule)

    def at_least(self, lits: Sequence[int], k: int, guard: int | None = None, rule: str | None = None) -> None:
        self._bounded(lits, k, "at_least", guard, rule)

    def exactly_one(self, lits: Sequence[int], rule: str | None = None) -> None:
        self._bounded(lits, 1, "exactly", None, rule)


def _clause_list(clauses):
    return clauses if isinstance(clauses, list) else [list(c) for c in clauses]


def _run(solver: Solver, assumptions: Sequence[int], budget: int | None) -> bool:
    if budget is None:
        return bool(solver.solve(assumptions=list(assumptions)))
    solver.conf_budget(int(budget))
    res = solver.solve_limited(assumptions=list(assumptions))
    if res is None:
        raise BudgetExceeded(f"no decision within {budget} conflicts")
    return bool(res)


def solve(clauses: Iterable[Iterable[int]], *, assumptions: Sequence[int] = (), phases: Sequence[int] | None = None,
          budget: int | None = None, solver: str = DEFAULT_SOLVER) -> list[int] | None:
    """A model of ``clauses`` (a list of signed literals) or None when UNSAT.

    ``phases`` are preferred literal polarities (random phases give random solutions, docs/specs/grid_puzzles.md §8).
    """
    with Solver(name=solver, bootstrap_with=_clause_list(clauses)) as s:
        if phases:
            s.set_phases(list(phases))
        return s.get_model() if _run(s, assumptions, budget) else None


def enumerate_models(clauses: Iterable[Iterable[int]], project: Sequence[int], limit: int = 2, *,
                     assumptions: Sequence[int] = (), budget: int | None = None,
                     solver: str = DEFAULT_SOLVER) -> list[list[int]]:
    """Up to ``limit`` models that differ on the variables ``project``.

    After each model, the clause that forbids its assignment of ``project`` is added and the
    solver runs again (python-sat's block-and-re-solve). Models are returned whole.
    """
    project = [abs(int(v)) for v in project]
    out: list[list[int]] = []
    with Solver(name=solver, bootstrap_with=_clause_list(clauses)) as s:
        while len(out) < limit and _run(s, assumptions, budget):
            model = s.get_model()
            out.append(model)
            s.add_clause(block_clause(model, project))
    return out


def count_models(clauses: Iterable[Iterable[int]], project: Sequence[int], limit: int = 2, **kw) -> int:
    """How many models differ on ``project``, counting up to ``limit``."""
    return len(enumerate_models(clauses, project, limit, **kw))


def block_clause(model: Sequence[int], project: Sequence[int]) -> list[int]:
    """The clause that is false exactly under ``model``'s assignment of the ``project`` variables."""
    value = {abs(l): l > 0 for l in model}
    return [-v if value.get(v, False) else v for v in project]


def true_vars(model: Sequence[int] | None) -> set[int]:
    return set() if model is None else {l for l in model if l > 0}


class UniquenessOracle:
    """Incremental "is the known solution still the only one" checks for clue reduction.

    Built from the rule clauses (no clues) and the known solution's model projected on the
    answer variables. Each clue is a literal passed as an assumption; because the solution's
    blocking clause is permanent, ``unique(clues)`` is a single solve that must be UNSAT.
    """

    def __init__(self, clauses: Iterable[Iterable[int]], project: Sequence[int], solution_model: Sequence[int],
                 solver: str = DEFAULT_SOLVER, budget: int | None = None):
        self.solver = Solver(name=solver, bootstrap_with=_clause_list(clauses))
        self.solver.add_clause(block_clause(solution_model, [abs(int(v)) for v in project]))
        self.budget = budget
        self.calls = 0

    def unique(self, assumptions: Sequence[int]) -> bool:
        """True when no other solution agrees with ``assumptions`` (a budget overrun counts as no)."""
        self.calls += 1
        try:
            return not _run(self.solver, assumptions, self.budget)
        except BudgetExceeded:
            return False

    def close(self) -> None:
        self.solver.delete()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Propagator:
    """Unit propagation and failed-literal probing over fixed clauses (for :func:`grade`).

    Compiled (:mod:`kumo_gym.solvers.propagation`); results are sets of true literals.
    """

    def __init__(self, clauses: Iterable[Iterable[int]]):
        from .propagation import ClauseArrays

        clauses = _clause_list(clauses)
        top = max((abs(lit) for c in clauses for lit in c), default=0)
        self.arrays = ClauseArrays.from_clauses(clauses, top)

    def _lits(self, value, assumptions) -> set[int] | None:
        if value is None:
            return None
        out = {v if value[v] > 0 else -v for v in range(1, len(value)) if value[v]}
        return out | {int(a) for a in assumptions if abs(int(a)) >= len(value)}

    def propagate(self, assumptions: Sequence[int]) -> set[int] | None:
        """Literals implied by the clauses and ``assumptions`` (None on conflict)."""
        assumptions = [int(a) for a in assumptions]
        inside = [a for a in assumptions if abs(a) <= self.arrays.n_vars]
        return self._lits(self.arrays.propagate(inside), assumptions)

    def probe(self, assumptions: Sequence[int], variables: Sequence[int]) -> set[int] | None:
        """Failed-literal probing on ``variables`` to a fixpoint (None when contradictory)."""
        assumptions = [int(a) for a in assumptions]
        inside = [a for a in assumptions if abs(a) <= self.arrays.n_vars]
        cand = [int(v) for v in variables if abs(int(v)) <= self.arrays.n_vars]
        return self._lits(self.arrays.probe(inside, cand), assumptions)

    def close(self) -> None:
        """Nothing to release (kept for callers written against the solver-based version)."""


def grade_values(arrays, answer, assumptions: Sequence[int]) -> int:
    """The docs/specs/grid_puzzles.md §8 grade from :class:`~kumo_gym.solvers.propagation.ClauseArrays`: 0 propagation,
    1 failed-literal probing, 2 search (or contradictory clues)."""
    import numpy as np

    answer = np.asarray(answer, np.int64)
    value = arrays.propagate(assumptions)
    if value is not None and (value[answer] != 0).all():
        return 0
    value = arrays.probe(assumptions, answer)
    if value is not None and (value[answer] != 0).all():
        return 1
    return 2


def grade(clauses: Iterable[Iterable[int]], variables: Sequence[int], assumptions: Sequence[int] = (),
          propagator: Propagator | None = None) -> int:
    """The docs/specs/grid_puzzles.md §8 grade of a puzzle: 0 (propagation), 1 (failed-literal probing) or 2 (search).

    ``variables`` are the answer variables that must all be fixed.
    """
    p = propagator or Propagator(clauses)
    n = p.arrays.n_vars
    return grade_values(p.arrays, [v for v in variables if v <= n], [a for a in assumptions if abs(a) <= n])
