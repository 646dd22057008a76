"""The real-model baseline's generation apart from the environments (``real_model.py --export-prompts``,
``benchmarks/offline_generate.py``, ``real_model.py --import-replies``): the rows it gives are the rows
a direct run gives, and replies to other prompts are refused."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kumo_gym.training.backends import model_path

ROOT = Path(__file__).resolve().parents[2]
BENCH = [sys.executable, str(ROOT / "benchmarks" / "real_model.py"), "--model", "tiny", "--envs", "Guess,Hanoi",
         "--episodes", "2", "--max-new", "12", "--batch", "4"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*args], check=False, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _rows(path: Path) -> list[dict]:
    drop = {"seconds", "wall_s", "cpu_s", "generated_on", "generation"}
    return [{k: v for k, v in r.items() if k not in drop} for r in json.loads(path.read_text())["rows"]]


@pytest.mark.slow
def test_replies_generated_apart_score_as_a_direct_run(tmp_path):
    direct, prompts, replies, imported = (tmp_path / n for n in ("direct.json", "p.json.gz", "r.json.gz", "i.json"))
    got = _run(*BENCH, "--out", str(direct), "--traces", str(tmp_path / "direct.traces.json"))
    assert got.returncode == 0, got.stderr[-2000:]
    got = _run(*BENCH, "--export-prompts", str(prompts), "--out", str(tmp_path / "unused.json"))
    assert got.returncode == 0, got.stderr[-2000:]
    assert not (tmp_path / "unused.json").exists()  # exporting generates nothing and writes no rows
    offline = [sys.executable, str(ROOT / "benchmarks" / "offline_generate.py"), str(prompts), str(replies),
               "--model", model_path("tiny"), "--device", "cpu", "--batch", "4"]
    # a run cut short (here: the first row only), then resumed: the rows it wrote are kept
    got = _run(*offline, "--rows", "1")
    assert got.returncode == 0, got.stderr[-2000:]
    with gzip.open(replies, "rt") as f:
        first = json.load(f)["rows"]
    assert len(first) == 1
    got = _run(*offline, "--resume")
    assert got.returncode == 0, got.stderr[-2000:]
    with gzip.open(replies, "rt") as f:
        rows = json.load(f)["rows"]
    with gzip.open(prompts, "rt") as f:
        exported = json.load(f)["rows"]
    assert len(exported) == 2 and len(rows) == 2 and rows[0] == first[0] and "1 rows kept" in got.stdout
    got = _run(*BENCH, "--import-replies", str(replies), "--out", str(imported),
               "--traces", str(tmp_path / "imported.traces.json"))
    assert got.returncode == 0, got.stderr[-2000:]
    assert _rows(imported) == _rows(direct)  # greedy: the same replies, the same verdicts
    assert json.loads((tmp_path / "imported.traces.json").read_text()) == \
        json.loads((tmp_path / "direct.traces.json").read_text())
    assert all("generated_on" in r for r in json.loads(imported.read_text())["rows"])

    # replies to other prompts (here: a row whose episodes give other prompts) are refused, not scored
    with gzip.open(replies, "rt") as f:
        data = json.load(f)
    data["rows"][0]["prompts_sha256"] = "0" * 64
    with gzip.open(replies, "wt") as f:
        json.dump(data, f)
    got = _run(*BENCH, "--import-replies", str(replies), "--out", str(tmp_path / "refused.json"))
    assert got.returncode != 0 and "no longer give the exported prompts" in got.stderr + got.stdout


def test_offline_generation_names_bad_inputs(tmp_path):
    script = [sys.executable, str(ROOT / "benchmarks" / "offline_generate.py")]
    got = _run(*script, str(tmp_path / "none.json.gz"), str(tmp_path / "r.json.gz"), "--model", str(tmp_path))
    assert got.returncode != 0 and "none.json.gz: no such file" in got.stderr
    other = tmp_path / "other.json.gz"
    with gzip.open(other, "wt") as f:
        json.dump({"rows": []}, f)
    got = _run(*script, str(other), str(tmp_path / "r.json.gz"), "--model", str(tmp_path / "nowhere"))
    assert got.returncode != 0 and "has no 'eos', 'pad'" in got.stderr
    with gzip.open(other, "wt") as f:
        json.dump({"rows": [], "eos": 0, "pad": 0}, f)
    got = _run(*script, str(other), str(tmp_path / "r.json.gz"), "--model", str(tmp_path / "nowhere"))
    assert got.returncode != 0 and "no such folder" in got.stderr
    assert not (tmp_path / "r.json.gz").exists()
