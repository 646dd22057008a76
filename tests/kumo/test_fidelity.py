"""Fidelity to KUMO's release: every official domain loads, defects refuse only the
instances that contain them, reversed intervals behave as KUMO's engine, official instances replay
exactly, and the IND/OOD split yields two playable halves on every built-in domain."""
from __future__ import annotations

import copy
import json

import gymnasium as gym
import numpy as np
import pytest

from kumo_gym.analysis.kumo import split_domain
from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.kumo.domain import (
    FATAL_CODES,
    builtin_domain_names,
    import_kumo_domain,
    load_domain,
    validate_domain,
)
from kumo_gym.envs.kumo.game import KumoTask
from kumo_gym.envs.kumo.generate import generate_instance, import_kumo_instance, survivors
from kumo_gym.envs.kumo.search import OptimalSearch, oracle_tables, plain_search

ENV = "kumo_gym/KUMO-v0"
TASK = KumoTask()
# docs/specs/kumo.md §15: the reference oracle's root E (6 d.p.) per (domain, truths, seed)
ROOT_E = {("AlgorithmEnv", 4, 0): 1.96, ("AstronomyEnv", 4, 0): 2.171875, ("CoffeeEnv", 4, 0): 1.545455,
          ("CryptographyEnv", 4, 0): 0.0, ("CuisineEnv", 4, 0): 1.3, ("DetectiveEnv", 4, 0): 1.9,
          ("EcologicalEnv", 4, 0): 2.316667, ("MedicalEnv", 4, 0): 1.302857,
          **{("MedicalEnv", 12, i): e for i, e in enumerate(
              [0, 0, 1.309631, 1.623963, 1.388309, 0, 0, 0, 1.222566, 1.219237])}}


def builtin_dict(name: str) -> dict:
    return copy.deepcopy(load_domain(name).to_dict())


def records(reference) -> list[dict]:
    return [json.loads(line) for line in (reference / "kumo" / "instances_dev.jsonl").read_text().splitlines()]


# ---- every official instance replays ------------------------------------------------------------------
def test_every_reference_instance_replays_exactly(reference):
    recs = records(reference)
    assert len(recs) == 18
    env = gym.make(ENV)
    for r in recs:
        assert r["check_unique_truth_after_all_observations"]
        # the record names its domain; a registered name resolves, and the default policy for
        # reversed intervals is the engine's
        _, info = env.reset(options={"instance": r})
        data = env.unwrapped.instance.data
        assert survivors(data) == [r["valid_truth"]]
        assert round(info["optimal_expected_steps"], 6) == ROOT_E[(r["domain"], len(r["truths"]), r["seed"])]
        assert info["optimal_steps"] == r["oracle_trajectory"]["num_tests"]
        assert info["oracle_optimal"]


# ---- defects refuse per instance (docs/specs/kumo.md §3, §4) ---------------------------------------------------------
def _mixed_shape_domain() -> tuple[dict, str]:
    """A domain like KUMO's DemographicEnv/QuantumEnv: one action mixes string and interval states."""
    obj = builtin_dict("minerals")
    a = next(a for a, o in obj["outcomes"].items() if o["type"] == "float")
    truth = load_domain("minerals").truths[0]
    obj["outcomes"][a]["states"].append({"state": "off the scale", "rules_out": [truth]})
    return obj, a


def test_an_unusable_action_is_dropped_and_the_domain_still_plays():
    obj, bad = _mixed_shape_domain()
    _, issues = import_kumo_domain(obj)
    codes = {i.code: i for i in issues}
    assert codes["unusable_action"].severity == "error" and codes["unusable_action"].action == bad
    assert not any(i.code in FATAL_CODES for i in issues)
    loaded = load_domain(obj)  # refused before the fix: one dropped action refused the whole domain
    assert bad not in loaded.actions and len(loaded.actions) == len(obj["actions"]) - 1
    for i in range(5):
        data = generate_instance(loaded, 4, 6, np.random.default_rng(i))
        assert bad not in data["actions"]
    # an instance that avoids the dropped action plays; one that uses it is refused, naming it
    record = {k: data[k] for k in ("truths", "actions", "observations", "valid_truth")}
    assert survivors(import_kumo_instance(record, loaded)) == [data["valid_truth"]]
    kept = record["actions"][:-1]
    with_bad = dict(record, actions=kept + [bad], observations={**{a: record["observations"][a] for a in kept},
                                                                 bad: 1.0})
    with pytest.raises(ConfigError, match="cannot be played"):
        import_kumo_instance(with_bad, loaded)


def _mixed_str_domain(reference) -> tuple[dict, dict]:
    """A reference domain and record plus a str action whose states mix strings and an interval
    (as KUMO's DemographicEnv and QuantumEnv have), the record observing that interval."""
    rec = records(reference)[0]
    dom = json.loads((reference / "kumo" / "domains" / f"{rec['domain']}.json").read_text())
    t = rec["truths"]
    dom["actions"].append("Mixed Assay")
    dom["outcomes"]["Mixed Assay"] = {"type": "str", "states": [
        {"state": "clear", "rules_out": [t[0]]}, {"state": [1.0, 2.0], "rules_out": [t[1], t[2]]},
        {"state": "cloudy", "rules_out": [t[3]]}]}
    record = dict(rec, actions=rec["actions"] + ["Mixed Assay"],
                  observations={**rec["observations"], "Mixed Assay": [1.0, 2.0]})
    return dom, record


