"""Parameters, instances and hostile text for the planning envs."""
from __future__ import annotations

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kumo_gym
from kumo_gym.core.capabilities import InstanceSchema
from kumo_gym.core.errors import ConfigError, ParseError, UnsolvableInstanceError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.planning import moves as mv
from kumo_gym.envs.planning.base import MAX_NEW_TOKENS, TOKEN_RESERVE, answer_tokens

IDS = ["kumo_gym/Hanoi-v0", "kumo_gym/CheckerJumping-v0", "kumo_gym/RiverCrossing-v0", "kumo_gym/BlocksWorld-v0"]
HANOI, CHECKER, RIVER, BLOCKS = (get_task(i) for i in IDS)


# ---- parameters -------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id,kwargs,match", [
    ("kumo_gym/Hanoi-v0", {"n_range": [1]}, r"n_range \[1\] is not a pair"),
    ("kumo_gym/Hanoi-v0", {"n_range": [4, 2]}, r"n_range \[4, 2\] is empty"),
    ("kumo_gym/Hanoi-v0", {"n_range": [1, 21]}, r"n_range 21 is outside the valid range 1\.\.20"),
    ("kumo_gym/Hanoi-v0", {"n_range": "1-3"}, r"n_range '1-3' is not a list"),
    ("kumo_gym/Hanoi-v0", {"n_choices": []}, r"n_choices \[\] is empty"),
    ("kumo_gym/Hanoi-v0", {"n": 21}, r"n 21 is outside the valid range 1\.\.20"),
    ("kumo_gym/Hanoi-v0", {"start": "middle"}, r"start 'middle' is not one of: canonical, random"),
    ("kumo_gym/CheckerJumping-v0", {"n": 41}, r"n 41 is outside the valid range 1\.\.40"),
    ("kumo_gym/RiverCrossing-v0", {"n": 3, "k": 21}, r"k 21 is outside the valid range 1\.\.20"),
    ("kumo_gym/BlocksWorld-v0", {"n": 11, "start": "random"}, r"n must be at most 10 \(got 11\)"),
    ("kumo_gym/BlocksWorld-v0", {"n": 20, "n_stacks": 4}, r"n_stacks=4 needs a search"),
])
def test_bad_parameters_fail_at_make_naming_the_field(env_id, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        gym.make(env_id, **kwargs)


def test_missing_sizes_fall_back_to_the_default_preset():
    _, info = gym.make("kumo_gym/Hanoi-v0", n=None).reset(seed=0)  # used to raise KeyError
    assert info["n"] == 5
    _, info = gym.make("kumo_gym/Hanoi-v0", algorithm_hint=True).reset(seed=0)
    assert info["n"] == 5
    _, info = gym.make("kumo_gym/RiverCrossing-v0", stepwise=True).reset(seed=0)
    assert (info["n"], info["k"]) == (3, 2)


def test_river_paper_schedule_is_the_default():
    for n, k in ((1, 2), (2, 2), (3, 2), (4, 3), (5, 3)):
        _, info = gym.make("kumo_gym/RiverCrossing-v0", n=n).reset(seed=0)
        assert info["k"] == k and info["solvable"]
    with pytest.raises(UnsolvableInstanceError, match=r"N=6, k=3 .*k_schedule='solvable'"):
        gym.make("kumo_gym/RiverCrossing-v0", n=6)
    _, info = gym.make("kumo_gym/RiverCrossing-v0", n=6, k_schedule="solvable").reset(seed=0)
    assert info["k"] == 4
    env = gym.make("kumo_gym/RiverCrossing-v0", difficulty="paper")
    assert {env.reset(seed=s)[1]["k"] for s in range(30)} == {2, 3}


# ---- instances are validated when they are loaded ------------------------------------------------
def _hanoi(**data):
    return {"family": "hanoi", "data": {"n": 3, "initial": [[3, 2, 1], [], []], "goal": [[], [], [3, 2, 1]], **data}}


def _river(**data):
    base = {"n": 2, "k": 2, "solvable": True, "initial_left": ["A_1", "a_1", "A_2", "a_2"], "boat": "left"}
    return {"family": "river_crossing", "data": {**base, **data}}


BAD_INSTANCES = [
    ("kumo_gym/Hanoi-v0", _hanoi(n=10 ** 6), r"n 1000000 is outside the valid range 1\.\.20"),
    ("kumo_gym/Hanoi-v0", _hanoi(n="3"), r"n"),
    ("kumo_gym/Hanoi-v0", _hanoi(initial=[[3, 2], [], []]), r"initial must hold the disks 1\.\.3"),
    ("kumo_gym/Hanoi-v0", _hanoi(goal=[[1, 2, 3], [], []]), r"goal peg 0 \[1, 2, 3\] has a larger disk"),
    ("kumo_gym/Hanoi-v0", _hanoi(initial="[[3, 2, 1]]"), r"initial must be a list of stacks"),
    ("kumo_gym/Hanoi-v0", {"n": None}, r"needs 'n'"),
    ("kumo_gym/Hanoi-v0", {"foo": 1}, r"needs 'n'"),
    ("kumo_gym/Hanoi-v0", {"n": 3, "foo": 1}, r"parameter 'foo' is not one of"),
    ("kumo_gym/RiverCrossing-v0", {"family": "river_crossing", "data": {"n": 3, "k": 2, "solvable": True,
                                                                        "boat": "left"}}, r"initial_left"),
    ("kumo_gym/RiverCrossing-v0", _river(initial_left=["A_1", "a_2"]), r"initial_left puts an actor"),
    ("kumo_gym/RiverCrossing-v0", _river(initial_left=["A_9"]), r"initial_left must name distinct people"),
    ("kumo_gym/RiverCrossing-v0", _river(boat="middle"), r"boat 'middle' is not one of: left, right"),
    ("kumo_gym/RiverCrossing-v0", _river(k=0), r"k 0 is outside"),
    ("kumo_gym/RiverCrossing-v0", _river(solvable=False), r"solvable False does not match"),
    ("kumo_gym/RiverCrossing-v0", _river(n=4, k=2, solvable=True,
                                         initial_left=[f"{c}_{i}" for i in range(1, 5) for c in "Aa"]), r"solvable"),
    ("kumo_gym/CheckerJumping-v0", {"family": "checker_jumping", "data": {"n": 2, "initial": "RRX_B", "goal": "B_XRR"}},
     r"initial must be a board of 5 cells"),
    ("kumo_gym/CheckerJumping-v0", {"family": "checker_jumping", "data": {"n": 2, "initial": "RR_BB", "goal": "RR_BB"}},
     r"goal must be 'BB_RR'"),
    ("kumo_gym/CheckerJumping-v0", {"initial": "BB_RR_"}, r"initial must be a board"),
    ("kumo_gym/BlocksWorld-v0", {"family": "blocks_world", "data": {"n": 3, "n_stacks": 3, "initial": [["A"], ["B"], []],
                                                                   "goal": [["A", "B"], [], []]}}, r"n 3 does not match"),
    ("kumo_gym/BlocksWorld-v0", {"initial": [["A", "A"], [], []], "goal": [["A", "A"], [], []]}, r"each exactly once"),
    ("kumo_gym/BlocksWorld-v0", {"initial": [["A"], ["B"]], "goal": [["A", "B"], [], []]}, r"goal has 3 stacks; expected 2"),
    ("kumo_gym/BlocksWorld-v0", {"initial": [["a b"], [], []], "goal": [["a b"], [], []]}, r"block names"),
]


@pytest.mark.parametrize("env_id,obj,match", BAD_INSTANCES, ids=range(len(BAD_INSTANCES)))
def test_malformed_instances_fail_at_reset_naming_the_field(env_id, obj, match):
    assert isinstance(get_task(env_id), InstanceSchema)
    env = gym.make(env_id)
    with pytest.raises(ConfigError, match=match):
        env.reset(options={"instance": obj})


@pytest.mark.parametrize("env_id", IDS)
def test_every_generated_instance_passes_its_schema(env_id):
    task = get_task(env_id)
    for difficulty in task.difficulties:
        for start in ("canonical", "random"):
            try:
                env = gym.make(env_id, difficulty=difficulty, start=start)
            except ConfigError:
                continue  # e.g. random Blocks World starts at paper sizes
            for seed in range(3):
                env.reset(seed=seed)
                task.validate_instance(env.unwrapped.instance)
                inst = task.load_instance(env.unwrapped.instance.to_json())
                assert inst.instance_id == env.unwrapped.instance.instance_id


# ---- random starts: many puzzles per N, exact optima ---------------------------------------------
@pytest.mark.parametrize("env_id,kwargs", [("kumo_gym/Hanoi-v0", {"n": 4}), ("kumo_gym/CheckerJumping-v0", {"n": 4}),
                                           ("kumo_gym/CheckerJumping-v0", {"n": 8}),
                                           ("kumo_gym/RiverCrossing-v0", {"n": 5, "k": 4}),
                                           ("kumo_gym/BlocksWorld-v0", {"n": 5})])
def test_random_starts_give_many_puzzles_per_size_with_optimal_golds(env_id, kwargs):
    task = get_task(env_id)
    canonical = gym.make(env_id, **kwargs)
    assert len({canonical.reset(seed=s)[1]["instance_id"] for s in range(5)}) == 1  # the paper's: one per N
    env = gym.make(env_id, start="random", **kwargs)
    train = {env.reset(seed=s)[1]["instance_id"] for s in range(20)}
    assert len(train) >= (5 if "Checker" in env_id else 12)  # 90 Checker boards of N = 4 qualify
    test = gym.make(env_id, start="random", split="test", **kwargs)
    assert {test.reset(seed=s)[1]["instance_id"] for s in range(20)} != train
    for s in range(5):
        env.reset(seed=s)
        inst = env.unwrapped.instance
        gold = task.solve(inst)
        v = task.score(inst, task.format_answer(gold))
        assert v.solved and v.details["is_optimal"] and len(gold) == task.optimal_length(inst) >= 1
        assert task.distance(inst, task.initial_state(inst)) == len(gold)


def test_random_hanoi_optimum_matches_breadth_first_search():
    from tests.state_search import bfs_from_goal

    env = gym.make("kumo_gym/Hanoi-v0", n=4, start="random")
    for seed in range(8):
        env.reset(seed=seed)
        inst = env.unwrapped.instance
        assert HANOI.optimal_length(inst) == bfs_from_goal(HANOI, inst)[HANOI.initial_state(inst)]


def test_random_river_start_is_described_and_played_from_its_bank():
    env = gym.make("kumo_gym/RiverCrossing-v0", n=3, k=3, start="random")
    for seed in range(10):
        obs, _ = env.reset(seed=seed)
        inst = env.unwrapped.instance
        assert f"The boat starts on the {inst.data['boat']} bank" in obs
        if inst.data["boat"] == "right":
            assert RIVER.initial_state(inst)[1] == 1
            break
    else:
        pytest.fail("no random start with the boat on the right in 10 seeds")


# ---- records ----------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_records_carry_min_answer_tokens_and_budget_feasible(env_id):
    task = get_task(env_id)
    recs = kumo_gym.make_dataset(env_id, 3, start="random", with_golden=True)
    for rec in recs:
        assert rec["min_answer_tokens"] == answer_tokens(rec["golden"])
        assert rec["budget_feasible"] == (rec["min_answer_tokens"] <= MAX_NEW_TOKENS - TOKEN_RESERVE)
        assert rec["compositional_depth"] == rec["optimal_steps"]
    del task


def test_hanoi_budget_feasibility_follows_the_papers_limit():
    for n, feasible in ((10, True), (12, True), (13, False), (20, False)):
        rec = HANOI.record_fields(HANOI.load({"n": n}))
        assert rec["min_answer_tokens"] == 8 * (2 ** n - 1) + 3 and rec["budget_feasible"] is feasible
    inst = HANOI.load({"n": 6})
    assert HANOI.record_fields(inst)["min_answer_tokens"] == answer_tokens(HANOI.format_answer(HANOI.solve(inst)))


# ---- the manual, the move format in messages --------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_the_env_class_is_the_manual(env_id):
    env = gym.make(env_id)
    doc = type(env.unwrapped).__doc__
    task = get_task(env_id)
    assert "## Rules" in doc and all(f"``{code}``" in doc for code in task.rule_codes)
    assert "start" in doc and "(prompt only)" in doc and "max(0, 2P - k - 1)" in doc
    assert "## Observation space" in doc and "## Episode end" in doc
    idoc = type(gym.make(env_id, mode="interactive").unwrapped).__doc__
    assert "moves_per_step" in idoc and "max_invalid" in idoc


@pytest.mark.parametrize("env_id,example", [(IDS[0], "[1, 0, 2]"), (IDS[1], '["R", 0, 1]'),
                                            (IDS[2], '["A_1", "a_1"]'), (IDS[3], '["C", 1, 2]')])
def test_unreadable_moves_show_the_puzzles_own_format(env_id, example):
    task = get_task(env_id)
    with pytest.raises(ParseError) as e:
        task.parse_move("hmm, let me think")
    assert task.move_fields in str(e.value)  # the parser sees no instance: the move's fields in words
    env = gym.make(env_id, mode="interactive")
    env.reset(seed=0)
    obs, *_ = env.step("no idea")
    own = task.move_example_for(env.unwrapped.instance)  # the class's example, or a legal move like it
    assert own in obs and ("[1, 0, 2]" not in obs or env_id == IDS[0])
    assert own == example or task.check_move(env.unwrapped.instance, task.initial_state(env.unwrapped.instance),
                                             task.parse_move(example)) is not None


def test_interactive_info_follows_the_instance():
    env = gym.make("kumo_gym/Hanoi-v0", difficulty="easy", mode="interactive")
    seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        _, _, _, _, step_info = env.step("[1, 0, 2]")
        assert step_info["instance_id"] == info["instance_id"] == env.unwrapped.instance.instance_id
        assert step_info["n"] == env.unwrapped.instance.data["n"]
        seen.add(info["instance_id"])
    assert len(seen) > 1


# ---- hostile text: linear work, only ParseError -------------------------------------------------
def test_parsing_work_is_bounded_whatever_the_text(monkeypatch):
    calls = []
    real = mv.parse_list
    monkeypatch.setattr(mv, "parse_list", lambda text: calls.append(len(text)) or real(text))
    inst = HANOI.load({"n": 3})
    for text in ("[[1]]" * 50_000, "moves = [1]" * 30_000, "[1]" * 300_000, "\\boxed{[[1]]}" * 5_000):
        calls.clear()
        v = HANOI.score(inst, text)
        assert v.status == "parse_error"
        assert len(calls) <= mv.MAX_CANDIDATES + 2 and sum(calls) <= 2 * len(text)


def test_long_integer_answers_are_read_as_arrays():
    inst = HANOI.load({"n": 14})
    gold = HANOI.solve(inst)
    text = HANOI.format_answer(gold)
    moves = HANOI.parse(text)
    assert isinstance(moves, mv.MoveArray) and moves == gold and len(moves) == 2 ** 14 - 1
    v = HANOI.verify(inst, moves)
    assert v.solved and v.details["moves"] is None  # too many to list
    bad = gold[:5000] + [[3, 2, 2]] + gold[5001:]
    v = HANOI.score(inst, HANOI.format_answer(bad))
    assert (v.status, v.first_error, v.details["rule"]) == ("illegal_move", 5001, "same_peg")
    assert v.score == HANOI.verify(inst, bad).score  # the same verdict as the list path
    assert HANOI.parse(text.replace("], [", "],\n [")) == gold


int_lists = st.lists(st.tuples(st.integers(0, 10 ** 19), st.integers(0, 30), st.integers(0, 30)).map(list),
                     min_size=1, max_size=40)
seps = st.sampled_from([", ", ",", " , ", ",\n ", "\t,"])


@settings(max_examples=150, deadline=None)
@given(int_lists, seps, st.sampled_from(["", " ", "\n"]), st.booleans())
def test_int_triples_agrees_with_the_general_parser(moves, sep, pad, glue):
    text = "[" + pad + sep.join("[" + sep.join(map(str, m)) + "]" for m in moves) + pad + "]"
    if glue:
        text = text.replace(", 1", " 1", 1)  # "1 1": two numbers without a comma
    arr = mv.int_triples(text)
    try:
        general = mv.parse_list(text)
    except ParseError:
        general = None
    if arr is None:
        return  # the general parser decides
    assert general == arr.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("[](),. \n\"'#xRA_1+-") + ["...", "\u2026", "[1, 0, 2]", ", ]", "R_1"]),
                max_size=40).map("".join))
