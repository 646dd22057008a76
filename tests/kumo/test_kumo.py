"""KUMO family tests (docs/specs/kumo.md §16 acceptance checklist)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kumo_gym
from kumo_gym.core.errors import ContaminationError
from kumo_gym.envs.kumo.authoring import build_all
from kumo_gym.envs.kumo.book import parse_template_book, reduced_mapping, render_book, rewrite_book, template_book
from kumo_gym.envs.kumo.domain import builtin_domain_names, import_kumo_domain, load_domain, validate_domain
from kumo_gym.envs.kumo.game import KumoTask
from kumo_gym.envs.kumo.generate import generate_many, import_kumo_instance, instance_key, survivors
from kumo_gym.envs.kumo.golden import golden_conversations
from kumo_gym.envs.kumo.procedural import new_domain, propose_domain
from kumo_gym.envs.kumo.search import OptimalSearch, oracle_tables

from ..conftest import reference_dir

REF = reference_dir() or Path("/nonexistent/shared/reference")
REF_KUMO = REF / "kumo"
needs_ref = pytest.mark.skipif(not REF_KUMO.is_dir(), reason=f"KUMO reference data not found at {REF_KUMO} "
                               "(../shared/reference beside the checkout, or $KUMO_GYM_REFERENCE)")
ENV = "kumo_gym/KUMO-v0"
TASK = KumoTask()


def ref_domain(name):
    return load_domain(str(REF_KUMO / "domains" / f"{name}.json"))


# ---- domains -------------------------------------------------------------------------------------
def test_builtin_domains_are_clean_and_big_enough():
    names = builtin_domain_names()
    assert names
    for n in names:
        d, issues = import_kumo_domain(json.loads((Path(kumo_gym.__file__).parent / "envs/kumo/domains" / f"{n}.json").read_text()))
        assert issues == [], (n, [str(i) for i in issues])
        assert len(d.truths) >= 40 and len(d.actions) >= 25
        assert {o.type for o in d.outcomes.values()} == {"str", "float"}


def test_builtin_json_matches_sources():
    for stem, obj in build_all(write=False).items():
        on_disk = json.loads((Path(kumo_gym.__file__).parent / "envs/kumo/domains" / f"{stem}.json").read_text())
        assert on_disk == json.loads(json.dumps(obj)), stem


@needs_ref
def test_reference_domains_import_cleanly():
    sizes = {}
    for f in sorted((REF_KUMO / "domains").glob("*.json")):
        d, issues = import_kumo_domain(json.loads(f.read_text()))
        assert issues == [], f.name
        sizes[d.name] = (len(d.truths), len(d.actions))
    assert sizes["MedicalEnv"] == (65, 40) and sizes["CoffeeEnv"] == (28, 6)


def _mutated(mutate):
    obj = json.loads((REF_KUMO / "domains" / "CoffeeEnv.json").read_text())
    mutate(obj)
    return import_kumo_domain(obj)[1]


@needs_ref
@pytest.mark.parametrize("code,mutate", [
    ("duplicate_truth", lambda o: o["truths"].append(o["truths"][0])),
    ("duplicate_action", lambda o: o["actions"].append(o["actions"][0])),
    ("reversed_interval", lambda o: o["outcomes"]["Acidity Test"]["states"][0].__setitem__("state", [7.0, 6.0])),
    ("coerced_type", lambda o: o["outcomes"]["Acidity Test"].__setitem__("type", "int")),
    ("unusable_action", lambda o: o["outcomes"]["Acidity Test"].__setitem__("type", "blob")),
    ("action_without_outcomes", lambda o: o["actions"].append("Mystery Test")),
    ("unknown_truth", lambda o: o["outcomes"]["Acidity Test"]["states"][0]["rules_out"].append("Nope")),
    ("truth_never_ruled_out", lambda o: o["truths"].append("Untouchable Bean")),
    ("overlapping_intervals", lambda o: o["outcomes"]["Acidity Test"]["states"][0].__setitem__("state", [5.5, 7.0])),
])
def test_importer_reports_documented_defects(code, mutate):
    issues = _mutated(mutate)
    assert code in {i.code for i in issues}, [str(i) for i in issues]


def test_validator_errors_on_clashing_names():
    obj = {"name": "x", "truths": ["A", "B"], "actions": ["A"],
           "outcomes": {"A": {"type": "str", "states": [{"state": "s", "rules_out": ["B"]},
                                                        {"state": "t", "rules_out": []}]}}}
    _, issues = import_kumo_domain(obj)
    assert "truth_action_clash" in {i.code for i in issues}


# ---- generation -------------------------------------------------------------------------------------
def _check_instance(data, domain, nt, na):
    assert len(data["truths"]) == nt and len(data["actions"]) == na
    assert survivors(data) == [data["valid_truth"]]
    for a in data["actions"]:
        o = domain.outcomes[a]
        v = data["observations"][a]
        matched = [k for k, s in enumerate(o.states) if s.matches(v)]
        assert matched, (a, v)
        assert all(data["valid_truth"] not in o.states[k].rules_out for k in matched)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.integers(0, 10_000), seed=st.integers(0, 2**31), size=st.sampled_from([(2, 1), (4, 6), (6, 8), (12, 16)]))
def test_generated_instances_meet_sat_constraints(which, seed, size):
    names = builtin_domain_names()
    domain = load_domain(names[which % len(names)]) if which % 3 else new_domain(which % 7)
    rngs = [np.random.default_rng([seed, i]) for i in range(8)]
    batch = generate_many(domain, *size, rngs)
    assert len({instance_key(d) for d in batch}) == len(batch)
    for d in batch:
        _check_instance(d, domain, *size)


@pytest.mark.slow
def test_thousands_of_instances_meet_constraints_and_are_unique():
    for name in builtin_domain_names():
        domain = load_domain(name)
        for size in ((4, 6), (12, 16)):
            batch = generate_many(domain, *size, [np.random.default_rng([17, i]) for i in range(60)])
            assert len({instance_key(d) for d in batch}) == len(batch)
            for d in batch:
                _check_instance(d, domain, *size)


def test_success_rule_equals_valid_truth():
    for i in range(40):
        inst = TASK.generate(np.random.default_rng(i), difficulty="easy")
        for t in inst.data["truths"]:
            # docs/specs/kumo.md §8 in play, and a single-turn play that runs every test first
            assert TASK.judge(inst, t).solved == (t == inst.data["valid_truth"])
            assert TASK.verify(inst, inst.data["actions"] + [t]).solved == (t == inst.data["valid_truth"])


def test_same_seed_same_instance():
    a = TASK.generate(np.random.default_rng(5), difficulty="hard")
    b = TASK.generate(np.random.default_rng(5), difficulty="hard")
    assert a.instance_id == b.instance_id


# ---- oracle -------------------------------------------------------------------------------------------
def _compare_with_reference(data):
    """The numba search and the paper's plain-Python search give the same floats and actions, at the
    root and along the whole realised play."""
    tab = oracle_tables(data)
    fast = OptimalSearch(tab, backend="numba")
    plain = OptimalSearch(tab, backend="plain")
    assert fast.best() == plain.best()
    assert fast.play() == plain.play()
    return fast


def test_numba_oracle_matches_python_reference_easy():
    for i in range(300):
        inst = TASK.generate(np.random.default_rng([1, i]), difficulty="easy")
        _compare_with_reference(inst.data)


@pytest.mark.slow
def test_numba_oracle_matches_python_reference_hard_small():
    for i in range(6):
        inst = TASK.generate(np.random.default_rng([2, i]), n_truths=8, n_actions=10)
        _compare_with_reference(inst.data)


@needs_ref
def test_reference_oracle_trajectories_reproduced():
    # docs/specs/kumo.md §15: root E (6 d.p.) and realised tests
    expected_root = {("AlgorithmEnv", 4, 0): 1.96, ("AstronomyEnv", 4, 0): 2.171875, ("CoffeeEnv", 4, 0): 1.545455,
                     ("CryptographyEnv", 4, 0): 0.0, ("CuisineEnv", 4, 0): 1.3, ("DetectiveEnv", 4, 0): 1.9,
                     ("EcologicalEnv", 4, 0): 2.316667, ("MedicalEnv", 4, 0): 1.302857}
    hard = [0, 0, 1.309631, 1.623963, 1.388309, 0, 0, 0, 1.222566, 1.219237]
    expected_root.update({("MedicalEnv", 12, i): e for i, e in enumerate(hard)})
    checked = 0
    identical = 0
    for line in (REF_KUMO / "instances_dev.jsonl").read_text().splitlines():
        r = json.loads(line)
        data = import_kumo_instance(r, ref_domain(r["domain"]))
        assert survivors(data) == [r["valid_truth"]]
        tab = oracle_tables(data)
        search = OptimalSearch(tab)
        traj = search.play()
        assert traj.tests == r["oracle_trajectory"]["num_tests"]
        assert traj.predicted == r["valid_truth"]
        identical += traj.actions == r["oracle_trajectory"]["actions"]
        key = (r["domain"], len(r["truths"]), r["seed"])
        assert round(traj.root_expected, 6) == expected_root[key], key
        checked += 1
        # every stored oracle action is an arg-min at its step
        T, A = tab.all_truths, tab.all_actions
        for a in r["oracle_trajectory"]["actions"]:
            e, _ = search.best(T, A)
            jj = tab.actions.index(a)
            sub = OptimalSearch(tab)
            rest = A & ~(1 << jj)
            total = sum((T).bit_count() - (int(tab.masks[jj, s]) & T).bit_count() for s in range(int(tab.nstates[jj])))
            acc = sum(((T).bit_count() - (int(tab.masks[jj, s]) & T).bit_count()) / (total + 1e-9)
                      * sub.best(T & ~int(tab.masks[jj, s]), rest)[0] for s in range(int(tab.nstates[jj])))
            assert abs(1 + acc - e) < 1e-9
            T &= ~int(tab.observed[jj])
            A = rest
    assert identical >= 13 and checked == 18


# ---- book ---------------------------------------------------------------------------------------------
def _sorted(mapping):
    return {a: {"type": o["type"], "states": [(json.dumps(s["state"]), sorted(s["rules_out"])) for s in o["states"]]}
            for a, o in json.loads(json.dumps(mapping)).items()}


def test_template_book_round_trips_to_mapping():
    for i in range(10):
        inst = TASK.generate(np.random.default_rng([3, i]), difficulty="hard")
        book = template_book(inst.data, np.random.default_rng(i))
        assert _sorted(parse_template_book(book, inst.data["truths"])) == _sorted(reduced_mapping(inst.data))
    a = render_book(inst.data, seed=1)
    assert a == render_book(inst.data, seed=1)


class FixedBackend:
    """A ChatBackend that always answers the same text."""

    def __init__(self, text, finish_reason="stop"):
        self.text, self.finish_reason, self.calls = text, finish_reason, 0

    def chat(self, messages, *, max_tokens=None, temperature=None, n=1, **kwargs):
        from kumo_gym.core.backend import ChatResult

        self.calls += 1
        return [ChatResult(self.text, finish_reason=self.finish_reason)]


def test_rewrite_hook_falls_back_on_missing_name():
    inst = TASK.generate(np.random.default_rng(0), difficulty="easy")
    book = render_book(inst.data)
    out, src = rewrite_book(book, inst.data, FixedBackend("A lovely book that forgets the names."))
    assert src == "template-fallback" and out == book
    out, src = rewrite_book(book, inst.data, FixedBackend("Rewritten:\n" + book))
    assert src == "rewrite"


def test_llm_domain_proposal_goes_through_the_validator():
    good = new_domain(11).to_dict()
    domain, issues = propose_domain(FixedBackend("Here it is:\n" + json.dumps(good)), "test topic")
    assert domain is not None and issues == [] and validate_domain(domain) == []
    bad = copy.deepcopy(good)
    bad["outcomes"][bad["actions"][0]]["states"][0]["rules_out"] = list(bad["truths"])
    for s in bad["outcomes"][bad["actions"][0]]["states"]:
        s["rules_out"] = list(bad["truths"])
    backend = FixedBackend(json.dumps(bad))
    domain, issues = propose_domain(backend, "test topic", max_repairs=1)
    assert domain is None and issues and backend.calls == 2


# ---- procedural -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_procedural_domains_validate_and_keyspaces_differ():
    train = {new_domain(s).fingerprint for s in range(100)}
    held = {new_domain(s, keyspace="heldout").fingerprint for s in range(30)}
    assert not train & held and len(train) == 100
    assert new_domain(4, keyspace="heldout").label == "heldout"


# ---- environment ------------------------------------------------------------------------------------------
def test_env_plays_golden_and_reports_oracle():
    env = gym.make(ENV, difficulty="easy", domain="minerals")
    _, info = env.reset(seed=0)
    assert "optimal_expected_steps" in info and "optimal_action" in info and info["domain"] == "Minerals"
    inst = env.unwrapped.instance
    assert inst.data["valid_truth"] not in json.dumps(info)
    for m in TASK.golden_moves(inst):
        _, r, term, _, info = env.step(f"I think so. <ANSWER> {m} </ANSWER>")
    assert term and r == 1.0 and info["tests_taken"] == TASK.optimal_steps(inst)


def test_env_parse_error_and_wrong_prediction():
    env = gym.make(ENV)
    env.reset(seed=1)
    obs, r, term, trunc, info = env.step("<ANSWER> Not a name </ANSWER>")
    # an unknown name is an unreadable reply: no effect, feedback, the game goes on
    assert not (term or trunc) and r == 0 and info["verdict"]["status"] == "parse_error" and "Not a name" in obs
    env.reset(seed=1)
    inst = env.unwrapped.instance
    wrong = next(t for t in inst.data["truths"] if t != inst.data["valid_truth"])
    _, r, term, _, info = env.step(f"<ANSWER> {wrong} </ANSWER>")
    assert term and r == 0 and info["verdict"]["status"] == "wrong"


def test_parse_rules():
    # a move: the last <ANSWER> region (docs/specs/kumo.md §7); a single-turn answer: every region in order
    assert TASK.parse_move("blah <ANSWER> a </ANSWER> then <ANSWER> ${Streak colour} </ANSWER>") == "Streak colour"
    assert TASK.parse("blah <ANSWER> a </ANSWER> then <ANSWER> ${Streak colour} </ANSWER>") == ["a", "Streak colour"]
    assert TASK.parse_move("  Quartz  ") == "Quartz"
    assert TASK.parse_move("<ANSWER> Quartz") == "Quartz"
    assert TASK.parse_move("<ANSWER> a <ANSWER> b </ANSWER> tail") == "b"
    assert TASK.parse("<answer> a <ANSWER> b </ANSWER> tail") == ["a", "b"]
    for bad in ("<ANSWER>   </ANSWER>", "<ANSWER>" + "x" * 10_000):
        with pytest.raises(kumo_gym.ParseError):
            TASK.parse_move(bad)
        with pytest.raises(kumo_gym.ParseError):
            TASK.parse(bad)


@needs_ref
def test_reset_with_kumo_record():
    rec = json.loads((REF_KUMO / "instances_dev.jsonl").read_text().splitlines()[0])
    env = gym.make(ENV, domain=str(REF_KUMO / "domains" / f"{rec['domain']}.json"))
    _, info = env.reset(options={"instance": rec})
    assert info["optimal_steps"] == rec["oracle_trajectory"]["num_tests"]
    assert round(info["optimal_expected_steps"], 6) == 1.96


def test_heldout_domains_refused_for_training():
    with pytest.raises(ContaminationError):
        kumo_gym.make_dataset(ENV, 2, split="train", env_kwargs={"domain": "minerals", "heldout_domains": ["minerals"]})
    recs = kumo_gym.make_dataset(ENV, 2, split="test", env_kwargs={"domain": "minerals", "heldout_domains": ["minerals"]})
    assert len(recs) == 2
    with pytest.raises(ContaminationError):
        golden_conversations(2, domain="minerals", heldout_domains=["minerals"])


def test_golden_conversations_succeed():
    recs = golden_conversations(30, seed=1, difficulty="easy")
    assert len({r["instance_id"] for r in recs}) == 30
    for r in recs:
        assert r["solved"] and r["messages"][0]["role"] == "system"
        assert sum(m["role"] == "assistant" for m in r["messages"]) == r["oracle_tests"] + 1


def test_structured_wrapper_check_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    from kumo_gym.wrappers.structured import StructuredWrapper

    env = StructuredWrapper(gym.make(ENV, difficulty="easy"))
    check_env(env, warn=False)


# ---- domains given from code: split_domain halves, dicts ------------------------------------------------
def _ood_half():
    from kumo_gym.analysis.kumo import split_domain

    return split_domain(load_domain("car_faults")).ood


def test_split_half_passes_to_make_as_object_or_dict():
    """A Domain, its dict and the dict after a JSON round trip draw the same instances, stored by
    fingerprint (JSON-safe params), from the half's own truths and actions."""
    half = _ood_half()
    ids = []
    for spec in (half, half.to_dict(), json.loads(json.dumps(half.to_dict()))):
        env = gym.make(ENV, domain=spec)
        _, info = env.reset(seed=3)
        inst = env.unwrapped.instance
        assert env.unwrapped.params["domain"] == half.fingerprint == inst.params["domain"]
        assert info["domain"] == half.name and inst.data["domain_fingerprint"] == half.fingerprint
        assert set(inst.data["truths"]) <= set(half.truths) and set(inst.data["actions"]) <= set(half.actions)
        json.dumps(inst.params)
        ids.append(info["instance_id"])
    assert len(set(ids)) == 1
    # the other half (different content) draws something else from the same seed
    from kumo_gym.analysis.kumo import split_domain

    other = gym.make(ENV, domain=split_domain(load_domain("car_faults")).ind)
    assert other.reset(seed=3)[1]["instance_id"] != ids[0]
    # within the process the fingerprint names the domain too
    assert gym.make(ENV, domain=half.fingerprint).reset(seed=3)[1]["instance_id"] == ids[0]


