"""Claim and rule schemas (docs/specs/reasoning_graphs.md §5 stage 7-8, docs/specs/reasoning_graphs.md §6) and
verification labels (docs/specs/reasoning_graphs.md §2)."""
import json

import networkx as nx
import pytest

from kumo_gym.analysis.extract import build_graph, link_rules
from kumo_gym.analysis.graph import content_key
from kumo_gym.analysis.packs import SOLO, TENTS, pack_for
from kumo_gym.analysis.schema import (
    Bounds,
    validate_claim,
    validate_occurrence,
    validate_rule_app,
)
from kumo_gym.analysis.verify import label_claim, label_graph, solution_claims


def occ(kind, payload, status="stated", scope="MAIN", sent=1, cid=None):
    key = validate_claim(TENTS if kind in TENTS.kinds else SOLO, kind, payload)
    return {"claim": key, "status": status, "scope": scope, "source_sents": [sent], "id": cid}


def test_validate_claim_canonicalises():
    key = validate_claim(TENTS, "TreeCandidate", {"tree_r": 1, "tree_c": 1, "cell_r": [2, 0, 2], "cell_c": [1, 1, 1]},
                         Bounds(4, 4))
    assert json.loads(key[1]) == {"tree_r": 1, "tree_c": 1, "cell_r": [0, 2], "cell_c": [1, 1]}
    assert validate_claim(SOLO, "Cand", {"r": 0, "c": 0, "d": [3, 1, 3], "polarity": "out"}) == \
        content_key("Cand", {"r": 0, "c": 0, "d": [1, 3], "polarity": "OUT"})
    assert validate_claim(TENTS, "Quota", {"axis": "column", "index": "2", "tents": 1})[1] == \
        '{"axis":"COL","index":2,"tents":1}'
    # the note of a Contradiction is not part of its content
    assert validate_claim(TENTS, "Contradiction", {"branch": 1, "note": "a"}) == \
        validate_claim(TENTS, "Contradiction", {"branch": 1, "note": "b"})
    for kind, payload, msg in [
        ("Lamp", {}, "not one of"),
        ("Tent", {"r": 1}, "missing"),
        ("Tent", {"r": 1, "c": 1, "x": 2}, "unexpected"),
        ("Tent", {"r": True, "c": 1}, "integer"),
        ("Tent", {"r": -1, "c": 1}, "negative"),
        ("Tent", {"r": 4, "c": 1}, "row 4"),
        ("Quota", {"axis": "DIAG", "index": 0, "tents": 1}, "DIAG"),
        ("Quota", {"axis": "COL", "index": 4, "tents": 1}, "COL index 4"),
        ("TreeCandidate", {"tree_r": 1, "tree_c": 1, "cell_r": [1], "cell_c": [1, 2]}, "length"),
    ]:
        with pytest.raises(ValueError, match=msg):
            validate_claim(TENTS, kind, payload, Bounds(4, 4))
    with pytest.raises(ValueError, match="digit 10"):
        validate_claim(SOLO, "Assign", {"r": 0, "c": 0, "d": 10}, Bounds(9, 9, 9))
    with pytest.raises(ValueError, match="tentative"):
        validate_occurrence(TENTS, {"kind": "Tent", "payload": {"r": 0, "c": 0}, "status": "tentative",
                                    "scope": "MAIN", "source_sents": [1]}, None, 3)
    with pytest.raises(ValueError, match="scope"):
        validate_occurrence(TENTS, {"kind": "Tent", "payload": {"r": 0, "c": 0}, "scope": "SIDE",
                                    "source_sents": [1]}, None, 3)
    assert pack_for("kumo_gym/Solo-v0") is SOLO and pack_for("Tents") is TENTS
    assert pack_for("Towers").puzzle == "towers" and pack_for("kumo_gym/Lightup-v0").puzzle == "lightup"
    # no pack outside the grid puzzles, and no module outside the packs can be named
    for name in ("kumo_gym/KUMO-v0", "sparc", "base", "common", "../schema", "os.path", "", None):
        assert pack_for(name) is None


