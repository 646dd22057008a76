"""A solver that explains itself: the deduction log behind the synthetic traces.

A pack describes an instance as a :class:`Model`: variables with finite domains (one per cell,
holding the puzzle's answer symbols), the givens, local :class:`Constraint` s (a rule over a few
variables, with the clue claims it reads), optional all-different ``units`` (rows, columns and
boxes of a Latin square), and the claims that name a value (``fact``) or rule one out
(``exclusion``). :func:`deduce` solves the instance the way a careful person writes it down and
returns the log as :class:`Step` s, each a conclusion with the *minimal* premises it needs:

1. **singles**: a variable with one value left (premises: whatever removed the others), and in a
   unit, a value with one place left;
2. **local rules**: every constraint is checked by enumerating the assignments of its
   variables' current domains (bounded by ``limit``); a value no assignment supports is ruled
   out (a cell left with one value is concluded directly). The premises are found by greedy
   minimisation: drop each known fact in turn and keep the drop if the conclusion still follows;
3. **probing** when stuck: assume a wrong value (``BRANCH#k``), propagate until a constraint
   fails, record the Contradiction and its discharge in MAIN (the refuted assumption negated);
4. **fallback**: if nothing works, one cell is *stated* from the stored solution.

Every MAIN conclusion follows from the rules and the clues (the solution is used only to choose
which wrong assumption to probe and for the fallback), so every solution claim it derives is
correct; tests check that against the environment's ``verify_claim``.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from math import prod
from typing import Any

MAIN = "MAIN"


@dataclass(frozen=True)
class Constraint:
    """One local rule: ``check(values)`` says whether a complete assignment of ``vars`` obeys it.

    ``clues`` are the clue claims ``(kind, payload)`` the rule reads (they are premises of every
    conclusion drawn from it); ``reason`` is a short phrase for conclusions that need no
    premise at all ("no tree is next to it").
    """

    vars: tuple
    check: Callable[[tuple], bool]
    clues: tuple = ()
    reason: str = ""
    name: str = ""
    #: optional fast path: ``support(domains) -> [set of values each variable takes in some
    #: satisfying assignment]`` (all empty when none exists); the default enumerates ``check``
    support: Callable[[list], list] | None = None


@dataclass
class Model:
    """An instance as variables, domains and constraints (see the module docstring)."""

    domains: dict  # var -> tuple of values
    constraints: list
    fact: Callable[[Hashable, Any], tuple]  # (var, value) -> (kind, payload): "var holds value"
    solution: dict  # var -> value (probing and fallback only)
    givens: dict = field(default_factory=dict)  # var -> value fixed by the instance
    given_fact: Callable | None = None  # (var, value) -> the clue claim naming a given
    exclusion: Callable | None = None  # (var, value) -> (kind, payload): "var does not hold value"
    units: list = field(default_factory=list)  # tuples of vars that hold each value exactly once


@dataclass
class Step:
    """One line of the deduction log.

    ``status``: ``derived`` (from ``premises`` by ``rule``), ``stated`` (no premises: a fallback
    or a rule that needs none), ``tentative`` (a branch assumption) or ``contradiction`` (the
    branch failed; ``conclusion`` is the Contradiction claim). A ``discharge`` step negates its
    branch's assumption in MAIN.
    """

    conclusion: tuple  # (kind, payload)
    premises: tuple = ()  # (kind, payload) claims
    status: str = "derived"
    scope: str = MAIN
    reason: str = ""
    branch: int | None = None
    technique: str = ""


class _Budget(Exception):
    pass


class _State:
    def __init__(self, model: Model):
        self.dom = {v: set(d) for v, d in model.domains.items()}
        self.fact_of: dict = {}  # var -> fact key (claim) that fixes it
        self.why: dict = {v: {} for v in model.domains}  # var -> value -> claim that removed it

    def copy(self) -> _State:
        new = object.__new__(_State)
        new.dom = {v: set(d) for v, d in self.dom.items()}
        new.fact_of = dict(self.fact_of)
        new.why = {v: dict(w) for v, w in self.why.items()}
        return new


def _key(claim: tuple) -> tuple:
    kind, payload = claim
    return kind, tuple(sorted((k, tuple(map(tuple, v)) if isinstance(v, list) and v and isinstance(v[0], list)
                               else tuple(v) if isinstance(v, list) else v) for k, v in payload.items()))


class Deducer:
    """The engine behind :func:`deduce` (one instance)."""

    def __init__(self, model: Model, limit: int = 4096, max_probes: int = 60, branch_steps: int = 60):
        self.m = model
        self.limit = limit
        self.max_probes = max_probes
        self.branch_steps = branch_steps
        self.by_var: dict = {v: [] for v in model.domains}
        for i, c in enumerate(model.constraints):
            for v in c.vars:
                self.by_var[v].append(i)
        self.peers: dict = {v: set() for v in model.domains}
        self.units_of: dict = {v: [] for v in model.domains}
        for u in model.units:
            for v in u:
                self.peers[v].update(w for w in u if w != v)
                self.units_of[v].append(u)
        self.effects: dict = {}  # claim key -> {var: ("only"|"not", value)} as a list
        self.claims: dict = {}  # claim key -> (kind, payload)
        self.steps: list[Step] = []
        self.n_branches = 0

    # ---- facts and their effects ---------------------------------------------------------------
    def _register(self, claim: tuple, effects: list) -> tuple:
        k = _key(claim)
        self.claims.setdefault(k, claim)
        self.effects.setdefault(k, [])
        for e in effects:
            if e not in self.effects[k]:
                self.effects[k].append(e)
        return k

    def _assign(self, st: _State, var, value, claim: tuple) -> tuple:
        effects = [(var, "only", value)] + [(p, "not", value) for p in self.peers[var]]
        k = self._register(claim, effects)
        st.fact_of[var] = k
        for other in list(st.dom[var]):
            if other != value:
                st.why[var].setdefault(other, k)
        st.dom[var] = {value}
        for p in self.peers[var]:
            if value in st.dom[p]:
                st.dom[p].discard(value)
                st.why[p].setdefault(value, k)
        return k

    def _exclude(self, st: _State, var, value, claim: tuple) -> tuple:
        k = self._register(claim, [(var, "not", value)])
        st.dom[var].discard(value)
        st.why[var].setdefault(value, k)
        return k

    def _dom_under(self, var, keys) -> set:
        d = set(self.m.domains[var])
        for k in keys:
            for v, typ, val in self.effects[k]:
                if v == var:
                    if typ == "only":
                        d &= {val}
                    else:
                        d.discard(val)
        return d

    # ---- constraint reasoning --------------------------------------------------------------------
    def _pool(self, st: _State, scope) -> list:
        keys = []
        for v in scope:
            if v in st.fact_of:
                keys.append(st.fact_of[v])
            else:
                keys.extend(st.why[v].values())
        return list(dict.fromkeys(keys))

    def _support(self, c: Constraint, doms: list, cap: int) -> list | None:
        """Per variable, the values some satisfying assignment gives it (None: too many to enumerate)."""
        if c.support is not None:
            return c.support([set(d) for d in doms])
        if prod(len(d) for d in doms) > cap:
            return None
        support: list = [set() for _ in doms]
        for vals in itertools.product(*doms):
            if c.check(vals):
                for i, x in enumerate(vals):
                    support[i].add(x)
        return support

    def _under(self, c: Constraint, keys: list) -> list | None:
        return self._support(c, [sorted(self._dom_under(v, keys), key=str) for v in c.vars], 4 * self.limit)

    def _minimise(self, pool: list, holds: Callable[[list], bool | None]) -> list:
        """Greedy minimal subset of ``pool`` for which ``holds`` stays true (oldest facts dropped first)."""
        keep = list(pool)
        for k in list(pool):
            trial = [x for x in keep if x != k]
            if holds(trial) is True:
                keep = trial
        return keep

    def _premises(self, c: Constraint, keys: list) -> tuple:
        clues = tuple(c.clues)
        return clues + tuple(self.claims[k] for k in keys if self.claims[k] not in clues)

    def _process(self, st: _State, ci: int, scope: str, changed: list) -> bool:
        """Check constraint ``ci``; record conclusions; False on a contradiction (branch failed)."""
        c = self.m.constraints[ci]
        doms = [sorted(st.dom[v], key=str) for v in c.vars]
        support = self._support(c, doms, self.limit)
        if support is None:
            return True
        if not any(support):
            pool = self._pool(st, c.vars)

            def unsat(keys):
                sup = self._under(c, keys)
                return None if sup is None else not any(sup)

            keys = self._minimise(pool, unsat)
            self._contradiction(scope, self._premises(c, keys))
            return False
        plans = []
        for i, v in enumerate(c.vars):
            removed = st.dom[v] - support[i]
            if not removed or v in st.fact_of:
                continue
            pool = self._pool(st, c.vars)
            if len(support[i]) == 1:
                w = next(iter(support[i]))

                def forced(keys, i=i, w=w):
                    sup = self._under(c, keys)
                    return None if sup is None else sup[i] <= {w}

                plans.append(("assign", v, w, self._minimise(pool, forced)))
            elif self.m.exclusion is not None:
                for e in sorted(removed, key=str):
                    def ruled_out(keys, i=i, e=e):
                        sup = self._under(c, keys)
                        return None if sup is None else e not in sup[i]

                    plans.append(("exclude", v, e, self._minimise(pool, ruled_out)))
        for what, v, x, keys in plans:
            premises = self._premises(c, keys)
            if what == "assign":
                if v in st.fact_of:
                    continue
                claim = self.m.fact(v, x)
                self._emit(Step(claim, premises, "derived" if premises else "stated", scope, c.reason,
                                technique=c.name or "rule"))
                self._assign(st, v, x, claim)
            else:
                if x not in st.dom[v]:
                    continue
                claim = self.m.exclusion(v, x)
                self._emit(Step(claim, premises, "derived" if premises else "stated", scope, c.reason,
                                technique=c.name or "rule"))
                self._exclude(st, v, x, claim)
            changed.append(v)
        return True

    def _contradiction(self, scope: str, premises: tuple) -> None:
        k = int(scope.split("#")[1]) if "#" in scope else 0
        self._emit(Step(("Contradiction", {"branch": k}), premises, "contradiction", scope, branch=k))

    def _emit(self, step: Step) -> None:
        self.steps.append(step)
        if self.steps_budget is not None:
            self.steps_budget -= 1
            if self.steps_budget < 0:
                raise _Budget

    steps_budget: int | None = None

    # ---- singles -----------------------------------------------------------------------------
    def _singles(self, st: _State, scope: str, changed: list) -> bool | None:
        """One naked or hidden single (True), a contradiction (None), or nothing to do (False)."""
        for v in self.m.domains:
            d = st.dom[v]
            if not d:
                self._contradiction(scope, tuple(self.claims[k] for k in dict.fromkeys(st.why[v].values())))
                return None
            if len(d) == 1 and v not in st.fact_of:
                w = next(iter(d))
                premises = tuple(self.claims[k] for k in dict.fromkeys(st.why[v][e] for e in self.m.domains[v]
                                                                       if e != w and e in st.why[v]))
                claim = self.m.fact(v, w)
                self._emit(Step(claim, premises, "derived" if premises else "stated", scope, technique="naked single"))
                self._assign(st, v, w, claim)
                changed.append(v)
                return True
        for u in self.m.units:
            values = set().union(*(self.m.domains[v] for v in u))
            for val in sorted(values, key=str):
                where = [v for v in u if val in st.dom[v]]
                if not where:
                    keys = dict.fromkeys(st.why[v][val] for v in u if val in st.why[v])
                    self._contradiction(scope, tuple(self.claims[k] for k in keys))
                    return None
                if len(where) == 1 and where[0] not in st.fact_of:
                    v = where[0]
                    keys = dict.fromkeys(st.why[y][val] for y in u if y != v and y not in st.fact_of and val in st.why[y])
                    claim = self.m.fact(v, val)
                    self._emit(Step(claim, tuple(self.claims[k] for k in keys), "derived" if keys else "stated", scope,
                                    technique="hidden single"))
                    self._assign(st, v, val, claim)
                    changed.append(v)
                    return True
        return False

    # ---- the loop ----------------------------------------------------------------------------
    def _propagate(self, st: _State, scope: str, queue: deque) -> bool:
        """Run to a fixpoint; False when a contradiction was found."""
        queued = set(queue)
        while True:
            changed: list = []
            r = self._singles(st, scope, changed)
            if r is None:
                return False
            if not r:
                if not queue:
                    return True
                ci = queue.popleft()
                queued.discard(ci)
                if not self._process(st, ci, scope, changed):
                    return False
            for v in changed:
                for cj in self.by_var[v]:
                    if cj not in queued:
                        queue.append(cj)
                        queued.add(cj)

    def _unknown(self, st: _State) -> list:
        return [v for v in self.m.domains if v not in st.fact_of]

    def _probe(self, st: _State):
        """Refute one wrong value by a branch; the variable whose value was refuted, or None."""
        tried = 0
        for v in self._unknown(st):
            for val in sorted(st.dom[v] - {self.m.solution[v]}, key=str):
                if tried >= self.max_probes:
                    return None
                tried += 1
                k = self.n_branches + 1
                scope = f"BRANCH#{k}"
                mark = len(self.steps)
                branch = st.copy()
                assumption = self.m.fact(v, val)
                self.steps_budget = self.branch_steps
                try:
                    self._emit(Step(assumption, (), "tentative", scope, branch=k))
                    self._assign(branch, v, val, assumption)
                    ok = self._propagate(branch, scope, deque(self.by_var[v]))
                except _Budget:
                    ok = True
                finally:
                    self.steps_budget = None
                if ok:  # no contradiction: forget the branch
                    del self.steps[mark:]
                    continue
                self.n_branches = k
                binary = len(self.m.domains[v]) == 2
                if binary:
                    w = next(iter(set(self.m.domains[v]) - {val}))
                    claim = self.m.fact(v, w)
                elif self.m.exclusion is not None:
                    claim = self.m.exclusion(v, val)
                else:
                    del self.steps[mark:]
                    continue
                self.steps.append(Step(claim, (assumption, self.steps[-1].conclusion), "discharge", MAIN, branch=k))
                if binary:
                    self._assign(st, v, w, claim)
                else:
                    self._exclude(st, v, val, claim)
                return v
        return None

    def run(self) -> list[Step]:
        st = _State(self.m)
        for v, val in self.m.givens.items():
            claim = self.m.given_fact(v, val) if self.m.given_fact else self.m.fact(v, val)
            self._assign(st, v, val, claim)
        order = sorted(range(len(self.m.constraints)),
                       key=lambda i: (prod(len(st.dom[v]) for v in self.m.constraints[i].vars), i))
        queue = deque(order)
        while True:
            if not self._propagate(st, MAIN, queue):
                raise AssertionError("a contradiction in MAIN: the puzzle's constraints are wrong")
            unknown = self._unknown(st)
            if not unknown:
                return self.steps
            var = self._probe(st)
            if var is None:
                var = unknown[0]
                claim = self.m.fact(var, self.m.solution[var])
                self.steps.append(Step(claim, (), "stated", MAIN, "it is the only way the rest works out",
                                       technique="fallback"))
                self._assign(st, var, self.m.solution[var], claim)
            touched = [var, *self.peers[var]]
            queue = deque(dict.fromkeys(ci for v in touched for ci in self.by_var[v]))


def deduce(model: Model, limit: int = 4096, max_probes: int = 60, branch_steps: int = 60) -> list[Step]:
    """The deduction log of one instance (see the module docstring)."""
    return Deducer(model, limit, max_probes, branch_steps).run()
