"""Registry-wide differential tests: each verifier against an independent statement of its rules.

Planning puzzles: the move checker (``check_move``) against the move generator (``legal_moves``)
on every state reachable from the start, and the solver's plans checked move by move. SPaRC: the
paths the move checker allows that the verifier accepts are exactly the solver's solution set.
FineReason: on sampled reachable states of each puzzle, the tree walk's move checker accepts every
successor of the puzzle's move generator, and among single-cell changes, joins and double moves
exactly the legal moves stated from that generator.

Grid puzzles: the rule verifier against the SAT encoding (tests/differential.py): on small
instances of every registered grid puzzle the verifier accepts exactly the grids the encoding
accepts, up to the puzzle's declared answer equivalences. The smallest preset is checked in the
default run; the next preset, where answer spaces are larger and SAT-sampled answers reach more
rule instances, is marked slow.

A new grid puzzle is covered by registering it.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from kumo_gym.core.registry import get_task
from kumo_gym.envs.finereason.tasks import TreeWalkTask
from kumo_gym.envs.grid.base import GridTask
from kumo_gym.envs.planning.base import PlanningTask

from .differential import answer_key, disagreements, encoding_answers, loop_variants
from .registry_helpers import FAMILY as FAMILY_OF
from .registry_helpers import IDS, difficulties, rng_for, sample_instances

GRID_IDS = [i for i in IDS if isinstance(get_task(i), GridTask)]


def _instance(env_id: str, level: int, seed: int):
    task = get_task(env_id)
    d = difficulties(task, level + 1)[level]
    return task, task.generate(np.random.default_rng(seed), **task.resolve_params(difficulty=d))


def _check(env_id: str, level: int, seeds) -> None:
    for seed in seeds:
        task, inst = _instance(env_id, level, seed)
        bad = disagreements(task, inst, rng_for(env_id, level, seed))
        assert not bad, (f"{env_id} seed {seed}: verifier and encoding disagree on {len(bad)} grid(s), e.g. "
                         f"{bad[0][0]}: {bad[0][1]}")


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_verifier_accepts_exactly_the_encodings_answers(env_id):
    _check(env_id, 0, (0,))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", GRID_IDS)
def test_verifier_accepts_exactly_the_encodings_answers_larger(env_id):
    _check(env_id, 1, (0,))


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_declared_equivalents_are_accepted(env_id):
    """The answer equivalences the differential relies on are real: an answer written another
    declared way (labels renamed, a loop numbered from another start or the other way round)
    has the same key and is accepted; the encoding's answers are accepted as decoded."""
    task, inst = _instance(env_id, 0, 0)
    answers = encoding_answers(task, inst)
    assert answers, f"{env_id}: the encoding has no answer on a generated instance"
    for g in answers:
        assert task.verify(inst, g).solved, (env_id, g)
        variants = []
        if isinstance(answer_key(task, inst, g)[0], str) and answer_key(task, inst, g)[0] == "labels":
            labels = sorted({v for row in g for v in row if v != -1})
            rename = dict(zip(labels, labels[::-1]))
            variants.append([[rename.get(v, v) for v in row] for row in g])
        if answer_key(task, inst, g)[0] == "loop":
            variants += loop_variants(g)
        for v in variants:
            assert answer_key(task, inst, v) == answer_key(task, inst, g)
            assert task.verify(inst, v).solved, (env_id, v)


# ---- planning: the move checker against the move generator and the solver -----------------------------------------
PLANNING_IDS = [i for i in IDS if isinstance(get_task(i), PlanningTask)]
#: states explored breadth-first from the start, per instance
STATES = 300
#: moves checked per instance (states times catalogue size), at most
MOVE_CHECKS = 200_000


def _key(move) -> str:
    return repr(move)


def reachable(task, inst, limit: int = STATES) -> list:
    """States reachable from the start by moves the checker allows, breadth-first."""
    start = task.initial_state(inst)
    seen, out, queue = {repr(start)}, [start], deque([start])
    while queue and len(out) < limit:
        state = queue.popleft()
        for m in task.move_catalog(inst):
            if task.check_move(inst, state, m) is None:
                nxt = task.apply(inst, state, m)
                if repr(nxt) not in seen:
                    seen.add(repr(nxt))
                    out.append(nxt)
                    queue.append(nxt)
                    if len(out) == limit:  # one state's successors can be thousands (Untangle)
                        return out
    return out


