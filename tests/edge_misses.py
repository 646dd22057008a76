"""Near misses at every rule instance of a grid puzzle: every row and column, both signs, each operator.

The near misses of :mod:`tests.test_adversarial` break each rule at a few places and prove each
rule check load-bearing; a check that skips the last row, the last column, the wrap-around of a
loop or one of two signs is still load-bearing, so those bugs pass them. Here every instance of
every rule of the encoding (each tagged constraint and each clue) is broken on its own, within
its rule: the instance is negated, the other instances of the same rule are kept, the other
rules are dropped, and the solver is steered towards the solution (its phases). The verdict of
the answer must name the rule. Then every other way to break that instance on the same cells
(the cells the first answer changed; all other cells fixed to the solution) is enumerated, so
each value combination of a cage, a pair of signs or a connection is met, and each must be named
too: a ``/`` cage is met with a quotient that is not exact, a ``- -`` pair as well as a ``+ +``.
"""
from __future__ import annotations

import numpy as np
from pysat.solvers import Solver

from kumo_gym.envs.grid.base import GridTask
from kumo_gym.solvers.engine import MAX_CUT_ROUNDS, _negation, block, values_of

#: completions enumerated per broken instance on the cells the first answer changed
PER_INSTANCE = 48
#: instances of one rule broken per instance (all when fewer)
PER_RULE = 400


class _RuleSolver:
    """One incremental solver per rule for all its near misses: every tagged constraint guarded by
    a selector (assumed true to keep it), each target's negation and each answer block behind an
    activation literal, so no solver is rebuilt per rule instance."""

    def __init__(self, enc, rule: str, targets: list):
        f = self.f = enc.formula
        self.enc, self.rule = enc, rule
        self.top = f.n_vars
        self.sel = {}
        owner = np.full(len(f.clauses), -1, np.int64)
        for i, c in enumerate(f.constraints):
            owner[c.start:c.end] = i
        clauses = []
        for cl, i in zip(f.clauses, owner.tolist()):
            if i < 0:
                clauses.append(cl)
            else:
                if i not in self.sel:
                    self.sel[i] = self._new()
                clauses.append([-self.sel[i], *cl])
        self.act = {}
        for kind, what in targets:
            a = self.act[kind, what] = self._new()
            if kind == "constraint":
                c = f.constraints[what]
                neg, _ = _negation(f, c.lits, c.lo, c.hi)
                shift = self.top - f.n_vars
                renum = [[lit if abs(lit) <= f.n_vars else (lit + shift if lit > 0 else lit - shift) for lit in cl]
                         for cl in neg]
                self.top = max([self.top] + [abs(lit) for cl in renum for lit in cl])
                clauses += [[-a, *cl] for cl in renum]
            else:
                clauses.append([-a, *[-lit for lit in enc.clues[what][1]]])
        self.solver = Solver(name=enc.solver, bootstrap_with=clauses)
        self.cuts = rule != enc.cut_rule

    def _new(self) -> int:
        self.top += 1
        return self.top

    def kept(self, kind: str, what) -> list[int]:
        """Assumptions keeping every tagged constraint but ``what``."""
        return [-s if kind == "constraint" and i == what else s for i, s in self.sel.items()]

    def breaks(self, value: np.ndarray, keys: list) -> bool:
        """Whether the answer of ``value`` breaks the rule as the encoding states it: with the
        answer fixed, the rule's constraints (the negated one restored), the clues ``keys`` and
        the untagged structure have no model. A negated instance that changed only what the
        answer grid does not show (a slot layout, a tree's own variable) is no near miss."""
        answer = np.asarray(self.enc.answer, np.int64).ravel()
        lits = np.where(value[answer] > 0, answer, -answer).tolist()
        rules = [s if self.f.constraints[i].rule == self.rule else -s for i, s in self.sel.items()]
        return self.solve(rules + self.enc.assumptions(keys) + lits) is None

    def solve(self, assumptions: list[int]) -> np.ndarray | None:
        return _solve(self.enc, self.solver, assumptions, self.cuts)

    def close(self) -> None:
        self.solver.delete()


def _solve(enc, s: Solver, assumptions: list[int], cuts: bool) -> np.ndarray | None:
    for _ in range(MAX_CUT_ROUNDS):
        if not s.solve(assumptions=assumptions):
            return None
        value = values_of(s.get_model(), enc.formula.n_vars)
        cut = enc.cuts(value) if cuts and enc.cuts is not None else []
        if not cut:
            return value
        for cl in cut:
            s.add_clause(list(cl))
    return None


