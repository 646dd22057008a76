"""The grid framework (docs/specs/grid_puzzles.md §1-§3, §6, §8), checked on every grid puzzle in the catalogue.

A puzzle joins these tests by having its grid row in ``kumo_gym/core/catalog.py``.
"""
from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kumo_gym
from kumo_gym.core.errors import ConfigError, ParseError
from kumo_gym.core.registry import entries, get_task
from kumo_gym.envs.grid import tatham
from kumo_gym.envs.grid.answer import format_grid, parse_grid, read_grid_text
from kumo_gym.envs.grid.base import DIFFICULTIES, GridTask
from kumo_gym.solvers import sat

ENTRIES = [e for e in entries() if e.family == "grid"]

NAMES = [e.name for e in ENTRIES]
SMALL = ("trivial", "easy")
FAST = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))


def task_of(name: str) -> GridTask:
    return get_task(f"kumo_gym/{name}-v0")


def make(name: str, difficulty: str, seed: int):
    return task_of(name).generate(np.random.default_rng(seed), difficulty=difficulty)


# ---- SAT helpers ----------------------------------------------------------------------------
def test_formula_cardinality_and_enumeration():
    f = sat.Formula()
    xs = [f.var(("x", i)) for i in range(5)]
    f.exactly(xs, 2)
    models = sat.enumerate_models(f.clauses, xs, limit=100)
    assert len(models) == 10  # C(5, 2)
    assert sat.count_models(f.clauses, xs, limit=3) == 3
    f.at_most(xs[:2], 0)
    assert sat.count_models(f.clauses, xs, limit=100) == 3
    g = sat.Formula()
    ys = [g.var(i) for i in range(3)]
    g.exactly(ys, 4)
    assert sat.solve(g.clauses) is None


def test_uniqueness_oracle_and_grade():
    f = sat.Formula()
    xs = [f.var(i) for i in range(4)]
    f.exactly_one(xs)
    model = sat.solve(f.clauses, assumptions=[xs[2]])
    with sat.UniquenessOracle(f.clauses, xs, model) as oracle:
        assert not oracle.unique([])
        assert oracle.unique([xs[2]])
        assert oracle.unique([-xs[0], -xs[1], -xs[3]])
    assert sat.grade(f.clauses, xs, [xs[2]]) == 0
    assert sat.grade(f.clauses, xs, []) == 2


def test_budget_is_reported():
    # pigeonhole 8 -> 7 needs many conflicts
    f = sat.Formula()
    p = {(i, j): f.var((i, j)) for i in range(8) for j in range(7)}
    for i in range(8):
        f.add([p[i, j] for j in range(7)])
    for j in range(7):
        f.at_most([p[i, j] for i in range(8)], 1)
    with pytest.raises(sat.BudgetExceeded):
        sat.solve(f.clauses, budget=5)


# ---- answer parsing (docs/specs/grid_puzzles.md §1) ------------------------------------------------------------------
SYMS = frozenset({"A", "T", ".", 0, 1, 2, 3})


@pytest.mark.parametrize("text,expected", [
    ('[["A", "."], ["T", "a"]]', [["A", "."], ["T", "A"]]),
    ("<think>[[1, 1]]</think> final: [[1, 2], [3, 0]]", [[1, 2], [3, 0]]),
    ("first [[1]] then [[2]]", [[2]]),
    ("```json\n[[\"1\", \" 2 \"]]\n```", [[1, 2]]),
    ("\\boxed{[[1,2],[2,1]]}", [[1, 2], [2, 1]]),
    ("<answer>[[3]]</answer> and later [[2]]", [[3]]),
    ("[[A, ., T]]", [["A", ".", "T"]]),
    ("[['A', 'T'],]", [["A", "T"]]),
    ("[[1.0, 2]]", [[1, 2]]),
])
def test_parse_grid_wrappers(text, expected):
    text = text.split("</think>")[-1]
    assert parse_grid(text, SYMS) == expected


@pytest.mark.parametrize("text,reason", [
    ("no grid here", "no_answer"),
    ("[[1, 2], [3]]", "wrong_shape"),
    ("[[1, 9]]", "bad_symbol"),
    ("[[1, true]]", "bad_symbol"),
    ("[[1, [2]]]", "malformed"),
    ("[[1,, 2]]", "malformed"),
    ("[[]]", "wrong_shape"),
    ("[[1 2]]", "malformed"),
])
def test_parse_grid_errors(text, reason):
    with pytest.raises(ParseError) as e:
        parse_grid(text, SYMS)
    assert e.value.reason == reason