def test_split_half_instances_same_in_fresh_process_and_replay_there():
    """Same content + seed -> same instance in a fresh interpreter; an instance drawn from a
    Domain object replays there (in an env of another domain) with the same id and pays 1."""
    import subprocess
    import sys

    half = _ood_half()
    env = gym.make(ENV, domain=half, difficulty="easy")
    _, info = env.reset(seed=11)
    inst = env.unwrapped.instance
    code = (
        "import json, sys, gymnasium as gym, kumo_gym\n"
        "from kumo_gym.analysis.kumo import split_domain\n"
        "from kumo_gym.envs.kumo.domain import load_domain\n"
        "from kumo_gym.envs.kumo.game import KumoTask\n"
        "half = split_domain(load_domain('car_faults')).ood\n"
        "drawn = gym.make('kumo_gym/KUMO-v0', domain=half.to_dict(), difficulty='easy').reset(seed=11)[1]\n"
        "env = gym.make('kumo_gym/KUMO-v0', domain='minerals')\n"
        "_, info = env.reset(options={'instance': sys.stdin.read()})\n"
        "for m in KumoTask().golden_moves(env.unwrapped.instance):\n"
        "    _, r, term, _, _ = env.step(f'<ANSWER> {m} </ANSWER>')\n"
        "print(json.dumps([drawn['instance_id'], info['instance_id'], r, term]))\n")
    res = subprocess.run([sys.executable, "-c", code], input=inst.to_json(), capture_output=True, text=True,
                         timeout=600, check=False, env={**__import__("os").environ, "PYTHONHASHSEED": "777"})
    assert res.returncode == 0, res.stderr[-2000:]
    drawn, replayed, reward, term = json.loads(res.stdout.strip().splitlines()[-1])
    assert drawn == replayed == info["instance_id"] and reward == 1.0 and term


