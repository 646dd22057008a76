"""The grid verifiers against their SAT encodings: two independent statements of one set of rules.

A grid puzzle states its rules twice: as Python rule checks (``rule_checks``, what ``verify``
runs) and as a CNF with clue assumptions and lazy cuts (``encode``, what generation, uniqueness
and near misses run on). Neither is derived from the other, so a bug in one is a disagreement
with the other. :func:`disagreements` finds them on one instance:

* the *encoding's answers* are every model of the encoding with its clues (enumerated with the
  cuts, blocked on the answer variables), read back as grids by the encoding's own ``decode``;
* a candidate grid is *accepted by the encoding* when its :func:`answer_key` (the grid up to
  the puzzle's declared answer equivalences) is the key of one of those answers;
* the verifier must accept exactly those grids among the candidates: the whole answer space
  where it is small (:data:`EXHAUSTIVE_UP_TO`), and otherwise every grid within two cells of an
  answer (all of them or a seeded sample), random grids, and SAT-sampled grids: models of the
  encoding with one rule instance (a clue, a tagged constraint), a whole rule, or the cuts
  dropped. Those last ones sit exactly on the boundary of each rule, wherever the rule
  instance lies (first or last row, last column, the wrap-around of a loop, either sign).

The declared answer equivalences (the "Answer" section of each puzzle's docstring) are stated
here independently of the verifiers: region labels are arbitrary (a labelling is keyed by the
partition it draws), a numbered loop may start anywhere and run either way (keyed by its set of
steps, the step from L back to 1 included), a per-cell equivalence (Net's symmetric tiles) is
the task's ``canonical_codes``, and a per-cell equivalence of values is the task's
``equivalent_values`` (a Light Up black cell takes any non-light symbol, anything written on an
Undead mirror is ignored). Every one is declared by the puzzle, none named here.
"""
from __future__ import annotations

import collections
import itertools
from collections.abc import Iterator

import numpy as np
from pysat.solvers import Solver

from kumo_gym.envs.grid.base import GridTask
from kumo_gym.envs.grid.integrity import RewardIntegrity
from kumo_gym.envs.grid.regions import LoopAnswers
from kumo_gym.solvers.engine import MAX_CUT_ROUNDS, block, random_phases, values_of

#: answer spaces up to this many grids are enumerated whole
EXHAUSTIVE_UP_TO = 20_000
#: grids two cells away from an answer: all of them up to this many, else a seeded sample of it
PAIRS_UP_TO = 4_000
#: grids one cell away from an answer: all of them up to this many, else every cell emptied (or set
#: to its first value) and a seeded sample of the other one-cell changes
SINGLES_UP_TO = 3_000
#: models enumerated per dropped rule instance, per dropped rule, and of the encoding itself
PER_DROP, PER_RULE, MAX_ANSWERS = 6, 24, 64


def _relabel(grid: list[list], keep=(-1,)) -> tuple:
    """Labels renamed in order of first appearance (row-major); values in ``keep`` stay."""
    names: dict = {}
    return tuple(tuple(v if v in keep else names.setdefault(v, len(names)) for v in row) for row in grid)


def _loop_key(grid: list[list]) -> tuple:
    """A numbered loop as its set of steps (k to k + 1, and L back to 1) when it numbers its
    cells 1..L once each; any other grid as written."""
    where = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0}
    L = sum(v > 0 for row in grid for v in row)
    if L < 1 or sorted(where) != list(range(1, L + 1)):
        return ("raw", tuple(map(tuple, grid)))
    return ("loop", frozenset(frozenset((where[k], where[k % L + 1])) for k in range(1, L + 1)))


def _representatives(task: GridTask, instance) -> dict:
    """For each cell, each value mapped to the first of the cell values it is equivalent to."""
    H, W = task.dims(instance)
    values = list(task.cell_values(instance))
    return {(r, c): {v: next((u for u in values if task.equivalent_values(instance, r, c, u, v)), v) for v in values}
            for r in range(H) for c in range(W)}