@pytest.fixture
def branch_claims():
    return [
        occ("Tree", {"r": 0, "c": 0}, cid="C1"),
        occ("Tent", {"r": 1, "c": 0}, cid="C2"),
        occ("Tent", {"r": 2, "c": 2}, status="tentative", scope="BRANCH#1", sent=2, cid="C3"),
        occ("Contradiction", {"branch": 1}, scope="BRANCH#1", sent=3, cid="C4"),
        occ("NotTent", {"r": 2, "c": 2}, sent=4, cid="C5"),
        occ("Tent", {"r": 2, "c": 2}, sent=5, cid="C6"),
    ]


def test_rule_app_accepts_valid_applications(branch_claims):
    assert validate_rule_app(TENTS, {"rule": "R_ONLY_CAND", "inputs": ["C1"], "output": "C2"}, 1, branch_claims) == \
        {"rule": "R_ONLY_CAND", "inputs": [0]}
    assert validate_rule_app(TENTS, {"rule": "R_CONTRADICTION_DISCHARGE", "inputs": ["C3", "C4"]}, 4,
                             branch_claims)["rule"] == "R_TENTATIVE_DISCHARGE"  # alias
    assert validate_rule_app(TENTS, {"rule": "R_ONLY_CAND", "inputs": ["C_MISSING", "C1"]}, 1, branch_claims) == \
        {"rule": "R_ONLY_CAND", "inputs": ["C_MISSING", 0]}


@pytest.mark.parametrize("app,target,msg", [
    ({"rule": "R_GUESS", "inputs": []}, 1, "not one of"),  # rule id not allowed
    ({"rule": "R_NO_TOUCH", "inputs": ["C1"]}, 1, "cannot output Tent"),  # output kind not allowed
    ({"rule": "R_ONLY_CAND", "inputs": ["C9"]}, 1, "not an extracted claim"),  # input does not exist
    ({"rule": "R_ONLY_CAND", "inputs": ["C6"]}, 1, "does not precede"),  # input after the output
    ({"rule": "R_NO_TOUCH", "inputs": ["C3"]}, 4, "mixes scopes"),  # one scope except discharge
    ({"rule": "R_ONLY_CAND", "inputs": ["C1"], "output": "C_MISSING"}, 1, "only appear among the inputs"),
    ({"rule": "R_TENTATIVE_DISCHARGE", "inputs": ["C4"]}, 4, "exactly one tentative"),
    ({"rule": "R_TENTATIVE_DISCHARGE", "inputs": ["C3"]}, 4, "needs that branch's Contradiction"),
    ({"rule": "R_TENTATIVE_DISCHARGE", "inputs": ["C3", "C4"]}, 5, "must not cite a Contradiction"),
    ({"rule": "R_TENTATIVE_DISCHARGE", "inputs": ["C3", "C1"]}, 4, "all come from BRANCH#1"),
    ("not a dict", 1, "must be an object"),
])
def test_rule_app_rejects_each_violation(branch_claims, app, target, msg):
    with pytest.raises(ValueError, match=msg):
        validate_rule_app(TENTS, app, target, branch_claims)


def test_invalid_rule_apps_fall_back_to_stated_and_missing_becomes_a_node(branch_claims):
    counters = {}
    apps = link_rules(branch_claims, TENTS, counters, rule_apps={
        1: {"rule": "R_ONLY_CAND", "inputs": ["C1", "C_MISSING"]},
        4: {"rule": "R_NO_TOUCH", "inputs": ["C3"]},  # mixes scopes: rejected
    })
    assert apps[1]["status"] == "derived" and apps[4]["status"] == "stated"
    assert counters["rules"]["invalid"] == 1
    g, info = build_graph(branch_claims, apps, TENTS)
    assert info["n_missing"] == 1
    missing = [v for v in g if g.nodes[v]["kind"] == "Missing"]
    assert len(missing) == 1 and g.has_edge(missing[0], "C2") and g.nodes[missing[0]]["label"] == "unverifiable"
    assert g.nodes[missing[0]]["order"] < g.nodes["C2"]["order"]


