"""Guess's reference player and codec (docs/games.md, Guess)."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.guess import search as mm


def brute_score(guess, code):
    black = sum(a == b for a, b in zip(guess, code))
    common = sum(min(guess.count(c), code.count(c)) for c in set(code) if c)
    return black, common - black


def test_feedback_matches_counting_by_hand():
    rng = np.random.default_rng(0)
    codes = mm.all_codes(6, 4)
    for _ in range(300):
        g = tuple(int(x) for x in rng.integers(0, 7, 4))  # blanks (0) included
        c = tuple(int(x) for x in codes[int(rng.integers(len(codes)))])
        assert mm.score(g, c, 6) == brute_score(g, c)


@pytest.mark.parametrize("colours,pegs,multiple", [(3, 2, True), (2, 3, True), (4, 2, True), (3, 3, True),
                                                   (4, 2, False), (4, 3, False)])
def test_small_games_are_played_in_the_exact_minimax_number_of_guesses(colours, pegs, multiple):
    codes = mm.all_codes(colours, pegs, multiple)
    lengths = []
    for code in codes:
        guesses = mm.play(tuple(int(x) for x in code), colours, pegs, multiple)
        assert guesses[-1] == tuple(int(x) for x in code)
        lengths.append(len(guesses))
    assert max(lengths) == mm.exact_minimax(colours, pegs, multiple)


def test_standard_game_within_knuths_five_guesses():
    codes = mm.all_codes(6, 4)
    for code in codes[::23]:
        guesses = mm.play(tuple(int(x) for x in code), 6, 4, True)
        assert guesses[-1] == tuple(int(x) for x in code) and len(guesses) <= 5


def test_tatham_ids_reveal_the_code_and_round_trip():
    task = get_task("kumo_gym/Guess-v0")
    for game_id, code in (("c6p4g10Bm:c4ddb96a", [2, 2, 6, 2]), ("c6p4g10Bm:0254ec2f", [6, 1, 2, 4])):
        inst = task.load(game_id)
        assert inst.data["code"] == code and task.to_game_id(inst) == game_id
    inst = task.load("c3p3g5bM:d64024")
    assert inst.data["blanks"] and not inst.data["multiple"] and task.to_game_id(inst) == "c3p3g5bM:d64024"
    for bad in ("c6p4g10Bm:c4dd", "c6p4g10Xm:c4ddb96a", "c6p4g10Bm:00000000", "c2p4g10BM:c4ddb96a"):
        with pytest.raises(ConfigError):
            task.load(bad)


def test_prompts_and_observations_never_show_the_code():
    import gymnasium as gym

    env = gym.make("kumo_gym/Guess-v0", mode="interactive", difficulty="normal")
    obs, _ = env.reset(seed=3)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    hidden = str(inst.data["code"])
    assert hidden not in obs and hidden not in task.prompt(inst)
    obs, *_ = env.step("[1, 1, 2, 2]" if inst.data["code"] != [1, 1, 2, 2] else "[3, 3, 4, 4]")
    assert hidden not in obs


@pytest.mark.parametrize("preset", ["trivial", "easy", "normal", "tatham_super"])
def test_the_example_guess_fits_the_instance_and_is_never_the_code(preset):
    """The interactive prompt and the verdict of an unreadable reply show a guess of the instance's
    own length that its rules accept (a 2-peg game was once shown ``[1, 1, 2, 2]``, which SmolLM2
    copied); it is never the code, so copying it never wins."""
    import gymnasium as gym

    env = gym.make("kumo_gym/Guess-v0", mode="interactive", difficulty=preset)
    task = env.unwrapped.task
    seen_code_like_default = False
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        inst = env.unwrapped.instance
        example = task.move_example_for(inst)
        move = task.parse_move(example)
        assert task.check_move(inst, task.initial_state(inst), move) is None, (preset, seed, example)
        assert move != inst.data["code"], (preset, seed)
        seen_code_like_default |= [1 + (i // 2) % inst.data["colours"] for i in range(inst.data["pegs"])] == \
            inst.data["code"] or list(range(1, inst.data["pegs"] + 1)) == inst.data["code"]
        assert f"e.g. {example}" in obs
        _, _, _, _, info = env.step("I'm ready to help. What's your next question?")
        message = info["verdict"]["message"] if isinstance(info["verdict"], dict) else info["verdict"].message
        assert f"e.g. {example}" in message and (inst.data["pegs"] == 4 or "[1, 1, 2, 2]" not in message)
    if preset == "trivial":  # 9 codes: some seed's code is the first-choice example, which is then moved
        assert seen_code_like_default


@pytest.mark.parametrize("env_id", ["kumo_gym/Guess-v0", "kumo_gym/Blackbox-v0"])
def test_the_step_budget_of_a_game_of_asking_does_not_depend_on_the_hidden_answer(env_id):
    """The reference player's question count depends on the hidden code or balls; an interactive budget
    built on it told the answer (Guess's trivial code that the reference names first got 2 steps, the
    others 4 to 8) and cut play short of the guess limit the prompt states."""
    import gymnasium as gym

    env = gym.make(env_id, mode="interactive", difficulty="trivial")
    budgets, lengths = set(), set()
    for seed in range(30):
        env.reset(seed=seed)
        task, inst = env.unwrapped.task, env.unwrapped.instance
        budgets.add(env.unwrapped.max_steps)
        lengths.add(task.optimal_steps(inst))
        assert env.unwrapped.max_steps >= task.question_limit(inst) == task.max_steps(inst) // 2
    assert len(lengths) > 1 and len(budgets) == 1, (lengths, budgets)


def test_the_closing_line_names_the_guesses_in_plain_english():
    """The answer prompt's closing line is built from the game's word for a move: Guess's plural is
    "guesses" (the first real-model run found "your guesss" in every Guess prompt)."""
    env = gym.make("kumo_gym/Guess-v0", difficulty="trivial")
    obs, _ = env.reset(seed=0)
    text = obs if isinstance(obs, str) else str(obs)
    assert "End your reply with your guesses on one line" in text
    assert "guesss" not in text
