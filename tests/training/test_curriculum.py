"""Weighted mixtures of environments and the success-driven difficulty curriculum."""
from __future__ import annotations

import json
from collections import Counter

import pytest

import kumo_gym
from kumo_gym.core.errors import ConfigError
from kumo_gym.training.curriculum import Curriculum, LevelRule, Schedule
from kumo_gym.training.mixture import Mixture, make_mixture

MIX_YAML = """
seed: 3
size: 60
envs:
  - id: kumo_gym/Hanoi-v0
    weight: 3
    env_kwargs: {difficulty: easy}
  - id: Towers
    weight: 1
    difficulty: trivial
"""


def test_mixture_from_yaml_weights_and_rows(tmp_path):
    path = tmp_path / "mix.yaml"
    path.write_text(MIX_YAML)
    recs = make_mixture(str(path))
    assert len(recs) == 60
    counts = Counter(r["env_id"] for r in recs)
    assert counts["kumo_gym/Hanoi-v0"] > 2 * counts["kumo_gym/Towers-v0"] > 0  # weight 3 : 1
    assert recs == make_mixture(str(path))  # the same rows in any run
    # within an environment the rows are make_dataset's, in order
    towers = [r["instance_id"] for r in recs if r["env_id"] == "kumo_gym/Towers-v0"]
    assert towers == [r["instance_id"] for r in kumo_gym.make_dataset("kumo_gym/Towers-v0", len(towers), seed=3,
                                                                     difficulty="trivial")]
    assert {r["mixture_entry"] for r in recs} == {"Hanoi(difficulty=easy)", "Towers(difficulty=trivial)"}
    ds = make_mixture(str(path), size=8, format="datasets")
    assert len(ds) == 8 and json.loads(ds[0]["instance"])["family"] and "extra" in ds.column_names


def test_mixture_errors_name_the_problem(tmp_path):
    with pytest.raises(ConfigError, match="weight"):
        Mixture([{"id": "Hanoi", "weight": -1}])
    with pytest.raises(ConfigError, match="needs an 'id'"):
        Mixture([{"weight": 1}])
    with pytest.raises(ConfigError, match="difficulty 'impossible'"):
        Mixture([{"id": "Hanoi", "difficulty": "impossible"}])
    with pytest.raises(ConfigError, match="not one of: envs"):
        Mixture.from_config({"envs": [{"id": "Hanoi"}], "sizes": 3})
    with pytest.raises(ConfigError, match="does not exist"):
        Mixture.from_config(str(tmp_path / "none.yaml"))


def _schedule(**rule) -> Schedule:
    return Schedule("e", [{"difficulty": d} for d in "abc"], list("abc"), LevelRule(**rule))


def test_schedule_promotes_demotes_and_ignores_stale_levels():
    s = _schedule(window=4, promote_at=0.75, demote_at=0.25)
    assert [s.observe(0, x) for x in (True, True, False)] == [None] * 3  # fewer than min_episodes
    assert s.observe(0, True) == "promote" and s.level == 1 and not s.recent  # 3/4 >= 0.75; window emptied
    assert s.observe(0, True) is None and not s.recent  # an episode from before the change is not counted
    assert [s.observe(1, x) for x in (False, False, False, True)] == [None, None, None, "demote"]  # 1/4 <= 0.25
    assert s.level == 0
    for _ in range(4):
        s.observe(0, True)
    for _ in range(4):
        s.observe(1, True)
    assert s.level == 2
    assert all(s.observe(2, True) is None for _ in range(8)) and s.level == 2  # the top stays the top
    never_down = _schedule(window=2, promote_at=1.0, demote_at=None)
    assert [never_down.observe(0, False) for _ in range(6)] == [None] * 6
    # a sliding window: the decision looks at the last `window` episodes only
    s = _schedule(window=4, promote_at=0.75, min_episodes=4)
    for x in (False, False, False, True, True, True):
        event = s.observe(0, x)
    assert event == "promote"


