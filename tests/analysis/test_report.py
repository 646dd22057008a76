"""Statistics, pictures, the evaluation callback and ``kumo-gym analyze`` end to end."""
import json
import math

import numpy as np
import pytest

from kumo_gym.analysis.callback import graph_metrics, summarize
from kumo_gym.analysis.pipeline import analyse_trace
from kumo_gym.analysis.stats import accuracy_table, correlate, eta_by_size, jaccard, rows, stability, stability_table

from .conftest import TENTS_TRACE, write_trace_file


def test_correlate_matches_numpy_and_filters_eta_runs():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=40)
    runs = [{"model": "m" + str(i % 2), "tokens": float(x), "eta": float(2 * x + rng.normal() * 0.1),
             "solved": True, "eta_status": "ok"} for i, x in enumerate(xs)]
    runs.append({"model": "m0", "tokens": 100.0, "eta": 50.0, "solved": False, "eta_status": "unsolved"})
    runs.append({"model": "m0", "tokens": 100.0, "eta": None, "solved": True, "eta_status": "v_le_cstar"})
    res = correlate(runs, "tokens", "eta")
    assert res["n"] == 40
    usable = runs[:40]
    r = np.corrcoef([u["tokens"] for u in usable], [u["eta"] for u in usable])[0, 1]
    assert res["r"] == pytest.approx(r, abs=1e-12) and res["p"] < 1e-10
    assert set(res["fits"]) == {"m0", "m1"} and res["fits"]["m0"]["slope"] == pytest.approx(2, abs=0.2)
    # too few points or a constant variable: no r
    assert correlate(runs[:2], "tokens", "eta")["r"] is None
    assert correlate([dict(u, tokens=1.0) for u in usable], "tokens", "eta")["r"] is None


def test_stability_reports_table2_columns(tents_record):
    def analyse(rec, seed):
        # a different extraction per seed: drop one sentence's claims in odd runs
        doc = analyse_trace(rec)
        if seed % 2:
            doc["claims"] = [c for c in doc["claims"] if c["source_sents"][0] != 3]
        return doc

    res = stability(tents_record, analyse, runs=3)
    full = {(c["kind"], json.dumps(c["payload"], sort_keys=True)) for c in analyse_trace(tents_record)["claims"]}
    assert res["runs"] == 3 and res["jaccard_sd"] is not None
    assert 0 < res["jaccard_mean"] < 1 and res["H_str_sd"] == 0.0
    assert res["C_unique"] == pytest.approx((2 * len(full) + len(full) - 2) / 3)
    table = stability_table({"m": [res, res]})
    assert table[0]["model"] == "m" and table[0]["jaccard_mean"] == pytest.approx(res["jaccard_mean"])
    assert jaccard(set(), set()) == 1.0 and jaccard({1}, {2}) == 0.0


def test_tables():
    runs = [{"model": "a", "puzzle": "tents", "difficulty": "easy", "solved": True, "tokens": 10, "size": "4x4",
             "eta": 0.2, "eta_status": "ok"},
            {"model": "a", "puzzle": "tents", "difficulty": "easy", "solved": False, "tokens": 30, "size": "6x6",
             "eta": None, "eta_status": "unsolved"},
            {"model": "b", "puzzle": "tents", "difficulty": "easy", "solved": True, "tokens": 20, "size": "4x4",
             "eta": 0.4, "eta_status": "ok"}]
    acc = accuracy_table(runs)
    assert acc[0] == {"model": "a", "difficulty": "easy", "solved": 1, "total": 2, "accuracy": 0.5, "mean_tokens": 20}
    # model a misses the 6x6 size: only model b is plotted in Fig. 6
    assert eta_by_size(runs) == [{"model": "b", "puzzle": "tents", "size": "4x4", "n": 1, "eta_mean": 0.4}]


