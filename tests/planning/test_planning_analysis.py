"""Trace analysis of the planning puzzles (docs/specs/planning.md §7, §8.1) on synthetic traces."""
from __future__ import annotations

import itertools
import json

import pytest

from kumo_gym.analysis import planning as ap
from kumo_gym.core.registry import get_task

HANOI = get_task("kumo_gym/Hanoi-v0")
RIVER = get_task("kumo_gym/RiverCrossing-v0")


def chars(text: str) -> int:
    """A token counter that counts characters, so positions are exact in the tests."""
    return len(text)


def test_candidates_deduped_positioned_and_verified():
    inst = HANOI.load({"n": 2})
    wrong, right = "[[1, 0, 2], [2, 0, 2]]", "[[1, 0, 1], [2, 0, 2], [1, 1, 2]]"
    thinking = f"try {wrong} hmm. again {wrong}. maybe [1, 0, 2] alone. now {right} done"
    completion = f"<think>{thinking}</think>moves = {right}"
    out = ap.trace_candidates(HANOI, inst, completion, token_counter=chars)
    cands = out["candidates"]
    assert [c["correct"] for c in cands] == [False, True]  # the duplicate and the lone triple are dropped
    assert cands[0]["offset"] == thinking.index(wrong) and cands[1]["offset"] == thinking.index(right)
    assert cands[1]["rel_pos"] == pytest.approx(thinking.index(right) / len(thinking))
    assert cands[0]["first_failure_move"] == 2 and cands[0]["failure_reason"] == "larger_on_smaller"
    assert out["trace_source"] == "thinking" and out["thinking_tokens"] == len(thinking)


def test_trace_without_thinking_scans_the_answer():
    inst = HANOI.load({"n": 1})
    out = ap.trace_candidates(HANOI, inst, "moves = [[1, 0, 2]]", token_counter=chars)
    assert out["trace_source"] == "answer" and out["candidates"][0]["correct"]
    out = ap.trace_candidates(HANOI, inst, "answer", reasoning="first [[1, 0, 1]] then [[1, 0, 2]]",
                              token_counter=chars)
    assert [c["correct"] for c in out["candidates"]] == [False, True]


def test_default_token_counter_falls_back_to_an_approximate_count():
    count, _approx = ap.default_token_counter()
    assert count("moves = [[1, 0, 2]]") > 0
    assert ap.regex_token_count("a, b") == 3


def test_pass_at_k_is_the_unbiased_estimator():
    for n, c, k in [(5, 1, 1), (5, 2, 3), (10, 0, 5), (6, 6, 2), (8, 3, 8)]:
        # brute force: fraction of size-k subsets holding at least one correct sample
        samples = [1] * c + [0] * (n - c)
        subsets = list(itertools.combinations(range(n), k))
        want = sum(any(samples[i] for i in s) for s in subsets) / len(subsets)
        assert ap.pass_at_k(n, c, k) == pytest.approx(want)
    with pytest.raises(ValueError):
        ap.pass_at_k(3, 1, 4)


def _fixture():
    """Synthetic samples for N = 1..7 with known accuracy and thinking length.

    accuracy by N: 1, 1, .5, 0, .5, 0, 0  -> collapse_N = 6 (zero from 6 onwards, not from 4)
    thinking tokens (characters) peak at N = 4 and fall to a quarter of the peak at N = 7.
    """
    acc = {1: [1, 1], 2: [1, 1], 3: [1, 0], 4: [0, 0], 5: [1, 0], 6: [0, 0], 7: [0, 0]}
    think = {1: 100, 2: 200, 3: 400, 4: 800, 5: 600, 6: 400, 7: 200}
    samples, cands = [], []
    for n, outcomes in acc.items():
        inst = HANOI.load({"n": n})
        gold = HANOI.format_moves(HANOI.solve(inst))
        for i, ok in enumerate(outcomes):
            final = gold if ok else "[[1, 0, 0]]"
            body = f"candidate {final}"
            thinking = body + "x" * (think[n] - len(body))
            row, c = ap.analyze_sample(HANOI, inst, f"<think>{thinking}</think>moves = {final}",
                                       token_counter=chars, model="m", sample=i)
            samples.append(row)
            cands.extend(c)
    return samples, cands


