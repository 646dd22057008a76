"""One calling convention: the item count is ``size``/``--size``, environment parameters travel whole
as ``env_kwargs``/``--env-kwargs``, in Python and on the command line, for every registered env."""
from __future__ import annotations

import json
import warnings

import pytest

import kumo_gym
from kumo_gym.cli import main
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import entries, get_task
from kumo_gym.wrappers.trace import read_traces

HANOI = "kumo_gym/Hanoi-v0"


def _params(rec) -> dict:
    return rec["instance"]["params"]


def test_count_and_size_parameter_never_collide():
    recs = kumo_gym.make_dataset(HANOI, 3, env_kwargs={"n": 4})
    assert len(recs) == 3 and all(_params(r)["n"] == 4 for r in recs)
    assert [i.params["n"] for i in kumo_gym.generate_instances(HANOI, size=2, env_kwargs={"n": 5})] == [5, 5]
    # the call: a count and Hanoi's n side by side (old spelling, still works, warns)
    with pytest.warns(DeprecationWarning, match="env_kwargs"):
        recs = kumo_gym.make_dataset(HANOI, 3, n=4)
    assert len(recs) == 3 and all(_params(r)["n"] == 4 for r in recs)
    # n= alone is the old spelling of the count
    with pytest.warns(DeprecationWarning, match="size="):
        assert len(kumo_gym.make_dataset(HANOI, n=2, difficulty="easy")) == 2
    with pytest.raises(ConfigError, match="size"):
        kumo_gym.make_dataset(HANOI, env_kwargs={"n": 3})
    with pytest.raises(ConfigError, match="twice"):
        kumo_gym.make_dataset(HANOI, 2, env_kwargs={"n": 3}, n=4)
    with pytest.raises(ConfigError, match="split="):
        kumo_gym.make_dataset(HANOI, 2, env_kwargs={"split": "test"})
    with pytest.raises(ConfigError, match="size 0"):
        kumo_gym.make_dataset(HANOI, 0)
    with pytest.raises(ConfigError, match="env_kwargs must be a dict"):
        kumo_gym.make_dataset(HANOI, 2, env_kwargs=[("n", 3)])


def test_score_takes_generation_metadata_only():
    rec = kumo_gym.make_dataset(HANOI, 1, env_kwargs={"n": 2}, with_golden=True)[0]
    assert kumo_gym.score(HANOI, rec["instance"], rec["golden"]).solved
    cut = kumo_gym.score(HANOI, rec["instance"], rec["golden"][:-6], finish_reason="length")
    assert cut.status == "truncated"
    with pytest.raises(TypeError):
        kumo_gym.score(HANOI, rec["instance"], rec["golden"], n=3)