def test_a_str_action_with_interval_states_plays_as_kumos_engine_does(reference):
    """KUMO's engine matches a str action's observation by equality (its interval states are
    tuples, the record's observation a list): such an observation rules nothing out, and the
    interval state still counts where the engine counts states. The record plays; the oddity is
    reported in ``info``; generated instances never draw the interval as an observation."""
    dom, record = _mixed_str_domain(reference)
    _, issues = import_kumo_domain(dom)
    mixed = [i for i in issues if i.action == "Mixed Assay"]
    assert [(i.code, i.severity) for i in mixed] == [("mixed_states", "warning")]
    loaded = load_domain(dom)
    assert [s.label() for s in loaded.outcomes["Mixed Assay"].states] == ["clear", [1.0, 2.0], "cloudy"]
    env = gym.make(ENV, domain=loaded)
    _, info = env.reset(options={"instance": record})
    data = env.unwrapped.instance.data
    assert data["observation_states"]["Mixed Assay"] == []  # it rules nothing out
    assert survivors(data) == [record["valid_truth"]]
    assert info["unmatched_observations"] == ["Mixed Assay"] and "rules nothing out" in info["record_notes"][0]
    # the interval state stays with its rule-outs, so the oracle weighs all three states as the engine's does
    t = record["truths"]
    assert data["outcomes"]["Mixed Assay"]["states"][1] == {"state": [1.0, 2.0], "rules_out": [t[1], t[2]]}
    _, _, _, _, step = env.step("<ANSWER> Mixed Assay </ANSWER>")
    assert step["verdict"]["status"] == "incomplete"
    _, reward, term, _, _ = env.step(f"<ANSWER> {record['valid_truth']} </ANSWER>")
    assert reward == 1.0 and term
    for i in range(30):  # our generator never draws the interval as a str observation
        drawn = generate_instance(loaded, 4, 6, np.random.default_rng(i))
        if "Mixed Assay" in drawn["actions"]:
            assert isinstance(drawn["observations"]["Mixed Assay"], str)
    # what KUMO itself cannot play stays refused: a float action with a string state
    obj, bad = _mixed_shape_domain()
    assert bad not in load_domain(obj).actions


def test_a_truth_action_clash_refuses_only_instances_with_both_sides():
    """A name that is both a truth and an action (KUMO's CelestialEnv, RelicEnv) is a domain
    warning; only an instance holding it on both sides is refused, and none is generated."""
    obj = {"name": "clash", "truths": ["Echo", "Fog", "Gale", "Hail"], "actions": ["Echo", "Sonar", "Radar", "Lidar"],
           "outcomes": {
               "Echo": {"type": "str", "states": [{"state": "loud", "rules_out": ["Fog", "Gale"]},
                                                  {"state": "soft", "rules_out": ["Hail"]}]},
               "Sonar": {"type": "str", "states": [{"state": "ping", "rules_out": ["Echo", "Fog"]},
                                                   {"state": "none", "rules_out": ["Hail"]}]},
               "Radar": {"type": "float", "states": [{"state": [0, 5], "rules_out": ["Gale", "Echo"]},
                                                     {"state": [6, 9], "rules_out": ["Fog"]}]},
               "Lidar": {"type": "str", "states": [{"state": "near", "rules_out": ["Hail", "Echo"]},
                                                   {"state": "far", "rules_out": ["Gale"]}]}}}
    _, issues = import_kumo_domain(obj)
    clash = [i for i in issues if i.code == "truth_action_clash"]
    assert clash and clash[0].severity == "warning"
    loaded = load_domain(obj)
    seen_echo = {"truth": 0, "action": 0}
    for i in range(60):
        try:
            data = generate_instance(loaded, 3, 2, np.random.default_rng(i), max_attempts=50)
        except ConfigError:
            continue
        assert not ("Echo" in data["truths"] and "Echo" in data["actions"])
        seen_echo["truth"] += "Echo" in data["truths"]
        seen_echo["action"] += "Echo" in data["actions"]
    assert seen_echo["truth"] and seen_echo["action"]  # the name plays, on one side at a time
    both = {"truths": ["Echo", "Fog", "Hail"], "actions": ["Echo", "Sonar"],
            "observations": {"Echo": "soft", "Sonar": "ping"}, "valid_truth": "Gale"}
    with pytest.raises(ConfigError):
        import_kumo_instance(both, loaded)
    one_side = {"truths": ["Fog", "Gale", "Hail"], "actions": ["Echo", "Lidar"],
                "observations": {"Echo": "loud", "Lidar": "near"}, "valid_truth": "Gale"}
    with pytest.raises(ConfigError, match="leave"):  # loads; refused only because Gale is ruled out
        TASK.load_instance(TASK.load(one_side, domain=loaded))
    good = dict(one_side, truths=["Fog", "Gale", "Echo"], actions=["Sonar", "Lidar"],
                observations={"Sonar": "ping", "Lidar": "near"}, valid_truth="Gale")
    TASK.load_instance(TASK.load(good, domain=loaded))