def test_callback_per_sample_metrics(tents_instance, solo_instance):
    out = graph_metrics([TENTS_TRACE, "garbage (((", TENTS_TRACE], [tents_instance, tents_instance.to_dict(), {"bad": 1}],
                        env_id="kumo_gym/Tents-v0")
    assert out[0]["solved"] is True and out[0]["eta_status"] == "ok" and 0 <= out[0]["eta"] <= 1
    assert out[1]["solved"] is False and out[1]["eta"] is None and out[1]["error"] is None
    assert out[2]["error"] and out[2]["eta"] is None
    summary = summarize(out)
    assert summary["graph/eta"] == pytest.approx(out[0]["eta"]) and summary["graph/errors"] == 1.0
    assert summary["graph/eta_defined"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        graph_metrics(["a"], [], env_id="kumo_gym/Tents-v0")


def test_draw_graph_writes_png(tmp_path, tents_record):
    pytest.importorskip("matplotlib")
    from kumo_gym.analysis.extract import graph_from_json
    from kumo_gym.analysis.plots import draw_graph, layered_positions, short_label

    doc = analyse_trace(tents_record)
    for which, hl in (("G", "sol"), ("G_raw", "ver"), ("G", None)):
        p = draw_graph(doc, tmp_path / f"{which}_{hl}.png", which=which, highlight=hl)
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        draw_graph(doc, tmp_path / "x.png", which="H")
    pos = layered_positions(graph_from_json(doc))
    assert len(pos) == len(doc["claims"]) and len(set(pos.values())) == len(pos)
    assert short_label("NotTent", {"r": 1, "c": 3}) == "~T(1,3)"
    assert short_label("Quota", {"axis": "ROW", "index": 1, "tents": 2}) == "Q(R1)=2"


def test_kumo_gym_analyze_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("scipy")
    from kumo_gym.cli import main

    traces = write_trace_file(tmp_path / "traces.jsonl", n_each=4)
    with open(traces, "a") as f:
        f.write(json.dumps({"env_id": "kumo_gym/Tents-v0", "completion": "no instance"}) + "\n")
    out = tmp_path / "out"
    assert main(["analyze", str(traces), "--out", str(out), "--max-graph-plots", "2"]) == 0
    lines = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(lines) == 8 and {r["puzzle"] for r in lines} == {"tents", "solo"}
    assert sum(1 for r in lines if r["solved"]) == 6
    assert all(r["eta"] is None for r in lines if not r["solved"])
    solved = [r for r in lines if r["solved"]]
    assert all(r["coverage"] == 1.0 and r["claim_accuracy"] == 1.0 for r in solved)
    assert all(r["eta_status"] in ("ok", "above_one") and r["eta"] >= 0 for r in solved)
    graphs = sorted((out / "graphs").glob("*.json"))
    assert len(graphs) == 8
    doc = json.loads(graphs[0].read_text())
    assert doc["schema"] == "kumo_gym.reasoning_graph/v1" and doc["claims"] and doc["edges"] is not None
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert sum(1 for p in pngs if p.startswith("graph_")) == 2
    assert "eta_vs_tokens.png" in pngs and "eta_vs_size.png" in pngs
    report = (out / "report.md").read_text()
    assert "Table 1" in report and "skipped: 1" in report and "verification profile: `default`" in report
    corr = json.loads((out / "correlations.json").read_text())
    assert len(corr) == 10 and all(math.isfinite(c["r"]) or c["r"] is None for c in corr if c["r"] is not None)
    rows_ = rows([doc])
    assert rows_[0]["V"] == doc["metrics"]["V"]


def test_analyze_rejects_bad_arguments(tmp_path, capsys):
    from kumo_gym.cli import main

    assert main(["analyze", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "t.jsonl").write_text("")
    assert main(["analyze", str(tmp_path / "t.jsonl"), "--out", str(tmp_path / "o"), "--base-url", "http://x"]) == 2


def test_analyze_never_writes_outside_out(tmp_path, tents_record):
    """A trace_id that is a path ("../../x", absolute, hidden, repeated) names a
    file inside --out/graphs, never outside it."""
    from kumo_gym.analysis.report import analyse_file, safe_name

    work = tmp_path / "deep" / "er"
    work.mkdir(parents=True)
    hostile = ["../../x", "/tmp/kumo_abs_escape", "..", "a/../../b", ".hidden", "", "x" * 500, "../../x",
               "C:\\windows\\evil", "sp ace/\x00nul"]
    traces = work / "t.jsonl"
    with open(traces, "w") as f:
        f.writelines(json.dumps(dict(tents_record, trace_id=tid)) + "\n" for tid in hostile)
    before = {p for p in tmp_path.rglob("*")}
    out = work / "out"
    summary = analyse_file(traces, out, plots=True, max_graph_plots=3)
    assert summary["analysed"] == len(hostile)
    after = {p for p in tmp_path.rglob("*")} - before
    assert after and all(out in p.parents or p == out for p in after), sorted(map(str, after - {out}))
    assert not (tmp_path / "x").exists() and not (tmp_path / "deep" / "x").exists()
    import os

    assert not os.path.exists("/tmp/kumo_abs_escape.json")
    graphs = sorted(p.name for p in (out / "graphs").iterdir())
    assert len(graphs) == len(hostile) and not any(g.startswith(".") for g in graphs)
    # two different ids never share a file; the same id twice gets two files
    used = set()
    names = [safe_name(t, used) for t in hostile]
    assert len(set(names)) == len(names) and all("/" not in n and "\\" not in n for n in names)


def test_analyze_groups_a_mixed_trace_file_by_family_and_puzzle(tmp_path):
    """A trace file mixing KUMO, SPaRC, FineReason, planning and grid episodes (answer and
    interactive) is analysed where a pack exists and skipped, counted with the reason, elsewhere;
    nothing is filed under a made-up puzzle, nothing fails."""
    from kumo_gym.analysis.report import analyse_file
    from kumo_gym.training.agents import OracleAgent, RandomAgent
    from kumo_gym.training.evaluate import Evaluator, make_specs

    ids = ["kumo_gym/KUMO-v0", "kumo_gym/SPaRC-v0", "kumo_gym/FineReasonStateChecking-v0", "kumo_gym/Hanoi-v0",
           "kumo_gym/Tents-v0", "kumo_gym/Lightup-v0"]
    specs = make_specs(ids) + make_specs(["kumo_gym/Tents-v0"], mode="interactive")
    run = tmp_path / "run"
    for agent in (OracleAgent(), RandomAgent(seed=0)):
        Evaluator(agent, run, model_name=agent.name, split="test", progress=False).run(specs, 1)
    traces = next(run.glob("traces*.jsonl"))
    summary = analyse_file(traces, tmp_path / "out", plots=False, progress=True)
    assert summary["records"] == 14 and summary["analysed"] == 4 and summary["skipped"] == 10
    reasons = summary["skipped_by_reason"]
    assert reasons["interactive episode without a reasoning text (only moves)"] == 2
    assert sum(v for k, v in reasons.items() if k.startswith("no reasoning-graph pack")) == 8
    rows_ = [json.loads(x) for x in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert {r["puzzle"] for r in rows_} == {"tents", "lightup"} and {r["family"] for r in rows_} == {"grid"}
    outcomes = [json.loads(x) for x in (tmp_path / "out" / "outcomes.jsonl").read_text().splitlines()]
    assert len(outcomes) == 14 and {o["family"] for o in outcomes} == {"kumo", "sparc", "finereason", "planning", "grid"}
    skipped = [json.loads(x) for x in (tmp_path / "out" / "skipped.jsonl").read_text().splitlines()]
    assert all(s["family"] and s["puzzle"] and s["reason"] for s in skipped)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "cells" not in report and "| kumo | kumo | 2 |" in report and "## Skipped episodes" in report


def test_family_mismatch_is_refused(tents_instance):
    """An instance of one family under another env id is never scored or labelled by the wrong rules."""
    out = graph_metrics([TENTS_TRACE], [tents_instance], env_id="kumo_gym/Solo-v0")
    assert out[0]["error"] and "expects 'solo'" in out[0]["error"] and out[0]["eta"] is None
    rec = {"env_id": "kumo_gym/Solo-v0", "instance": tents_instance.to_dict(), "completion": TENTS_TRACE}
    with pytest.raises(ValueError, match="expects 'solo'"):
        analyse_trace(rec)
    from kumo_gym.analysis.report import skip_reason

    assert "expects 'solo'" in skip_reason(rec)
