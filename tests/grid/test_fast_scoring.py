"""The fast paths of grid scoring (step overhead): the canonical-answer reader reads
exactly what the full reader reads (or steps aside), and the verify memo never spares the rule
checks of a grid that is not the one already found solved."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kumo_gym.core.errors import ParseError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid import answer
from kumo_gym.envs.grid.answer import SymbolGrid, format_grid, parse_grid

DIGITS = frozenset(range(1, 17))
WORDS = frozenset({"T", ".", "X", 0, 1})


def full_read(text: str, symbols: frozenset, monkeypatch):
    """What the full reader alone makes of ``text``: the grid, or the ParseError's reason."""
    with monkeypatch.context() as m:
        m.setattr(answer, "_fast_grid", lambda text, symbols: None)
        try:
            return parse_grid(text, symbols)
        except ParseError as e:
            return ("error", e.reason)


def both(text: str, symbols: frozenset, monkeypatch):
    try:
        got = parse_grid(text, symbols)
    except ParseError as e:
        got = ("error", e.reason)
    return got, full_read(text, symbols, monkeypatch)


CASES = [
    format_grid([[1, 2, 3], [3, 1, 2], [2, 3, 1]]),
    "Done thinking.\n" + format_grid([[1, 2], [2, 1]]),
    format_grid([[12, 3], [16, 1]]),          # two-digit cells: the split path
    format_grid([["T", "."], [0, 1]]),         # words
    format_grid([[1, 2], [2, 1]]) + "\n\n  ",  # trailing blanks
    format_grid([[1, 2], [2, 1, 3]]),          # ragged
    format_grid([[1, 0], [2, 1]]),             # 0 is no symbol of DIGITS
    format_grid([[1, 17], [2, 1]]),
    "[\n  [1, 2],\n  [2 1]\n]",                 # a missing comma
    "[\n  [1, 2],\n  [2, 1]\n] and more",
    "first [1] then\n" + format_grid([[1, 2], [2, 1]]),
    "<answer>" + format_grid([[2, 1], [1, 2]]) + "</answer>\n" + format_grid([[1, 2], [2, 1]]),
    "\\boxed{x}\n" + format_grid([[1, 2], [2, 1]]),
    "```\n" + format_grid([[2, 1], [1, 2]]) + "\n```\n" + format_grid([[1, 2], [2, 1]]),
    "[\n  [1, 2],\n  [2, \"1\"]\n]",
    "[\n  [1, 2],\n  [2, \u0661]\n]",           # a non-ASCII digit
    "[\n  [1, 2],\n  [2, 1\0]\n]",
    "[\n  [1,2],\n  [2, 1]\n]",
    "[\n  [],\n  []\n]",
    "[\n  [1]\n]",
    "[\n  [\"t\", \"T\"],\n  [\".\", \"X\"]\n]",
    "[\n  [\"T\", \"T\"],\n  [\".\", \"X\"]\n]",
    "[\n  [\"T\" , \"T\"],\n  [\".\", \"X\"]\n]",
    "[\n  [\u201cT\u201d, \"T\"],\n  [\".\", \"X\"]\n]",
]


@pytest.mark.parametrize("symbols", [DIGITS, WORDS], ids=["digits", "words"])
@pytest.mark.parametrize("text", CASES)
def test_fast_reader_reads_what_the_full_reader_reads(text, symbols, monkeypatch):
    got, want = both(text, symbols, monkeypatch)
    assert got == want
    if isinstance(got, list):
        assert type(got) is SymbolGrid


def test_fast_reader_takes_the_canonical_answer():
    text = "Done.\n" + format_grid([[1, 2, 3], [3, 1, 2]])
    assert answer._fast_grid(text, DIGITS) == [[1, 2, 3], [3, 1, 2]]
    assert answer._fast_grid(format_grid([[10, 2], [3, 16]]), DIGITS) == [[10, 2], [3, 16]]
    assert answer._fast_grid(format_grid([["T", 0], [".", "X"]]), WORDS) == [["T", 0], [".", "X"]]
    assert answer._fast_grid("[[1, 2], [2, 1]]", DIGITS) is None  # not the canonical layout


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3, 9, 10, 16, 17, "T", ".", "t"]), min_size=1, max_size=4),
                min_size=1, max_size=4),
       st.sampled_from(["", "x", "[", "]", ",", " ", "\n", "\"", "'", "1", "<", "\u201c"]),
       st.integers(0, 200))
def test_fast_reader_matches_the_full_reader_on_mutated_answers(grid, char, where):
    text = format_grid(grid)
    where = where % (len(text) + 1)
    text = text[:where] + char + text[where:]
    for symbols in (DIGITS, WORDS):
        with pytest.MonkeyPatch.context() as mp:
            got, want = both(text, symbols, mp)
        assert got == want, (text, symbols)


@pytest.fixture(scope="module")
def solo():
    task = get_task("kumo_gym/Solo-v0")
    inst = task.generate(np.random.default_rng(0), difficulty="easy")
    return task, inst


def test_verify_memo_checks_every_other_grid(solo):
    task, inst = solo
    gold = task.solve(inst)
    text = format_grid(gold)
    first = task.score(inst, text)
    assert first.solved
    assert task.score(inst, text).solved  # from the memo
    assert task.score(inst, text).details["n_checks"] == first.details["n_checks"]
    wrong = [list(r) for r in gold]
    wrong[0][0], wrong[0][1] = wrong[0][1], wrong[0][0]
    v = task.score(inst, format_grid(wrong))
    assert not v.solved and v.rules
    # a plain list (not read by parse) always gets the checks: True == 1, yet a bool is no symbol
    boolish = [[True if c == 1 else c for c in r] for r in gold]
    assert task.verify(inst, boolish).status == "parse_error"


def test_verify_memo_respects_switched_off_rules_and_patched_checks(solo, monkeypatch):
    task, inst = solo
    gold = task.solve(inst)
    wrong = [list(r) for r in gold]
    wrong[0][0], wrong[0][1] = wrong[0][1], wrong[0][0]
    code = next(iter(task.rule_codes))
    with task.rules_disabled(*task.rule_codes):
        assert task.score(inst, format_grid(wrong)).solved  # every rule off: anything goes
    assert not task.score(inst, format_grid(wrong)).solved  # ... and the memo does not leak out
    assert task.score(inst, format_grid(gold)).solved
    calls = []
    real = type(task).rule_checks

    def counting(self, instance, grid):
        calls.append(1)
        return real(self, instance, grid)

    monkeypatch.setattr(type(task), "rule_checks", counting)
    assert task.score(inst, format_grid(gold)).solved
    assert calls == [1]  # other rule checks (a planted bug, say): the golden grid is checked again
    assert task.score(inst, format_grid(gold)).solved
    assert not task.score(inst, format_grid(wrong)).solved
    assert calls == [1, 1]  # the wrong grid was checked, the golden one not a second time
    with task.rules_disabled(code):
        assert task.score(inst, format_grid(gold)).solved
    assert len(calls) == 3  # another rule set: checked again
    copy = type(inst).from_json(inst.to_json())
    assert task.score(copy, format_grid(gold)).solved
    assert len(calls) == 4  # another Instance object: checked again


def test_instances_and_tasks_still_pickle_after_scoring(solo):
    import pickle

    task, inst = solo
    assert task.score(inst, format_grid(task.solve(inst))).solved
    again = pickle.loads(pickle.dumps(inst))
    assert again == inst and pickle.loads(pickle.dumps(task)).score(again, format_grid(task.solve(inst))).solved
