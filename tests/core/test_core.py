"""Instance, Verdict, seeding, errors and shared extraction."""
from __future__ import annotations

import enum
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kumo_gym.core import (
    ConfigError,
    ContaminationError,
    Instance,
    SplitGuard,
    Verdict,
    check_choice,
    check_int,
    derive_seed,
    extract,
    item_rng,
    item_seed,
    shard_range,
)
from kumo_gym.core.instance import _json_default

from ..conftest import hostile_strings


def test_instance_normalises_to_plain_json_and_round_trips():
    inst = Instance("x", {"grid": ((1, 2), (3, 4)), "n": np.int64(3), "f": np.float32(0.5)}, params={"k": (1,)})
    assert inst.data == {"grid": [[1, 2], [3, 4]], "n": 3, "f": 0.5}
    again = Instance.from_json(inst.to_json())
    assert again == inst and again.to_json() == inst.to_json()
    assert inst.instance_id == Instance("x", {"n": 3, "f": 0.5, "grid": [[1, 2], [3, 4]]}).instance_id
    assert inst.instance_id != Instance("y", inst.data).instance_id


def _typed(x):
    """``x`` with every value's exact type spelled out (``1``, ``1.0`` and ``True`` compare equal)."""
    if isinstance(x, list):
        return ["list", [_typed(v) for v in x]]
    if isinstance(x, dict):
        return ["dict", [(type(k).__name__, k, _typed(v)) for k, v in x.items()]]
    return [type(x).__name__, repr(x)]


class _Level(enum.IntEnum):
    LOW = 1


_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False), st.text(max_size=4),
    st.integers(-100, 100).map(np.int64), st.integers(0, 200).map(np.uint8),
    st.floats(-1e6, 1e6).map(np.float64), st.floats(-1e3, 1e3, width=32).map(np.float32),
    st.just(_Level.LOW), st.frozensets(st.integers(-5, 5), max_size=3))
