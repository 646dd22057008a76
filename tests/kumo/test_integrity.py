"""Reward integrity and robustness of KUMO: one closed-interval rule checked at
both ends, rule codes with near misses and switches, cheap strategies, validated instances and
configs, records that cannot open files, prompt options that draw nothing."""
from __future__ import annotations

import copy
import json
import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kumo_gym
import kumo_gym.envs.kumo.domain as domain_module
import kumo_gym.envs.kumo.search as solver_module
from kumo_gym.core import Instance
from kumo_gym.core.capabilities import CheapStrategies, ImageRendering, NearMisses, RandomAnswer
from kumo_gym.core.errors import ConfigError, ContaminationError
from kumo_gym.envs.kumo.domain import State, import_kumo_domain, load_domain
from kumo_gym.envs.kumo.game import KumoTask
from kumo_gym.envs.kumo.generate import generate_instance, import_kumo_instance, survivors
from kumo_gym.envs.kumo.search import outcome_matches

ENV = "kumo_gym/KUMO-v0"
TASK = KumoTask()


def instances(n=12, difficulty="easy", **kw):
    return [TASK.generate(np.random.default_rng([41, i]), difficulty=difficulty, **kw) for i in range(n)]


# ---- one closed-interval rule, checked at both ends ------------------------------------------------------
def test_state_matches_closed_intervals_at_both_ends():
    s = State((2.0, 5.0), ("x",))
    assert s.matches(2.0) and s.matches(5.0) and s.matches(3) and s.matches(2)
    assert not s.matches(math.nextafter(2.0, 0)) and not s.matches(math.nextafter(5.0, 9))
    assert not s.matches("2.0") and not s.matches(True) and not s.matches(float("nan"))
    assert not State((5.0, 2.0), ()).matches(3.0)  # reversed, kept: matches nothing
    assert State("red", ()).matches("red") and not State("red", ()).matches("Red")


def boundary_instance(end: int):
    """A generated instance whose float observation is moved to an end of its state's interval, where
    that state alone rules out some truth (so an open end would let the truth survive)."""
    for i in range(400):
        inst = TASK.generate(np.random.default_rng([43, i]), difficulty="hard")
        d = copy.deepcopy(inst.data)
        for a in d["actions"]:
            o = d["outcomes"][a]
            (k,) = d["observation_states"][a] or (None,)
            if o["type"] != "float" or k is None:
                continue
            x = o["states"][k]["state"][end]
            if any(outcome_matches("float", s["state"], x) for j, s in enumerate(o["states"]) if j != k):
                continue  # a shared end: the other state would match too
            only_here = set(o["states"][k]["rules_out"]) - {t for b in d["actions"] if b != a
                                                            for t in solver_module.ruled_out_by(d, b)}
            if not only_here:
                continue
            d["observations"][a] = x
            return Instance("kumo", d, params=inst.params), a, min(only_here)
    raise AssertionError("no boundary case found")


@pytest.mark.parametrize("end", [0, 1], ids=["lower end", "upper end"])
def test_observation_exactly_at_an_interval_end(end, monkeypatch):
    inst, action, truth = boundary_instance(end)
    TASK.validate_instance(inst)  # the observation still matches its state: still exactly one survivor
    assert survivors(inst.data) == [inst.data["valid_truth"]]
    play = inst.data["actions"] + [truth]
    v = TASK.verify(inst, play)
    assert not v.solved and v.rules == ["ruled_out"] and v.details["ruled_out_by"] == action
    # the test bites: with that end made open, the truth would survive
    lo_open = lambda kind, state, value: (outcome_matches(kind, state, value)
                                          and not (kind == "float" and value == state[end]))
    monkeypatch.setattr(solver_module, "outcome_matches", lo_open)
    monkeypatch.setattr(domain_module, "outcome_matches", lo_open)
    data = {k: v for k, v in inst.data.items() if k != "observation_states"}
    assert truth in survivors(data)


def test_generator_has_no_second_matching_rule():
    import inspect

    import kumo_gym.envs.kumo.generate as gen

    src = inspect.getsource(gen)
    assert "_state_matches" not in src and "<= value <=" not in src and "a <= x <= b" not in src
    assert gen.survivors is solver_module.survivors and gen.matching_states is solver_module.matching_states