def answer_key(task: GridTask, instance, grid: list[list]) -> tuple:
    """``grid`` up to the answer equivalences the puzzle declares (module docstring): any
    labelling (``any_labelling``), a numbered loop (``LoopAnswers``), per-cell codes
    (``canonical_codes``, Net) or per-cell equivalent values (``equivalent_values``: Light Up's
    black cells, Undead's mirrors)."""
    if isinstance(task, LoopAnswers):
        return _loop_key(grid)
    if task.any_labelling:
        return ("labels", _relabel(grid))
    if type(task).canonical_codes is not RewardIntegrity.canonical_codes:
        codes = task.canonical_codes(instance, task._coded(instance, grid))
        return ("codes", tuple(map(tuple, codes.tolist())))
    if type(task).equivalent_values is not RewardIntegrity.equivalent_values:
        key = id(instance), id(task)
        if _REPS.get("key") != key:
            _REPS.update(key=key, reps=_representatives(task, instance), instance=instance)
        reps = _REPS["reps"]
        return ("cells", tuple(tuple(reps[r, c].get(v, v) if (r, c) in reps else v for c, v in enumerate(row))
                               for r, row in enumerate(grid)))
    codes = task.canonical_codes(instance, task._coded(instance, grid))
    return ("codes", tuple(map(tuple, codes.tolist())))


#: the last instance's representatives (answer_key is called for many grids of one instance)
_REPS: dict = {}


def _models(enc, clauses, assumptions, limit: int, cuts: bool = True, phases=None) -> list[np.ndarray]:
    """Up to ``limit`` models of ``clauses`` under ``assumptions`` that differ on the answer
    variables; with ``cuts`` only those the encoding's cuts accept (cuts added as found)."""
    out: list[np.ndarray] = []
    with Solver(name=enc.solver, bootstrap_with=clauses) as s:
        if phases is not None:
            s.set_phases(phases)
        for _ in range(MAX_CUT_ROUNDS):
            if len(out) >= limit or not s.solve(assumptions=assumptions):
                break
            value = values_of(s.get_model(), enc.formula.n_vars)
            cut = enc.cuts(value) if cuts and enc.cuts is not None else []
            for cl in cut:
                s.add_clause(list(cl))
            if not cut:
                out.append(value)
                s.add_clause(block(value, enc.answer))
    return out


def encoding_answers(task: GridTask, instance) -> list[list[list]]:
    """Every grid the encoding accepts on ``instance`` (at most :data:`MAX_ANSWERS`, asserted)."""
    enc = task.encoding(instance)
    found = _models(enc, enc.formula.clauses, enc.assumptions(), MAX_ANSWERS + 1)
    assert len(found) <= MAX_ANSWERS, f"{task.family}: more than {MAX_ANSWERS} encoded answers on a test instance"
    return [enc.decode(v) for v in found]


def sat_sampled(task: GridTask, instance, rng: np.random.Generator) -> Iterator[list[list]]:
    """Grids of models of the encoding with one rule instance dropped (each clue, a seeded
    sample of the tagged constraints, edge cells first), each whole rule dropped, the cuts
    dropped: answers that keep every rule but one."""
    enc = task.encoding(instance)
    f = enc.formula
    cons = f.constraints
    phases = lambda: random_phases(rng, range(1, f.n_vars + 1))
    for key in enc.clues:  # one clue dropped
        yield from (enc.decode(v) for v in
                    _models(enc, f.clauses, enc.assumptions([k for k in enc.clues if k != key]), PER_DROP,
                            phases=phases()))

    def without(drop: set) -> list:
        skip = np.zeros(len(f.clauses), bool)
        for i in drop:
            skip[cons[i].start:cons[i].end] = True
        return [cl for cl, s in zip(f.clauses, skip) if not s]

    for i in rng.permutation(len(cons))[:120]:  # one tagged constraint dropped
        yield from (enc.decode(v) for v in _models(enc, without({int(i)}), enc.assumptions(), PER_DROP,
                                                    phases=phases()))
    for rule in sorted({c.rule for c in cons} | {r for r, _ in enc.clues.values()}):  # a whole rule dropped
        clauses = without({i for i, c in enumerate(cons) if c.rule == rule})
        keys = [k for k, (r, _) in enc.clues.items() if r != rule]
        yield from (enc.decode(v) for v in _models(enc, clauses, enc.assumptions(keys), PER_RULE,
                                                    cuts=rule != enc.cut_rule, phases=phases()))
    if enc.cuts is not None:  # the cuts dropped
        yield from (enc.decode(v) for v in _models(enc, f.clauses, enc.assumptions(), PER_RULE, cuts=False,
                                                    phases=phases()))


def _cells_values(task: GridTask, instance) -> tuple[list[tuple[int, int]], tuple]:
    H, W = task.dims(instance)
    return [(r, c) for r in range(H) for c in range(W)], tuple(task.cell_values(instance))


def answer_space_size(task: GridTask, instance) -> int:
    cells, vals = _cells_values(task, instance)
    return len(vals) ** len(cells)