def test_json_fast_paths_agree_with_the_token_parser(text):
    try:
        want = mv._parse_tokens(text)
    except ParseError as e:
        want = e.reason
    try:
        got = mv.parse_list(text)
    except ParseError as e:
        got = e.reason
    assert got == want and [type(x) for x in _flat(got)] == [type(x) for x in _flat(want)]


def _flat(value):
    if isinstance(value, list):
        return [y for x in value for y in _flat(x)]
    return [value]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()\"'#\n x1,")), max_size=400))
def test_numpy_scan_agrees_with_the_character_scan(text):
    padded = "y" * mv.NUMPY_FROM + text
    starts, ends, unclosed = mv._scan(padded)
    want_s, want_e, want_u = mv._scan_python(padded)
    assert starts.tolist() == want_s and ends.tolist() == want_e and unclosed == want_u


def test_numpy_scan_handles_non_ascii_offsets():
    text = "é" * mv.NUMPY_FROM + "moves = [[1, 0, 2]] 🙂 [[2, 0, 1]]"
    spans, _ = mv.find_spans(text)
    assert [s.text for s in spans] == ["[[1, 0, 2]]", "[[2, 0, 1]]"] and spans[0].source == "labelled"
    assert HANOI.parse(text) == [[1, 0, 2]]