# ---- rules, near misses, switches --------------------------------------------------------------------------
def test_near_misses_break_exactly_their_rule_and_the_switch_is_load_bearing():
    assert isinstance(TASK, NearMisses) and isinstance(TASK, CheapStrategies) and isinstance(TASK, RandomAnswer)
    rng = np.random.default_rng(0)
    covered = {code: False for code in TASK.rule_codes}
    for inst in instances(8) + instances(4, "hard"):
        for nm in TASK.near_misses(inst, rng):
            v = TASK.score(inst, TASK.format_answer(nm.answer))
            assert not v.solved and v.reward == 0 and v.score < 1 and v.rules == [nm.rule], (nm, v.message)
            with TASK.rules_disabled(nm.rule):
                covered[nm.rule] |= TASK.score(inst, TASK.format_answer(nm.answer)).solved
    assert all(covered.values()), covered


def test_rule_switches_act_where_rules_are_checked():
    inst = instances(1)[0]
    wrong = next(t for t in inst.data["truths"] if t != inst.data["valid_truth"])
    assert not TASK.judge(inst, wrong).solved
    with TASK.rules_disabled("ruled_out"):
        assert TASK.judge(inst, wrong).solved
    valid = inst.data["valid_truth"]
    related = any(valid in s["rules_out"] for a in inst.data["actions"] for s in inst.data["outcomes"][a]["states"])
    assert related  # (this instance has no giveaway truth)
    assert TASK.verify(inst, [valid]).rules == ["undetermined"]
    with TASK.rules_disabled("undetermined"):
        assert TASK.verify(inst, [valid]).solved


def test_golden_play_scores_one_single_turn_and_every_prefix_guess_is_refused():
    for inst in instances(10) + instances(3, "hard"):
        gold = TASK.solve(inst)
        assert TASK.score(inst, TASK.format_answer(gold)).solved
        assert TASK.parse(TASK.format_answer(gold)) == gold
        # the valid truth named after too few of the oracle's tests is a guess unless it is forced
        for k in range(len(gold) - 1):
            v = TASK.verify(inst, gold[:k] + [gold[-1]])
            assert v.solved == (survivors(inst.data, gold[:k]) == [gold[-1]] or not any(
                gold[-1] in s["rules_out"] for a in inst.data["actions"] if a not in gold[:k]
                for s in inst.data["outcomes"][a]["states"]))


def test_cheap_answers_never_beat_chance():
    rng = np.random.default_rng(1)
    insts = instances(30)
    totals: dict = {}
    for inst in insts:
        env = gym.make(ENV, reward="partial")
        for cheap in TASK.cheap_answers(inst, rng):
            single = TASK.score(inst, cheap.completion)
            env.reset(options={"instance": inst})
            partial, binary = 0.0, 0.0
            for move in cheap.moves:
                _, r, term, trunc, info = env.step(move)
                partial += r
                binary += float(info["verdict"]["status"] == "solved" and term)
                if term or trunc:
                    break
            assert term or trunc, cheap.name  # every cheap play ends within its moves
            for _ in range(2):  # stepping after the end pays nothing
                _, r, term, _, info = env.step(cheap.moves[-1])
                assert r == 0.0 and info["verdict"]["status"] == "ended"
            t = totals.setdefault(cheap.name, {"single": 0.0, "binary": 0.0, "partial": 0.0, "chance": 0.0})
            t["single"] += single.reward
            t["binary"] += binary
            t["partial"] += partial
            t["chance"] += cheap.chance
            assert single.status != "error"
    n = len(insts)
    for name, t in totals.items():
        assert t["single"] / n <= 0.1, (name, t)  # a single-turn guess is refused: it must be justified
        assert t["partial"] / n <= 0.1, (name, t)  # partial pays only determined answers
        assert t["binary"] / n <= t["chance"] / n + 0.15, (name, t)  # the paper's reward: at most luck
        if t["chance"] == 0:
            assert t["binary"] == 0, name