def test_curriculum_config_and_errors():
    cur = Curriculum.from_config({"window": 8, "promote_at": 0.5, "envs": {
        "Hanoi": [{"n": 1}, {"n": 2}, "n3"],
        "kumo_gym/Towers-v0": {"levels": ["trivial", "easy"], "promote_at": 0.9, "start": "easy",
                               "env_kwargs": {"mode": "interactive"}}}})
    assert cur.level_kwargs("kumo_gym/Hanoi-v0") == {"n": 1}
    assert cur.level_kwargs("kumo_gym/Towers-v0") == {"mode": "interactive", "difficulty": "easy"}
    assert cur.schedules["kumo_gym/Towers-v0"].rule.promote_at == 0.9
    assert cur.schedules["kumo_gym/Hanoi-v0"].rule.window == 8
    with pytest.raises(ConfigError, match="between 0 and 1"):
        Curriculum({"Hanoi": ["n3"]}, promote_at=1.5)
    with pytest.raises(ConfigError, match="below promote_at"):
        Curriculum({"Hanoi": ["n3"]}, promote_at=0.5, demote_at=0.6)
    with pytest.raises(ConfigError, match="difficulty 'n99'"):
        Curriculum({"Hanoi": ["n3", "n99"]})
    with pytest.raises(ConfigError, match="levels"):
        Curriculum({"Hanoi": {"window": 3}})
    with pytest.raises(ConfigError, match="parameters belong to the levels"):
        Curriculum({"Hanoi": {"levels": ["n3"], "env_kwargs": {"n": 4}}})
    with pytest.raises(ConfigError, match="not one of: levels"):
        Curriculum({"Hanoi": {"levels": ["n3"], "promote": 0.5}})


def test_curriculum_rows_follow_the_current_level():
    cur = Curriculum({"Hanoi": [{"n": 1}, {"n": 2}]}, window=2, promote_at=0.5)
    ds = cur.dataset(size=6, split="train", seed=0)
    assert len(ds) == 6 and {r["curriculum_level"] for r in ds} == {0}
    assert {json.loads(r["instance"])["params"]["n"] for r in ds} == {1}
    reward = cur.wrap(kumo_gym.reward_function())
    rows = ds[0:2]
    solved = [json.loads(r)["data"] for r in rows["instance"]]  # n=1: one golden move
    golden = ["moves = [[1, 0, 2]]"] * 2
    out = reward(prompts=rows["prompt"], completions=golden, **{k: rows[k] for k in rows if k != "prompt"})
    assert out == [1.0, 1.0] and solved
    assert cur.level("kumo_gym/Hanoi-v0") == 0  # reports wait for the end of the optimizer step
    assert cur.apply(step=1) and cur.level("kumo_gym/Hanoi-v0") == 1
    assert {json.loads(r["instance"])["params"]["n"] for r in ds} == {2}  # the same rows, read again
    assert cur.history[0]["event"] == "promote" and cur.history[0]["to"] == "n=2"


@pytest.mark.slow
def test_grpo_with_curriculum_and_mixture_moves_levels(reach, tiny, tmp_path):
    from kumo_gym.training.grpo import train_grpo

    cur = Curriculum({reach: ["easy", "hard"]}, window=4, promote_at=0.0)  # promote after 4 episodes
    trainer = train_grpo([], curriculum=cur, mixture={"envs": [{"id": reach, "weight": 1}]}, model=str(tiny), size=16,
                         output_dir=str(tmp_path), max_steps=4, num_generations=2, prompts_per_step=2,
                         max_completion_length=6, save=False, reward_weights={"binary": 1.0})
    assert cur.level(reach) == 1 and cur.history[0]["step"] >= 1
    keys = {k for h in trainer.state.log_history for k in h}
    assert "curriculum/Reach/level" in keys
    levels = [h["curriculum/Reach/level"] for h in trainer.state.log_history if "curriculum/Reach/level" in h]
    assert levels[0] == 0 and levels[-1] == 1
    assert trainer.train_dataset[0]["curriculum_level"] == 1  # rows are now made at the new level
    assert json.loads(trainer.train_dataset[0]["instance"])["params"]["lo"] == 20
