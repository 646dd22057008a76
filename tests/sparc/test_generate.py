"""Generator (docs/specs/sparc.md §9): solvable with at most k solutions, valid records, difficulty levels."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.sparc.difficulty import difficulty_score
from kumo_gym.envs.sparc.generate import RULE_SETS, RuleBalancer, generate
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.rules import check_path
from kumo_gym.envs.sparc.search import enumerate_solutions


def _check_record(rec, k=50):
    p = SparcPuzzle.from_record(json.loads(json.dumps(rec)))  # valid tokens, shapes, YAML
    assert p.yaml_mismatches(rec["text_visualization"]) == []
    res = enumerate_solutions(p, cap=k)
    assert 1 <= res.count <= k and not res.capped
    assert res.solutions == [[(d["x"], d["y"]) for d in s["path"]] for s in rec["solutions"]]
    assert rec["solution_count"] == res.count
    assert all(check_path(p, s).solved for s in res.solutions)
    score, level = difficulty_score(p)
    assert rec["difficulty_score"] == score and rec["difficulty_level"] == level
    for sid, arr in json.loads(rec["polyshapes"]).items():  # our ids decode consistently (bits 4x + y)
        assert int(sid) == sum(1 << (4 * x + y) for y, row in enumerate(arr) for x, v in enumerate(row) if v)
    return p


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5])
def test_levels_are_hit_and_puzzles_are_valid(level):
    rng = np.random.default_rng(level)
    for _ in range(6):
        g = generate(rng, level=level)
        assert g.level == level
        _check_record(g.record())


@pytest.mark.parametrize("rule_set", sorted(RULE_SETS))
def test_rule_sets_use_only_their_types(rule_set):
    rng = np.random.default_rng(7)
    for _ in range(2):
        g = generate(rng, rules=rule_set, width=3, height=3)
        p = _check_record(g.record())
        if RULE_SETS[rule_set] is not None:
            assert p.rule_types() == set(RULE_SETS[rule_set])


def test_uniform_sampler_and_sizes():
    rng = np.random.default_rng(3)
    for w, h in [(2, 2), (2, 6), (4, 3)]:
        g = generate(rng, width=w, height=h, sampler="uniform")
        p = _check_record(g.record())
        assert (p.width, p.height) == (w, h)


def test_generation_is_deterministic():
    a = generate(np.random.default_rng(11), level=3).record()
    b = generate(np.random.default_rng(11), level=3).record()
    assert a == b


def test_generation_does_not_depend_on_the_hash_seed():
    """The same generator state gives the same puzzles in processes with different hash seeds
    (stars pick colours from sets of strings: their order must not follow the hash seed)."""
    code = ("import numpy as np\n"
            "from kumo_gym.envs.sparc.generate import generate\n"
            "rng = np.random.default_rng(2005)\n"
            "print(' '.join(generate(rng, level=5).puzzle.fingerprint() for _ in range(4)))\n")
    root = Path(__file__).resolve().parents[2]
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False)
        assert res.returncode == 0, res.stderr[-2000:]
        outs.append(res.stdout.split())
    rng = np.random.default_rng(2005)
    here = [generate(rng, level=5).puzzle.fingerprint() for _ in range(4)]
    assert outs[0] == outs[1] == here


def test_balancer_counts_and_forbidden_fingerprints():
    bal = RuleBalancer()
    rng = np.random.default_rng(5)
    g = generate(rng, width=2, height=2, balancer=bal)
    assert sum(bal.counts.values()) == len(g.puzzle.rule_types())
    with pytest.raises(ConfigError):
        generate(np.random.default_rng(5), width=2, height=2, rules="gaps", forbidden=_all_fingerprints(),
                 max_attempts=3)


def _all_fingerprints():
    class Everything:
        def __contains__(self, item):
            return True

    return Everything()


@pytest.mark.parametrize("kwargs,msg", [({"width": 7}, "width 7"), ({"rules": "nope"}, "rules 'nope'"),
                                        ({"level": 9}, "level 9"), ({"rules": ["ylop"]}, "needs 'poly'"),
                                        ({"sampler": "x"}, "sampler 'x'")])
def test_bad_parameters_name_the_value(kwargs, msg):
    with pytest.raises(ConfigError, match=msg):
        generate(np.random.default_rng(0), **kwargs)