def rule_instance_misses(task: GridTask, instance, rng: np.random.Generator, rules: set | None = None):
    """``(rule code, where, grid)`` for answers that break one instance of a rule (module docstring);
    ``where`` names the instance (a constraint index or a clue key) and what else was kept."""
    enc = task.encoding(instance)
    f = enc.formula
    sol = enc.engine.models(enc.assumptions(), 1)
    if not sol:
        return
    sol_value = sol[0]
    phases = [v if sol_value[v] > 0 else -v for v in range(1, f.n_vars + 1)]
    linked = _linked(enc)
    all_rules = sorted({c.rule for c in f.constraints} | {r for r, _ in enc.clues.values()})
    # the clues a near miss may drop, by rule: those not stated on the answer variables alone
    # (counts, sums, cages); a model without one may hold what the answer grid cannot show (a
    # tent where the state draws a tree), and such models are left out (visible_change)
    answer_vars = set(np.asarray(enc.answer, np.int64).ravel().tolist())
    droppable: dict = {}
    for k, (r, lits) in enc.clues.items():
        if not all(abs(lit) in answer_vars for lit in lits):
            droppable.setdefault(r, set()).add(k)
    for rule in [r for r in all_rules if rules is None or task.rule_code(r) in rules]:
        others = sorted((q for q in droppable if q != rule), key=lambda q: (-len(droppable[q]), q))
        code = task.rule_code(rule)
        if not task.rule_enabled(code):
            continue
        targets = [("constraint", i) for i, c in enumerate(f.constraints) if c.rule == rule]
        targets += [("clue", k) for k, (r, _) in enc.clues.items() if r == rule]
        if len(targets) > PER_RULE:
            targets = [targets[int(i)] for i in sorted(rng.choice(len(targets), PER_RULE, replace=False))]
        rs = _RuleSolver(enc, rule, targets)
        try:
            rs.solver.set_phases(phases)
            # a rule stated by its clues alone (cages, sums) is also broken with every other rule
            # dropped: its check reads only the cells of the clue, so each value combination of a
            # clue's cells is met (a quotient that is not exact, a difference of the wrong sign)
            alone = not any(c.rule == rule for c in f.constraints)
            other_clues = {k for k, (r, _) in enc.clues.items() if r != rule}
            for kind, what in targets:
                levels = [(None, ()), *((q, droppable[q]) for q in others)]
                if alone and kind == "clue":
                    levels.append(("every other rule", other_clues))
                for dropped, keys_dropped in levels:
                    found = list(_break_one(rs, kind, what, sol_value, linked, keys_dropped,
                                            others_off=dropped == "every other rule"))
                    if found:
                        where = (kind, what, "everything else kept" if dropped is None else f"{dropped} clues dropped")
                        keys = [k for k in enc.clues if k not in keys_dropped]
                        yield from ((code, where, enc.decode(v)) for v in found
                                    if visible_change(enc, sol_value, v) and rs.breaks(v, keys))
                        break
        finally:
            rs.close()


def _break_one(rs: _RuleSolver, kind: str, what, sol_value, linked, dropped, others_off: bool = False):
    """Models with instance ``what`` of the rule negated, every other constraint and clue kept
    but the clues ``dropped`` (of one other rule: the tagged constraints, the structure the rule
    is read on, stay); then every other way to break it on the cells the first model changed."""
    enc = rs.enc
    answer = np.asarray(enc.answer, np.int64).ravel()
    keys = [k for k in enc.clues if k not in dropped and not (kind == "clue" and k == what)]
    kept = rs.kept(kind, what)
    if others_off:  # every other rule's tagged constraints dropped as well
        kept = [s if rs.f.constraints[i].rule == rs.rule else -s for i, s in rs.sel.items()]
    assumptions = kept + [rs.act[kind, what]] + enc.assumptions(keys)
    first = rs.solve(assumptions)
    if first is None:
        return
    yield first
    changed = answer[(first[answer] > 0) != (sol_value[answer] > 0)].tolist()
    if not changed:
        return
    free = set(changed).union(*(linked.get(v, ()) for v in changed))
    fixed = [int(v) if sol_value[v] > 0 else -int(v) for v in answer if v not in free]
    blk = rs._new()
    rs.solver.add_clause([-blk, *block(first, enc.answer)])
    for _ in range(PER_INSTANCE):
        value = rs.solve(assumptions + fixed + [blk])
        if value is None:
            break
        yield value
        rs.solver.add_clause([-blk, *block(value, enc.answer)])
    rs.solver.add_clause([-blk])


def visible_change(enc, sol_value: np.ndarray, value: np.ndarray) -> bool:
    """Whether the answer grid shows how ``value`` differs from the solution: some answer
    variable differs, and flipping any that differs changes the decoded grid (a grid draws
    trees, mirrors and black cells from the state, whatever the model holds there)."""
    answer = np.asarray(enc.answer, np.int64).ravel()
    changed = answer[(value[answer] > 0) != (sol_value[answer] > 0)]
    if not len(changed):
        return False
    grid = enc.decode(value)
    for v in changed.tolist():
        flipped = value.copy()
        flipped[v] = -flipped[v]
        if enc.decode(flipped) == grid:
            return False
    return True


def _linked(enc) -> dict[int, set[int]]:
    """Answer variables that share a short untagged clause (the values of one cell: its
    one-hot clauses), so that a cell changed by a near miss is freed whole."""
    f = enc.formula
    tagged = np.zeros(len(f.clauses), bool)
    for c in f.constraints:
        tagged[c.start:c.end] = True
    answer = set(np.asarray(enc.answer, np.int64).ravel().tolist())
    out: dict[int, set[int]] = {}
    for cl, t in zip(f.clauses, tagged):
        if not t and len(cl) <= 16:
            vs = [abs(lit) for lit in cl if abs(lit) in answer]
            for v in vs:
                out.setdefault(v, set()).update(vs)
    return out


def unnamed_rule_instances(task: GridTask, instance, rng: np.random.Generator, limit: int = 3,
                           rules: set | None = None) -> list:
    """The answers of :func:`rule_instance_misses` whose verdict does not name their rule
    (``rules``: only those rule codes)."""
    out = []
    for code, where, grid in rule_instance_misses(task, instance, rng, rules):
        v = task.verify(instance, grid)
        if code not in v.rules:
            out.append((code, where, grid, v.rules))
            if len(out) >= limit:
                break
    return out
