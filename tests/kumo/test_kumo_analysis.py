"""KUMO analyses (docs/specs/kumo.md §11-§13)."""
from __future__ import annotations

import json
import math

from kumo_gym.analysis.kumo import (
    graph_signature,
    relative_action_count,
    signature_association,
    split_domain,
    summarize_episodes,
    truth_communities,
    truth_components,
    truth_graph,
)
from kumo_gym.envs.kumo.domain import load_domain

from .test_kumo import REF_KUMO, needs_ref


def test_chi_square_matches_hand_computed_2x3():
    # signatures A, B, C with (correct, wrong) = (10, 5), (5, 10), (5, 5); n = 40
    sigs = ["A"] * 15 + ["B"] * 15 + ["C"] * 10
    correct = [True] * 10 + [False] * 5 + [True] * 5 + [False] * 10 + [True] * 5 + [False] * 5
    obs = [[10, 5], [5, 10], [5, 5]]
    col = [20, 20]
    x2 = sum((obs[i][j] - sum(obs[i]) * col[j] / 40) ** 2 / (sum(obs[i]) * col[j] / 40)
             for i in range(3) for j in range(2))
    res = signature_association(sigs, correct)
    assert math.isclose(res["chi2"], x2) and res["dof"] == 2
    assert math.isclose(res["cramers_v"], math.sqrt(x2 / 40))
    assert math.isnan(signature_association(["A", "B"], [True, True])["cramers_v"])


def test_rac_and_summary():
    assert relative_action_count(3, 0) == 1.5
    eps = [{"instance_id": "i", "domain": "d", "difficulty": "easy", "status": "solved", "tests": 2, "oracle_tests": 2},
           {"instance_id": "i", "domain": "d", "difficulty": "easy", "status": "wrong", "tests": 4, "oracle_tests": 2},
           {"instance_id": "j", "domain": "d", "difficulty": "easy", "status": "parse_error", "tests": 0,
            "oracle_tests": 1}]
    s = summarize_episodes(eps)["d|easy"]
    assert s["success_rate"] == 0.25 and math.isclose(s["rac"], 0.25) and s["parse_error_rate"] == 1 / 3


def test_signature_shape():
    data = {"truths": ["a", "b"], "actions": ["x"],
            "outcomes": {"x": {"type": "str", "states": [{"state": "s", "rules_out": ["a"]}]}}}
    assert graph_signature(data) == "T:0,1|A:1"


def test_split_of_builtin_domain_is_disjoint():
    d = load_domain("instruments")
    comms, q = truth_communities(d)
    assert sorted(t for c in comms for t in c) == sorted(d.truths) and -0.5 <= q <= 1
    sp = split_domain(d)
    assert not set(sp.ind.truths) & set(sp.ood.truths)
    assert set(sp.ind.truths) | set(sp.ood.truths) <= set(d.truths)


@needs_ref
def test_reference_medical_split_uses_components():
    d = load_domain(str(REF_KUMO / "domains" / "MedicalEnv.json"))
    comps = truth_components(d)
    assert len(comps) == 19 and len(comps[0]) == 12
    assert truth_graph(d).number_of_edges() == 125
    sp = split_domain(d)
    assert sp.units == "components" and sp.cut_actions == []
    t1 = set(sp.ind.truths)
    for a in sp.ind.actions:
        assert {t for s in d.outcomes[a].states for t in s.rules_out} <= t1
    assert len(sp.ind.truths) + len(sp.ood.truths) == 65


@needs_ref
def test_reference_truth_graphs_match_spec_numbers():
    edges = {"AlgorithmEnv": 193, "AstronomyEnv": 702, "CoffeeEnv": 178, "CryptographyEnv": 1230,
             "CuisineEnv": 420, "DetectiveEnv": 425, "EcologicalEnv": 1016, "MedicalEnv": 125}
    comps = {"AlgorithmEnv": 3, "MedicalEnv": 19}
    for name, n_edges in edges.items():
        d = load_domain(str(REF_KUMO / "domains" / f"{name}.json"))
        assert truth_graph(d).number_of_edges() == n_edges, name
        assert len(truth_components(d)) == comps.get(name, 1), name


def test_association_from_runs_uses_the_majority_label():
    from kumo_gym.analysis.kumo import association_from_runs

    a = {"truths": ["a", "b"], "actions": ["x"], "outcomes": {"x": {"type": "str", "states": [
        {"state": "s", "rules_out": ["a"]}]}}}
    b = {"truths": ["a", "b"], "actions": ["x"], "outcomes": {"x": {"type": "str", "states": [
        {"state": "s", "rules_out": ["a", "b"]}]}}}
    # signature A: 3 of 5 runs right -> correct; signature B: 2 of 5 -> wrong
    res = association_from_runs([a, b] * 5, [[True, True, True, False, False], [True, True, False, False, False]] * 5)
    assert res["table"] == [[5, 0], [0, 5]] and math.isclose(res["cramers_v"], 1.0)


def test_anonymize_keeps_the_structure(capsys):
    from kumo_gym.cli import main
    from kumo_gym.envs.kumo.procedural import anonymize

    d = load_domain("trees")
    anon = anonymize(d, seed=1)
    assert len(anon.truths) == len(d.truths) and not set(anon.truths) & set(d.truths)
    assert sorted(len(anon.outcomes[a].states) for a in anon.actions) == sorted(
        len(d.outcomes[a].states) for a in d.actions)
    assert truth_graph(anon).number_of_edges() == truth_graph(d).number_of_edges()
    assert main(["kumo", "anonymize", "trees", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["truths"] == list(anon.truths)