def test_aggregates_and_curve_points_on_a_fixture():
    samples, cands = _fixture()
    table = ap.aggregate(samples, cands, ks=(1, 2))
    by_n = {r["N"]: r for r in table}
    assert [by_n[n]["accuracy"] for n in range(1, 8)] == [1, 1, .5, 0, .5, 0, 0]
    assert by_n[3]["pass@2"] == 1.0 and by_n[3]["pass@1"] == .5
    assert by_n[4]["thinking_tokens"]["mean"] == 800 and by_n[4]["thinking_tokens"]["sd"] == 0
    assert by_n[4]["first_failure_hist"] == {1: 2} and by_n[4]["first_failure_mean"] == 1
    assert by_n[1]["candidate_accuracy_by_bin"][1] == 1.0 and by_n[1]["optimal_length"] == 1
    (points,) = ap.curve_points(table)
    assert points["collapse_N"] == 6
    assert points["effort_peak_N"] == 4
    assert points["effort_drop"] == pytest.approx(1 - 200 / 800)
    assert points["effort_collapse"] and points["truncation_rate_by_N"][7] == 0
    assert points["accuracy_by_depth"][127] == 0


def test_no_collapse_when_the_largest_n_is_solved():
    table = [{"model": "m", "puzzle": "hanoi", "N": n, "accuracy": a, "thinking_tokens": {"mean": t},
              "truncation_rate": 0.0, "optimal_length": 2 ** n - 1}
             for n, a, t in [(1, 1.0, 10), (2, 0.0, 20), (3, 0.5, 30)]]
    (p,) = ap.curve_points(table)
    assert p["collapse_N"] is None and p["effort_peak_N"] == 3 and p["effort_drop"] == 0 and not p["effort_collapse"]


def test_unsolvable_samples_are_kept_out_of_accuracy():
    inst = RIVER.load({"n": 6, "k": 3, "allow_unsolvable": True})
    row, _ = ap.analyze_sample(RIVER, inst, 'moves = [["A_1", "a_1"]]', token_counter=chars)
    ok = RIVER.load({"n": 6, "k": 4})
    row2, _ = ap.analyze_sample(RIVER, ok, RIVER.format_answer(RIVER.solve(ok)), token_counter=chars)
    (agg,) = ap.aggregate([row, row2])
    assert agg["n_unsolvable"] == 1 and agg["accuracy"] == 1.0


def test_truncation_and_budget(tmp_path):
    inst = HANOI.load({"n": 3})
    row, _ = ap.analyze_sample(HANOI, inst, "<think>still going", token_counter=chars)
    assert row["status"] == "truncated" and row["truncated"]
    budget = ap.answer_budget(HANOI, inst, max_new_tokens=560, token_counter=chars)
    assert budget["min_answer_tokens"] == len(HANOI.format_answer(HANOI.solve(inst)))
    assert budget["budget_feasible"] is False  # 560 - 512 reserve < the answer's characters
    samples, cands = _fixture()
    assert ap.write_jsonl(samples, tmp_path / "s.jsonl") == len(samples)
    assert json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])["model"] == "m"
    assert ap.write_csv(ap.aggregate(samples, cands), tmp_path / "a.csv") == 7


def test_plot_helpers_draw():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    samples, cands = _fixture()
    table = ap.aggregate(samples, cands)
    for ax in (ap.plot_accuracy(table), ap.plot_effort(table), ap.plot_candidate_positions(cands),
               ap.plot_first_failure(samples), ap.plot_accuracy(table, x="optimal_length")):
        assert ax.has_data()