def test_parse_names_first_bad_cell():
    with pytest.raises(ParseError, match=r"cell \(1, 0\)"):
        parse_grid('[["A", "."], ["X", "Y"]]', SYMS)


def test_parse_hostile_inputs_are_bounded():
    # each of these was once quadratic somewhere in the extraction (unclosed tags, boxes, quotes)
    for text in ["[" * 100_000, "[[" + "1," * 300_000 + "1]]", "[[1]" * 50_000, "x" * 1_000_000,
                 "[1," * 200_000 + "]" * 200_000, "<answer>[[" * 40_000, "\\boxed{[[" * 50_000,
                 '"' * 500_000 + "[[", "```\n[[" * 30_000]:
        with pytest.raises(ParseError):
            parse_grid(text, SYMS)
    with pytest.raises(ParseError):
        read_grid_text("[[1], [2]")


def test_truncated_grid_is_reported_as_truncated():
    with pytest.raises(ParseError) as e:
        parse_grid('Final answer:\n[["A", "."],\n ["T", ', SYMS)
    assert e.value.truncated


# ---- Tatham sub-grammars (docs/specs/grid_puzzles.md §4) -------------------------------------------------------------
def test_numgrid_round_trip():
    vals = [0, 0, 3, 12, 0, 5] + [0] * 30 + [7]
    s = tatham.encode_numgrid(vals)
    assert s == "b3_12a5zd7"
    assert tatham.decode_numgrid(s, len(vals)) == vals
    with pytest.raises(ConfigError):
        tatham.decode_numgrid("b3", 10)


def test_chargrid_and_b62():
    cells = list("..B.4....")
    s = tatham.encode_chargrid(cells)
    assert s == "bBa4d" and tatham.decode_chargrid(s, 9, "B01234") == cells
    assert [tatham.b62_decode(tatham.b62_encode(i)) for i in range(62)] == list(range(62))


def test_save_file_and_auxinfo():
    text = ("SAVEFILE:41:Simon Tatham's Portable Puzzle Collection\nVERSION :1:1\nGAME    :4:Solo\n"
            "PARAMS  :3:2x2\nCPARAMS :3:2x2\nDESC    :9:b4c2b1c4b\n"
            "AUXINFO :64:028a354af6a4e6265ad9317584efb51a5e6bc72a53d5b655d27e3d64ecdb303e\n")
    save = tatham.read_save(text)
    assert save["GAME"] == "Solo" and save["DESC"] == "b4c2b1c4b"
    assert tatham.decode_auxinfo(save["AUXINFO"]) == "S1,2,4,3,4,3,2,1,2,1,3,4,3,4,1,2"


def test_bad_parameter_letter_names_puzzle_string_and_choices():
    task = tatham.grid_task("galaxies")
    with pytest.raises(ConfigError) as err:
        task.decode_params("5x8de")
    msg = str(err.value)
    assert "Galaxies parameter string '5x8de'" in msg and "'de' (tatham_difficulty) is not one of: dn, du" in msg
    assert "the grammar is WxH[d<n|u>]" in msg


def test_game_id_forms():
    with pytest.raises(ConfigError, match="random-seed"):
        tatham.split_game_id("8x8de#12345")
    with pytest.raises(ConfigError, match="params:desc"):
        tatham.split_game_id("8x8de")


# ---- every grid puzzle ----------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_presets_and_canonical_params_round_trip(name):
    task = task_of(name)
    assert tuple(task.difficulties) == DIFFICULTIES
    for diff in task.difficulties:
        cp = task.tatham_preset(diff)
        back = task.decode_params(cp)
        assert task.encode_params(task.resolve_params(**back), full=True) == cp
    with pytest.raises(ConfigError, match="not one of"):
        task.resolve_params(difficulty="insane")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("difficulty", SMALL)
