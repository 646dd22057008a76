"""Registry-wide: a prompt never holds a valid answer to its own instance, and it teaches the format.

Every registered environment, every preset and a range of seeds: neither the golden answer nor any
other text in the prompt scores as solved when it is read as a reply (the whole prompt, each line,
and each tail of it from a line on, so that a worked example or a format example that happens to
answer the drawn instance is found). The planning ``paper`` preset keeps the paper's prompt: where its
worked example answers the instance, ``info["example_is_instance"]`` says so. Answer prompts end with
the answer format, after the instance.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.registry import get_task
from tests.registry_helpers import ENTRIES, FAMILY

SEEDS = range(4)
#: presets whose instances take seconds each to draw get fewer seeds (the largest grids, SPaRC's last
#: levels); every preset is still drawn
HEAVY = {"hard": 1, "normal": 2, "5": 1, "level5": 1, "4": 2, "level4": 2}
CASES = [(e.id, d) for e in ENTRIES if "answer" in e.modes
         for d in (list(get_task(e.id).difficulties) or [None])]


def _windows(prompt: str):
    """The prompt, each of its lines and each tail of it starting at a line."""
    lines = prompt.splitlines()
    yield prompt
    for i in range(len(lines)):
        yield lines[i]
        if i:
            yield "\n".join(lines[i:])


def _instances(task, difficulty):
    kw = {} if difficulty is None else {"difficulty": difficulty}
    params = task.resolve_params(**kw)
    for s in list(SEEDS)[:HEAVY.get(str(difficulty), len(SEEDS))]:
        yield s, task.generate(np.random.default_rng(s), **params)


def _squeeze(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("env_id,difficulty", CASES, ids=[f"{e.split('/')[-1]}-{d}" for e, d in CASES])
def test_no_prompt_holds_an_answer_to_its_own_instance(env_id, difficulty):
    task = get_task(env_id)
    for seed, inst in _instances(task, difficulty):
        prompt = task.prompt(inst)
        if difficulty == "paper" and FAMILY[env_id] == "planning" and task.example_answers(
                inst, task.example_for(inst)[1]):
            continue  # the paper's own prompt, flagged in info (test below)
        answer = task.solve(inst)
        gold = task.format_answer(answer)
        # a choice ("A" or "B") is a line of the option list itself: there the whole prompt and the
        # lines that say how to answer must choose nothing
        choice = isinstance(answer, str) and len(answer) <= 2
        if not choice:
            assert _squeeze(gold) not in _squeeze(prompt), (env_id, difficulty, seed, "golden answer in the prompt")
        windows = [prompt, *(ln for ln in prompt.splitlines() if "answer" in ln.lower())] if choice \
            else _windows(prompt)
        for text in windows:
            v = task.score(inst, text)
            assert not v.solved, (env_id, difficulty, seed, "this part of the prompt scores as solved", text[:300])


#: planning puzzles whose paper example is the canonical instance of this size
PAPER_EXAMPLE_SIZE = {"kumo_gym/Hanoi-v0": 3, "kumo_gym/CheckerJumping-v0": 1, "kumo_gym/RiverCrossing-v0": 2}


@pytest.mark.parametrize("env_id", sorted(PAPER_EXAMPLE_SIZE))
def test_paper_preset_keeps_its_example_and_says_when_it_is_the_instance(env_id):
    import gymnasium as gym

    task, n = get_task(env_id), PAPER_EXAMPLE_SIZE[env_id]
    paper_env, easy_env = gym.make(env_id, difficulty="paper", n=n), gym.make(env_id, difficulty="easy", n=n)
    _, paper_info = paper_env.reset(seed=0)
    _, easy_info = easy_env.reset(seed=0)
    paper, easy = paper_env.unwrapped.instance, easy_env.unwrapped.instance
    assert paper.data == easy.data  # the same puzzle: the prompt alone differs
    desc, sol = task.example()
    assert task.example_answers(paper, sol)
    assert desc in task.prompt(paper) and paper_info["example_is_instance"] is True
    assert desc not in task.prompt(easy) and easy_info["example_is_instance"] is False
    assert not task.example_answers(easy, task.example_for(easy)[1])


@pytest.mark.parametrize("env_id", [e.id for e in ENTRIES if "answer" in e.modes])
def test_answer_prompt_ends_with_the_format_after_the_instance(env_id):
    """The prompt's last part says what to write (the model otherwise continues the instance's text)."""
    task = get_task(env_id)
    _, inst = next(_instances(task, (list(task.difficulties) or [None])[0]))
    prompt = task.prompt(inst).rstrip()
    tail = prompt[-400:].lower()
    assert any(w in tail for w in ("end your reply", "answer format", "finish your reply", "write `####`",
                                             "each move on its own line")), \
        (env_id, prompt[-400:])
    last_line = prompt.splitlines()[-1]
    form = getattr(task, "answer_format", None)
    ends_with_form = isinstance(form, str) and last_line.endswith(form)
    assert not prompt.endswith(("}", "]]")) or ends_with_form or "would be written" in prompt[-200:] \
        or "example" in tail, (env_id, prompt[-200:])


INTERACTIVE_CASES = [(e.id, d) for e in ENTRIES if "interactive" in e.modes and "answer" in e.modes
                     for d in (list(get_task(e.id).difficulties) or [None])]


@pytest.mark.parametrize("env_id,difficulty", INTERACTIVE_CASES,
                         ids=[f"{e.split('/')[-1]}-{d}" for e, d in INTERACTIVE_CASES])
def test_no_line_of_an_interactive_prompt_wins_as_the_first_move(env_id, difficulty):
    """Interactive play: a line of the first observation's prompt (its move example above all) sent back
    as the first move never solves the instance; and a planning puzzle's or game's example is a legal
    first move of this very instance (Hanoi with one disk was once shown ``[1, 0, 2]``, its solution, and
    Guess's 2-peg games a 4-peg guess)."""
    from kumo_gym.core.errors import ParseError
    from kumo_gym.envs.planning.base import PlanningTask

    task = get_task(env_id)
    for seed, inst in _instances(task, difficulty):
        prompt, start = task.interactive_prompt(inst), task.initial_state(inst)
        for line in prompt.splitlines():
            try:
                move = task.parse_move(line)
            except (ParseError, ValueError, TypeError):
                continue
            t = task.transition(inst, start, move)
            assert t.status != "solved", (env_id, difficulty, seed, "this prompt line wins at once", line[:200])
        if isinstance(task, PlanningTask):
            example = task.move_example_for(inst)
            assert f"e.g. {example}" in prompt, (env_id, difficulty, seed)
            move = task.parse_move(example)
            assert task.check_move(inst, start, move) is None, (env_id, difficulty, seed, example)
            assert not task.is_goal(inst, task.apply(inst, start, move)), (env_id, difficulty, seed, example)


@pytest.mark.parametrize("env_id", ["kumo_gym/Hanoi-v0", "kumo_gym/RiverCrossing-v0", "kumo_gym/CheckerJumping-v0"])
def test_the_move_example_of_a_one_move_puzzle_is_not_its_solution(env_id):
    """The smallest planning puzzles are solved by one move, often the class's own example (one disk
    from peg 0 to peg 2; one pair crossing together): there the prompt shows another legal move."""
    import gymnasium as gym

    env = gym.make(env_id, mode="interactive", difficulty="easy", n=1)
    obs, _ = env.reset(seed=0)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    example = task.move_example_for(inst)
    assert f"e.g. {example}" in obs
    _, _, terminated, _, info = env.step(example)
    assert info["verdict"]["status"] != "solved" and not terminated, (env_id, example)
    assert info["verdict"]["status"] != "illegal_move", (env_id, example, info["verdict"])
