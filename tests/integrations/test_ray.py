"""``--ray``: the same output as the single-process run, byte for byte, with the same resume rules."""
from __future__ import annotations

import json
import os

import pytest

ray = pytest.importorskip("ray", reason="the [ray] extra (ray) is not installed")

from kumo_gym.cli import main
from kumo_gym.integrations import ray_runner


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # offline: no usage report
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture
def ray_tasks(local_ray, monkeypatch):
    """The names of the functions the runner submits as Ray tasks (proof that Ray did the work);
    chunks of at most 2 items, so the work is spread over several tasks."""
    calls: list[str] = []
    real = ray.remote

    class Counted:
        def __init__(self, fn):
            self.fn, self.task = fn, real(fn)

        def remote(self, *args):
            calls.append(self.fn.__name__)
            return self.task.remote(*args)

    monkeypatch.setattr(ray, "remote", Counted)
    monkeypatch.setattr(ray_runner, "MAX_CHUNK", 2)
    return calls


def _generate(out, *more):
    return main(["generate", "kumo_gym/Tents-v0", "--difficulty", "trivial", "--size", "9", "--seed", "5",
                 "--golden", "--quiet", "--out", str(out), *more])


def test_generate_ray_is_byte_identical_and_resumes(ray_tasks, tmp_path):
    assert _generate(tmp_path / "local.jsonl") == 0
    assert _generate(tmp_path / "ray.jsonl", "--ray") == 0
    assert ray_tasks == ["_record_chunk"] * 5  # 9 records in chunks of 2
    local = (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "ray.jsonl").read_bytes() == local
    # an interrupted run left 4 records (and a torn fifth) in OUT.partial: --ray finishes it identically
    lines = local.splitlines(keepends=True)
    (tmp_path / "resumed.jsonl.partial").write_bytes(b"".join(lines[:4]) + lines[4][:10])
    assert _generate(tmp_path / "resumed.jsonl", "--ray") == 0
    assert (tmp_path / "resumed.jsonl").read_bytes() == local
    # a shard with --ray is the same slice as the shard without it
    assert _generate(tmp_path / "s.jsonl", "--shard", "1/2") == 0
    assert _generate(tmp_path / "s-ray.jsonl", "--shard", "1/2", "--ray") == 0
    assert (tmp_path / "s-ray.jsonl").read_bytes() == (tmp_path / "s.jsonl").read_bytes()


def _traces(run_dir):
    """The trace file's bytes with each record's wall time (``seconds``) masked."""
    out = []
    for line in (run_dir / "traces.jsonl").read_bytes().splitlines():
        rec = json.loads(line)
        assert rec.pop("seconds") >= 0
        out.append(json.dumps(rec))
    return out


def _eval(out, *more):
    return main(["eval", "kumo_gym/Hanoi-v0", "kumo_gym/KUMO-v0", "--difficulty", "easy", "--agent", "oracle",
                 "--size", "3", "--samples", "2", "--no-plots", "--quiet", "--out", str(out), *more])


def test_eval_ray_matches_the_local_run_and_resumes(ray_tasks, tmp_path, capsys):
    assert _eval(tmp_path / "local") == 0
    assert _eval(tmp_path / "ray", "--ray") == 0
    local = _traces(tmp_path / "local")
    assert len(local) == 12 and _traces(tmp_path / "ray") == local
    tables = [json.loads((tmp_path / d / "results.json").read_text()) for d in ("local", "ray")]
    assert tables[0]["by_env"] == tables[1]["by_env"]
    assert all(r["success"] == 1.0 for r in tables[0]["by_env"])
    # resume: a run cut after 5 episodes keeps them and plays only the other 7, on Ray
    cut = tmp_path / "cut"
    cut.mkdir()
    head = (tmp_path / "local" / "traces.jsonl").read_bytes().splitlines(keepends=True)[:5]
    (cut / "traces.jsonl").write_bytes(b"".join(head))
    (cut / "config.json").write_bytes((tmp_path / "local" / "config.json").read_bytes())
    capsys.readouterr()
    assert _eval(cut, "--ray", "--resume", str(cut)) == 0
    assert _traces(cut) == local
    assert "resuming: 5 finished episode(s)" in capsys.readouterr().out
    # 6 jobs (an instance and its 2 samples) one per task on 2 CPUs, then the 4 jobs with episodes left
    assert ray_tasks == ["_episode_chunk"] * (6 + 4)


def test_ray_flag_refused_where_it_does_not_apply(tmp_path):
    with pytest.raises(SystemExit, match="--ray writes one environment's JSONL"):
        main(["generate", "kumo_gym/Tents-v0", "--size", "2", "--ray", "--format", "datasets",
              "--out", str(tmp_path / "d")])
