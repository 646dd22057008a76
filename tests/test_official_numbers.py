"""Every loader of official records reads an integer written as an integral float (``7.0``) as
the integer, as the official tools (which compare with ``==``) do; ``7.5`` and ``True`` stay what
they are and are refused where an integer is needed.

Over the reference samples of every family that imports official records (FineReason rows of all
four puzzles and both row kinds, KUMO instance records, SPaRC records): each record, with every
integer rewritten as a float, loads to the very instance its original loads to. Game 24 rows
write their numbers as strings and Tatham imports are game-ID strings: no JSON numbers to rewrite.
"""
from __future__ import annotations

import copy
import json

import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.instance import integral_floats
from kumo_gym.core.registry import get_task

#: (task, reference file, rows checked)
OFFICIAL = [
    *[("kumo_gym/FineReasonStateChecking-v0", f"finereason/{p}_states_dev_50.jsonl", 3)
      for p in ("gridpuzzle", "sudoku", "graphcoloring")],
    *[("kumo_gym/FineReasonTreeWalk-v0", f"finereason/{p}_questions.jsonl", 2)
      for p in ("gridpuzzle", "sudoku", "graphcoloring")],
    ("kumo_gym/FineReasonStateTransition-v0", "finereason/gridpuzzle_questions.jsonl", 2),
    ("kumo_gym/KUMO-v0", "kumo/instances_dev.jsonl", 4),
    ("kumo_gym/SPaRC-v0", "sparc/sparc_dev_50.jsonl", 4),
]


def floated(obj):
    """``obj`` with every int (not bool) written as a float."""
    if isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        return float(obj)
    if isinstance(obj, list):
        return [floated(x) for x in obj]
    if isinstance(obj, dict):
        return {k: floated(v) for k, v in obj.items()}
    return obj


def _count_ints(obj) -> int:
    if isinstance(obj, bool):
        return 0
    if isinstance(obj, int):
        return 1
    if isinstance(obj, list):
        return sum(map(_count_ints, obj))
    if isinstance(obj, dict):
        return sum(map(_count_ints, obj.values()))
    return 0


@pytest.mark.parametrize("env_id,path,n", OFFICIAL, ids=[f"{e.split('/')[1]}:{p}" for e, p, _ in OFFICIAL])
def test_integral_floats_in_official_records_load_as_integers(reference, env_id, path, n):
    src = reference / path
    if not src.is_file():
        pytest.skip(f"{src} not found")
    task = get_task(env_id)
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()[:n]]
    for i, rec in enumerate(rows):
        assert _count_ints(rec) > 0, (path, i, "the record holds no integer to rewrite")
        want = task.load_instance(copy.deepcopy(rec))
        got = task.load_instance(floated(rec))
        assert got.data == want.data and got.instance_id == want.instance_id, (env_id, path, i)


def test_the_rewrite_keeps_what_is_not_an_integer():
    obj = {"a": [7.0, 7.5, True, False, "7.0", -0.0, float("inf"), 1e300], "b": {"c": (2.0, 3)}}
    out = integral_floats(obj)
    assert out["a"][:6] == [7, 7.5, True, False, "7.0", 0]
    assert type(out["a"][0]) is int and type(out["a"][1]) is float and out["a"][2] is True
    assert out["a"][6] == float("inf") and type(out["a"][7]) is float  # too big for an int: left alone
    assert out["b"]["c"] == (2, 3) and type(out["b"]["c"][0]) is int
    deep = cur = []
    for _ in range(10_000):  # hostile nesting: no recursion error, left for the schema check
        cur.append([])
        cur = cur[0]
    integral_floats(deep)


def test_a_non_integral_or_boolean_value_is_still_refused(reference):
    src = reference / "sparc" / "sparc_dev_50.jsonl"
    if not src.is_file():
        pytest.skip(f"{src} not found")
    task = get_task("kumo_gym/SPaRC-v0")
    rec = json.loads(src.read_text(encoding="utf-8").splitlines()[0])
    for bad in (rec["grid_size"]["width"] + 0.5, True):
        broken = copy.deepcopy(rec)
        broken["grid_size"]["width"] = bad
        with pytest.raises(ConfigError):
            task.load_instance(broken)