@pytest.mark.parametrize("env_id", PLANNING_IDS)
def test_planning_generator_offers_exactly_the_checkers_moves(env_id):
    """On every state reachable from the start (up to STATES), the moves the generator offers
    (``legal_moves``) are exactly the moves of the catalogue and the candidate moves (wrong
    pieces, pegs out of range ...) that the checker (``check_move``) lets through."""
    task = get_task(env_id)
    for inst in sample_instances(env_id):
        # STATES states, fewer where the catalogue is large (Untangle's: every point to every grid
        # position), so that about MOVE_CHECKS moves are checked per instance
        limit = min(STATES, max(20, MOVE_CHECKS // len(task.move_catalog(inst))))
        for state in reachable(task, inst, limit):
            offered = {_key(m) for m in task.legal_moves(inst, state)}
            pool = list(task.move_catalog(inst)) + list(task.candidate_moves(inst, state))
            allowed = {_key(m) for m in pool if task.check_move(inst, state, m) is None}
            assert offered == allowed, (env_id, state, sorted(offered ^ allowed))


@pytest.mark.parametrize("env_id", PLANNING_IDS)
def test_planning_solver_paths_are_legal_and_optimal(env_id):
    """The solver's plans, from the start and from states on the way, are legal move by move
    for the checker, end at the goal, and are as long as the solver's distance."""
    task = get_task(env_id)
    rng = rng_for(env_id, "plans")
    for inst in sample_instances(env_id):
        states = reachable(task, inst, 150)
        picks = [task.initial_state(inst)] + [states[int(i)] for i in rng.choice(len(states), min(5, len(states)),
                                                                                  replace=False)]
        for state in picks:
            path = task.path_from(inst, state)
            if path is None:
                continue
            s = state
            for m in path:
                assert task.check_move(inst, s, m) is None, (env_id, s, m)
                s = task.apply(inst, s, m)
            assert task.is_goal(inst, s), (env_id, state, path)
            d = task.distance(inst, state)
            if d is not None:
                assert len(path) == d, (env_id, state, len(path), d)


# ---- SPaRC: the path checker against the solver's search ------------------------------------------------------------
SPARC_IDS = [i for i in IDS if FAMILY_OF.get(i) == "sparc"]


def _all_paths(task, inst, limit: int = 200_000) -> list[tuple]:
    """Every path the move checker allows from the start to the end (depth first)."""
    p = task.puzzle(inst)
    out: list[tuple] = []
    stack = [task.initial_state(inst)]
    steps = 0
    while stack:
        state = stack.pop()
        steps += 1
        assert steps < limit, "too many partial paths for a differential test"
        if tuple(state[-1]) == tuple(p.end):
            out.append(state)
            continue
        for m in range(4):
            if task.check_move(inst, state, m) is None:
                stack.append(task.apply(inst, state, m))
    return out


@pytest.mark.parametrize("env_id", SPARC_IDS)
def test_sparc_verifier_accepts_exactly_the_solvers_solutions(env_id):
    """On small puzzles, the paths the move checker allows that the verifier accepts are exactly
    the solver's solution set (its own search, an independent statement of the rules)."""
    from kumo_gym.envs.sparc.search import solve_all

    task = get_task(env_id)
    for inst in sample_instances(env_id)[:2]:
        accepted = {tuple(map(tuple, s)) for s in _all_paths(task, inst) if task.is_goal(inst, s)}
        solver = {tuple(map(tuple, s)) for s in solve_all(task.puzzle(inst), None)}
        assert accepted == solver, (env_id, sorted(accepted ^ solver)[:3])


# ---- FineReason: the tree walk's move checker against the puzzles' move generators ---------------------------------
# The generator (``PuzzleRules.children``) makes the tree edges; the checker (``check_forward``, through
# ``TreeWalkTask.transition``) accepts any legal forward move, not only a tree edge (docs/specs/finereason.md §7).
# So each puzzle states its legal moves from the generator: Sudoku and colouring carry the generator to every
# cell or vertex by a symmetry of the rules (colouring also by its interchangeable unused colours), the 24 game
# joins each pair the generator joins with every operator in either order, and the logic grid's generator
# already applies every unapplied clue.
WALK_IDS = [i for i in IDS if isinstance(get_task(i), TreeWalkTask)]
#: reachable states checked per instance, drawn by random descents along the generator's edges
FR_STATES = 5


def _fr_instances(env_id: str, puzzle: str) -> list:
    task = get_task(env_id)
    return [task.generate(np.random.default_rng(seed), **task.resolve_params(puzzle=puzzle, difficulty="easy"))
            for seed in (0, 1, 2)]  # easy 24 seed 2 is 1 3 3 8: 3 - 3 makes a zero to divide by


def _zero_children(rules, data) -> list:
    """24: the root's children that hold an expression of value 0 (where a division by zero can be written)."""
    from kumo_gym.envs.finereason.game24 import expr_value

    root = rules.root(data)
    return [c for _, c in rules.children(data, root) if any(expr_value(e) == 0 for e in c)] if \
        rules.name == "game24" else []


def _fr_states(rules, data, rng) -> list:
    """Up to FR_STATES distinct non-complete states reachable from the root (the root first), and the
    states where a rule has an edge the random descents may miss (24: a zero to divide by)."""
    out = [rules.root(data)] + _zero_children(rules, data)[:1]
    seen = {repr(s) for s in out}
    for _ in range(40):
        state = rules.root(data)
        stop = int(rng.integers(1, rules.max_depth(data) + 1))
        for _ in range(stop):
            kids = rules.children(data, state)
            if not kids:
                break
            state = kids[int(rng.integers(len(kids)))][1]
        if not rules.is_complete(data, state) and repr(state) not in seen:
            seen.add(repr(state))
            out.append(state)
        if len(out) >= FR_STATES + 1:
            break
    return out


def _sudoku_legal(rules, data, state) -> list:
    """The generator at every empty cell: band, row, stack and column swaps (which keep every row, column
    and box) bring the cell to the top-left corner, where it is the first empty cell the generator fills."""
    out = []
    for r in range(9):
        for c in range(9):
            if state[r][c]:
                continue
            rows = _first(r)
            cols = _first(c)
            moved = [[state[i][j] for j in cols] for i in rows]
            for _, child in rules.children(data, moved):
                g = [list(row) for row in state]
                g[r][c] = child[0][0]
                out.append(g)
    return out


def _first(k: int) -> list[int]:
    """An order of 0..8 that keeps the three bands of three and puts ``k`` first."""
    band = [3 * (k // 3) + i for i in range(3)]
    return [k] + [i for i in band if i != k] + [i for i in range(9) if i not in band]


def _coloring_legal(rules, data, state) -> list:
    """The generator at every uncoloured vertex (swapped with the lowest uncoloured one, the vertex the
    generator colours), with the unused colours above the next new one, which are interchangeable with it."""
    out = []
    k, top = data["k"], max(state) + 1
    for v in (u for u, col in enumerate(state) if col == 0):
        low = state.index(0)
        swap = {v: low, low: v}
        at = [swap.get(x, x) for x in range(len(state))]
        graph = [[] for _ in data["graph"]]
        for x, nbrs in enumerate(data["graph"]):
            graph[at[x]] = sorted(at[y] for y in nbrs)
        moved = [0] * len(state)
        for x, col in enumerate(state):
            moved[at[x]] = col
        for _, child in rules.children({**data, "graph": graph}, moved):
            col = child[low]
            for c in ([col] + list(range(top + 1, k + 1)) if col == top else [col]):
                s = list(state)
                s[v] = c
                out.append(s)
    return out


def _game24_pairs(rules, data, state) -> set:
    """The pairs of positions the generator joins, read back from its children's new expressions."""
    from kumo_gym.envs.finereason.game24 import canon, parse_expr

    where = [canon(parse_expr(e)) for e in state]
    out = set()
    for _, child in rules.children(data, state):
        _, a, b = parse_expr(child[0])
        i = where.index(canon(a))
        j = next(m for m, w in enumerate(where) if w == canon(b) and m != i)
        out.add((min(i, j), max(i, j)))
    return out


def _game24_legal(rules, data, state) -> list:
    """Each pair the generator joins, with every operator in either order and a non-zero divisor."""
    from kumo_gym.envs.finereason.game24 import expr_value

    out = []
    for i, j in _game24_pairs(rules, data, state):
        rest = [e for m, e in enumerate(state) if m not in (i, j)]
        for a, b in ((state[i], state[j]), (state[j], state[i])):
            for op in "+-*/":
                if op == "/" and expr_value(b) == 0:
                    continue
                out.append([f"({a} {op} {b})"] + rest)
    return out


def _game24_candidates(rules, data, state) -> list:
    """Joins of any two expressions (also one of the removed pair with a third, reusing it), in both operand
    orders, with the rest in order, reversed or with one expression rewritten; three joined at once; the
    joined pair kept beside its join; the state unchanged."""
    n, out = len(state), [list(state)]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            for x in range(n):
                for y in range(n):
                    if x == y:
                        continue
                    rest = [e for m, e in enumerate(state) if m not in (i, j)]
                    for op in "+-*/":
                        new = f"({state[x]} {op} {state[y]})"
                        out += [[new] + rest, [new] + rest[::-1], rest + [new], [new] + rest + [state[i]]]
                        out += [[new] + [f"({e} + {e})"] + rest[1:] for e in rest[:1]]
                        out += [[f"({new} {op} {e})"] + [f for f in rest if f != e] for e in rest[:1]]
    return out


def _game24_key(state) -> tuple:
    from kumo_gym.envs.finereason.game24 import canon, parse_expr

    return tuple(sorted(canon(parse_expr(e)) for e in state))


def _grid_candidates(rules, data, state) -> list:
    """Every single-cell change of the table (a value of the cell's column, a value of no column, an emptied
    cell), the generator's children, and two children of different clues written together."""
    from kumo_gym.envs.finereason.logicgrid import clue_order

    table = state["table"]
    out = []
    for i in range(1, len(table)):
        for j in range(len(table[0])):
            for v in list(data["domains"][j]) + ["", "nowhere"]:
                if v != table[i][j]:
                    t = [list(row) for row in table]
                    t[i][j] = v
                    out.append(t)
    kids = rules.children(data, state)
    out += [c["table"] for _, c in kids]
    order = {cid: n for n, cid in enumerate(clue_order(data))}
    for tag_a, a in kids[:8]:
        for tag_b, b in kids:
            if order[tag_b] > order[tag_a]:
                merged = [[y if y != "" else x for x, y in zip(ra, rb)] for ra, rb in zip(a["table"], b["table"])]
                out.append(merged)
    return out


def _cells_candidates(rules, data, state) -> list:
    """Every single-cell (single-vertex) change to a value in range, just out of range or empty, and two
    generator children written together."""
    grid = isinstance(state[0], list)
    cells = [(r, c) for r in range(9) for c in range(9)] if grid else list(range(len(state)))
    hi = 9 if grid else data["k"]
    out = []
    for cell in cells:
        for v in range(-1, hi + 2):
            s = [list(row) for row in state] if grid else list(state)
            if grid:
                r, c = cell
                if s[r][c] == v:
                    continue
                s[r][c] = v
            else:
                if s[cell] == v:
                    continue
                s[cell] = v
            out.append(s)
    legal = FR_LEGAL[rules.name](rules, data, state)
    for a, b in zip(legal, legal[1:] + legal[:1]):
        both = [[x or y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)] if grid else [
            x or y for x, y in zip(a, b)]
        out.append(both)
    return out


FR_LEGAL = {"sudoku": _sudoku_legal, "coloring": _coloring_legal, "game24": _game24_legal}
FR_CANDIDATES = {"sudoku": _cells_candidates, "coloring": _cells_candidates, "game24": _game24_candidates,
                 "logicgrid": _grid_candidates}
FR_KEY = {"game24": _game24_key}


def _forward(task, inst, path, cand) -> bool:
    """Whether the tree walk takes ``cand`` as a forward move from the end of ``path``."""
    t = task.transition(inst, {"path": path}, cand)
    return t.status != "illegal_move" and len(t.state["path"]) == len(path) + 1


@pytest.mark.parametrize("env_id", WALK_IDS)
@pytest.mark.parametrize("puzzle", sorted(FR_CANDIDATES))
def test_finereason_checker_accepts_exactly_the_generators_moves(env_id, puzzle):
    """On sampled reachable states of small instances of each FineReason puzzle: every successor the
    generator offers is a forward move for the tree walk's checker, and among the candidates (every
    single-cell change, joins of any expressions, two moves at once ...) the checker accepts exactly the
    legal moves stated from the generator (for the logic grid, exactly the generator's children)."""
    task = get_task(env_id)
    key = FR_KEY.get(puzzle, repr)
    for n, inst in enumerate(_fr_instances(env_id, puzzle)):
        rules, data = task._rules(inst)
        for state in _fr_states(rules, data, rng_for(env_id, puzzle, n)):
            path = [state]
            kids = [rules.visible(c) for _, c in rules.children(data, state)]  # none at a dead end
            refused = [c for c in kids if not _forward(task, inst, path, c)]
            assert not refused, (f"{puzzle}: the checker refuses {len(refused)} generator successor(s), "
                                 f"e.g. {refused[0]} from {state}")
            legal = {key(m) for m in (FR_LEGAL[puzzle](rules, data, state) if puzzle in FR_LEGAL else kids)}
            assert {key(c) for c in kids} <= legal, (puzzle, state)
            pool = FR_CANDIDATES[puzzle](rules, data, state)
            accepted = {key(c) for c in pool if _forward(task, inst, path, c)}
            offered = legal & {key(c) for c in pool}
            assert legal <= {key(c) for c in pool}, (puzzle, "a legal move is missing from the candidates")
            assert accepted == offered, (f"{puzzle}: checker and generator disagree on {len(accepted ^ offered)} "
                                         f"candidate(s) from {rules.visible(state)}, e.g. "
                                         f"{sorted(accepted ^ offered, key=repr)[:2]}")