def test_bad_names_stay_out_of_instances():
    obj = builtin_dict("trees")
    first = obj["truths"][0]
    name = first["name"] if isinstance(first, dict) else first
    obj = json.loads(json.dumps(obj).replace(json.dumps(name), json.dumps(name + " <ANSWER>")))
    _, issues = import_kumo_domain(obj)
    assert any(i.code == "bad_name" and i.severity == "error" for i in issues)
    loaded = load_domain(obj)
    assert name + " <ANSWER>" not in loaded.sampleable_truths()
    for i in range(10):
        assert name + " <ANSWER>" not in generate_instance(loaded, 8, 6, np.random.default_rng(i))["truths"]


# ---- reversed intervals as KUMO's engine treats them ----------------------------------------------------------
def _reversed_fixture(reference):
    """A reference instance whose domain gains a reversed interval around a float observation that
    rules out the valid truth: swapped, it would rule out the valid truth; kept, it never matches."""
    for r in records(reference):
        dom = json.loads((reference / "kumo" / "domains" / f"{r['domain']}.json").read_text())
        for a in r["actions"]:
            v = r["observations"][a]
            if dom["outcomes"][a]["type"] == "float" and isinstance(v, (int, float)):
                dom["outcomes"][a]["states"].append({"state": [v + 1.0, v - 1.0], "rules_out": [r["valid_truth"]]})
                return r, dom, a
    raise AssertionError("no float observation in the reference instances")


def test_reversed_intervals_keep_reproduces_the_engine(reference):
    r, dom, action = _reversed_fixture(reference)
    kept, issues = import_kumo_domain(dom)
    assert any(i.code == "reversed_interval" for i in issues)
    state = kept.outcomes[action].states[-1]
    assert state.reversed and not state.matches(r["observations"][action])
    data = import_kumo_instance(r, kept)
    assert survivors(data) == [r["valid_truth"]]  # the kept state never matches
    TASK.validate_instance(TASK.load(data))
    # ... but it still counts in the oracle's weights and in which tests can rule a truth out
    tab = oracle_tables(data)
    j = tab.actions.index(action)
    assert int(tab.nstates[j]) == len(dom["outcomes"][action]["states"])
    e, best = OptimalSearch(tab).best()
    assert (e, best) == plain_search(tab.state_lists(), [int(x) for x in tab.rel], tab.n)(tab.all_truths,
                                                                                            tab.all_actions)
    dropped = import_kumo_instance(r, import_kumo_domain(dom, reversed_intervals="drop")[0])
    assert survivors(dropped) == [r["valid_truth"]]
    assert int(oracle_tables(dropped).nstates[j]) == int(tab.nstates[j]) - 1
    swapped = import_kumo_instance(r, import_kumo_domain(dom, reversed_intervals="swap")[0])
    assert r["valid_truth"] not in survivors(swapped)  # the old default broke the official instance
    with pytest.raises(ConfigError, match="leave"):
        TASK.validate_instance(TASK.load(swapped))
    with pytest.raises(ConfigError, match="reversed_intervals"):
        import_kumo_domain(dom, reversed_intervals="flip")


# ---- the IND/OOD split (docs/specs/kumo.md §12) ----------------------------------------------------------------------
@pytest.mark.parametrize("name", builtin_domain_names())
def test_split_halves_generate_easy_and_hard(name):
    d = load_domain(name)
    sp = split_domain(d)
    assert not set(sp.ind.truths) & set(sp.ood.truths)
    assert sp.balance["truths"] == [len(sp.ind.truths), len(sp.ood.truths)]
    assert sp.balance["actions"] == [len(sp.ind.actions), len(sp.ood.actions)]
    assert 0.25 <= sp.balance["truth_share"] <= 0.75 and 0.25 <= sp.balance["action_share"] <= 0.75
    for side in (sp.ind, sp.ood):
        assert not [i for i in validate_domain(side) if i.severity == "error"]
        for size in ((4, 6), (12, 16)):
            data = generate_instance(side, *size, np.random.default_rng(5), max_attempts=300)
            assert set(data["truths"]) <= set(side.truths)
    if sp.actions != "shared":
        assert not set(sp.ind.actions) & set(sp.ood.actions)


def test_split_modes_follow_their_rules():
    d = load_domain("network_faults")
    paper = split_domain(d, actions="paper")
    t1 = set(paper.ind.truths)
    for a in paper.ind.actions:  # the paper's rule: A1 holds exactly the actions inside T1
        assert {t for s in d.outcomes[a].states for t in s.rules_out} <= t1
    balanced = split_domain(d, actions="balanced")
    assert abs(len(balanced.ind.actions) - len(balanced.ood.actions)) <= 1
    shared = split_domain(d, actions="shared")
    assert shared.balance["shared_actions"] == len(set(shared.ind.actions) & set(shared.ood.actions)) > 0
    with pytest.raises(ValueError):
        split_domain(d, actions="random")
