"""The exact KUMO oracle (docs/specs/kumo.md §9): the numba branch-and-bound search gives the
paper's values and actions, on every built-in and procedural domain, with no greedy fallback."""
from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from kumo_gym.envs.kumo.domain import builtin_domain_names, load_domain
from kumo_gym.envs.kumo.game import KumoTask, procedural_domain
from kumo_gym.envs.kumo.generate import generate_instance
from kumo_gym.envs.kumo.search import PLAIN_MAX_SIZE, OptimalSearch, oracle_play, oracle_tables

ENV = "kumo_gym/KUMO-v0"
TASK = KumoTask()
DOMAINS = builtin_domain_names()


def _agree_everywhere(data, rng, probes: int = 25):
    """numba == plain Python (the paper's algorithm as written), bit for bit, at the root, along the
    realised play, and at random sub-states (T, A) that exercise the memo's bounds out of order."""
    tab = oracle_tables(data)
    fast, plain = OptimalSearch(tab, backend="numba"), OptimalSearch(tab, backend="plain")
    assert fast.best() == plain.best()
    assert fast.play() == plain.play()
    for _ in range(probes):
        T = int(rng.integers(1, 1 << tab.n))
        A = int(rng.integers(0, 1 << tab.m))
        assert fast.best(T, A) == plain.best(T, A), (T, A)


def test_hard_preset_is_hard():
    inst = TASK.generate(np.random.default_rng(0), difficulty="hard")
    assert (len(inst.data["truths"]), len(inst.data["actions"])) == (12, 16)
    assert inst.params["n_truths"] == 12 and inst.params["difficulty"] == "hard"
    # explicit sizes still override the preset
    inst = TASK.generate(np.random.default_rng(0), difficulty="hard", n_truths=5)
    assert (len(inst.data["truths"]), len(inst.data["actions"])) == (5, 16)


@pytest.mark.parametrize("name", DOMAINS + ["procedural"])
def test_numba_search_equals_the_papers_search(name):
    domain = procedural_domain(1) if name == "procedural" else load_domain(name)
    rng = np.random.default_rng(7)
    for i, size in enumerate(((7, 9), (8, 8))):
        _agree_everywhere(generate_instance(domain, *size, np.random.default_rng([31, i])), rng)


@pytest.mark.slow
@pytest.mark.parametrize("name", DOMAINS)
def test_numba_search_equals_the_papers_search_larger(name):
    domain = load_domain(name)
    _agree_everywhere(generate_instance(domain, 9, 11, np.random.default_rng([32, 0])), np.random.default_rng(8))


@pytest.mark.parametrize("name", DOMAINS + ["procedural"])
def test_hard_resets_are_exact_without_fallback(name):
    domain = "procedural" if name == "procedural" else name
    env = gym.make(ENV, difficulty="hard", domain=domain)
    for seed in range(2):
        _, info = env.reset(seed=seed)
        assert info["oracle_optimal"] is True
        inst = env.unwrapped.instance
        traj = TASK.oracle(inst)
        assert traj.optimal and traj.predicted == inst.data["valid_truth"]
        assert info["optimal_steps"] == traj.tests


def test_memo_limit_still_falls_back_and_says_so():
    data = generate_instance(load_domain("insect_families"), 12, 16, np.random.default_rng(3))
    traj = oracle_play(data, memo_limit=10)
    assert not traj.optimal and traj.predicted == data["valid_truth"]
    assert oracle_play(data).optimal


def test_backends_and_choice():
    easy = TASK.generate(np.random.default_rng(1), difficulty="easy").data
    hard = TASK.generate(np.random.default_rng(1), difficulty="hard").data
    assert len(easy["truths"]) + len(easy["actions"]) <= PLAIN_MAX_SIZE
    assert OptimalSearch(oracle_tables(easy)).backend == "plain"
    assert OptimalSearch(oracle_tables(hard)).backend == "numba"
    with pytest.raises(ValueError):
        OptimalSearch(oracle_tables(easy), backend="fast")


def test_first_easy_reset_needs_no_numba():
    """Cold start: a process that plays the default Easy game never imports numba, so
    nothing is compiled; Hard imports it."""
    code = ("import sys, gymnasium as gym, kumo_gym\n"
            "env = gym.make('kumo_gym/KUMO-v0', difficulty=sys.argv[1]); env.reset(seed=0)\n"
            "print('numba' in sys.modules)\n")
    for diff, expected in (("easy", "False"), ("hard", "True")):
        out = subprocess.run([sys.executable, "-c", code, diff], capture_output=True, text=True, timeout=600,
                             check=False)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip().splitlines()[-1] == expected, diff
