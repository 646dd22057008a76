"""The evaluation harness: agents on every environment, tables, sharding, pass@k, and resume after a kill."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kumo_gym.analysis.results import pass_at_k
from kumo_gym.core.registry import entries
from kumo_gym.training.agents import OracleAgent, RandomAgent, make_agent
from kumo_gym.training.evaluate import Evaluator, evaluate, make_specs
from kumo_gym.wrappers.trace import read_traces

from .test_backends import Scripted

REPO = Path(__file__).resolve().parents[2]


def test_pass_at_k():
    assert pass_at_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    assert pass_at_k(3, 2, 2) == 1.0


def test_make_agent_names_the_choices():
    with pytest.raises(ValueError, match="oracle, random"):
        make_agent("genius")


@pytest.mark.slow
def test_oracle_solves_every_registered_env_in_every_mode(reach, tmp_path):
    for e in entries():
        for mode in e.modes:
            summary = evaluate([e.id], OracleAgent(), tmp_path / e.name / mode, size=1, mode=mode, quiet=True,
                               plots=False)
            assert [row["success"] for row in summary["by_env"]] == [1.0], (e.id, mode, summary["by_env"])


def test_tables_files_and_random_baseline(reach, tmp_path):
    out = tmp_path / "run"
    evaluate([reach], OracleAgent(), out, size=4, difficulties=["easy", "hard"], quiet=True)
    summary = evaluate([reach], RandomAgent(seed=1), out, size=4, difficulties=["easy", "hard"], mode="interactive",
                       quiet=True)
    rows = {(r["model"], r["mode"], r["difficulty"]): r for r in summary["by_env"]}
    assert set(rows) == {("oracle", "answer", "easy"), ("oracle", "answer", "hard"),
                         ("random", "interactive", "easy"), ("random", "interactive", "hard")}
    for key, row in rows.items():
        assert row["episodes"] == 4 and row["optimal_steps"] > 0
        if key[0] == "oracle":
            assert row["success"] == 1.0
    random_hard = rows[("random", "interactive", "hard")]
    assert random_hard["steps"] >= random_hard["optimal_steps"]  # random play is never shorter than optimal
    assert {r["group"] for r in summary["by_family"]} == {"reach"}
    for name in ("results.json", "results.md", "accuracy_tokens.png", "traces.jsonl", "config.json"):
        assert (out / name).exists(), name
    assert "By family and difficulty" in (out / "results.md").read_text()
    saved = json.loads((out / "results.json").read_text())
    assert saved["episodes"] == 16


def test_samples_give_pass_at_k(reach, tmp_path):
    summary = evaluate([reach], Scripted(reasoning="let me think"), tmp_path, size=3, samples=3, quiet=True,
                       plots=False, model_name="scripted")
    (row,) = summary["by_env"]
    assert row["instances"] == 3 and row["episodes"] == 9
    assert row["pass@3"] == 0.0 and row["success"] == 0.0  # "answer 0 to ..." is never a solution
    assert row["parse_error"] + row["truncated"] + (1 - row["success"]) > 0
    # the trace keeps the reply text as the completion and the reasoning channel beside it
    rec = read_traces(tmp_path / "traces.jsonl")[0]
    assert rec["completion"].startswith("answer ") and rec["reasoning"] == "let me think"
    assert rec["replies"][0]["text"] == rec["completion"]


def test_shards_are_disjoint_and_cover(reach, tmp_path):
    whole = evaluate([reach], OracleAgent(), tmp_path / "whole", size=10, quiet=True, plots=False)
    for i in range(3):
        evaluate([reach], OracleAgent(), tmp_path / "sharded", size=10, shard=f"{i}/3", quiet=True, plots=False)
    files = sorted((tmp_path / "sharded").glob("traces-*-of-3.jsonl"))
    assert len(files) == 3
    keys = [[r["key"] for r in read_traces(f)] for f in files]
    assert all(keys) and not set(keys[0]) & set(keys[1]) and not set(keys[1]) & set(keys[2])
    assert sorted(k for ks in keys for k in ks) == sorted(r["key"] for r in read_traces(tmp_path / "whole" / "traces.jsonl"))
    from kumo_gym.training.evaluate import report

    merged = report(tmp_path / "sharded", plots=False, quiet=True)
    assert merged["episodes"] == whole["episodes"]


def _eval_command(url: str, out: Path, resume: bool = False) -> list[str]:
    boot = ("import sys; from tests.training.toyenv import install; install(); "
            "from kumo_gym.cli import main; sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", boot, "eval", "Reach", "--base-url", url, "--model", "scripted", "--size", "60",
            "--concurrency", "1", "--max-retries", "0", "--resume" if resume else "--out", str(out), "--quiet",
            "--no-plots"]


def test_resume_after_a_killed_run_loses_nothing(reach, tmp_path, capsys):
    from kumo_gym.training.backends import serve_openai

    server = serve_openai(Scripted(hold=0.04))
    try:
        out = tmp_path / "run"
        env = dict(os.environ, PYTHONPATH=str(REPO))
        proc = subprocess.Popen(_eval_command(server.url, out), cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        traces = out / "traces.jsonl"
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            if traces.exists() and len(read_traces(traces)) >= 5:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL, "the run ended before it could be interrupted"
        before_text = traces.read_text()
        before = read_traces(traces)
        assert 5 <= len(before) < 60

        # the reruns run in this process (the kill needed a process of its own; they do not)
        from kumo_gym.cli import main

        capsys.readouterr()
        with pytest.raises(SystemExit) as again:
            main(_eval_command(server.url, out)[3:])
        assert f"--resume {out}" in str(again.value.code)  # never mixed in silently
        assert main(_eval_command(server.url, out, resume=True)[3:]) == 0
        done = capsys.readouterr()
        assert f"resuming: {len(before)} finished" in done.err + done.out
        after = read_traces(traces)
        # nothing lost: the earlier episodes are still there, untouched, at the start of the file
        assert traces.read_text().startswith(before_text.rstrip("\n").rsplit("\n", 1)[0])
        assert [r["key"] for r in after[:len(before)]] == [r["key"] for r in before]
        # nothing repeated, and the result is the full run
        keys = [r["key"] for r in after]
        assert len(keys) == len(set(keys))
        planned = Evaluator(Scripted(), tmp_path / "plan", model_name="scripted").jobs(make_specs([reach]), 60, 1,
                                                                                       None, set())
        assert set(keys) == {k for job in planned for _, k in job.samples}
    finally:
        server.shutdown()
        server.server_close()