def test_cli_size_and_env_kwargs(tmp_path, capsys):
    out = tmp_path / "h.jsonl"
    assert main(["generate", HANOI, "--size", "4", "--env-kwargs", "n=4", "--out", str(out), "--quiet"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and {_params(r)["n"] for r in rows} == {4}
    err = capsys.readouterr().err
    assert "only 1 distinct instance(s) among the 4 requested" in err  # Hanoi n=4 is one puzzle
    # the old spelling of the count keeps working, with a warning
    assert main(["generate", HANOI, "--n", "2", "--env-kwargs", "n=3", "--out", str(out), "--quiet"]) == 0
    assert "--n is deprecated" in capsys.readouterr().err
    assert [_params(json.loads(x))["n"] for x in out.read_text().splitlines()] == [3, 3]
    # a random puzzle family gives distinct puzzles and no warning
    assert main(["generate", "Towers", "--size", "3", "--difficulty", "easy", "--out", str(out), "--quiet"]) == 0
    assert "distinct" not in capsys.readouterr().err
    # eval: count and n side by side
    run = tmp_path / "eval"
    assert main(["eval", "--env", HANOI, "--env-kwargs", "n=3", "--size", "3", "--agent", "oracle", "--out",
                 str(run), "--quiet", "--no-plots"]) == 0
    recs = read_traces(run / "traces.jsonl")
    assert len(recs) == 3 and {r["instance"]["params"]["n"] for r in recs} == {3}


def test_cli_train_size_reaches_the_data_builder(trainer_calls, tmp_path):
    """``train --size`` is the number of training items per --env; ``n`` in a spec is Hanoi's."""
    from kumo_gym.training.evaluate import parse_env_spec

    seen = trainer_calls
    assert main(["train", "grpo", "--env", "Hanoi:n=3", "--size", "7", "--out", str(tmp_path), "--no-save"]) == 0
    assert seen["size"] == 7 and seen["envs"] == ["Hanoi:n=3"]
    spec = parse_env_spec("Hanoi:n=3")
    assert spec.kwargs == {"n": 3}


# ---- every registered env, each size parameter set -------------------------------------------
def size_settings(env_id: str) -> list[dict]:
    """env_kwargs that set each size parameter of ``env_id`` explicitly (no preset name).

    A parameter's value comes from the first (easiest) difficulty preset that sets it, with that
    preset's other values, so the combination is valid; parameters no preset sets take their
    declared ``Params`` default. Prompt options are left out (they are not size parameters).
    """
    task = get_task(env_id)
    prompt = set(task.prompt_option_names())
    names = [p for p in task.accepted_params() if p not in prompt]
    settings: list[dict] = []
    covered: set[str] = set()
    for name in names:
        if name in covered:
            continue
        preset = next((dict(v) for v in task.difficulties.values() if name in v), None)
        if preset is None and task.Params is not None:
            spec = next(s for s in task.Params.specs() if s.name == name)
            if spec.default is not None:
                preset = {name: spec.default}
        if preset is not None:
            settings.append(preset)
            covered |= set(preset)
    return settings


CASES = [(e.id, kw) for e in entries() if e.name != "Reach" for kw in size_settings(e.id)]


def test_every_env_with_size_parameters_has_cases():
    assert any(env_id == HANOI and "n" in kw for env_id, kw in CASES)
    assert {env_id for env_id, _ in CASES} >= {e.id for e in entries() if e.family in ("planning", "grid", "kumo")}


@pytest.mark.slow
@pytest.mark.parametrize("env_id,kw", CASES, ids=[f"{e.split('/')[-1]}-{'-'.join(kw)}" for e, kw in CASES])
def test_dataset_eval_and_generation_with_size_parameters(env_id, kw, tmp_path):
    """make_dataset, `kumo-gym generate` and `kumo-gym eval` with the size parameters in
    env_kwargs: the instances carry them, and the three agree on the instances."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # few distinct instances at a fixed size is fine here
        recs = kumo_gym.make_dataset(env_id, 2, split="validation", env_kwargs=kw)
    assert len(recs) == 2
    for r in recs:
        for k, v in kw.items():
            if k in _params(r):
                assert _params(r)[k] == v, (k, _params(r)[k], v)
        assert r["env_kwargs"] == kw and r["prompt"][-1]["role"] == "user"
    pairs = [f"{k}={json.dumps(v)}" for k, v in kw.items()]
    out = tmp_path / "gen.jsonl"
    assert main(["generate", env_id, "--size", "2", "--split", "validation", "--env-kwargs", *pairs,
                 "--out", str(out), "--quiet"]) == 0
    assert [json.loads(x)["instance_id"] for x in out.read_text().splitlines()] == [r["instance_id"] for r in recs]
    run = tmp_path / "eval"
    assert main(["eval", "--env", env_id, "--env-kwargs", *pairs, "--size", "1", "--split", "validation",
                 "--agent", "oracle", "--out", str(run), "--quiet", "--no-plots"]) == 0
    (rec,) = read_traces(run / "traces.jsonl")
    assert rec["instance_id"] == recs[0]["instance_id"]
    assert rec["verdict"]["status"] == "solved"


def test_reward_function_takes_a_kind_or_an_env_id():
    assert kumo_gym.reward_function("partial").__name__ == "puzzle_partial"  # the README's spelling
    assert kumo_gym.reward_function(HANOI, "format").__name__ == "puzzle_format"
    assert kumo_gym.reward_function("Hanoi").__name__ == "puzzle_binary"
    with pytest.raises(ConfigError, match="not one of"):
        kumo_gym.reward_function("kumo_gym/Nope-v0")


def test_eval_directories_one_run_each_shards_together(tmp_path, capsys):
    run = tmp_path / "run"
    base = ["eval", "--env", HANOI, "--env-kwargs", "n=2", "--agent", "oracle", "--quiet", "--no-plots"]
    for i in range(2):  # the shards of one split share a directory
        assert main([*base, "--size", "4", "--shard", f"{i}/2", "--out", str(run)]) == 0
    with pytest.raises(SystemExit, match="--resume"):
        main([*base, "--size", "4", "--shard", "0/2", "--out", str(run)])
    assert main([*base, "--size", "4", "--shard", "0/2", "--resume", str(run)]) == 0
    with pytest.raises(SystemExit, match="another evaluation run"):
        main([*base, "--size", "4", "--out", str(run)])  # an unsharded run would mix with the shards
    with pytest.raises(SystemExit, match="cannot resume"):
        main([*base[:-3], "random", "--quiet", "--no-plots", "--size", "4", "--shard", "1/2", "--resume", str(run)])
    assert main(["eval", "--report-only", "--out", str(run), "--no-plots"]) == 0
    assert json.loads((run / "results.json").read_text())["episodes"] == 4


def test_evaluate_and_trainers_name_the_count_size(tmp_path):
    from kumo_gym.training.agents import OracleAgent
    from kumo_gym.training.evaluate import evaluate

    s = evaluate([HANOI], OracleAgent(), tmp_path / "a", 2, env_kwargs={"n": 3}, quiet=True, plots=False)
    assert s["episodes"] == 2
    with pytest.warns(DeprecationWarning, match="size="):
        s = evaluate([HANOI], OracleAgent(), tmp_path / "b", n=3, env_kwargs={"n": 2}, quiet=True, plots=False)
    assert s["episodes"] == 3
    with pytest.raises(ConfigError, match="disagree"):
        evaluate([HANOI], OracleAgent(), tmp_path / "c", 2, n=3, quiet=True, plots=False)
