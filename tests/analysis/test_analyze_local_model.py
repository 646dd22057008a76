"""``kumo-gym analyze --model`` with a local model (no server): the LLM stages run on it."""
from __future__ import annotations

import json

import pytest


def test_analyze_runs_the_model_stages_on_a_local_model(tmp_path, tents_record):
    pytest.importorskip("transformers")
    from kumo_gym.cli import main
    from kumo_gym.training.backends import tiny_model

    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps(tents_record) + "\n")
    out = tmp_path / "out"
    assert main(["analyze", str(traces), "--out", str(out), "--model", tiny_model(), "--device", "cpu",
                 "--max-tokens", "4", "--no-plots", "--no-progress"]) == 0
    (graph,) = sorted((out / "graphs").glob("*.json"))
    doc = json.loads(graph.read_text())
    # the model was asked (and its unusable four-token replies were counted, not trusted)
    assert doc["counters"]["complete"]["calls"] >= 1
    assert doc["metrics"]["V_raw"] == len(doc["claims"])
    # without --model the same file is analysed with no model calls
    assert main(["analyze", str(traces), "--out", str(tmp_path / "det"), "--no-plots", "--no-progress"]) == 0
    (det,) = sorted((tmp_path / "det" / "graphs").glob("*.json"))
    assert not json.loads(det.read_text()).get("counters", {}).get("complete", {}).get("calls")


def test_analyze_names_a_missing_local_model(tmp_path, tents_record, capsys):
    from kumo_gym.cli import main

    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps(tents_record) + "\n")
    assert main(["analyze", str(traces), "--out", str(tmp_path / "o"), "--model", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "nowhere" in err and "smollm2" in err
    assert main(["analyze", str(traces), "--out", str(tmp_path / "o"), "--model", "tiny", "--max-tokens", "0"]) == 2