def test_every_test_then_a_guess_earns_exactly_its_luck():
    """Not a listed cheap strategy: when right it is a complete, justified play. Its reward is its
    chance, 1/|truths|, in both modes; the prediction decides everything."""
    for inst in instances(12):
        d = inst.data
        for t in d["truths"]:
            assert TASK.verify(inst, d["actions"] + [t]).solved == (t == d["valid_truth"])


def test_random_answer_is_well_formed():
    rng = np.random.default_rng(2)
    for inst in instances(5):
        ans = TASK.random_answer(inst, rng)
        assert ans[-1] in inst.data["truths"] and all(a in inst.data["actions"] for a in ans[:-1])
        assert TASK.score(inst, TASK.format_answer(ans)).status in ("solved", "wrong")


# ---- instances validated on load ---------------------------------------------------------------------------
def _observe_nothing(d):
    """Observations that match no state: every truth survives."""
    d.pop("observation_states")
    for a in d["actions"]:
        d["observations"][a] = "no such outcome" if d["outcomes"][a]["type"] == "str" else -1e300


def _broken(mutate):
    inst = instances(1)[0]
    d = copy.deepcopy(inst.data)
    mutate(d)
    return Instance("kumo", d, params=inst.params)


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["observations"].pop(d["actions"][0]), "observations"),
    (lambda d: _observe_nothing(d), "leave"),
    (lambda d: d.__setitem__("truths", 7), "truths"),
    (lambda d: d.__setitem__("valid_truth", "Nobody"), "valid_truth"),
    (lambda d: d["truths"].append(d["actions"][0]), "both a truth and an action"),
    (lambda d: d["observation_states"].__setitem__(d["actions"][0], [99]), "observation_states"),
    (lambda d: d["outcomes"].__setitem__(d["actions"][0], {"type": "blob", "states": []}), "outcomes"),
    (lambda d: d.__setitem__("book_seed", "x"), "book_seed"),
])
def test_malformed_instances_are_refused_at_reset(mutate, field):
    bad = _broken(mutate)
    env = gym.make(ENV)
    with pytest.raises(ConfigError, match=field):
        env.reset(options={"instance": bad.to_dict()})


def test_an_instance_where_every_truth_survives_is_refused():
    def every_truth_survives(d):
        for a in d["actions"]:
            for s in d["outcomes"][a]["states"]:
                s["rules_out"] = []
    with pytest.raises(ConfigError, match="leave"):
        TASK.validate_instance(_broken(every_truth_survives))


def test_importer_names_bad_fields():
    with pytest.raises(ConfigError, match="'truths'"):
        import_kumo_instance({"truths": 7, "actions": [], "observations": {}, "valid_truth": "x"}, load_domain("trees"))
    _, issues = import_kumo_domain({"name": "x", "truths": 7, "actions": "abc", "outcomes": []})
    assert {i.code for i in issues} >= {"bad_field", "too_few_truths"}
    with pytest.raises(ConfigError, match="'truths' must be a list"):
        load_domain({"name": "x", "truths": 7})
    obj = load_domain("trees").to_dict()
    a = obj["actions"][0]
    a = a["name"] if isinstance(a, dict) else a
    obj["outcomes"][a]["states"][0]["rules_out"] = "Oak"  # a string, not a list: never iterated as letters
    _, issues = import_kumo_domain(obj)
    assert "bad_field" in {i.code for i in issues}


def test_a_record_cannot_open_files_of_its_choosing(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(load_domain("trees").to_dict()))
    inst = TASK.generate(np.random.default_rng(3), domain="trees")
    rec = {k: inst.data[k] for k in ("truths", "actions", "observations", "valid_truth")}
    env = gym.make(ENV)
    for name in (str(secret), "../" * 8 + str(secret)[1:], str(tmp_path / "secret")):
        with pytest.raises(ConfigError, match="registered"):
            env.reset(options={"instance": {**rec, "domain": name}})
    # a registered name works, and the caller's own code may still pass a path
    env.reset(options={"instance": {**rec, "domain": "trees"}})
    gym.make(ENV, domain=str(secret)).reset(options={"instance": rec})
    # an instance's own params can only add fingerprints, never name a file
    stored = inst.to_dict()
    stored["params"]["heldout_domains"] = [str(secret)]
    TASK.check_trainable(Instance.from_dict(stored))