_keys = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.booleans(), st.none(), st.just(1.5))
_nested = st.recursive(_leaves, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.lists(kids, max_size=4).map(tuple),
    st.dictionaries(_keys, kids, max_size=4), st.dictionaries(st.text(max_size=3), kids, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_nested)
def test_instance_fast_normalisation_equals_the_json_round_trip(value):
    # the fast copy of plain data must give exactly what the JSON round trip gives:
    # tuples -> lists, numpy scalars -> Python, sets sorted, non-string keys as JSON writes them
    expected = json.loads(json.dumps({"v": value}, default=_json_default))
    assert _typed(Instance("x", {"v": value}).data) == _typed(expected)


def test_instance_data_is_a_copy_in_plain_types():
    grid = [[1, 2], [3, 4]]
    state = {"grid": grid, "rows": (np.int64(1), (2, np.int32(3))), "w": np.float64(0.25), 3: "three"}
    inst = Instance("x", {"state": state, "solution": grid}, params={"n": np.int16(4), "shape": (2, 2)})
    assert _typed(inst.data) == _typed({"state": {"grid": [[1, 2], [3, 4]], "rows": [1, [2, 3]], "w": 0.25,
                                                  "3": "three"}, "solution": [[1, 2], [3, 4]]})
    assert _typed(inst.params) == _typed({"n": 4, "shape": [2, 2]})
    grid[0][0] = 9  # the caller's lists are not the instance's
    assert inst.data["solution"][0][0] == 1 and inst.data["state"]["grid"][0][0] == 1
    assert Instance.from_json(inst.to_json()) == inst
    for bad in (np.bool_(True), object(), [1, {"k": {2j}}]):
        with pytest.raises(TypeError, match="not JSON-safe|not JSON serializable"):
            Instance("x", {"v": bad})


def test_instance_rejects_tampered_id_and_bad_dicts():
    d = Instance("x", {"a": 1}).to_dict()
    d["instance_id"] = "0" * 16
    with pytest.raises(ConfigError, match="does not match"):
        Instance.from_dict(d)
    with pytest.raises(ConfigError, match="family"):
        Instance.from_dict({"data": {}})


def test_verdict_statuses_and_rewards():
    assert Verdict.success().reward == 1.0 and Verdict.success().score == 1.0
    v = Verdict.failure("illegal_move", "move 2 is illegal", score=0.4, first_error=2, reason="x")
    assert v.reward == 0.0 and v.score == 0.4 and not v.solved
    assert Verdict.from_dict(json.loads(json.dumps(v.to_dict()))).to_dict() == v.to_dict()
    with pytest.raises(ValueError, match="is not one of: solved"):
        Verdict("great")


def test_errors_name_the_bad_value_and_choices():
    with pytest.raises(ConfigError, match="difficulty 'insane' is not one of: easy, hard"):
        check_choice("difficulty", "insane", ["easy", "hard"])
    with pytest.raises(ConfigError, match="n 0 is outside"):
        check_int("n", 0, 1, 5)
    assert check_int("n", "4") == 4


def test_item_seeds_are_hashed_not_offset():
    a = [item_seed("e", {"n": 3}, "train", 0, i) for i in range(100)]
    b = [item_seed("e", {"n": 3}, "train", 1, i) for i in range(100)]
    assert len(set(a) | set(b)) == 200  # seed 1 does not replay seed 0 shifted by one
    assert item_seed("e", {"n": 3}, "train", 0, 0) != item_seed("e", {"n": 3}, "test", 0, 0)
    assert derive_seed("a", 1) == derive_seed("a", 1)
    r1, r2 = item_rng("e", {}, "train", 3, 4), item_rng("e", {}, "train", 3, 4)
    assert r1.integers(1 << 60) == r2.integers(1 << 60)
    with pytest.raises(ConfigError, match="split 'dev' is not one of"):
        item_rng("e", {}, "dev", 0, 0)


def test_shards_partition_the_range():
    parts = [list(shard_range(10, f"{i}/3")) for i in range(3)]
    assert [i for part in parts for i in part] == list(range(10))
    with pytest.raises(ConfigError):
        shard_range(10, "3/3")


def test_split_guard():
    g = SplitGuard({"test": ["a"]})
    g.check("a", "test")
    g.check("b", "train")
    with pytest.raises(ContaminationError):
        g.check("a", "train")


def test_extraction_regions():
    regions = extract.split_thinking("<think>x [1]</think> answer [2]")
    assert regions.thinking.strip() == "x [1]" and regions.answer.strip() == "answer [2]"
    assert extract.split_thinking("<think>never closed").unclosed_thinking
    assert extract.split_thinking("body", reasoning="r").thinking == "r"
    text = "a [1] b [[2], \"]\"] c [3"
    assert [text[s:e] for s, e in extract.balanced_spans(text)] == ["[1]", "[[2], \"]\"]"]
    assert extract.boxed_contents(r"\boxed{a{b}} \boxed{c}") == ["a{b}", "c"]
    assert extract.fenced_contents("```json\n[1]\n```") == ["[1]\n"]
    assert extract.tagged_contents("<answer>x</answer><ANSWER> y </ANSWER>") == ["x", " y "]
    assert [s for s, _ in extract.answer_regions("<answer>1</answer> \\boxed{2} ```\n3```")] == ["tag", "boxed", "fence", "text"]
    assert extract.after_last("a #### b #### c", "####") == " c"
    assert extract.last_match(r"\d+", "1 2 3").group(0) == "3"
    assert extract.looks_truncated("x", finish_reason="length")
    assert extract.looks_truncated("x", n_output_tokens=10, max_new_tokens=10)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=500))
def test_extraction_never_raises(text):
    extract.split_thinking(text)
    extract.balanced_spans(text)
    extract.boxed_contents(text)
    extract.answer_regions(text)
    extract.unclosed_open(text)


def test_extraction_on_hostile_inputs():
    for s in hostile_strings(200):
        extract.answer_regions(s)
        extract.balanced_spans(s)
        extract.boxed_contents(s)
