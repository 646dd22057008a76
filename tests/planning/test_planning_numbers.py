"""The numbers of docs/specs/planning.md §10, reproduced by the solvers and the simulator."""
from __future__ import annotations

import pytest

from kumo_gym.core.registry import get_task
from kumo_gym.envs.planning import search as sp

HANOI = get_task("kumo_gym/Hanoi-v0")
CHECKER = get_task("kumo_gym/CheckerJumping-v0")
RIVER = get_task("kumo_gym/RiverCrossing-v0")
BLOCKS = get_task("kumo_gym/BlocksWorld-v0")

# docs/specs/planning.md §10.1
NS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20]
HANOI_OPT = [1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 32767, 1048575]
CHECKER_OPT = [3, 8, 15, 24, 35, 48, 63, 80, 99, 120, 255, 440]
BLOCKS_OPT = [1, 3, 4, 7, 8, 11, 12, 15, 16, 19, 28, 39]

# docs/specs/planning.md §10.3 (None = unsolvable)
RIVER_NS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100]
X = None
RIVER_TABLE = {
    2: [1, 5, 11, X, X, X, X, X, X, X, X, X, X],
    3: [1, 3, 5, 9, 11, X, X, X, X, X, X, X, X],
    4: [1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 37, 97, 197],
    5: [1, 1, 3, 3, 5, 7, 7, 9, 11, 13, 33, 93, 193],
    6: [1, 1, 1, 3, 3, 5, 5, 7, 7, 9, 19, 49, 99],
}


def test_hanoi_optimal_lengths():
    for n, opt in zip(NS, HANOI_OPT):
        assert HANOI.optimal_length(HANOI.load({"n": n})) == opt == sp.hanoi_optimal_length(n)
    for n in range(1, 13):
        inst = HANOI.load({"n": n})
        sol = HANOI.solve(inst)
        v = HANOI.verify(inst, sol)
        assert v.solved and v.details["is_optimal"] and len(sol) == 2 ** n - 1
        assert sol[0] == ([1, 0, 2] if n % 2 else [1, 0, 1])


def test_hanoi_n16_gold_verifies_from_text():
    inst = HANOI.load({"n": 16})
    v = HANOI.score(inst, HANOI.format_answer(HANOI.solve(inst)))
    assert v.solved and v.details["n_moves"] == 65535 and len(sp.hanoi_moves(20)) == 1048575


def test_checker_optimal_lengths_and_solutions():
    for n, opt in zip(NS, CHECKER_OPT):
        inst = CHECKER.load({"n": n})
        sol = CHECKER.solve(inst)
        assert len(sol) == opt == CHECKER.optimal_length(inst)
        assert CHECKER.verify(inst, sol).details["is_optimal"]


def test_checker_two_optimal_solutions_mirror_images():
    """Exactly two optimal solutions for N <= 5 (count by BFS over boards)."""
    for n in range(1, 6):
        inst = CHECKER.load({"n": n})
        start, goal = CHECKER.initial_state(inst), CHECKER.goal_state(inst)
        ways, frontier = {start: 1}, [start]
        for _ in range(CHECKER.optimal_length(inst)):
            nxt: dict = {}
            for s in frontier:
                for m in CHECKER.legal_moves(inst, s):
                    t = CHECKER.apply(inst, s, m)
                    nxt[t] = nxt.get(t, 0) + ways[s]
            ways, frontier = nxt, list(nxt)
        assert ways.get(goal) == 2


def test_blocks_optimal_lengths():
    for n, opt in zip(NS, BLOCKS_OPT):
        inst = BLOCKS.load({"n": n})
        sol = BLOCKS.solve(inst)
        assert len(sol) == opt == BLOCKS.optimal_length(inst)
        assert BLOCKS.verify(inst, sol).solved
    for n, opt in [(11, 20), (12, 23), (13, 24), (14, 27), (40, 79), (50, 99)]:
        assert sp.blocks_interleaved_optimal_length(n) == opt
        inst = BLOCKS.load({"n": n})
        assert BLOCKS.verify(inst, BLOCKS.solve(inst)).details["is_optimal"]


def test_blocks_closed_form_matches_search():
    for n in range(1, 11):
        initial, goal = sp.blocks_interleaved(n)
        assert len(sp.blocks_search(initial, goal)) == sp.blocks_interleaved_optimal_length(n)


def test_blocks_search_backends_agree_and_bfs_equals_astar():
    for n in range(2, 7):
        initial, goal = sp.blocks_interleaved(n)
        a = sp.blocks_search(initial, goal, backend="numba")
        b = sp.blocks_search(initial, goal, backend="python")
        c = sp.blocks_search(initial, goal, backend="numba", heuristic=False)
        assert len(a) == len(b) == len(c) == sp.blocks_interleaved_optimal_length(n)
    inst = BLOCKS.custom([["C", "A"], ["B"], []], [["A", "B", "C"], [], []])
    sol = BLOCKS.solve(inst)
    assert BLOCKS.verify(inst, sol).solved and len(sol) == 5
    assert len(sp.blocks_search(inst.data["initial"], inst.data["goal"], heuristic=False, backend="python")) == 5