@FAST
@given(seed=st.integers(0, 2**32))
def test_generated_instances_are_unique_and_verify(name, difficulty, seed):
    task = task_of(name)
    inst = make(name, difficulty, seed)
    assert task.count_solutions(inst, limit=2) == 1
    gold = task.solve(inst)
    assert task.verify(inst, gold).solved
    assert task.solutions(inst, limit=2) == [gold]
    # the answer text and the prompt's state JSON read back exactly
    assert task.parse(format_grid(gold)) == gold
    assert task.parse(f"Reasoning... so the grid is:\n```\n{task.format_answer(gold)}\n```\nDone.") == gold
    state = json.JSONDecoder().raw_decode(task.prompt(inst).split("Puzzle state (JSON):\n", 1)[1])[0]
    assert state == inst.data["state"]
    # our own IDs: Tatham's grammar round-trips and re-imports to the same puzzle
    gid = inst.data["game_id"]
    assert tatham.to_game_id(inst, task) == gid
    again = task.load(gid)
    assert again.data["state"] == inst.data["state"] and again.data["solution"] == gold


#: single-cell corruptions verified per instance, at most
MAX_CORRUPTIONS = 4000


@pytest.mark.parametrize("name", NAMES)
def test_every_single_cell_corruption_scores_below_one(name):
    """Generated instances up to ``normal`` are unique; the gold answer scores 1, every single-cell
    corruption of it (a seeded sample of MAX_CORRUPTIONS where there are more) scores below 1, and the instance's Tatham game ID imports to the same solution."""
    task = task_of(name)
    for difficulty, seed in (("trivial", 0), ("trivial", 1), ("easy", 0), ("easy", 1), ("normal", 0)):
        inst = make(name, difficulty, seed)
        assert task.count_solutions(inst, limit=2) == 1
        gold = task.solve(inst)
        assert task.score(inst, task.format_answer(gold)).score == 1.0
        cases = list(task.single_cell_corruptions(inst, gold))
        if len(cases) > MAX_CORRUPTIONS:  # Loopy's normal grid has 40,000 (each a full verify): a seeded sample
            pick = np.random.default_rng([len(cases), seed]).choice(len(cases), MAX_CORRUPTIONS, replace=False)
            cases = [cases[i] for i in sorted(pick)]
        for cell, value, bad in cases:
            v = task.verify(inst, bad)
            assert not v.solved and v.score < 1.0, (difficulty, seed, cell, value)
            assert v.details["violations"] and v.first_error is not None
        assert task.load(inst.data["game_id"]).data["solution"] == gold


@pytest.mark.parametrize("name", NAMES)
def test_generation_is_deterministic(name):
    a = make(name, "easy", 7)
    b = make(name, "easy", 7)
    assert a == b and a.instance_id == b.instance_id
    # different seeds give different puzzles (small presets have few, so some may repeat)
    assert len({make(name, "easy", s).instance_id for s in range(6)}) >= 3


@pytest.mark.parametrize("name", NAMES)
def test_verify_rejects_wrong_shape_and_symbols(name):
    task = task_of(name)
    inst = make(name, "trivial", 0)
    gold = task.solve(inst)
    assert task.verify(inst, gold[:-1]).status == "parse_error"
    assert task.verify(inst, [row[:-1] for row in gold]).status == "parse_error"
    assert task.verify(inst, "nonsense").status == "parse_error"
    bad = [list(r) for r in gold]
    bad[0][0] = 999
    assert task.verify(inst, bad).status == "parse_error"


@pytest.mark.parametrize("name", NAMES)
def test_reset_replays_a_game_id(name):
    task = task_of(name)
    inst = make(name, "easy", 3)
    env = gym.make(f"kumo_gym/{name}-v0")
    _, info = env.reset(options={"instance": inst.data["game_id"]})
    assert info["difficulty"] is None
    assert env.unwrapped.instance.data["state"] == inst.data["state"]
    _, reward, _, _, _ = env.step(task.format_answer(task.solve(inst)))
    assert reward == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_interactive_play(name):
    task = task_of(name)
    env = gym.make(f"kumo_gym/{name}-v0", mode="interactive")
    env.reset(seed=1)
    inst = env.unwrapped.instance
    bad_move = task.fixed_move(inst)  # a move that would change a given
    if bad_move is not None:
        _, reward, terminated, _, info = env.step(task.format_move(bad_move))
        assert info["verdict"]["status"] == "illegal_move" and not terminated and reward == 0.0
        assert info["status"] == "invalid" and env.unwrapped.state == task.initial_state(inst)
    _, _, terminated, _, info = env.step("not a move")
    assert info["verdict"]["status"] == "parse_error" and not terminated
    moves = task.golden_moves(inst)
    assert len(moves) == task.optimal_steps(inst)
    for i, m in enumerate(moves):
        _, reward, terminated, _, info = env.step(task.format_move(m))
        assert terminated == (i == len(moves) - 1)
    assert reward == 1.0 and info["verdict"]["status"] == "solved"
    # submit on an unsolved grid ends the episode with a wrong verdict
    env.reset(seed=2)
    _, reward, terminated, _, info = env.step('{"op": "submit"}')
    assert terminated and reward == 0.0 and info["verdict"]["status"] == "wrong"


