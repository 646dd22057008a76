"""Answer extraction of the planning puzzles (docs/specs/planning.md §5, checklist docs/specs/planning.md §11) and
parser fuzzing."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kumo_gym.core.errors import ParseError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.planning import moves as mv

HANOI = get_task("kumo_gym/Hanoi-v0")
CHECKER = get_task("kumo_gym/CheckerJumping-v0")
RIVER = get_task("kumo_gym/RiverCrossing-v0")
BLOCKS = get_task("kumo_gym/BlocksWorld-v0")
TASKS = [HANOI, CHECKER, RIVER, BLOCKS]
H3 = HANOI.load({"n": 3})
GOLD3 = HANOI.solve(H3)
GOLD3_TEXT = HANOI.format_moves(GOLD3)


def test_prose_around_the_list():
    text = f"Let me think.\nSo the answer is:\nmoves = {GOLD3_TEXT}\nThat solves it, I believe."
    v = HANOI.score(H3, text)
    assert v.solved and v.details["answer_source"] == "labelled"


def test_code_fence_and_boxed():
    v = HANOI.score(H3, f"Final:\n```python\n{GOLD3_TEXT}\n```\n")
    assert v.solved and v.details["answer_source"] == "fence"
    v = HANOI.score(H3, f"Final: $\\boxed{{{GOLD3_TEXT}}}$ and [[1, 0, 2]] as bare")
    assert v.solved and v.details["answer_source"] == "boxed"
    v = HANOI.score(H3, f"```\nmoves = {GOLD3_TEXT}\n```")
    assert v.solved and v.details["answer_source"] == "labelled"  # a label beats the fence


def test_unquoted_tokens_comments_trailing_commas_and_parens():
    text = ("moves = [\n  [R, 0, 1],  # slide red\n  (B, 2, 0),  # jump blue over red\n"
            "  ['red', 1, 2],\n]\n")
    assert CHECKER.parse(text) == [["R", 0, 1], ["B", 2, 0], ["R", 1, 2]]
    assert CHECKER.score(CHECKER.load({"n": 1}), text).solved
    assert BLOCKS.parse("moves = [[C, 1, 2], ['B', 0, 1],]") == [["C", 1, 2], ["B", 0, 1]]
    # a # inside quotes is no comment; curly quotes are normalised
    assert RIVER.parse("moves = [[\u201cA_1\u201d, \u201ca_1\u201d]]") == [["A_1", "a_1"]]


def test_last_labelled_list_wins_and_conflicts_are_flagged():
    text = f"moves = [[1, 0, 1]]\nno wait\nmoves = {GOLD3_TEXT}\nand a bare [[2, 0, 1]]"
    v = HANOI.score(H3, text)
    assert v.solved and v.details["n_answer_candidates"] == 3 and v.details["answer_conflict"]
    v = HANOI.score(H3, f"moves = {GOLD3_TEXT}\nmoves = {GOLD3_TEXT}")
    assert not v.details["answer_conflict"]


def test_single_triple_counts_only_when_labelled():
    assert HANOI.parse("moves = [1, 0, 2]") == [[1, 0, 2]]
    assert HANOI.parse('moves = ["1", "0", "2"]') == [[1, 0, 2]]
    with pytest.raises(ParseError):
        HANOI.parse("I would move [1, 0, 2] first")
    assert RIVER.parse('moves = ["A_1", "a_1"]') == [["A_1", "a_1"]]
    assert HANOI.parse("moves = []") == []


def test_river_names_normalised_and_case_kept():
    assert RIVER.parse("moves = [[A1, a1], [A_1], [A2, a_2]]") == [["A_1", "a_1"], ["A_1"], ["A_2", "a_2"]]
    inst = RIVER.load({"n": 2, "k": 2})
    assert RIVER.score(inst, 'moves = [["A2","a2"],["A2"],["A1","A2"],["A1"],["A1","a1"]]').solved
    # swapping the case of a name makes it another person
    v = RIVER.score(inst, 'moves = [["a_2","A_2"],["a_2"],["A_1","A_2"]]')
    assert v.status == "illegal_move" and v.first_error == 2
    # direction words inside a trip are ignored (docs/specs/planning.md §2.3)
    assert RIVER.parse('moves = [["A_1", "a_1", "right"]]') == [["A_1", "a_1"]]


def test_ellipsis_is_a_parse_failure():
    for text in ("moves = [[1, 0, 2], [2, 0, 1], ...]", "moves = [[1, 0, 2], \u2026]"):
        v = HANOI.score(H3, text)
        assert v.status == "parse_error" and v.details["reason"] == "ellipsis"
        assert v.details["self_truncation_evidence"]


def test_unclosed_list_at_length_is_truncated():
    text = "moves = [[1, 0, 2], [2, 0, 1], [1, 2"
    v = HANOI.score(H3, text, finish_reason="length")
    assert v.status == "truncated" and v.details["truncated"]
    v = HANOI.score(H3, "<think> still thinking about [[1, 0, 2]", finish_reason="stop")
    assert v.status == "truncated"  # a thinking block that never closed
    v = HANOI.score(H3, "I give up.", n_output_tokens=100, max_new_tokens=100)
    assert v.status == "truncated"
    v = HANOI.score(H3, "I give up.")
    assert v.status == "parse_error" and v.details["reason"] == "no_answer"


def test_thinking_is_never_the_answer_unless_asked():
    text = f"<think>moves = {GOLD3_TEXT}</think>The answer is above."
    assert HANOI.score(H3, text).status == "parse_error"
    v = HANOI.score(H3, text, fallback_to_thinking=True)
    assert v.solved and v.details["answer_from_thinking"]
    v = HANOI.score(H3, f"moves = {GOLD3_TEXT}", reasoning="moves = [[1, 0, 1]]")
    assert v.solved


def test_malformed_moves_are_rejected_with_reason():
    v = HANOI.score(H3, "moves = [[1, 0], [2, 0, 1]]")
    assert v.status == "parse_error" and v.details["reason"] == "malformed_move"
    v = CHECKER.score(CHECKER.load({"n": 1}), "moves = [[G, 0, 1]]")
    assert v.details["reason"] == "malformed_move"


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.family)
def test_format_answer_round_trip(task):
    for n in (1, 2, 3, 4):
        params = {"n": n, "k": 3} if task is RIVER else {"n": n}
        inst = task.load(params)
        gold = task.solve(inst)
        assert task.parse(task.format_answer(gold)) == gold


def test_spans_offsets_and_sources():
    text = "a [x] b \\boxed{[[1,0,2]]} ```\n[[2,0,1]]\n``` moves = [[1,0,1]] [[0"
    spans, unclosed = mv.find_spans(text)
    assert [s.source for s in spans] == ["bare", "boxed", "fence", "labelled"]
    assert all(text[s.start:s.end] == s.text for s in spans)
    assert not unclosed  # the trailing open list is not labelled


# ---- bounded time and no exceptions on hostile input ----------------------------------------
HOSTILE = ["[" * 10_000, "]" * 10_000, "[" * 10_000 + "]" * 10_000, "moves = " + "[" * 10_000 + "1" + "]" * 10_000,
           "\\boxed{" * 20_000, "```\n" * 10_000, "#" * 100_000, "'" * 100_000, '"[' * 50_000,
           "[1," * 300_000 + "1" + "]" * 3, "moves = [" + "[1, 0, 2], " * 90_000 + "]",
           "x" * 1_000_000, "moves = [[" + "9" * 5000 + ", 0, 2]]", "[(" * 5000, "moves = [[A_1" + ", a_1" * 100_000]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_inputs_never_raise(text):
    for task in TASKS:
        inst = task.generate(__import__("numpy").random.default_rng(0))
        v = task.score(inst, text)
        assert v.status in ("parse_error", "truncated", "illegal_move", "incomplete", "solved")
        try:
            task.parse_move(text)
        except ParseError:
            pass


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[](){},'\"#.\u2026 \n0123456789-RBAa_=:movesbxd\\`")), max_size=300))
def test_fuzz_parsers_only_raise_parse_error(text):
    for task in TASKS:
        try:
            task.parse(text)
        except ParseError:
            pass
        try:
            task.parse_move(text)
        except ParseError:
            pass
        task.score(task.load({"n": 2, "k": 2} if task is RIVER else {"n": 2}), text, finish_reason="length")


triples = st.lists(st.tuples(st.integers(-5, 30), st.integers(-3, 5), st.integers(-3, 5)).map(list), max_size=30)


@settings(max_examples=100, deadline=None)
@given(triples, st.sampled_from(["moves = {}", "```\n{}\n```", "\\boxed{{{}}}", "Answer:\nmoves={}\n"]))
def test_fuzz_round_trip_hanoi_move_lists(moves, wrapper):
    text = wrapper.format(HANOI.format_moves(moves))
    if not moves and "moves" not in wrapper:
        return  # an unlabelled empty list is not an answer
    assert HANOI.parse(text) == moves
    v = HANOI.verify(H3, moves)
    assert 0.0 <= v.score <= 1.0 and (v.first_error is None or 1 <= v.first_error <= len(moves) + 1)


names = st.builds(lambda c, i: f"{c}_{i}", st.sampled_from("aA"), st.integers(1, 9))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(names, min_size=1, max_size=4), min_size=1, max_size=12))
def test_fuzz_round_trip_river(trips):
    assert RIVER.parse(RIVER.format_answer(trips)) == trips
