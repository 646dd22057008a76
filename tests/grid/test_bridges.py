"""Bridges (docs/specs/grid_puzzles.md §5 "Bridges", §7)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from kumo_gym.envs.grid.bridges import BridgesTask, kernel
from kumo_gym.envs.grid.bridges.codec import aux_solution, decode, encode
from kumo_gym.envs.grid.bridges.geometry import islands_of, sight_lines
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.tatham import parse_game_id
from kumo_gym.solvers.engine import Engine

from .spec import check_labels, check_rejected, check_tatham_example, violated_rules

T = BridgesTask()
SPEC_ID = "7x7m2:3e4b1b2a4c3k2a3b2d2b1b2a3"
SPEC_SOLUTION = [[3, "H2", "H2", "H2", "H2", "H2", 4], ["V1", ".", 1, "H1", "H1", 2, "V2"],
                 [4, "H2", "H2", "H2", 3, "V1", "V2"], ["V1", ".", ".", ".", "V1", "V1", "V2"],
                 ["V1", ".", 2, "H2", 3, "V1", "V2"], [2, "H1", "H1", "H1", "H1", 2, "V2"],
                 [".", 1, "H1", "H1", 2, "H1", 3]]
RING = "3x3m2:2a2c2a2"  # four islands of 2 at the corners: unique as a ring of single bridges


def spec_grid() -> list[list]:
    return [list(row) for row in SPEC_SOLUTION]


def test_spec_example():
    check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)


def test_params_grammar():
    assert T.decode_params("7x7i30e10m2d0") == {"W": 7, "H": 7, "islands": 30, "expansion": 10, "max_bridges": 2,
                                                "no_loops": False, "tatham_difficulty": 0}
    assert T.decode_params("10x8m3L") == {"W": 10, "H": 8, "max_bridges": 3, "no_loops": True}
    assert [T.tatham_preset(d) for d in T.difficulties] == ["7x7i30e10m2d0", "7x7i30e10m2d1", "10x10i30e10m2d1",
                                                             "15x15i30e10m2d2"]
    check_rejected(T.decode_params, ("7x7q", "7x7m2d0x", "x7"))


def test_description_grammar():
    # A-G are islands of 10-16 and z is 26 cells of water; the ID is written back byte for byte
    state = decode({"W": 30, "H": 3, "max_bridges": 4}, "Gz3cGz5a1zc")
    assert state["grid"][0][0] == 16 and state["grid"][0][27] == 3 and state["grid"][1][1] == 16
    assert state["grid"][2][0] == 1 and encode(state) == "Gz3cGz5a1zc"
    for bad in ("11g", "1a", "1h?", "1h", "1i"):  # touching islands, short, a bad character, one island, long
        check_rejected(lambda d: decode({"W": 3, "H": 3}, d), (bad,))


def test_one_wrong_answer_per_rule():
    inst = T.load(SPEC_ID)
    g = spec_grid()
    g[0][0] = 4  # an island's number changed
    assert violated_rules(T, inst, g) == ["bridges.R1"]
    g = spec_grid()
    g[3][1] = 2  # a number on water
    assert violated_rules(T, inst, g) == ["bridges.R1"]
    g = spec_grid()
    g[0][3] = "H1"  # a double bridge thins in the middle
    assert violated_rules(T, inst, g) == ["bridges.R2"]
    g = spec_grid()
    g[3][1] = "V1"  # a bridge piece in open water
    assert violated_rules(T, inst, g) == ["bridges.R2"]
    g = spec_grid()
    g[6][2], g[6][3] = "H2", "H2"  # one bridge too many between two islands
    assert violated_rules(T, inst, g) == ["bridges.R3"]
    ring = T.load(RING)
    assert ring.data["solution"] == [[2, "H1", 2], ["V1", ".", "V1"], [2, "H1", 2]]
    assert violated_rules(T, ring, [[2, "H2", 2], [".", ".", "."], [2, "H2", 2]]) == ["bridges.R4"]
    tree_only = parse_game_id("3x3m2L:2a2c2a2", T, solve=False)
    assert T.count_solutions(tree_only) == 0  # with no loops allowed the ring is forbidden
    # (no solution to score partial credit against: the rule checks themselves)
    assert {ch.rule for ch in T.rule_checks(tree_only, ring.data["solution"]) if not ch.ok} == {"R5"}


def test_connectivity_needs_the_cuts():
    """Without the lazy cuts the ring puzzle has two more 'solutions' (two separate double bridges)."""
    ring = T.load(RING)
    enc = T.encoding(ring)
    loose = [enc.decode(v) for v in Engine(enc.formula, enc.answer, None).models(enc.assumptions(), 5)]
    assert len(loose) == 3 and T.count_solutions(ring, 5) == 1
    assert all("bridges.R4" in T.verify(ring, g).rules for g in loose if g != ring.data["solution"])


def test_aux_solution():
    inst = T.load(SPEC_ID)
    aux = "S;L0,0,6,0,2;L0,0,0,2,1;L6,0,6,6,2;L2,1,5,1,1;L5,1,5,5,1;L0,2,4,2,2;L4,2,4,4,1;L0,2,0,5,1;" \
          "L2,4,4,4,2;L0,5,5,5,1;L1,6,4,6,1;L4,6,4,6,0;L4,6,6,6,1;N1,0,1,6"
    assert aux_solution(inst.data["state"], aux) == SPEC_SOLUTION


def test_generation_is_deterministic_unique_and_at_density():
    for level in ("trivial", "hard"):
        a = T.generate(np.random.default_rng(3), difficulty=level)
        assert a == T.generate(np.random.default_rng(3), difficulty=level)
        assert T.count_solutions(a) == 1
        H, W = T.dims(a)
        assert 0.14 <= T.clue_count(a) / (H * W) <= 0.3  # Tatham's i30 gives about a quarter of the cells
    raw = T.generate(np.random.default_rng(1), W=8, H=6, max_bridges=4, no_loops=True, expansion=50)
    assert raw.data["tatham_params"] == "8x6i30e50m4Ld0" and T.count_solutions(raw) == 1
    assert T.verify(raw, T.solve(raw)).solved


def test_claims():
    inst = T.load(SPEC_ID)
    stars = solution_claims(inst)
    assert {"type": "Bridge", "r1": 0, "c1": 0, "r2": 0, "c2": 6, "n": 2} in stars and len(stars) == 12
    check_labels(inst, correct=[{"type": "Bridge", "r1": 6, "c1": 1, "r2": 6, "c2": 4, "n": 1},
                                {"type": "Bridge", "r1": 0, "c1": 6, "r2": 0, "c2": 0, "n": 2},
                                {"type": "Bridge", "r1": 1, "c1": 2, "r2": 4, "c2": 2, "n": 0},
                                # (5, 4) holds the H1 of (5, 0)-(5, 5): it crosses this line, it does not join it
                                {"type": "Bridge", "r1": 4, "c1": 4, "r2": 6, "c2": 4, "n": 0},
                                {"type": "Island", "r": 0, "c": 0, "n": 3}],
                 incorrect=[{"type": "Bridge", "r1": 0, "c1": 0, "r2": 0, "c2": 6, "n": 1},
                            {"type": "Bridge", "r1": 0, "c1": 0, "r2": 6, "c2": 6, "n": 1},
                            {"type": "Bridge", "r1": 4, "c1": 4, "r2": 6, "c2": 4, "n": 1},
                            {"type": "Island", "r": 0, "c": 1, "n": 3}],
                 unverifiable=[{"type": "Needs", "r": 0, "c": 0, "n": 1}])


def test_the_kernel_certificate_agrees_with_the_sat_engine():
    """The generator certifies uniqueness by its own deduction and search (``kernel.py``); the SAT
    engine (lazy connectivity cuts) must find exactly one solution for every board it gives, at every
    preset and with loops forbidden, more bridges and long expansions, and the drawn solution must
    verify. Level 2 keeps boards beyond the rules alone: most hard boards are beyond failed-literal probing
    on the SAT model (without its cuts, as ``task.grade``)."""
    cases = [{"difficulty": d} for d in T.difficulties] + [
        {"W": 8, "H": 6, "max_bridges": 4, "no_loops": True, "expansion": 50},
        {"W": 6, "H": 6, "no_loops": True, "tatham_difficulty": 2},
        {"W": 9, "H": 7, "max_bridges": 3, "expansion": 80, "tatham_difficulty": 2},
        {"W": 10, "H": 4, "islands": 10, "max_bridges": 1}]
    for kw in cases:
        for seed in range(12):
            inst = T.generate(np.random.default_rng([11, seed]), **kw)
            assert T.count_solutions(inst, limit=2) == 1, (kw, seed)
            assert T.verify(inst, inst.data["solution"]).solved, (kw, seed)
    grades = []
    for seed in range(6):
        inst = T.generate(np.random.default_rng([12, seed]), difficulty="hard")
        enc = T.encoding(inst)
        grades.append(enc.engine.grade(enc.assumptions()))
    assert 2 in grades


def _random_board(rng: np.random.Generator, H: int, W: int, maxb: int) -> list[list] | None:
    """Islands at random (none touching), random bridges on random sight lines (none crossing), the
    numbers their sums: a board that may have no solution (split, or an island dropped), one or many."""
    grid: list[list] = [["."] * W for _ in range(H)]
    lattice = rng.random() < 0.5  # islands on every other row and column: many loops, so many solutions
    for _ in range(H * W // 3):
        r, c = int(rng.integers(H)), int(rng.integers(W))
        r, c = (r - r % 2, c - c % 2) if lattice else (r, c)
        if all(not (0 <= a < H and 0 <= b < W) or grid[a][b] == "." for a, b in ((r, c), (r - 1, c), (r + 1, c),
                                                                                 (r, c - 1), (r, c + 1))):
            grid[r][c] = 0
    isles = islands_of(grid)
    if len(isles) < 2:
        return None
    used: set = set()
    for i, j, _, cells in sight_lines(H, W, isles):
        if rng.random() < (0.9 if lattice else 0.6) and not used & set(cells):
            k = int(rng.integers(maxb)) + 1
            used |= set(cells)
            grid[isles[i][0]][isles[i][1]] += k
            grid[isles[j][0]][isles[j][1]] += k
    for r, c in isles:  # an island without a bridge goes (the numbers left may have no solution)
        grid[r][c] = "." if grid[r][c] == 0 else grid[r][c]
    return grid if len(islands_of(grid)) >= 2 else None


def test_the_kernel_counts_solutions_as_the_sat_engine_does():
    """The generator's deduction and search (``kernel.count``) against the SAT engine on random boards
    with none, one or several solutions: any unsound deduction or incomplete search shows here."""
    rng = np.random.default_rng(5)
    seen = Counter()
    for _ in range(150):
        H, W, maxb, no_loops = int(rng.integers(3, 7)), int(rng.integers(3, 7)), int(rng.integers(1, 4)), rng.random() < 0.3
        grid = _random_board(rng, H, W, maxb)
        if grid is None:
            continue
        state = {"grid": grid, "max_bridges": maxb, "no_loops": bool(no_loops)}
        inst = parse_game_id(f"{W}x{H}m{maxb}{'L' if no_loops else ''}:{encode(state)}", T, solve=False)
        want = T.count_solutions(inst, limit=2)
        assert kernel.count_of(grid, maxb, no_loops) == want, (grid, maxb, no_loops)
        seen[want] += 1
    # rings of four islands of 3 (two solutions: single and double bridges alternate), also with more islands
    W_ = "."
    for grid in ([[3, W_, 3], [W_, W_, W_], [3, W_, 3]],
                 [[3, W_, W_, W_, 3], [W_] * 5, [W_] * 5, [W_] * 5, [3, W_, W_, W_, 3]],
                 [[3, W_, 4, W_, 1], [W_] * 5, [3, W_, 3, W_, W_]]):
        inst = parse_game_id(f"{len(grid[0])}x{len(grid)}m2:{encode({'grid': grid})}", T, solve=False)
        want = T.count_solutions(inst, limit=2)
        assert kernel.count_of(grid, 2, False) == want, grid
        seen[want] += 1
    assert seen[0] >= 5 and seen[1] >= 5 and seen[2] >= 2, seen