@pytest.mark.parametrize("name", NAMES)
def test_structured_view(name):
    task = task_of(name)
    inst = make(name, "trivial", 0)
    H, W = task.dims(inst)
    catalog = task.move_catalog(inst)
    assert len(catalog) == len(set(catalog))
    if len(catalog[0]) == 3:  # cell moves: every (cell, value)
        assert len(catalog) == H * W * len(task.move_values(inst))
    s0 = task.initial_state(inst)
    vec = task.encode_state(inst, s0)
    assert vec.dtype == np.float32 and vec.ndim == 1
    legal = set(task.legal_moves(inst, s0))
    changes = (lambda m: m[2] != s0[m[0]][m[1]]) if len(catalog[0]) == 3 else (lambda m: task.apply(inst, s0, m) != s0)
    assert legal == {m for m in catalog if task.check_move(inst, s0, m) is None and changes(m)}
    s1 = task.apply(inst, s0, min(legal, key=str))
    assert task.encode_state(inst, s1).shape == vec.shape and not np.array_equal(task.encode_state(inst, s1), vec)


@pytest.mark.parametrize("name", NAMES)
def test_render_and_prompt_are_in_the_observation_charset(name):
    from kumo_gym.envs.base import TEXT_CHARSET

    task = task_of(name)
    inst = make(name, "normal", 0)
    for text in (task.prompt(inst), task.render(inst), task.render(inst, task.solve(inst)),
                 task.interactive_prompt(inst)):
        assert set(text) <= TEXT_CHARSET


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameters_name_the_choices(name):
    task = task_of(name)
    with pytest.raises(ConfigError, match="not one of"):
        task.resolve_params(difficulty="easy", colour="red")
    with pytest.raises(ConfigError, match="backend"):
        task.resolve_params(difficulty="easy", backend="c")


@pytest.mark.parametrize("name", NAMES)
def test_sb3_structured_wrapper(name):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    from kumo_gym.wrappers import StructuredWrapper

    env = StructuredWrapper(gym.make(f"kumo_gym/{name}-v0", mode="interactive", difficulty="trivial",
                                     illegal_action="reject"))
    sb3_checker.check_env(env)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].any()


def test_guarded_cardinality():
    f = sat.Formula()
    xs = [f.var(i) for i in range(4)]
    g = f.var("guard")
    f.exactly(xs, 2, guard=g)
    assert sat.count_models(f.clauses, xs, limit=100, assumptions=[g]) == 6
    assert sat.count_models(f.clauses, xs, limit=100, assumptions=[-g]) == 16


@pytest.mark.parametrize("name", NAMES)
def test_load_with_full_params_names_the_preset(name):
    task = task_of(name)
    inst = make(name, "easy", 4)
    again = task.load({"game_id": inst.data["game_id"], "tatham_params": task.tatham_preset("easy")})
    assert again.params["difficulty"] == "easy" and again.data["state"] == inst.data["state"]
    assert again.data["tatham_params"] == task.tatham_preset("easy")


@pytest.mark.parametrize("name", NAMES)
def test_claims_on_every_puzzle(name):
    from kumo_gym.envs.grid import claims

    task = task_of(name)
    inst = make(name, "easy", 5)
    gold = task.solve(inst)
    assert all(claims.label_claim(inst, c) == "correct" for c in task.solution_claims(inst))
    assert "cell" in task.claim_kinds
    H, W = task.dims(inst)
    for r, c in ((0, 0), (H - 1, W - 1)):
        v = gold[r][c]
        other = next(x for x in task.cell_values(inst) if x != v)
        cell = {"type": "cell", "row": r, "col": c}
        assert claims.label_claim(inst, {**cell, "value": v, "negated": False}) == "correct"
        assert claims.label_claim(inst, {**cell, "value": other, "negated": False}) == "incorrect"
        assert claims.label_claim(inst, {**cell, "value": other, "negated": True}) == "correct"
    assert claims.label_claim(inst, {"type": "cell", "row": H, "col": 0, "value": gold[0][0]}) == "incorrect"
    assert claims.label_claim(inst, {"type": "Contradiction", "branch": 1, "note": ""}) == "unverifiable"