def whole_space(task: GridTask, instance) -> Iterator[list[list]]:
    H, W = task.dims(instance)
    _, vals = _cells_values(task, instance)
    for flat in itertools.product(vals, repeat=H * W):
        yield [list(flat[r * W:(r + 1) * W]) for r in range(H)]


def loop_variants(grid: list[list]) -> list[list[list]]:
    """Every numbering of the loop a numbered grid draws (each start, both directions)."""
    where = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0}
    L = len(where)
    order = [where[k] for k in range(1, L + 1)]
    out = []
    for seq in (order, order[::-1]):
        for s in range(L):
            g = [[-1 if v > 0 else v for v in row] for row in grid]
            for i in range(L):
                r, c = seq[(s + i) % L]
                g[r][c] = i + 1
            out.append(g)
    return out


def near(task: GridTask, instance, answers: list[list[list]], rng: np.random.Generator) -> Iterator[list[list]]:
    """Grids one and two cells away from each answer (two cells: all, or a seeded sample); for
    numbered loops also each numbering's one-cell changes to the empty value (a loop opened at
    any of its cells, so its ends are L - 1 and 1)."""
    cells, vals = _cells_values(task, instance)
    for ans in answers:
        singles = [(r, c, v) for r, c in cells for v in vals if v != ans[r][c]]
        if len(singles) > SINGLES_UP_TO:  # many values per cell (a loop numbered 1..L): every cell emptied or
            # set to its first value, and a seeded sample of the other changes
            first = {(r, c, v) for r, c in cells for v in (task.empty, vals[0]) if v != ans[r][c]}
            rest = [x for x in singles if x not in first]
            keep = rng.choice(len(rest), max(0, min(len(rest), SINGLES_UP_TO - len(first))), replace=False)
            singles = sorted(first) + [rest[int(i)] for i in sorted(keep)]
        for r, c, v in singles:
            g = [list(row) for row in ans]
            g[r][c] = v
            yield g
        per_cell = collections.Counter((r, c) for r, c, _ in singles)
        n_pairs = len(singles) * (len(singles) - 1) // 2 - sum(k * (k - 1) // 2 for k in per_cell.values())
        if n_pairs <= PAIRS_UP_TO:
            pairs = [(a, b) for a, b in itertools.combinations(range(len(singles)), 2)
                     if singles[a][:2] != singles[b][:2]]
        else:  # a seeded sample of pairs on two different cells, drawn without listing them all
            picked: set = set()
            while len(picked) < PAIRS_UP_TO:
                a, b = sorted(int(x) for x in rng.choice(len(singles), 2, replace=False))
                if singles[a][:2] != singles[b][:2]:
                    picked.add((a, b))
            pairs = sorted(picked)
        for a, b in pairs:
            g = [list(row) for row in ans]
            for r, c, v in (singles[a], singles[b]):
                g[r][c] = v
            yield g
        if isinstance(task, LoopAnswers):
            for variant in loop_variants(ans):
                yield variant
                for r, c in cells:
                    if variant[r][c] > 0:
                        g = [list(row) for row in variant]
                        g[r][c] = task.empty
                        yield g


def candidates(task: GridTask, instance, answers, rng: np.random.Generator, exhaustive: int = EXHAUSTIVE_UP_TO):
    """The grids :func:`disagreements` compares on (module docstring)."""
    yield from answers
    if answer_space_size(task, instance) <= exhaustive:
        yield from whole_space(task, instance)
        return
    yield from near(task, instance, answers, rng)
    for _ in range(200):
        yield task.random_answer(instance, rng)
    yield from sat_sampled(task, instance, rng)


def disagreements(task: GridTask, instance, rng: np.random.Generator, limit: int = 5,
                  exhaustive: int = EXHAUSTIVE_UP_TO) -> list[tuple[str, list[list]]]:
    """Grids on which the verifier and the encoding disagree (at most ``limit``), each with which
    side accepted it."""
    answers = encoding_answers(task, instance)
    keys = {answer_key(task, instance, g) for g in answers}
    out: list[tuple[str, list[list]]] = []
    seen: set = set()
    for g in candidates(task, instance, answers, rng, exhaustive):
        t = tuple(map(tuple, g))
        if t in seen:
            continue
        seen.add(t)
        solved = task.verify(instance, g).solved
        if solved != (answer_key(task, instance, g) in keys):
            out.append(("verifier only" if solved else "encoding only", g))
            if len(out) >= limit:
                break
    return out
