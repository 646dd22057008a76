"""Registry-wide differential tests: each verifier against an independent statement of its rules.

Grid puzzles: the rule verifier against the SAT encoding (tests/differential.py): on small
instances of every registered grid puzzle the verifier accepts exactly the grids the encoding
accepts, up to the puzzle's declared answer equivalences. The smallest preset is checked in the
default run; the next preset, where answer spaces are larger and SAT-sampled answers reach more
rule instances, is marked slow.

A new grid puzzle is covered by registering it.
"""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid.base import GridTask

from .differential import answer_key, disagreements, encoding_answers, loop_variants
from .registry_helpers import IDS, difficulties, rng_for

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
    _check(env_id, 0, (0, 1))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", GRID_IDS)
def test_verifier_accepts_exactly_the_encodings_answers_larger(env_id):
    _check(env_id, 1, (0, 1))


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