# ---- reward integrity, instance validation, images ---------------------------------------
def instances(name: str) -> list:
    return [make(name, d, s) for d in SMALL for s in (0, 1)]


@pytest.mark.parametrize("name", NAMES)
def test_near_misses_break_exactly_their_rule_and_each_check_bites(name):
    """Near misses come from the puzzle's SAT encoding (one rule instance negated); the verifier
    must name exactly that rule, and with the rule switched off some of them must pass."""
    task = task_of(name)
    pairs = [(inst, nm) for i, inst in enumerate(instances(name))
             for nm in task.near_misses(inst, np.random.default_rng(i))]
    applicable = set().union(*(task.rules_of(inst) for inst, _ in pairs))
    assert {nm.rule for _, nm in pairs} == applicable
    for inst, nm in pairs:
        v = task.verify(inst, nm.answer)
        assert not v.solved and v.score < 1 and nm.rule in v.rules, (nm.rule, v.message)
        assert v.rules == [nm.rule] or not nm.exclusive, (nm.rule, v.message)
    for rule in applicable:
        mine = [(inst, nm) for inst, nm in pairs if nm.rule == rule]
        with task.rules_disabled(rule):
            if any(nm.exclusive for _, nm in mine):
                assert any(task.verify(inst, nm.answer).solved for inst, nm in mine if nm.exclusive), rule
            assert all(rule not in task.verify(inst, nm.answer).rules for inst, nm in mine), rule


@pytest.mark.parametrize("name", NAMES)
def test_cheap_answers_earn_nothing(name):
    """Binary reward never pays a blind answer beyond its stated chance; partial pays at most 0.1."""
    task = task_of(name)
    totals: dict = {}
    for i, inst in enumerate(instances(name)):
        for ca in task.cheap_answers(inst, np.random.default_rng(i)):
            v = task.score(inst, ca.completion)
            t = totals.setdefault(ca.name.split(" ")[0], [0.0, 0.0, 0.0, 0])
            t[0] += v.reward
            t[1] += v.score
            t[2] += ca.chance
            t[3] += 1
    for name_, (binary, partial, chance, n) in totals.items():
        assert binary <= chance + 1e-9, name_
        assert partial / n <= max(0.1, chance / n), (name_, partial / n)


