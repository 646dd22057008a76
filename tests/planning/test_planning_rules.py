"""Rules, outcomes, modes, prompts and parameters of the planning envs (docs/specs/planning.md §2-§6, §8)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kumo_gym  # noqa: F401  (registers the envs)
from kumo_gym.core.errors import ConfigError, ParseError, UnsolvableInstanceError
from kumo_gym.core.registry import get_task

IDS = ["kumo_gym/Hanoi-v0", "kumo_gym/CheckerJumping-v0", "kumo_gym/RiverCrossing-v0", "kumo_gym/BlocksWorld-v0"]
HANOI, CHECKER, RIVER, BLOCKS = (get_task(i) for i in IDS)


def outcome(task, inst, moves):
    v = task.verify(inst, moves)
    return v.status, v.first_error, v.details.get("reason")


# ---- one test per reason code, in the order of checking -------------------------------------
@pytest.mark.parametrize("moves,index,reason", [
    ([[1, 0, 3]], 1, "bad_peg"),
    ([[5, 3, 3]], 1, "bad_peg"),            # bad_peg is checked before same_peg
    ([[1, 0, 0]], 1, "same_peg"),
    ([[1, 1, 1]], 1, "same_peg"),           # same_peg before empty_peg
    ([[1, 1, 2]], 1, "empty_peg"),
    ([[2, 0, 1]], 1, "not_top_disk"),
    ([[1, 0, 2], [2, 0, 2]], 2, "larger_on_smaller"),
])
def test_hanoi_reasons(moves, index, reason):
    assert outcome(HANOI, HANOI.load({"n": 3}), moves) == ("illegal_move", index, reason)


@pytest.mark.parametrize("n,moves,index,reason", [
    (2, [["R", 0, 5]], 1, "bad_position"),
    (2, [["B", 0, 2]], 1, "wrong_color"),
    (2, [["R", 0, 1]], 1, "target_occupied"),
    (3, [["R", 0, 3]], 1, "bad_distance"),
    (2, [["R", 1, 2], ["R", 2, 1]], 2, "backward_move"),
    (2, [["R", 0, 2]], 1, "bad_jump"),
    (2, [["R", 1, 2], ["R", 0, 1], ["B", 3, 1]], 3, "target_occupied"),
])
def test_checker_reasons(n, moves, index, reason):
    assert outcome(CHECKER, CHECKER.load({"n": n}), moves) == ("illegal_move", index, reason)


def test_checker_jump_over_empty_is_bad_jump():
    inst = CHECKER.load({"n": 1})
    # state "R_B" -> after ["R", 0, 1]: "_RB"; B at 2 jumping to 0 over R is legal; R cannot jump
    assert outcome(CHECKER, inst, [["R", 0, 1], ["B", 2, 0]])[0] == "incomplete"


@pytest.mark.parametrize("n,k,moves,index,reason", [
    (3, 2, [["A_4"]], 1, "unknown_person"),
    (3, 2, [[]], 1, "empty_boat"),
    (3, 2, [["A_1", "A_1"]], 1, "duplicate_passenger"),
    (3, 2, [["A_1", "a_1", "A_2"]], 1, "over_capacity"),
    (3, 2, [["A_1", "a_1"], ["A_2"]], 2, "not_on_boat_side"),
    (3, 2, [["A_1", "a_2"]], 1, "unsafe_boat"),
    (3, 2, [["A_1"]], 1, "unsafe_departure_bank"),
    (2, 2, [["A_1", "A_2"], ["A_1"]], 2, "unsafe_arrival_bank"),
])
def test_river_reasons(n, k, moves, index, reason):
    assert outcome(RIVER, RIVER.load({"n": n, "k": k}), moves) == ("illegal_move", index, reason)


def test_river_bad_token_is_a_parse_failure():
    v = RIVER.score(RIVER.load({"n": 2, "k": 2}), 'moves = [["B_1", "a_1"]]')
    assert v.status == "parse_error" and v.details["reason"] == "bad_token"


@pytest.mark.parametrize("moves,reason", [
    ([["B", 0, 3]], "bad_stack"),
    ([["B", 0, 0]], "same_stack"),
    ([["A", 2, 0]], "empty_stack"),
    ([["Z", 0, 1]], "unknown_block"),
    ([["A", 0, 1]], "not_top_block"),
])
def test_blocks_reasons(moves, reason):
    assert outcome(BLOCKS, BLOCKS.load({"n": 4}), moves) == ("illegal_move", 1, reason)


# ---- outcomes (docs/specs/planning.md §6.1) ------------------------------------------------------------------------
def test_outcomes_are_distinct_and_numbered():
    inst = HANOI.load({"n": 2})
    gold = HANOI.solve(inst)
    assert HANOI.verify(inst, gold).details["outcome"] == "solved"
    v = HANOI.verify(inst, gold[:2])
    assert (v.status, v.first_error, v.details["outcome"]) == ("incomplete", 3, "incomplete")
    v = HANOI.verify(inst, gold + [[1, 2, 0], [1, 0, 2]])
    assert v.solved and v.details["excess_moves"] == 2 and not v.details["is_optimal"]
    v = HANOI.verify(inst, gold + [[1, 2, 0]])
    assert v.status == "incomplete" and v.details["goal_first_reached_at"] == 3
    assert HANOI.score(inst, "no list here").details["outcome"] == "parse_failure"
    v = HANOI.score(inst, "moves = [[1, 0, 1], [2, 0", finish_reason="length")
    assert v.status == "truncated" and v.details["outcome"] == "truncated"


def test_partial_score_is_progress_and_below_one_unless_solved():
    inst = HANOI.load({"n": 3})
    # two optimal moves, then an illegal one: P = 2, k = 2 -> (2P - k - 1) / (d0 - 1) = 1/6
    assert HANOI.verify(inst, [[1, 0, 2], [2, 0, 1], [1, 1, 0]]).score == pytest.approx(1 / 6)
    gold = HANOI.solve(inst)
    assert HANOI.verify(inst, gold[:6]).score == pytest.approx(5 / 6)
    wander = [[1, 0, 1], [1, 1, 0]] * 10  # 20 legal moves, never the goal
    v = HANOI.verify(inst, wander)
    assert v.status == "incomplete" and v.score == 0


# ---- modes ----------------------------------------------------------------------------------
def _random_walk(task, inst, rng, length):
    state, moves = task.initial_state(inst), []
    catalog = task.move_catalog(inst)
    for _ in range(length):
        if rng.random() < 0.1:
            moves.append(catalog[int(rng.integers(len(catalog)))])  # maybe illegal
            break
        legal = task.legal_moves(inst, state)
        if not legal:
            break
        m = legal[int(rng.integers(len(legal)))]
        moves.append(m)
        state = task.apply(inst, state, m)
    return moves


@pytest.mark.parametrize("env_id", IDS)
def test_interactive_and_answer_modes_agree(env_id):
    task = get_task(env_id)
    rng = np.random.default_rng(0)
    env = gym.make(env_id, mode="interactive", max_steps=1000)
    for trial in range(12):
        env.reset(seed=trial)
        inst = env.unwrapped.instance
        moves = task.solve(inst) if trial % 3 == 0 else _random_walk(task, inst, rng, 12)
        v = task.score(inst, task.format_answer(moves))
        env.reset(options={"instance": inst})
        status, step = "incomplete", None
        for i, m in enumerate(moves):
            _, _, term, _trunc, info = env.step(task.format_move(m))
            if term or info["verdict"]["status"] == "illegal_move":
                # an illegal move has no effect in interactive play (and does not end it)
                status, step = info["verdict"]["status"], info["verdict"]["first_error"]
                assert i == len(moves) - 1 or status == "illegal_move"
                break
        assert status == v.status, (moves, v)
        if status == "illegal_move":
            assert step == v.first_error and info["verdict"]["details"]["reason"] == v.details["reason"]


@pytest.mark.parametrize("env_id", IDS)
def test_golden_rollout_earns_one_in_optimal_steps(env_id):
    task = get_task(env_id)
    env = gym.make(env_id, mode="interactive")
    _, info = env.reset(seed=1)
    inst = env.unwrapped.instance
    total, steps = 0.0, 0
    for _obs, action in task.golden_rollout(inst):
        _, r, term, _trunc, info = env.step(action)
        total, steps = total + r, steps + 1
    assert term and total == 1.0 and steps == task.optimal_length(inst) == info["optimal_steps"]
    assert env.unwrapped.max_steps == 2 * steps


@pytest.mark.parametrize("env_id", IDS)
def test_answer_env_gold_and_info(env_id):
    env = gym.make(env_id)
    _obs, info = env.reset(seed=2)
    task = env.unwrapped.task
    assert info["solvable"] is True and info["compositional_depth"] == info["optimal_steps"]
    _, r, term, _, info = env.step(task.format_answer(task.solve(env.unwrapped.instance)))
    assert r == 1.0 and term and info["verdict"]["details"]["is_optimal"]


def test_interactive_parse_move_variants():
    assert HANOI.parse_move("I move the top disk: [1, 0, 2]") == [1, 0, 2]
    assert HANOI.parse_move("first [[2, 0, 1]] no wait [1, 0, 2]") == [1, 0, 2]
    assert HANOI.parse_move("1, 0, 2") == [1, 0, 2]
    assert CHECKER.parse_move("move = (red, 0, 1)") == ["R", 0, 1]
    assert RIVER.parse_move("A1 a1") == ["A_1", "a_1"]
    assert RIVER.parse_move('["A_2", "a_2"]') == ["A_2", "a_2"]
    assert BLOCKS.parse_move("[D, 1, 0]") == ["D", 1, 0]


@pytest.mark.parametrize("text", ["[1, 0, 2] or [1, 0, 1]", "[1, 0, 1] / [1, 0, 2]", "move [1, 0, 2] | [2, 0, 1]",
                                  "[[1, 0, 2]] or [[1, 0, 1]]", "[1, 0, 2], or [1, 0, 1]"])
def test_one_move_offered_with_another_is_a_hedge(text):
    """Two different moves joined as alternatives on a line are no move (status ``hedge`` in the
    env); the same move twice, or a move corrected on a later line, is read."""
    with pytest.raises(ParseError) as e:
        HANOI.parse_move(text)
    assert e.value.reason == "hedge"
    assert HANOI.parse_move("[1, 0, 2] or [1, 0, 2]") == [1, 0, 2]
    assert HANOI.parse_move("[1, 0, 1]\nno: [1, 0, 2]") == [1, 0, 2]
    env = gym.make("kumo_gym/Hanoi-v0", n=3, mode="interactive")
    env.reset(seed=0)
    before = env.unwrapped.state
    _, r, term, _, info = env.step(text)
    assert r == 0.0 and not term and info["verdict"]["status"] == "hedge" and env.unwrapped.state == before


def test_interactive_reject_mode_keeps_state():
    env = gym.make("kumo_gym/Hanoi-v0", n=3, mode="interactive")
    env.reset(seed=0)
    before = env.unwrapped.state
    obs, _r, term, _trunc, _info = env.step("[3, 0, 2]")
    assert not term and env.unwrapped.state == before and "not_top_disk" in obs


# ---- prompts (docs/specs/planning.md §4, §8.3) ---------------------------------------------------------------------
#: the instances of each puzzle's worked examples: the paper's first, then ``other_examples()``
EXAMPLE_INSTANCES = {
    "kumo_gym/Hanoi-v0": lambda: [HANOI.load({"n": 3}), HANOI.load({"n": 2}),
                                  HANOI.load({"initial": [[3, 2, 1], [], []], "goal": [[], [3, 2, 1], []]})],
    "kumo_gym/CheckerJumping-v0": lambda: [CHECKER.load({"n": 1}), CHECKER.load({"n": 2})],
    "kumo_gym/RiverCrossing-v0": lambda: [RIVER.load({"n": 2, "k": 2}), RIVER.load({"n": 2, "k": 3}),
                                          RIVER.load({"n": 1, "k": 2})],
    "kumo_gym/BlocksWorld-v0": lambda: [BLOCKS.custom([["A", "B"], ["C"], []], [["A"], ["B"], ["C"]]),
                                        BLOCKS.custom([["A", "B"], [], ["C"]], [["A"], ["C", "B"], []])],
}


@pytest.mark.parametrize("env_id", IDS)
def test_prompt_examples_verify_as_solved(env_id):
    task = get_task(env_id)
    examples = [task.example(), *task.other_examples()]
    instances = EXAMPLE_INSTANCES[env_id]()
    assert len(examples) == len(instances)
    for (_, sol), inst in zip(examples, instances):
        assert task.verify(inst, sol).solved
        # shown for its own instance, an example would answer it: another one is shown, as printed
        shown = task.example_for(inst)
        assert shown[1] != sol and not task.verify(inst, shown[1]).solved
        text = task.system_prompt(inst)
        example_line = next(line for line in text.splitlines() if line.startswith("moves = [["))
        assert task.parse(example_line) == shown[1]


@pytest.mark.parametrize("env_id", IDS)
def test_messages_have_system_and_user_parts(env_id):
    task = get_task(env_id)
    inst = task.generate(np.random.default_rng(0))
    msgs = task.messages(inst)
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert task.prompt(inst) == msgs[0]["content"] + "\n\n" + msgs[1]["content"]
    assert "moves = [[" in msgs[0]["content"] and "0" in msgs[0]["content"]
    from kumo_gym.envs.base import TEXT_CHARSET
    assert set(task.prompt(inst)) <= TEXT_CHARSET


def test_algorithm_hint_variant():
    plain = HANOI.prompt(HANOI.load({"n": 4}))
    hinted = HANOI.prompt(HANOI.load({"n": 4, "algorithm_hint": True}))
    assert "solve(n - 1, source, spare, target)" in hinted and "solve(N, 0, 2, 1)" in hinted
    assert "solve(" not in plain
    env = gym.make("kumo_gym/Hanoi-v0", n=4, algorithm_hint=True)
    obs, _ = env.reset(seed=0)
    assert "solve(N, 0, 2, 1)" in obs
    assert "Work step by step" in CHECKER.prompt(CHECKER.load({"n": 2, "stepwise": True}))
    assert "bottom block of stack 0" in BLOCKS.prompt(BLOCKS.load({"n": 4, "algorithm_hint": True}))


# ---- parameters and presets -----------------------------------------------------------------
def test_presets_sample_n_from_their_bucket():
    for diff, (lo, hi) in {"easy": (1, 3), "medium": (4, 7), "hard": (8, 12)}.items():
        env = gym.make("kumo_gym/Hanoi-v0", difficulty=diff)
        ns = {env.reset(seed=s)[1]["n"] for s in range(30)}
        assert ns <= set(range(lo, hi + 1)) and len(ns) > 1
    env = gym.make("kumo_gym/BlocksWorld-v0", difficulty="paper")
    assert {env.reset(seed=s)[1]["n"] for s in range(40)} <= {2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50}
    env = gym.make("kumo_gym/RiverCrossing-v0", difficulty="paper")
    for s in range(20):
        _, info = env.reset(seed=s)
        assert info["k"] == (2 if info["n"] <= 3 else 3) and info["solvable"]


def test_river_unsolvable_refused_unless_allowed():
    with pytest.raises(UnsolvableInstanceError, match=r"N=6, k=3.*k >= 4"):
        gym.make("kumo_gym/RiverCrossing-v0", n=6, k=3)
    with pytest.raises(UnsolvableInstanceError, match="N=4, k=2"):
        RIVER.load({"n": 4, "k": 2})
    env = gym.make("kumo_gym/RiverCrossing-v0", n=6, k=3, allow_unsolvable=True)
    _, info = env.reset(seed=0)
    assert info["solvable"] is False and info["optimal_steps"] is None
    _, r, _, _, info = env.step('moves = [["A_1", "a_1"]]')
    assert r == 0 and info["verdict"]["details"]["solvable"] is False
    assert info["verdict"]["details"]["reason"] == "unsolvable_instance"
    # impossibility claims (docs/specs/planning.md §8.2)
    claim = RIVER.load({"n": 6, "k": 3, "allow_unsolvable": True, "accept_impossibility_claim": True})
    assert RIVER.score(claim, "moves = UNSOLVABLE").solved
    v = RIVER.score(RIVER.load({"n": 3, "k": 2}), "moves = UNSOLVABLE")
    assert v.status == "wrong" and v.details["reason"] == "false_unsolvable_claim"
    assert RIVER.parse(RIVER.format_answer(RIVER.solve(claim))) == "UNSOLVABLE"


def test_bad_parameters_name_valid_choices():
    with pytest.raises(ConfigError, match="difficulty 'insane' is not one of"):
        gym.make("kumo_gym/Hanoi-v0", difficulty="insane")
    with pytest.raises(ConfigError, match=r"n 0 is outside the valid range 1\.\.20"):
        gym.make("kumo_gym/Hanoi-v0", n=0)
    with pytest.raises(ConfigError, match="k_schedule 'fast' is not one of: paper, solvable"):
        gym.make("kumo_gym/RiverCrossing-v0", n=3, k_schedule="fast")
    with pytest.raises(ConfigError, match="n_stacks 9 is outside"):
        gym.make("kumo_gym/BlocksWorld-v0", n=4, n_stacks=9)
    with pytest.raises(ConfigError, match="parameter 'm' is not one of"):
        gym.make("kumo_gym/Hanoi-v0", m=3)
    with pytest.raises(ConfigError, match="algorithm_hint"):
        gym.make("kumo_gym/Hanoi-v0", n=3, algorithm_hint="maybe")  # "yes"/"no" are read as booleans


def test_blocks_custom_instances_and_more_stacks():
    env = gym.make("kumo_gym/BlocksWorld-v0")
    _, info = env.reset(options={"instance": {"initial": [["B", "A"], [], []], "goal": [["A", "B"], [], []]}})
    assert info["optimal_steps"] == 4
    inst = BLOCKS.load({"n": 4, "n_stacks": 4})
    sol = BLOCKS.solve(inst)
    assert BLOCKS.verify(inst, sol).solved and len(sol) == 6  # a 4th stack saves one move
    with pytest.raises(ConfigError, match="allow_slow_search"):
        BLOCKS.custom([[chr(65 + i) for i in range(13)], [], []], [[chr(65 + i) for i in range(13)][::-1], [], []])
    with pytest.raises(ConfigError, match="same blocks"):
        BLOCKS.custom([["A"], [], []], [["B"], [], []])


# ---- structured wrapper hooks ---------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_move_catalog_and_encoding(env_id):
    task = get_task(env_id)
    inst = gym.make(env_id).unwrapped.task.generate(np.random.default_rng(1))
    catalog = task.move_catalog(inst)
    assert len({repr(m) for m in catalog}) == len(catalog)
    state = task.initial_state(inst)
    vec = task.encode_state(inst, state)
    assert vec.dtype == np.float32 and vec.ndim == 1
    for m in task.solve(inst):
        legal = task.legal_moves(inst, state)
        assert m in legal and all(x in catalog for x in legal)
        state = task.apply(inst, state, m)
        assert task.encode_state(inst, state).shape == vec.shape
    assert task.is_goal(inst, state)


def test_render_modes():
    for env_id in IDS:
        env = gym.make(env_id, render_mode="rgb_array")
        env.reset(seed=0)
        img = env.render()
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        env = gym.make(env_id, render_mode="ansi", mode="interactive")
        env.reset(seed=0)
        assert isinstance(env.render(), str)


def test_stepwise_p_mode():
    env = gym.make("kumo_gym/Hanoi-v0", n=3, mode="interactive", moves_per_step=3)
    obs, _ = env.reset(seed=0)
    assert "up to 3 moves" in obs
    gold = HANOI.solve(env.unwrapped.instance)
    _, r, term, _, info = env.step("moves = " + HANOI.format_moves(gold[:3]))
    assert not term and info["moves_applied"] == 3 and info["step"] == 3
    _, r, term, _, info = env.step(HANOI.format_moves(gold[3:5] + [[3, 0, 1]]))
    # the illegal third move has no effect and ends the turn, not the episode
    assert not term and r == 0 and info["verdict"]["status"] == "illegal_move" and info["moves_applied"] == 3
    env.reset(seed=0)
    total = sum(env.step(HANOI.format_moves(gold[i:i + 3]))[1] for i in range(0, 7, 3))
    assert total == 1.0


def test_prompt_template_fields_and_step_budget():
    env = gym.make("kumo_gym/RiverCrossing-v0", n=3, prompt_template="N={N}, k={k}\n{initial_state}\n{format_example}")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("N=3, k=2\nLeft bank: A_1, a_1") and 'moves = [["A_2", "a_2"]' in obs
    with pytest.raises(ConfigError, match="prompt_template field 'colour' is not one of"):
        gym.make("kumo_gym/Hanoi-v0", n=3, prompt_template="{colour}").reset(seed=0)
    env = gym.make("kumo_gym/Hanoi-v0", n=3, mode="interactive", step_budget=3)
    env.reset(seed=0)
    assert env.unwrapped.max_steps == 21
    with pytest.raises(ConfigError, match="step_budget"):
        gym.make("kumo_gym/Hanoi-v0", n=3, mode="interactive", step_budget=0.5)