def test_labels_follow_section_2(tents_instance, solo_instance):
    L = label_claim
    assert L("Tent", {"r": 1, "c": 0}, tents_instance, TENTS) == "correct"
    assert L("Tent", {"r": 1, "c": 0}, tents_instance, TENTS, status="tentative") == "tentative"  # rule 1 first
    assert L("NotTent", {"r": 1, "c": 3}, tents_instance, TENTS) == "incorrect"
    assert L("Tree", {"r": 2, "c": 3}, tents_instance, TENTS) == "correct"
    assert L("Quota", {"axis": "ROW", "index": 1, "tents": 1}, tents_instance, TENTS) == "incorrect"
    assert L("Remaining", {"axis": "ROW", "index": 1, "remaining": 9}, tents_instance, TENTS) == "unverifiable"
    assert L("Remaining", {"axis": "ROW", "index": 1, "remaining": 9}, tents_instance, TENTS,
             profile="consistency") == "incorrect"
    assert L("Contradiction", {"branch": 1}, tents_instance, TENTS) == "unverifiable"
    # consistency: Contradiction(k) is correct when branch k assumed something false
    wrong_assumption = content_key("Tent", {"r": 2, "c": 2})
    assert L("Contradiction", {"branch": 1}, tents_instance, TENTS, profile="consistency",
             assumption=wrong_assumption) == "correct"
    assert L("Contradiction", {"branch": 1}, tents_instance, TENTS, profile="consistency",
             assumption=content_key("Tent", {"r": 1, "c": 0})) == "incorrect"
    assert L("UnitHas", {"unit": "ROW", "index": 0, "digit": 3}, solo_instance, SOLO) == "correct"
    assert L("UnitHas", {"unit": "ROW", "index": 0, "digit": 2}, solo_instance, SOLO) == "unverifiable"
    assert L("Given", {"r": 0, "c": 0, "d": 3}, solo_instance, SOLO) == "correct"
    assert L("Assign", {"r": 0, "c": 1, "d": 4}, solo_instance, SOLO) == "incorrect"
    assert L("Cand", {"r": 0, "c": 1, "d": [2], "polarity": "OUT"}, solo_instance, SOLO) == "unverifiable"
    assert L("Cand", {"r": 0, "c": 1, "d": [2], "polarity": "OUT"}, solo_instance, SOLO,
             profile="consistency") == "incorrect"
    with pytest.raises(ValueError, match="profile"):
        L("Tent", {"r": 1, "c": 0}, tents_instance, TENTS, profile="strict")
    assert len(solution_claims(tents_instance, TENTS)) == 3 and len(solution_claims(solo_instance, SOLO)) == 16


def test_rule_6_only_in_refuted_branches(tents_instance):
    g = nx.DiGraph()
    wrong = content_key("NotTent", {"r": 1, "c": 3})
    g.add_node("a", claim=content_key("Tent", {"r": 2, "c": 2}), kind="Tent", sentence=1, status="tentative",
               scope="BRANCH#1")
    g.add_node("b", claim=wrong, kind="NotTent", sentence=2, status="derived", scope="BRANCH#1")
    g.add_node("c", claim=content_key("Contradiction", {"branch": 1}), kind="Contradiction", sentence=3,
               status="derived", scope="BRANCH#1")
    g.add_node("d", claim=wrong, kind="NotTent", sentence=4, status="derived", scope="BRANCH#2")
    g.add_node("e", claim=wrong, kind="NotTent", sentence=5, status="stated", scope="BRANCH#1")
    label_graph(g, tents_instance, TENTS)
    assert [g.nodes[v]["label"] for v in "abcde"] == ["tentative", "tentative", "unverifiable", "incorrect", "incorrect"]


def test_a_pair_of_cells_is_the_same_claim_in_either_order():
    """Bridges names two islands; a claim naming the lower-right one first is the same claim."""
    pack = pack_for("bridges")
    a = validate_claim(pack, "Bridge", {"r1": 1, "c1": 0, "r2": 1, "c2": 4, "n": 2})
    b = validate_claim(pack, "Bridge", {"r1": 1, "c1": 4, "r2": 1, "c2": 0, "n": 2})
    assert a == b
    assert a != validate_claim(pack, "Bridge", {"r1": 1, "c1": 0, "r2": 1, "c2": 4, "n": 1})
