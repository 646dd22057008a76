"""Filling (docs/specs/grid_puzzles.md §5 "Filling", §7, §8)."""
from __future__ import annotations

import numpy as np

from kumo_gym.envs.grid.filling import FillingTask, blocks
from kumo_gym.envs.grid.filling.codec import encode, largest
from kumo_gym.envs.grid.filling.deduce import deduce, partition
from kumo_gym.solvers import sat

from .spec import check_labels, check_rejected, check_tatham_example

T = FillingTask()
SPEC_ID = "3x3:b12a21b"
SPEC_SOLUTION = [[2, 3, 1], [2, 3, 2], [1, 3, 2]]


def rules(inst, grid):
    return {v["rule"] for v in T.verify(inst, grid).details.get("violations", [])}


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"] == [[0, 0, 1], [2, 0, 2], [1, 0, 0]]


def test_params_and_grammar_errors():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3", "9x7", "13x9", "17x13"]
    check_rejected(T.decode_params, ("9x7de", "1x1"))
    check_rejected(T.load, ("3x3:b12a21", "3x3:b12a21bb", "3x3:b10a21b", "3x3:b12A21b", "3x3:b12_21b", "3x3:b12a24b"))


def test_uniqueness_needs_the_block_size_cuts():
    """The clauses alone (no two 1s touch, a larger digit has a like neighbour, the block sizes of
    shapes up to four cells) admit grids whose blocks have the wrong size; the proof must run with
    the cuts to find the one solution."""
    inst = T.load("9x7:c416c1b9c2c4c63a2f1c6a8c14d45c31c452")
    enc = T.encoding(inst)
    plain = sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=3, assumptions=enc.assumptions())
    assert len(plain) == 3
    assert T.count_solutions(inst, limit=3) == 1


def test_one_wrong_answer_per_rule():
    inst = T.load("2x2:3c")  # a 3 at (0, 0)
    assert T.verify(inst, [[3, 3], [3, 1]]).solved
    assert rules(inst, [[1, 3], [3, 3]]) == {"filling.R1"}  # valid blocks, the given changed
    assert rules(inst, [[3, 3], [3, 3]]) == {"filling.R2"}  # a block of four 3s
    v = T.verify(inst, [[3, 3], [3, 3]])
    assert v.details["violations"][0]["cells"] == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_any_valid_filling_is_accepted():
    """Blocks are checked by their own digits, never against a stored partition."""
    inst = T.load("2x2:d")
    for grid in ([[4, 4], [4, 4]], [[3, 3], [3, 1]], [[1, 3], [3, 3]], [[3, 1], [3, 3]]):
        assert T.verify(inst, grid).solved, grid
    assert not T.verify(inst, [[2, 2], [2, 2]]).solved


def test_generated_blocks_are_at_most_nine():
    inst = T.generate(np.random.default_rng(1), difficulty="normal")
    sol = inst.data["solution"]
    assert all(len(b) == sol[b[0][0]][b[0][1]] <= 9 for b in blocks(sol))
    small = T.generate(np.random.default_rng(1), difficulty="trivial")
    assert max(v for row in small.data["solution"] for v in row) <= 3  # Tatham's parser takes up to 3 here
    assert T.count_solutions(inst) == 1 and T.clue_count(inst) == len(T.givens(inst))


def test_claims_render_and_moves():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Cell", "r": 0, "c": 1, "v": 3}, {"type": "Given", "r": 0, "c": 2, "v": 1}],
                       incorrect=[{"type": "NotCell", "r": 0, "c": 1, "v": 3},
                                  {"type": "Given", "r": 0, "c": 1, "v": 3}])
    assert len(T.solution_claims(inst)) == 9
    assert T.check_move(inst, T.initial_state(inst), (0, 2, 5)) is not None  # givens are fixed
    assert "[1]" in T.render(inst) and T.render_rgb(inst, SPEC_SOLUTION).ndim == 3