def test_blocks_goals_match_paper_and_keep_every_block():
    assert sp.blocks_interleaved(4) == ([["A", "B"], ["C", "D"], []], [["D", "B", "C", "A"], [], []])
    assert sp.blocks_interleaved(6) == ([["A", "B", "C"], ["D", "E", "F"], []], [["F", "C", "E", "B", "D", "A"], [], []])
    assert sp.blocks_interleaved(5) == ([["A", "B"], ["C", "D", "E"], []], [["E", "B", "D", "A", "C"], [], []])
    for n in range(1, 60, 3):
        initial, goal = sp.blocks_interleaved(n)
        assert sorted(goal[0]) == sorted(b for s in initial for b in s) and len(goal[0]) == n
    assert sp.block_names(26)[-1] == "Z" and sp.block_names(28)[:2] == ["A1", "B1"] and sp.block_names(28)[26:] == ["A2", "B2"]


@pytest.mark.parametrize("k", sorted(RIVER_TABLE))
def test_river_table(k):
    for n, want in zip(RIVER_NS, RIVER_TABLE[k]):
        assert sp.river_optimal_length(n, k) == want, (n, k)
        assert sp.river_solvable(n, k) == (want is not None)
        if want is not None and n <= 20:
            inst = RIVER.load({"n": n, "k": k})
            sol = RIVER.solve(inst)
            v = RIVER.verify(inst, sol)
            assert v.solved and v.details["is_optimal"] and len(sol) == want


def test_river_closed_forms():
    for n in range(3, 40):
        assert sp.river_optimal_length(n, 4) == 2 * n - 3
    for n in range(7, 40):
        assert sp.river_optimal_length(n, 5) == 2 * n - 7
    for n in range(4, 40):
        assert sp.river_optimal_length(n, 6) == 2 * (n // 2) - 1
    assert [sp.river_optimal_length(n, 2 if n <= 3 else 3) for n in range(1, 6)] == [1, 5, 11, 9, 11]


def test_river_count_search_matches_explicit_bfs():
    for n in range(1, 8):
        for k in (2, 3, 4, 5, 6):
            if n == 7 and k > 4:
                continue
            assert sp.river_explicit_bfs(n, k)[0] == sp.river_optimal_length(n, k), (n, k)


@pytest.mark.slow
def test_river_count_search_matches_explicit_bfs_n8():
    for k in (2, 3, 4, 5, 6):
        assert sp.river_explicit_bfs(8, k)[0] == sp.river_optimal_length(8, k)


def test_river_backends_agree():
    for n in (1, 2, 3, 5, 8, 20, 40):
        for k in (2, 3, 4, 5, 6):
            a, b = sp.river_count_moves(n, k, "numba"), sp.river_count_moves(n, k, "python")
            assert (a is None) == (b is None) and (a is None or len(a) == len(b))


def test_river_distinct_optimal_solutions():
    for (n, k), count in {(2, 2): 8, (3, 2): 486, (3, 3): 24, (4, 3): 15360, (4, 4): 604}.items():
        assert sp.river_explicit_bfs(n, k, count=True)[1] == count


def test_worked_checks():
    assert HANOI.verify(HANOI.load({"n": 3}), [[1, 0, 2], [2, 0, 1], [1, 2, 1], [3, 0, 2], [1, 1, 0], [2, 1, 2],
                                               [1, 0, 2]]).solved
    assert CHECKER.score(CHECKER.load({"n": 1}), "moves = [[R,0,1],[B,2,0],[R,1,2]]").solved
    assert RIVER.verify(RIVER.load({"n": 2, "k": 2}),
                        [["A_2", "a_2"], ["A_2"], ["A_1", "A_2"], ["A_1"], ["A_1", "a_1"]]).solved
    ex = BLOCKS.custom([["A", "B"], ["C"], []], [["A"], ["B"], ["C"]])
    assert BLOCKS.verify(ex, [["C", 1, 2], ["B", 0, 1]]).solved
    assert CHECKER.solve(CHECKER.load({"n": 2})) == [["R", 1, 2], ["B", 3, 1], ["B", 4, 3], ["R", 2, 4], ["R", 0, 2],
                                                     ["B", 1, 0], ["B", 3, 1], ["R", 2, 3]]
    b4 = BLOCKS.load({"n": 4})
    want = [["B", 0, 1], ["A", 0, 2], ["B", 1, 2], ["D", 1, 0], ["B", 2, 0], ["C", 1, 0], ["A", 2, 0]]
    assert BLOCKS.solve(b4) == want and BLOCKS.verify(b4, want).details["is_optimal"]
    h3 = HANOI.load({"n": 3})
    v = HANOI.score(h3, "moves = [[1,0,2],[2,0,2]]")
    assert (v.status, v.first_error, v.details["reason"]) == ("illegal_move", 2, "larger_on_smaller")
    v = HANOI.score(h3, "moves = [[1,0,2]]")
    assert (v.status, v.first_error) == ("incomplete", 2)