@pytest.mark.parametrize("mutate, named", [
    (lambda d: d.update(truths=7), "field 'truths' must be a list"),
    (lambda d: d.update(goal=5), "field 'goal' must be a str"),
    (lambda d: d.pop("outcomes"), "no field 'outcomes'"),
    (lambda d: d.pop("truths"), "no field 'truths'"),
    (lambda d: d["outcomes"][next(iter(d["outcomes"]))].update(states="oops"), "field 'outcomes' of action"),
    (lambda d: d["outcomes"][next(iter(d["outcomes"]))].update(type="colour"), "unknown type 'colour'"),
    (lambda d: next(o for o in d["outcomes"].values() if o["type"] == "str")["states"].append(
        {"state": {"lo": 1}, "rules_out": []}), "mixed or unknown shape"),
])
def test_malformed_domain_dict_is_refused_at_make_naming_the_field(mutate, named):
    d = copy.deepcopy(load_domain("car_faults").to_dict())
    gym.make(ENV, domain=copy.deepcopy(d)).reset(seed=0)  # the unmutated dict is fine
    mutate(d)
    with pytest.raises(kumo_gym.ConfigError, match=named):
        gym.make(ENV, domain=d)
    with pytest.raises(kumo_gym.ConfigError, match=named):
        kumo_gym.make_dataset(ENV, 1, env_kwargs={"domain": d})


