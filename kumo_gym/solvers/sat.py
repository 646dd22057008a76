"""python-sat helpers shared by the constraint puzzles (grid_puzzles.md §8).

Encodings are small functions that add clauses to a :class:`Formula`; solving, enumeration
(block the model found, solve again) and uniqueness certificates are separate steps, in the
python-sat style (STYLE.md).

* :class:`Formula` -- an ``IDPool`` of named variables plus a clause list, with cardinality
  constraints through :mod:`pysat.card` (``exactly``, ``at_most``, ``at_least``).
* :func:`solve`, :func:`enumerate_models`, :func:`count_models` -- one-shot use.
* :class:`UniquenessOracle` -- an incremental solver for clue reduction: it holds the rules and
  the clause that blocks the known solution, so "is the solution still unique with these clues"
  is one ``solve(assumptions=clues)`` that must be UNSAT.
* :func:`grade` -- the difficulty proxy of §8: 0 when unit propagation alone fixes every answer
  variable, 1 when failed-literal probing (to a fixpoint) is also needed, 2 when search is needed.

Budgets are conflict counts, never wall-clock limits, so results do not depend on machine load
(§8 "Determinism"). Clause order is whatever the encoder produced, which must be deterministic.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

#: CaDiCaL 1.5.3, one of the two solvers named by §8 (Glucose 4 is the other).
DEFAULT_SOLVER = "cadical153"
#: Glucose 4 is used where unit propagation is needed (``propagate``), which CaDiCaL lacks.
PROPAGATING_SOLVER = "glucose4"


class BudgetExceeded(RuntimeError):
    """A solve call ran out of its conflict budget before deciding."""


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

    def var(self, key: Hashable) -> int:
        return self.pool.id(key)

    @property
    def n_vars(self) -> int:
        return self.pool.top

    def add(self, clause: Iterable[int]) -> None:
        self.clauses.append(list(clause))

    def extend(self, clauses: Iterable[Iterable[int]]) -> None:
        self.clauses.extend(list(c) for c in clauses)

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

    def exactly(self, lits: Sequence[int], k: int, guard: int | None = None) -> None:
        """Exactly ``k`` of ``lits`` are true (only when ``guard`` is true, if one is given)."""
        self._guarded(guard, lits, k, "exactly")

    def at_most(self, lits: Sequence[int], k: int, guard: int | None = None) -> None:
        self._guarded(guard, lits, k, "at_most")

    def at_least(self, lits: Sequence[int], k: int, guard: int | None = None) -> None:
        self._guarded(guard, lits, k, "at_least")

    def exactly_one(self, lits: Sequence[int]) -> None:
        self._card(lits, 1, "exactly")


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

    ``phases`` are preferred literal polarities (random phases give random solutions, §8).
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

    def second_solution(self, assumptions: Sequence[int]) -> list[int] | None:
        """Another solution consistent with ``assumptions``, or None."""
        return self.solver.get_model() if _run(self.solver, assumptions, self.budget) else None

    def close(self) -> None:
        self.solver.delete()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Propagator:
    """Unit propagation and failed-literal probing over fixed clauses (for :func:`grade`)."""

    def __init__(self, clauses: Iterable[Iterable[int]]):
        clauses = _clause_list(clauses)
        # a solver's propagate() reports only what follows from the assumptions, not the literals
        # its one-literal clauses fix at level 0 (givens encoded as units), so those are kept out of
        # the solver and always passed as assumptions
        self.units = sorted({c[0] for c in clauses if len(c) == 1})
        self.solver = Solver(name=PROPAGATING_SOLVER, bootstrap_with=[c for c in clauses if len(c) != 1])

    def propagate(self, assumptions: Sequence[int]) -> set[int] | None:
        """Literals implied by the clauses and ``assumptions`` (None on conflict)."""
        assumptions = list(self.units) + [a for a in assumptions if a not in self.units]
        ok, lits = self.solver.propagate(assumptions=assumptions)
        return set(lits) | set(assumptions) if ok else None

    def probe(self, assumptions: Sequence[int], variables: Sequence[int]) -> set[int] | None:
        """Failed-literal probing to a fixpoint: a literal whose propagation conflicts is negated.

        Each probe passes only the original assumptions, the literals learnt by earlier failed
        probes and the probe itself; propagation re-derives the rest.
        """
        base = [int(x) for x in assumptions]
        known = self.propagate(base)
        if known is None:
            return None
        learnt: list[int] = []
        changed = True
        while changed:
            changed = False
            for v in variables:
                if v in known or -v in known:
                    continue
                for lit in (v, -v):
                    ok, _ = self.solver.propagate(assumptions=self.units + base + learnt + [lit])
                    if not ok:
                        learnt.append(-lit)
                        known = self.propagate(base + learnt)
                        if known is None:
                            return None
                        changed = True
                        break
        return known

    def close(self) -> None:
        self.solver.delete()


def grade(clauses: Iterable[Iterable[int]], variables: Sequence[int], assumptions: Sequence[int] = (),
          propagator: Propagator | None = None) -> int:
    """The §8 grade of a puzzle: 0 (propagation), 1 (failed-literal probing) or 2 (search).

    ``variables`` are the answer variables that must all be fixed.
    """
    own = propagator is None
    p = propagator or Propagator(clauses)
    try:
        known = p.propagate(assumptions)
        if known is not None and all(v in known or -v in known for v in variables):
            return 0
        known = p.probe(assumptions, variables)
        if known is not None and all(v in known or -v in known for v in variables):
            return 1
        return 2
    finally:
        if own:
            p.close()