# ---- configs ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("penalty", [float("nan"), float("inf"), -1, -0.01, 1.5, "0.1", True])
def test_bad_step_penalties_are_refused(penalty):
    with pytest.raises(ConfigError, match="step_penalty"):
        gym.make(ENV, step_penalty=penalty)


def test_step_penalty_never_pays_for_repeating_a_test():
    env = gym.make(ENV, step_penalty=0.02)
    env.reset(seed=0)
    a = env.unwrapped.instance.data["actions"][0]
    total = sum(env.step(f"<ANSWER> {a} </ANSWER>")[1] for _ in range(10))
    assert total < 0


@pytest.mark.parametrize("value", [5, {"a": 1}, [3], ["no-such-domain"]])
def test_bad_heldout_domains_are_config_errors(value):
    with pytest.raises(ConfigError, match="heldout"):
        gym.make(ENV, heldout_domains=value)


def test_heldout_domains_natural_spellings():
    for spelling in ("minerals", ("minerals",), ["minerals"]):
        env = gym.make(ENV, heldout_domains=spelling)
        assert env.unwrapped.params["heldout_domains"] == [load_domain("minerals").fingerprint]


# ---- prompt options draw nothing ----------------------------------------------------------------------------
PROMPT_OPTIONS = {"book_format": ["template", "symbolic"], "match": ["exact", "lenient"],
                  "observation_format": ["text", "kumo_dict"]}


def test_prompt_options_never_change_the_instance():
    assert set(TASK.prompt_option_names()) == set(PROMPT_OPTIONS)
    base = gym.make(ENV, difficulty="hard").reset(seed=5)[1]["instance_id"]
    for name, values in PROMPT_OPTIONS.items():
        for value in values:
            assert gym.make(ENV, difficulty="hard", **{name: value}).reset(seed=5)[1]["instance_id"] == base
            rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
            TASK.generate(rng1, **{name: value})
            TASK.generate(rng2)
            assert rng1.random() == rng2.random()  # no draw spent on the option


# ---- usability ---------------------------------------------------------------------------------------------
def test_first_observation_states_the_instruction_once():
    obs, _ = gym.make(ENV).reset(seed=0)
    assert obs.count("Finish your reply with") == 1 and obs.count("The game starts now") == 1
    msgs = TASK.messages(gym.make(ENV).unwrapped.task.generate(np.random.default_rng(0)))
    assert sum(m["content"].count("Finish your reply with") for m in msgs) == 1


def test_procedural_domains_in_the_env_leak_nothing():
    env = gym.make(ENV, domain="procedural")
    obs, info = env.reset(seed=4)
    inst = env.unwrapped.instance
    name = inst.data["domain"]
    assert "train" not in name.lower() and "procedural" not in name.lower() and not any(c.isdigit() for c in name)
    assert name in obs and info["oracle_optimal"]
    assert inst.data["domain_label"] == "train"
    held_kw = {"domain": "procedural", "procedural_keyspace": "heldout"}
    held = gym.make(ENV, **held_kw)
    held.reset(seed=4)
    assert held.unwrapped.instance.data["domain_label"] == "heldout"
    assert "heldout" not in held.unwrapped.instance.data["domain"].lower()
    with pytest.raises(ContaminationError):
        kumo_gym.make_dataset(ENV, 1, split="train", env_kwargs=held_kw)
    assert len(kumo_gym.make_dataset(ENV, 2, split="test", env_kwargs=held_kw)) == 2


def test_rgb_rendering_and_check_env_with_defaults():
    assert isinstance(TASK, ImageRendering)
    check_env(gym.make(ENV).unwrapped)  # every advertised render mode, no skip flag
    env = gym.make(ENV, render_mode="rgb_array", difficulty="hard")
    env.reset(seed=1)
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    a = env.unwrapped.instance.data["actions"][0]
    env.step(f"<ANSWER> {a} </ANSWER>")
    after = env.render()
    assert after.shape == before.shape and (after != before).any()


def test_generation_draws_the_whole_domain_of_sizes():
    data = generate_instance(load_domain("birds"), 12, 16, np.random.default_rng(0))
    assert len(data["truths"]) == 12 and survivors(data) == [data["valid_truth"]]