def test_malformed_domain_object_and_unknown_fingerprint_are_refused():
    import dataclasses

    half = _ood_half()
    broken = dataclasses.replace(half, outcomes={a: 7 for a in half.outcomes})
    with pytest.raises(kumo_gym.ConfigError, match="Domain object 'Car faults OOD' is malformed"):
        gym.make(ENV, domain=broken)
    with pytest.raises(kumo_gym.ConfigError, match="no domain with it was given in this process"):
        gym.make(ENV, domain="0" * 64)
    assert "fingerprint=" in repr(half) and len(repr(half)) < 200  # errors quote domains briefly


def test_split_half_through_datasets_evaluation_specs_and_heldout_guard():
    """Records and evaluation specs hold the fingerprint (JSON-safe), and a half declared held out
    as a Domain object is refused for training."""
    from kumo_gym.training.evaluate import EvalSpec

    half = _ood_half()
    recs = kumo_gym.make_dataset(ENV, 2, env_kwargs={"domain": half})
    assert recs[0]["env_kwargs"]["domain"] == half.fingerprint
    json.dumps(recs)
    spec = EvalSpec(ENV, {"domain": half, "difficulty": "easy"})
    assert spec.kwargs["domain"] == half.fingerprint and hash(spec) == hash(EvalSpec(ENV, dict(spec.kwargs)))
    with pytest.raises(ContaminationError):
        kumo_gym.make_dataset(ENV, 1, split="train", env_kwargs={"domain": half, "heldout_domains": [half]})


