"""Metrics (docs/specs/sparc.md §12) and the ``kumo-gym sparc`` commands."""
from __future__ import annotations

import itertools
import json
import random

import pytest

from kumo_gym.analysis.sparc import pass_at_k, pass_at_k_brute, summarize
from kumo_gym.cli import main
from kumo_gym.envs.sparc.task import SparcTask

from .conftest import stored_paths


def test_pass_at_k_equals_brute_force():
    rnd = random.Random(0)
    for _ in range(300):
        n = rnd.randint(1, 9)
        k = rnd.randint(1, n)
        outcomes = [rnd.random() < 0.3 for _ in range(n)]
        assert pass_at_k(n, sum(outcomes), k) == pytest.approx(pass_at_k_brute(outcomes, k), abs=1e-12)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_summary_rates(ref_records):
    task = SparcTask()
    rows = []
    for r, bad in itertools.product(ref_records[:10], (False, True)):
        inst = task.load(r)
        path = stored_paths(r)[0]
        text = task.format_answer(path[:-2] + [path[-1]] if bad else path)
        rows.append({"instance": inst, "verdict": task.score(inst, text)})
    s = summarize(rows, ks=(1, 2))
    assert s["accuracy"] == 0.5
    assert s["pass_at_k"]["2"] == 1.0 and s["pass_at_k"]["1"] == 0.5
    assert s["path_error_rates"]["disconnected"] == 0.5 and s["path_error_rates"]["invalid_path"] == 0.5
    assert s["valid_paths"] == 10 and all(v == 0 for v in s["rule_violation_rates"].values())
    assert sum(d["n"] for d in s["by_level"].values()) == 20


def test_cli_solve_render_generate_evaluate(tmp_path, reference, ref_records, capsys):
    recs = tmp_path / "few.jsonl"
    recs.write_text("\n".join(json.dumps(r) for r in ref_records[:4]) + "\n")
    assert main(["sparc", "solve", str(recs)]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    png = tmp_path / "p.png"
    assert main(["sparc", "render", str(recs), "--index", "1", "--solution", "0", "--png", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    gen = tmp_path / "gen.jsonl"
    assert main(["sparc", "generate", "--n", "3", "--level", "2", "--out", str(gen)]) == 0
    lines = gen.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(x)["difficulty_level"] == 2 for x in lines)
    assert main(["sparc", "solve", str(gen)]) == 0
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(json.dumps({"id": r["id"], "completion": SparcTask().format_answer(stored_paths(r)[0])})
                                 for r in ref_records[:4]))
    assert main(["sparc", "evaluate", str(recs), str(answers), "--json", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text())["accuracy"] == 1.0