@pytest.mark.parametrize("name", NAMES)
def test_partial_credit_pays_real_progress(name):
    """Partial credit is max(0, (f - b) / (1 - b)): starting from the best blind grid, solving half
    of the cells it gets wrong earns 0.5; one wrong cell earns most of the credit."""
    task = task_of(name)
    inst = make(name, "normal", 3)
    sol = task.solve(inst)
    fixed = task.givens(inst)
    free = [(r, c) for r in range(len(sol)) for c in range(len(sol[0])) if (r, c) not in fixed]
    blind = [[[fixed.get((r, c), v) for c, v in enumerate(row)] for r, row in enumerate(g)]
             for g in task.blind_grids(inst).values()]
    best = max(blind, key=lambda g: sum(g[r][c] == sol[r][c] for r, c in free))
    assert task.verify(inst, best).score == 0.0
    wrong = [(r, c) for r, c in free if best[r][c] != sol[r][c]]
    half = [list(row) for row in best]
    for r, c in wrong[: len(wrong) // 2]:
        half[r][c] = sol[r][c]
    b = task.luck_floor(inst)
    f_half = (len(free) - len(wrong) + len(wrong) // 2) / len(free)
    assert task.verify(inst, half).score == pytest.approx(max(0.0, (f_half - b) / (1 - b)))
    assert b >= 1 / len(task.cell_values(inst))  # a random fill's luck is never paid
    nearly = [list(row) for row in sol]
    r, c = free[0]
    nearly[r][c] = next(v for v in task.cell_values(inst) if v != sol[r][c])
    v = task.verify(inst, nearly)
    assert v.solved or v.score > 0.5


@pytest.mark.parametrize("name", NAMES)
def test_random_answer_is_well_formed(name):
    task = task_of(name)
    inst = make(name, "easy", 0)
    g = task.random_answer(inst, np.random.default_rng(0))
    assert task.answer_grid_error(inst, g) is None
    assert all(g[r][c] == v for (r, c), v in task.givens(inst).items())


@pytest.mark.parametrize("name", NAMES)
def test_malformed_instances_are_refused_at_reset(name):
    task = task_of(name)
    inst = make(name, "easy", 0)
    env = gym.make(f"kumo_gym/{name}-v0", mode="interactive")
    env.reset(options={"instance": inst.to_dict()})
    d = inst.to_dict()
    del d["instance_id"]
    huge = json.loads(json.dumps(d))
    huge["data"]["W"] = 10**6
    with pytest.raises(ConfigError, match="limit"):
        env.reset(options={"instance": huge})
    for key in list(inst.data["state"]):
        broken = json.loads(json.dumps(d))
        del broken["data"]["state"][key]
        if key in task.state_keys and key != "filled":
            with pytest.raises(ConfigError):
                env.reset(options={"instance": broken})
    bad_sol = json.loads(json.dumps(d))
    r, c = next((r, c) for r in range(inst.data["H"]) for c in range(inst.data["W"]) if (r, c) not in task.givens(inst))
    bad_sol["data"]["solution"][r][c] = next(v for v in task.cell_values(inst) if v != inst.data["solution"][r][c])
    with pytest.raises(ConfigError, match="solution"):
        env.reset(options={"instance": bad_sol})
    for bad in ({"foo": 1}, {"family": inst.family, "data": 7}, "nonsense", f"{inst.data['game_id']}xx"):
        with pytest.raises(ConfigError):
            env.reset(options={"instance": bad})
    # a state edited by hand: the error names where it leaves its game ID and both values there
    key, leaf = next((k, [0, 0] if isinstance(v[0], list) else [0]) for k, v in inst.data["state"].items()
                     if isinstance(v, list) and v and (not isinstance(v[0], list) or v[0]))
    for value in (None, 99, "Z"):
        edited = json.loads(json.dumps(d))
        *outer, last = [key, *leaf]
        holder = edited["data"]["state"]
        for step in outer:
            holder = holder[step]
        was, holder[last] = holder[last], value
        path = "".join(f"[{i!r}]" for i in [key, *leaf])
        with pytest.raises(ConfigError) as err:
            env.reset(options={"instance": edited})
        assert f"state{path} is {value!r} where its game_id" in str(err.value), str(err.value)
        if not isinstance(was, (dict, list)):  # a whole Net tile is abbreviated
            assert str(err.value).endswith(f"gives {was!r}"), str(err.value)
    size = tatham.codec(task.family).PARAMS.size[0]
    wrong_size = json.loads(json.dumps(d))
    wrong_size["params"][size] += 1
    with pytest.raises(ConfigError, match=f"parameter {size}={inst.params[size] + 1} does not match"):
        env.reset(options={"instance": wrong_size})


@pytest.mark.parametrize("name", NAMES)
def test_check_env_with_defaults_and_images(name):
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make(f"kumo_gym/{name}-v0").unwrapped)
    env = gym.make(f"kumo_gym/{name}-v0", render_mode="rgb_array", difficulty="normal")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and min(img.shape[:2]) > 50
    task = task_of(name)
    gold = task.render_rgb(env.unwrapped.instance, task.solve(env.unwrapped.instance))
    assert gold.shape == img.shape and not np.array_equal(gold, img)  # the solution draws differently
    assert len(np.unique(img.reshape(-1, 3), axis=0)) >= 3


@pytest.mark.parametrize("name", NAMES)
def test_manual_is_the_env_docstring(name):
    env = gym.make(f"kumo_gym/{name}-v0")
    doc = type(env.unwrapped).__doc__
    task = task_of(name)
    for code in task.rule_codes:
        assert code in doc
    assert "## Description" in doc and "## Answer" in doc and task.partial_credit[:30] in doc
    assert "hard" in doc and "backend" in doc


@pytest.mark.parametrize("name", NAMES)
def test_dataset_records_carry_the_grade(name):
    """docs/specs/grid_puzzles.md §8: the grade of every generated puzzle is recorded (dataset records), and it is the
    engine's own grade of the instance."""

    rec = kumo_gym.make_dataset(f"kumo_gym/{name}-v0", size=1, seed=0, env_kwargs={"difficulty": "easy"})[0]
    task = task_of(name)
    inst = task.load_instance(rec["instance"])
    assert rec["grade"] == task.grade(inst) and rec["grade"] in (0, 1, 2)
    assert rec["clues"] == task.clue_count(inst)
