"""Singles (docs/specs/grid_puzzles.md §5 "Singles", §7, §8)."""
from __future__ import annotations

import numpy as np

from kumo_gym.envs.grid.singles import BLACK, SinglesTask
from kumo_gym.solvers import sat

from .spec import check_labels, check_rejected, check_tatham_example

T = SinglesTask()
SPEC_ID = "2x2:1211"
SPEC_SOLUTION = [[1, 2], [-1, 1]]
# sgt-singles --generate 1 5x5de
TATHAM_5 = "5x5:2233124513443315354241214"


def rules(inst, grid):
    return {v["rule"] for v in T.verify(inst, grid).details.get("violations", [])}


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"] == [[1, 2], [1, 1]]


def test_params_and_grammar_errors():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["2x2de", "4x4de", "5x5de", "12x12de"]
    assert T.decode_params("6x4dk") == {"W": 6, "H": 4, "tatham_difficulty": "k"}
    check_rejected(T.decode_params, ("5x5dx", "1x5de", "5x5de3"))
    check_rejected(T.load, ("2x2:121", "2x2:12111", "2x2:1213", "2x2:12_1", "2x2:1201"))


def test_tatham_id_round_trip_and_unique():
    inst = T.load(TATHAM_5)
    assert T.to_game_id(inst) == TATHAM_5 and T.count_solutions(inst) == 1


def test_uniqueness_needs_the_connectivity_cuts():
    """Without the lazy cuts the CNF alone has two more models (diagonal blacks cutting off
    corners), so a proof that ignored connectivity would reject this unique puzzle."""
    inst = T.load("2x2:2111")
    enc = T.encoding(inst)
    plain = sat.enumerate_models(enc.formula.clauses, enc.answer.tolist(), limit=5, assumptions=enc.assumptions())
    assert len(plain) == 3  # either diagonal pair of blacks, or the corner alone
    assert T.count_solutions(inst, limit=5) == 1
    assert T.solve(inst) == [[2, 1], [1, -1]]


def test_one_wrong_answer_per_rule():
    inst = T.load(TATHAM_5)
    sol = inst.data["solution"]
    nums = inst.data["state"]["grid"]
    # R4: a white cell showing another number
    r, c = next((r, c) for r in range(5) for c in range(5) if sol[r][c] != BLACK)
    bad = [list(row) for row in sol]
    bad[r][c] = nums[r][c] % 5 + 1
    assert rules(inst, bad) == {"singles.R4"}
    # R3: a black cell turned white shows its repeated number
    r, c = next((r, c) for r in range(5) for c in range(5) if sol[r][c] == BLACK)
    bad = [list(row) for row in sol]
    bad[r][c] = nums[r][c]
    assert rules(inst, bad) == {"singles.R3"}
    # R1 and R2 on a hand-made puzzle: rows 1 2 3 / 2 3 1 / 3 1 2 is a Latin square (all white)
    latin = T.load("3x3:123231312")
    assert T.verify(latin, [[1, 2, 3], [2, 3, 1], [3, 1, 2]]).solved
    assert rules(latin, [[-1, -1, 3], [2, 3, 1], [3, 1, 2]]) == {"singles.R1"}
    assert rules(latin, [[1, -1, 3], [-1, 3, 1], [3, 1, 2]]) == {"singles.R2"}


def test_generated_puzzles_have_clashing_blacks():
    inst = T.generate(np.random.default_rng(4), difficulty="normal")
    sol, nums = inst.data["solution"], inst.data["state"]["grid"]
    blacks = [(r, c) for r in range(5) for c in range(5) if sol[r][c] == BLACK]
    assert blacks and T.clue_count(inst) == len(blacks)
    for r, c in blacks:  # each black repeats a white number of its row or column
        line = [nums[r][k] for k in range(5) if sol[r][k] != BLACK] + [nums[k][c] for k in range(5) if sol[k][c] != BLACK]
        assert nums[r][c] in line


def test_claims_render_and_moves():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Black", "r": 1, "c": 0}, {"type": "Number", "r": 0, "c": 1, "n": 2}],
                       incorrect=[{"type": "White", "r": 1, "c": 0}, {"type": "Number", "r": 0, "c": 1, "n": 1}])
    assert T.solution_claims(inst) == [{"type": "Black", "r": 1, "c": 0}]
    s = T.apply(inst, T.initial_state(inst), (1, 0, BLACK))
    assert s == ((1, 2), (-1, 1)) and T.is_goal(inst, s)
    assert T.apply(inst, s, T.parse_move('{"r": 1, "c": 0, "v": null}')) == ((1, 2), (1, 1))
    assert "#" in T.render(inst, SPEC_SOLUTION) and T.render_rgb(inst).ndim == 3


def test_grade_sees_connectivity():
    # plain propagation never sees that white cells stay connected; the grade adds the cuts a
    # uniqueness proof needed, so easy puzzles are not all graded as needing search
    insts = [T.generate(np.random.default_rng([16, s]), difficulty="easy") for s in range(6)]
    grades = [T.grade(i) for i in insts]
    assert min(grades) < 2 and grades == [T.grade(i) for i in insts]
    plain = [T.encoding(i).engine.grade(T.encoding(i).assumptions()) for i in insts]
    assert max(plain) == 2


def test_still_connected_matches_a_full_search():
    """The generator's early-stopping check agrees with a full search while the black set grows."""
    from kumo_gym.envs.grid.geometry import flat_neighbours, still_connected, unmarked_connected

    rng = np.random.default_rng(3)
    verdicts = set()
    for H, W in [(2, 2), (4, 4), (5, 5), (6, 3)] * 5:
        near, dark = flat_neighbours(H, W), [False] * (H * W)
        for idx in rng.permutation(H * W).tolist():
            if any(dark[n] for n in near[idx]):
                continue
            dark[idx] = True
            ok = still_connected(dark, near, idx)
            assert ok == unmarked_connected(dark, near)
            verdicts.add(ok)
            dark[idx] = ok
    assert verdicts == {True, False}
