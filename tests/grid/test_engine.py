"""The grid generation engine (kumo_gym/solvers/engine.py, propagation.py; docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.solvers.engine import Breach, Encoding, Engine, breaches, break_rule, reduce_clues, values_of
from kumo_gym.solvers.propagation import ClauseArrays
from kumo_gym.solvers.sat import Formula, Propagator, count_models


def test_propagation_and_probing_match_pysat_on_random_cnfs():
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(3, 25))
        clauses = [[int(v) * (1 if rng.random() < 0.5 else -1) for v in rng.choice(n, min(n, int(rng.integers(1, 4))),
                                                                                     replace=False) + 1]
                   for _ in range(int(rng.integers(1, 60)))]
        assumptions = [int(v) * (1 if rng.random() < 0.5 else -1) for v in rng.choice(n, 2, replace=False) + 1]
        arrays = ClauseArrays.from_clauses(clauses, n)
        value = arrays.propagate(assumptions)
        # the reference: pysat's own propagation (Glucose), one call
        from pysat.solvers import Solver

        with Solver(name="glucose4", bootstrap_with=[c for c in clauses if len(c) > 1]) as s:
            units = [c[0] for c in clauses if len(c) == 1]
            ok, lits = s.propagate(assumptions=units + assumptions)
        if not ok or value is None:
            assert (value is None) == (not ok) or len(set(units + assumptions)) != len({abs(x) for x in units + assumptions})
            continue
        assert {v if value[v] > 0 else -v for v in range(1, n + 1) if value[v]} == set(lits) | set(units + assumptions)
        # probing only adds literals that hold in every model
        probed = arrays.probe(assumptions, np.arange(1, n + 1))
        if probed is not None:
            assert all(probed[v] == value[v] for v in range(1, n + 1) if value[v])


def test_counter_outputs_fix_counts_by_assumption():
    f = Formula()
    xs = [f.var(i) for i in range(6)]
    count = f.count(xs)
    for k in range(7):
        assert count_models(f.clauses, xs, limit=100, assumptions=count.eq(k)) == len(
            [m for m in range(64) if (m).bit_count() == k])
    # propagation reads counts in both directions
    arrays = f.arrays()
    value = arrays.propagate(count.eq(0))
    assert all(value[x] < 0 for x in xs)
    value = arrays.propagate([xs[0], xs[1], xs[2]] + count.le(3))
    assert all(value[x] < 0 for x in xs[3:])


def line_puzzle(n: int = 8, k: int = 3):
    """A toy with a global rule: exactly k black cells in a row of n, which must be contiguous
    (connectivity, enforced by cuts). The clue "cell i is black" is an assumption."""
    f = Formula()
    x = np.array([f.var(("b", i)) for i in range(n)], np.int32)
    f.exactly(x.tolist(), k, rule="R1")

    def cuts(value):
        black = [i for i in range(n) if value[x[i]] > 0]
        comps, run = [], []
        for i in range(n + 1):
            if i < n and value[x[i]] > 0:
                run.append(i)
            elif run:
                comps.append(run)
                run = []
        if len(comps) <= 1:
            return []
        # the first block and a black cell outside it need a black cell on the block's border
        s, t = comps[0], comps[1][0]
        border = [i for i in (s[0] - 1, s[-1] + 1) if 0 <= i < n]
        assert black
        return [[-int(x[s[0]]), -int(x[t])] + [int(x[i]) for i in border]]

    def decode(value):
        return [[int(value[v] > 0) for v in x]]

    return Encoding(f, x, decode, cuts=cuts, cut_rule="R2"), x


def test_lazy_cuts_make_uniqueness_proofs_respect_the_global_rule():
    enc, x = line_puzzle()
    clue = [int(x[0])]
    # with the cuts the block must be cells 0..2: unique
    assert len(enc.engine.models(clue, limit=5)) == 1
    sol = enc.engine.models(clue, 1)[0]
    assert enc.engine.unique(clue, sol)
    # the same formula without its cuts has many solutions: ignoring the global rule would be wrong
    bare = Engine(enc.formula, enc.answer)
    assert not bare.unique(clue, sol) and len(bare.models(clue, limit=50)) == 21
    # a model sampled on a fresh solver passes the cuts, and is the same in every run
    a = enc.engine.sample([int(x[4])], phases=[-int(v) for v in x])
    b = enc.engine.sample([int(x[4])], phases=[-int(v) for v in x])
    assert np.array_equal(a, b) and enc.engine.cuts(a) == []


def test_break_rule_negates_one_instance_and_keeps_the_rest():
    enc, x = line_puzzle()
    # breaking the count: a model with a number of black cells other than 3, still contiguous
    (b,) = breaches(enc, "R1")
    value = break_rule(enc, b)
    assert value is not None and sum(value[x] > 0) != 3 and enc.cuts(value) == []
    # breaking the cut rule: a model of the formula that the cuts reject
    value = break_rule(enc, Breach("R2"), phases=[int(v) if i % 2 == 0 else -int(v) for i, v in enumerate(x)])
    assert value is not None and enc.cuts(value) != [] and sum(value[x] > 0) == 3


def test_reduce_clues_keeps_uniqueness_and_grade_targets():
    """Sudoku-like 4x4 Latin square: givens reduced at grade 0 need propagation only; a minimal
    set is unique and each kept clue is needed."""
    from kumo_gym.envs.grid.latin import latin_formula

    f = Formula()
    x = latin_formula(f, 4, 2, 2)
    sol = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    lits = [int(x[r, c, sol[r][c] - 1]) for r in range(4) for c in range(4)]
    eng = Engine(f, x.ravel())
    truth = eng.propagate(lits)
    groups = [[lit] for lit in lits]
    kept0 = reduce_clues(eng, groups, np.random.default_rng(1), truth, grade_limit=0)
    on0 = [g[0] for g, k in zip(groups, kept0) if k]
    assert eng.grade(on0) == 0
    kept = reduce_clues(eng, groups, np.random.default_rng(1), truth)
    on = [g[0] for g, k in zip(groups, kept) if k]
    assert eng.unique(on, truth) and len(on) < len(on0) or eng.grade(on) == 0
    for drop in on:
        assert not eng.unique([v for v in on if v != drop], truth)


def test_propagator_keeps_its_set_interface():
    p = Propagator([[1], [-1, 2]])
    assert p.propagate([]) == {1, 2}
    assert Propagator([[1], [-1]]).propagate([]) is None


def test_formula_refuses_new_variables_once_solved():
    f = Formula()
    a = f.var("a")
    f.add([a])
    Engine(f, [a])
    with pytest.raises(RuntimeError):
        f.var("b")


def test_connected_cuts_enforce_one_region():
    """White cells of a 3x3 grid, exactly 4 black, whites connected (Range/Singles style)."""
    from kumo_gym.envs.grid.geometry import components, connected_cuts

    f = Formula()
    black = f.grid("black", 3, 3)
    f.exactly(black.ravel().tolist(), 4)
    enc = Encoding(f, black.ravel(), lambda v: (v[black] > 0).astype(int).tolist(), cuts=connected_cuts(-black),
                   cut_rule="R3")
    models = enc.engine.models([], limit=200)
    bare = Engine(f, black.ravel()).models([], limit=200)
    assert len(bare) == 126  # C(9, 4) without the rule
    good = [m for m in bare if len(components(m[black] < 0)) == 1]
    assert len(models) == len(good) and 0 < len(good) < 126
    assert all(len(components(m[black] < 0)) == 1 for m in models)


@pytest.mark.parametrize("limit", [None, 0, 1])
def test_reduction_in_runs_equals_one_at_a_time(limit):
    """reduce_clues tests runs of removals at once (to a minimal unique set, limit None, or at a
    grade target, where deduction must re-derive every removed group); uniqueness and deduction
    are monotone, so the kept mask must be exactly the greedy one-removal-at-a-time result in the
    same seeded order."""
    from kumo_gym.envs.grid.latin import latin_formula, random_latin

    for seed in range(4):
        f = Formula()
        x = latin_formula(f, 5)
        sol = random_latin(np.random.default_rng(seed), 5)
        lits = [int(x[r, c, sol[r][c] - 1]) for r in range(5) for c in range(5)]
        eng = Engine(f, x.ravel())
        truth = eng.propagate(lits)
        groups = [[lit] for lit in lits]
        kept = reduce_clues(eng, groups, np.random.default_rng(seed), truth, grade_limit=limit)
        ref = [True] * len(groups)
        for i in np.random.default_rng(seed).permutation(len(groups)):
            ref[i] = False
            clues = [g[0] for g, k in zip(groups, ref) if k]
            if limit is None:
                ref[i] = not eng.unique(clues, truth, deduce=False)
            else:
                ref[i] = eng.grade(clues) > limit
        assert kept == ref and 0 < sum(kept) < len(groups)


def test_sampler_models_avoid_their_own_model_and_repeat_per_call_sequence():
    """Engine.sampler: the models of a sequence of calls depend only on that sequence
    (a second sampler repeats them), each differs from the model it avoids, a block holds for its
    own call only, and None means no other model."""
    f = Formula()
    x = f.grid("x", 3, 3)
    for r in range(3):
        f.exactly(x[r].tolist(), 1)
        f.exactly(x[:, r].tolist(), 1)
    eng = Engine(f, x.ravel())
    first = eng.sample([int(x[0, 0])])
    c1 = int(np.argmax(first[x[1]] > 0))  # first's 1 in row 1: with x[0, 0] it fixes the whole matrix
    runs = []
    for _ in range(2):
        sample = eng.sampler()
        got = [sample([int(x[0, 0])], first), sample([], first), sample([int(x[0, 0]), int(x[1, c1])], first)]
        runs.append([None if v is None else v[x.ravel()].tolist() for v in got])
    assert runs[0] == runs[1]
    one, any_other, none = runs[0]
    assert one is not None and one != first[x.ravel()].tolist() and one[0] == 1
    assert any_other is not None and any_other != first[x.ravel()].tolist()
    assert none is None  # x[0, 0] and x[1, c1] leave one permutation matrix: the avoided one


def test_sampler_guard_clauses_hold_once_the_guard_is_assumed():
    """Engine.sampler(guards): a guard's clauses join the solver when a call assumes the guard,
    so its models keep them; before, the guard stays free and so do the rules it switches on."""
    f = Formula()
    a, b, g = f.var("a"), f.var("b"), f.var("g")
    f.add([a, b])
    f.add([-g, a])
    f.add([-g, b])
    eng = Engine(f, [a, b])
    sample = eng.sampler([g])
    first = sample([], values_of([a, b], eng.n_vars))  # without g: one of a, b false
    assert first is not None and not (first[a] > 0 and first[b] > 0)
    both = sample([g], first)  # with g: both true, the only model
    assert both is not None and both[a] > 0 and both[b] > 0
    assert sample([g], both) is None


def _unit_closure(clauses, assigned: dict) -> dict | None:
    """Unit propagation by rescanning (a slow reference): the closed assignment, None on a conflict."""
    assigned = dict(assigned)
    while True:
        grew = False
        for cl in clauses:
            free = [lit for lit in cl if abs(lit) not in assigned]
            if any(assigned.get(abs(lit)) == (lit > 0) for lit in cl):
                continue
            if not free:
                return None
            if len(free) == 1:
                assigned[abs(free[0])] = free[0] > 0
                grew = True
        if not grew:
            return assigned


def _reference_probe(clauses, assumptions, candidates) -> dict | None:
    """Failed-literal probing to a fixpoint, every unassigned candidate literal probed each round."""
    root = _unit_closure(clauses, {abs(a): a > 0 for a in assumptions})
    changed = root is not None
    while changed:
        changed = False
        for v in candidates:
            for lit in (v, -v):
                if abs(lit) in root:
                    break
                if _unit_closure(clauses, root | {v: lit > 0}) is None:
                    root = _unit_closure(clauses, root | {v: lit < 0})
                    if root is None:
                        return None
                    changed = True
    return root


def test_probing_skips_implied_literals_without_changing_the_fixpoint():
    # the kernel passes over literals a successful probe implied: the values it ends
    # with must still be exactly those of probing every literal, round after round
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        nv = int(rng.integers(4, 16))
        clauses = [[int(v) * (1 if rng.random() < 0.5 else -1) for v in rng.choice(nv, size=int(k), replace=False) + 1]
                   for k in rng.integers(2, 4, size=int(rng.integers(nv, 4 * nv)))]
        clauses = [cl for cl in clauses if len({abs(x) for x in cl}) == len(cl)]
        assumptions = [int(v) * (1 if rng.random() < 0.5 else -1)
                       for v in rng.choice(nv, size=int(rng.integers(0, 2)), replace=False) + 1]
        candidates = [int(v) for v in rng.permutation(nv) + 1]
        want = _reference_probe(clauses, assumptions, candidates)
        got = ClauseArrays.from_clauses(clauses, nv).probe(assumptions, np.asarray(candidates, np.int64))
        if want is None:
            assert got is None
            continue
        assert got is not None
        assert {v: bool(got[v] > 0) for v in range(1, nv + 1) if got[v]} == want
        checked += 1
    assert checked > 100