def test_block_size_cuts_forbid_the_model_they_reject():
    """A too-big block loses k + 1 connected cells of it; a too-small one must grow or change."""
    from kumo_gym.envs.grid.filling.geometry import sized_block_cuts

    x = np.arange(1, 2 * 2 * 9 + 1).reshape(2, 2, 9)
    cuts = sized_block_cuts(x)

    def model(grid):
        value = np.full(x.size + 1, -1, np.int8)
        for (r, c), v in np.ndenumerate(np.asarray(grid)):
            value[x[r, c, v - 1]] = 1
        return value

    assert cuts(model([[3, 3], [3, 1]])) == []
    big = cuts(model([[2, 2], [2, 1]]))  # three 2s: any two plus one more cannot all be 2
    assert len(big) == 1 and len(big[0]) == 3 and all(lit < 0 for lit in big[0])
    small = cuts(model([[3, 3], [1, 2]]))  # two 3s need a third; the lone 2 needs a partner
    for clause in small:
        assert not any((lit > 0) == (model([[3, 3], [1, 2]])[abs(lit)] > 0) for lit in clause)  # each is violated
    assert len(small) == 2


def test_grade_sees_the_block_sizes():
    # plain propagation never sees a block's size (every puzzle would grade 2); with the cuts a
    # uniqueness proof needed, some easy puzzles are solved by propagation or probing
    insts = [T.generate(np.random.default_rng([5, s]), difficulty="easy") for s in range(16)]
    grades = [T.grade(i) for i in insts]
    assert min(grades) < 2 and grades == [T.grade(i) for i in insts]  # deterministic
    plain = [T.encoding(i).engine.grade(T.encoding(i).assumptions()) for i in insts]
    assert plain == [2] * len(insts)


def test_deduction_is_sound():
    """The generator's uniqueness proof: whatever the givens, every cell the deduction fills is
    the same in every solution (checked against SAT where the puzzle is unique), a grid it fills
    completely is the only solution, and consistent givens never read as a contradiction."""
    rng = np.random.default_rng(7)
    solved = partial = tried = 0
    while tried < 100:
        H, W = (int(v) for v in rng.integers(2, 7, size=2))
        sol = partition(rng, H, W, largest(W, H))
        if sol is None:
            continue
        tried += 1
        keep = rng.uniform(0.2, 0.8)
        grid = [[v if rng.random() < keep else 0 for v in row] for row in sol]
        left, out = deduce(grid)
        assert left >= 0, grid
        inst = T.load(f"{W}x{H}:{encode({'grid': grid})}")
        count = T.count_solutions(inst, limit=2)
        if left == 0:
            solved += 1
            assert count == 1 and T.verify(inst, out).solved, grid
        elif count == 1:
            partial += 1
            assert all(v in (0, s) for row, srow in zip(out, T.solve(inst)) for v, s in zip(row, srow)), grid
    assert solved > 20 and partial > 3


def test_deduction_does_not_claim_ambiguous_puzzles():
    assert deduce([[3, 0], [0, 0]]) == (3, [[3, 0], [0, 0]])  # 3,3,3,1 in four ways
    assert deduce([[0, 0], [0, 0]])[0] == 4
    assert deduce([[3, 3], [3, 3]])[0] == -1  # a block of four 3s
    assert deduce([[2, 0, 1], [2, 3, 2], [1, 0, 2]]) == (0, SPEC_SOLUTION)  # the 3 has nowhere else to grow
    left, out = deduce([[0, 0, 1], [2, 0, 2], [1, 0, 0]])  # the spec's example: a block without a given
    assert left > 0 and out[0][0] == out[1][0] == 2


def test_generated_puzzles_are_unique():
    """Generation trusts the deduction's proof; SAT confirms it over a spread of seeds."""
    for diff in ("trivial", "easy"):
        for s in range(6):
            inst = T.generate(np.random.default_rng([11, s]), difficulty=diff)
            assert T.count_solutions(inst, limit=2) == 1, inst.data["game_id"]
            assert inst.data["solution"] == T.solve(inst)


def test_small_grids_use_the_table_of_every_solution():
    from kumo_gym.envs.grid.filling.deduce import every_solution

    table = every_solution(3, 3)
    assert len(table) == T.count_solutions(T.load("3x3:i"), limit=1000) == 445
    assert all(T.verify(T.load("3x3:i"), row.reshape(3, 3).tolist()).solved for row in table[::37])