@pytest.mark.parametrize("match", ["exact", "lenient"])
def test_a_numbered_line_names_its_name_only_when_matching_is_lenient(match):
    """A real model answered KUMO with one line of the list it had read (``2. Rottweiler``): lenient
    matching reads the name, exact matching (the paper's rule) does not, and a list of several names is
    read by neither."""
    env = gym.make("kumo_gym/KUMO-v0", difficulty="easy", match=match)
    env.reset(seed=0)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    action, truth = inst.data["actions"][0], inst.data["truths"][0]
    for text, name in ((f"2. {truth}", truth), (f"3) {action}", action), (f"- {action}", action),
                       (f"(4) {truth}", truth)):
        got = task.match_name(inst, task.parse_move(text))
        assert got == ((("truth" if name == truth else "action"), name) if match == "lenient" else None), text
    listing = "\n".join(f"{i}. {n}" for i, n in enumerate(inst.data["truths"], 1))
    assert task.match_name(inst, task.parse_move(listing)) is None
    # the same reply through the env: read as the truth (a final answer) only when lenient
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(f"2. {truth}")
    status = (info.get("verdict") or {}).get("status")
    if match == "lenient":
        assert terminated and status in ("solved", "wrong")
    else:
        assert status not in ("solved", "wrong")


def test_an_episode_ended_by_unknown_names_ends_as_unreadable():
    """Three replies naming nothing from the lists end the episode; each is a parse_error in KUMO's
    protocol, the last one too (it was an illegal_move, so a benchmark counted it as an answer found)."""
    env = gym.make("kumo_gym/KUMO-v0", difficulty="easy")
    env.reset(seed=0)
    statuses = []
    for _ in range(3):
        _, reward, terminated, truncated, info = env.step("2. Not a name from any list")
        statuses.append((info["verdict"]["status"], terminated or truncated))
    assert statuses == [("parse_error", False), ("parse_error", False), ("parse_error", True)]
    assert info["status"] == "parse_error" and reward == 0.0
    assert info["verdict"]["details"]["reason"] == "too_many_invalid"
    assert info["verdict"]["details"]["last_reason"] == "unknown_name"
