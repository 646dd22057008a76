"""Parsers and the transition judge (docs/specs/finereason.md §2, §3, §6, §7).

The Game of 24 parser and the clue language are hand-written recursive-descent readers: random
expression trees rendered to text must parse back to their value, and anything outside the
grammar is rejected. The judge gives every docs/specs/finereason.md §7 category on hand-made fixtures.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kumo_gym.analysis.finereason import state_checking_metrics, state_transition_metrics, summary
from kumo_gym.core.errors import ParseError
from kumo_gym.core.instance import Instance
from kumo_gym.envs.finereason import game24, logicgrid
from kumo_gym.envs.finereason.tasks import StateCheckingTask, StateTransitionTask
from kumo_gym.envs.finereason.text import extract_state_literal, parse_literal

# ---- Game of 24 expressions -------------------------------------------------------------------
leaf = st.integers(0, 30)
trees = st.recursive(leaf, lambda sub: st.tuples(st.sampled_from("+-*/"), sub, sub), max_leaves=6)


def direct_value(t):
    if isinstance(t, int):
        return Fraction(t)
    op, a, b = t
    x, y = direct_value(a), direct_value(b)
    return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}[op]()


def render(t, style):
    if isinstance(t, int):
        return str(t)
    op, a, b = t
    sym = {"plain": op, "unicode": {"+": "+", "-": "\u2212", "*": "\u00d7", "/": "\u00f7"}[op]}[style]
    return f"({render(a, style)} {sym} {render(b, style)})"


@settings(max_examples=150, deadline=None)
@given(t=trees, style=st.sampled_from(["plain", "unicode"]))
def test_game24_parser_matches_direct_evaluation(t, style):
    try:
        want = direct_value(t)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            game24.value(game24.parse_expr(render(t, style)))
        return
    node = game24.parse_expr(render(t, style))
    assert game24.value(node) == want
    assert game24.to_text(node) == render(t, "plain")
    assert game24.parse_expr(game24.canon(node)) is not None


def test_game24_precedence_and_canon():
    assert game24.value(game24.parse_expr("2 + 3 * 4")) == 14
    assert game24.value(game24.parse_expr("(2 + 3) * 4")) == 20
    assert game24.value(game24.parse_expr("8 / 3 * 9")) == 24
    assert game24.canon(game24.parse_expr("(10 + (9 - 1))")) == game24.canon(game24.parse_expr("((9 - 1) + 10)"))


@pytest.mark.parametrize("text", ["__import__('os')", "2 ** 3", "1.5 + 2", "-3 + 27", "3 +", "(1 + 2",
                                  "1 + 2)", "abs(3)", "x * 2", "3 // 2", "1e3", "", "4 % 3", "[1]",
                                  "(" * 100 + "1" + ")" * 100, "9" * 40])
def test_game24_parser_rejects_anything_else(text):
    with pytest.raises(ParseError):
        game24.parse_expr(text)


# ---- the clue language ---------------------------------------------------------------------------
TABLE = [["times", "names", "pets"], [9, "Ann", "cat"], [10, "Bob", "dog"], [11, "Cy", ""]]


@pytest.mark.parametrize("clue,want", [
    ("T[r('Ann')][c('pets')] == 'cat'", True),
    ("T[r(10)][c('names')] == 'Bob' and T[r('Bob')][c('times')] > 9", True),
    ("T[r('Cy')][c('times')] == T[r('Ann')][c('times')] + 2", True),
    ("T[r('Cy')][c('pets')] == ''", True),
    ("T[r('Zed')][c('pets')] == ''", True),  # an absent key looks up ''
    ("T[r('Cy')][c('pets')] < 3", False),  # '' is not a number: the clue fails, so it is False
    ("T[r('Ann')][c('pets')] == 'dog' or T[r('Ann')][c('times')] == 9", True),
    ("-T[r('Ann')][c('times')] == -9", True),
    ("T[r('Ann')][c('times')] == 9.0", True),
    ("T[r('Bob')][c('names')] != 'Bob'", False),
])
def test_clue_interpreter(clue, want):
    assert logicgrid.clue_holds(clue, TABLE) is want


@pytest.mark.parametrize("clue", ["__import__('os').system('true')", "T[r('a')][c('b')].x", "1 if 2 else 3",
                                  "lambda: 0", "T[r(x)][c('b')] == 1", "T[r('a')]", "(1 == 1", "1 ** 2",
                                  "not 1 == 2", "T[r('a')][c(1)] == 2", "a == b", "[1, 2]", "'x' in 'xy'", "",
                                  "1 < 2 < 3", "(" * 200 + "1" + ")" * 200])
def test_clue_language_rejects_anything_else(clue):
    with pytest.raises(ParseError):
        logicgrid.parse_clue(clue)


# ---- literals and answer extraction -----------------------------------------------------------------
def test_literal_reader():
    assert parse_literal("[['(9 - 1)', 10], [\"a\", 2.5, 'it\\'s']]") == [["(9 - 1)", 10], ["a", 2.5, "it's"]]
    assert parse_literal("[(9 - 1), 10, 13]") == ["(9 - 1)", 10, 13]
    for bad in ["[1, 2", "[[[[[[1]]]]]]", "[1,, 2]", "1, 2", "[1] x"]:
        with pytest.raises(ParseError):
            parse_literal(bad)
    assert extract_state_literal("first [1, 2] then Next state: [3, 4]\n[5, 6]")[0] == [5, 6]
    for joint in (" and ", " or ", "/", ", or "):  # two states offered on the answer line: a hedge
        with pytest.raises(ParseError) as e:
            extract_state_literal(f"first [1, 2] then Next state: [3, 4]{joint}[5, 6]")
        assert e.value.reason == "hedge"
    assert extract_state_literal("no marker, [7, 8]") == ([7, 8], True)


@pytest.mark.parametrize("text,want", [
    ("Thinking...\nAnswer: (B)", "B"), ("Answer: A", "A"), ("**Answer:** (A)", "A"),
    ("```\nAnswer: (B)\n```", "B"), ("\\boxed{B}", "B"), ("\\boxed{Unsolvable}", "B"),
    ("Answer: (A) ... on reflection Answer: (B)", "B"), ("Answer: Uncolorable", "B"), ("Answer: Colorable", "A"),
    ("The options are (A) and (B); I pick (A)", "A"), ("<think>Answer: (A)</think>Answer: (B)", "B"),
])
def test_state_checking_parser_leniency(text, want):
    task = StateCheckingTask()
    from kumo_gym.core.extract import split_thinking

    assert task.parse(split_thinking(text).answer) == want


@pytest.mark.parametrize("line", ["A, B", "A and B", "A/B", "(A) or (B)", "B, A", "B or A", "A / (B)",
                                  "Solvable or Unsolvable", "(A) Solvable / (B) Unsolvable"])
def test_an_answer_line_naming_both_options_is_a_hedge(line):
    """It pays 0 with the status ``hedge`` whatever the label (the first letter used to count)."""
    import numpy as np

    task = StateCheckingTask()
    for seed in range(6):
        inst = task.generate(np.random.default_rng(seed), **task.resolve_params())
        v = task.score(inst, f"Reasoning.\nAnswer: {line}")
        assert v.status == "hedge" and v.reward == 0.0, (line, v)
        # rejecting the other option is no hedge, and a later answer line replaces a hedged one
        truth = task.solve(inst)
        other = "B" if truth == "A" else "A"
        assert task.score(inst, f"Answer: {truth} (not {other})").solved
        assert task.score(inst, f"Answer: {line}\nAnswer: ({truth})").solved


@pytest.mark.parametrize("reply", ["A (B) Unsolvable", "(A) Unsolvable", "(B) Solvable", "B) Solvable, so (A)",
                                   "Unsolvable: (A)", "A (B)", "A. (B) Unsolvable"])
def test_a_bare_option_beside_the_other_options_letter_or_word_is_a_hedge(reply):
    """SmolLM2's sampled replies wrote ``A (B) Unsolvable`` and ``(A) Unsolvable`` with no ``Answer:`` line:
    the last bare option used to count alone, so the one that was right was paid whichever was meant."""
    task = StateCheckingTask()
    with pytest.raises(ParseError) as e:
        task.parse(reply)
    assert e.value.reason == "hedge", reply
    # the message (a multi-turn episode's training signal) quotes what named the other option
    assert "which is option" in str(e.value) and "Answer: (A) or Answer: (B)" in str(e.value)
    if reply == "(A) Unsolvable":
        assert "'Unsolvable', which is option B" in str(e.value)


@pytest.mark.parametrize("reply,want", [("(B) Unsolvable", "B"), ("(A) Solvable.", "A"),
                                        ("A careful look shows (B) Unsolvable", "B"),
                                        ("Not A: (B) Unsolvable", "B"), ("(A) and (B); I pick (A) Solvable", "A"),
                                        ("Answer: (B). A state with no completion.", "B")])
def test_a_bare_option_with_its_own_word_still_counts(reply, want):
    assert StateCheckingTask().parse(reply) == want


def test_state_checking_parser_failure():
    with pytest.raises(ParseError):
        StateCheckingTask().parse("I am not sure.")


# ---- the transition judge: every docs/specs/finereason.md §7 category ------------------------------------------------
def coloring_item(label):
    # a triangle 0-1-2 with a pendant vertex 3: colourable with 3 colours, not with 2
    graph = [[1, 2], [0, 2], [0, 1, 3], [2]]
    data = {"graph": graph, "k": 3}
    if label == "Solvable":
        cur, parent = [1, 2, 0, 0], [1, 0, 0, 0]
        explored = None
    else:
        data = {"graph": graph, "k": 2}
        cur, parent = [1, 2, 0, 0], [1, 0, 0, 0]
        explored = None
    return {"puzzle": "coloring", "puzzle_data": data, "depth": 1, "current": cur, "label": label,
            "history": [{"depth": 0, "state": parent, "label": "Solvable", "clue": None}],
            "explored": explored, "explored_clue": None, "defects": [], "source": "generated"}


def game24_item():
    cur = ["(1 + 9)", "10", "13"]
    return {"puzzle": "game24", "puzzle_data": {"numbers": ["1", "9", "10", "13"]}, "depth": 1, "current": cur,
            "label": "Unsolvable", "history": [{"depth": 0, "state": ["1", "9", "10", "13"], "label": "Solvable",
                                                "clue": None}],
            "explored": ["((1 + 9) + 10)", "13"], "explored_clue": None, "defects": [], "source": "generated"}


def judge(item, text):
    task = StateTransitionTask()
    inst = Instance("finereason", item, params={"puzzle": item["puzzle"]})
    inst = task.load(inst)
    return task.score(inst, text).details


def explored_colouring():
    item = coloring_item("Solvable")
    item["explored"] = [1, 2, 3, 0]
    return item


#: item -> (reply, detail field, expected value) for the transition judge
JUDGEMENTS = {
    "game24 at an unsolvable state": (game24_item, [
        ("Next state: ['1', '9', '10', '13']", "category", "correct"),
        ("Next state: ['13', '10', '9', '1']", "category", "correct"),  # order-insensitive
        ("Next state: ['(1 + 9)', '10', '13']", "error", "sibling"),
        ("Next state: ['(9 - 1)', '10', '13']", "category", "sibling"),
        ("Next state: ['((1 + 9) + 10)', '13']", "category", "forward"),
        ("Next state: ['((1 + 9) + 10)', '13']", "error", "backtracking_failure"),
        ("Next state: ['1', '9', '10', '12']", "category", "backtracking_failure"),
        ("Next state: ['1 +']", "error", "parse_error"),
        ("nothing here", "error", "parse_error"),
    ]),
    "colouring at a solvable state": (explored_colouring, [
        ("Next state: [1, 2, 0, 1]", "category", "correct"),  # any legal move, not only a tree edge
        ("Next state: [1, 2, 3, 0]", "category", "unsolvable_child"),
        ("Next state: [1, 2, 3, 2]", "category", "invalid_move"),
        ("Next state: [1, 2, 3, 2]", "error", "multiple_moves"),
        ("Next state: [1, 2, 1, 0]", "reason", "rule_clash"),
        ("Next state: [1, 2, 0, 4]", "reason", "value_out_of_range"),
        ("Next state: [2, 2, 0, 0]", "reason", "changed_filled_cell"),
        ("Next state: [1, 2, 0, 0]", "reason", "no_change"),
        ("Next state: [1, 0, 0, 0]", "reason", "unneeded_backtrack"),
        ("Next state: [1, 2, 0]", "error", "parse_error"),
    ]),
}


@pytest.mark.parametrize("case", JUDGEMENTS)
def test_judge_categories(case):
    make_item, judged = JUDGEMENTS[case]
    item = make_item()
    for reply, key, expected in judged:
        assert judge(item, reply)[key] == expected, (reply, key)


def test_labels_are_recomputed_on_load():
    item = coloring_item("Unsolvable")
    item["puzzle_data"]["k"] = 3  # the stored label is now wrong: the loader recomputes it
    inst = StateCheckingTask().load(Instance("finereason", item, params={}))
    assert inst.data["label"] == "Solvable"


def test_metrics():
    sc = StateCheckingTask()
    sol, uns = coloring_item("Solvable"), coloring_item("Unsolvable")
    vs = [sc.score(Instance("finereason", it, params={}), ans).to_dict()
          for it, ans in [(sol, "Answer: (A)"), (uns, "Answer: (B)"), (uns, "Answer: (A)"), (sol, "Answer: (B)"),
                          (uns, "no idea")]]
    m = state_checking_metrics(vs)
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (1, 1, 2, 1)
    assert m["accuracy"] == pytest.approx(0.4) and m["precision"] == pytest.approx(0.5)
    assert m["recall"] == pytest.approx(1 / 3) and m["parse_failure_rate"] == pytest.approx(0.2)
    st_task = StateTransitionTask()
    g = game24_item()
    vt = [st_task.score(Instance("finereason", g, params={}), t).to_dict()
          for t in ["Next state: ['1', '9', '10', '13']", "Next state: ['(1 + 9)', '10', '13']", "oops"]]
    t = state_transition_metrics(vt)
    assert t["accuracy"] == pytest.approx(1 / 3)
    assert t["errors_by_label"]["Unsolvable"] == {"correct": 1, "sibling": 1, "parse_error": 1}
    s = summary(vs, vt)
    assert s["game24"]["st"] == pytest.approx(1 / 3) and "overall" in s
