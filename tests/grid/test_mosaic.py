"""Mosaic (docs/specs/grid_puzzles.md §5 "Mosaic", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.mosaic import BLACK, WHITE, MosaicTask, block

from .spec import check_labels, check_rejected, check_tatham_example

T = MosaicTask()
SPEC_ID = "3x3:4c7c4"
SPEC_SOLUTION = [[1, 1, 2], [1, 1, 1], [2, 1, 1]]


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    assert inst.data["state"]["grid"] == [[4, -1, -1], [-1, 7, -1], [-1, -1, 4]]


def test_block_counts_edges_and_corners():
    assert len(block(0, 0, 3, 3)) == 4 and len(block(0, 1, 3, 3)) == 6 and len(block(1, 1, 3, 3)) == 9
    assert (1, 1) in block(0, 0, 3, 3)


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["3x3", "5x5", "10x10", "25x25"]
    assert T.decode_params("5x5h0") == {"W": 5, "H": 5, "aggressive": False}
    assert T.encode_params(T.resolve_params(**T.decode_params("5x5h0"))) == "5x5h0"
    assert T.decode_params("7") == {"W": 7, "H": 7}
    check_rejected(T.decode_params, ("5x5h2", "5x5x", "2x2"))
    with pytest.raises(ConfigError):
        T.load("3x3:4c7c")  # one cell short
    with pytest.raises(ConfigError):
        T.load("3x3:5h")  # a corner clue counts only 4 cells


def test_rule_code_and_partial_score():
    inst = T.load(SPEC_ID)
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[1][1] = WHITE  # every clue's block holds the centre
    v = T.verify(inst, bad)
    # partial credit: 8 of 9 cells right against the floor b: the best blind grid (all black, 7 of
    # 9) or, larger on 9 cells, a random fill's luck 1/2 + 2 sqrt(1/4 / 9) = 5/6
    b = T.luck_floor(inst)
    assert b == pytest.approx(5 / 6)
    assert not v.solved and v.score == pytest.approx((8 / 9 - b) / (1 - b))
    assert {x["rule"] for x in v.details["violations"]} == {"mosaic.R1"}
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][2] = BLACK  # one wrong cell (only the centre clue sees it): the same credit
    assert T.verify(inst, bad).score == pytest.approx((8 / 9 - b) / (1 - b))
    bad[2][0] = BLACK  # all black: no better than the blind grid
    assert T.verify(inst, bad).score == 0.0


def test_generation_is_deterministic_and_reduced():
    a = T.generate(np.random.default_rng(7), difficulty="normal")
    b = T.generate(np.random.default_rng(7), difficulty="normal")
    assert a == b and a.instance_id == b.instance_id
    assert (a.data["W"], a.data["H"]) == (10, 10) and a.data["tatham_params"] == "10x10"
    # aggressive reduction: unit propagation solves the puzzle (so it is unique), and removing any
    # remaining clue leaves a puzzle it cannot solve
    grid = a.data["state"]["grid"]
    assert 0 < T.clue_count(a) < 100 and T.grade(a) == 0 and T.count_solutions(a) == 1
    for r, c in [(r, c) for r in range(10) for c in range(10) if grid[r][c] >= 0][:8]:
        fewer = [list(row) for row in grid]
        fewer[r][c] = -1
        assert T.grade(T.make_instance({"W": 10, "H": 10}, {"grid": fewer}, None, source="test")) > 0


def test_claims():
    inst = T.load(SPEC_ID)
    check_labels(inst, correct=[{"type": "Black", "r": 0, "c": 0},
                                {"type": "White", "r": 0, "c": 2},
                                {"type": "Clue", "r": 1, "c": 1, "n": 7}],
                       incorrect=[{"type": "Black", "r": 2, "c": 0}, {"type": "Clue", "r": 0, "c": 1, "n": 0}])
    assert len(solution_claims(inst)) == sum(v == BLACK for row in SPEC_SOLUTION for v in row)


def test_render_and_interactive_values():
    inst = T.load(SPEC_ID)
    text = T.render(inst, SPEC_SOLUTION)
    assert "7#" in text and "4." not in text
    assert set(T.move_values(inst)) == {0, 1, 2}
    assert T.parse(T.format_answer(SPEC_SOLUTION)) == SPEC_SOLUTION


def test_generator_kernel_deduces_what_the_cnf_propagation_does():
    """The generator's grid kernel accepts exactly the images whose full clue set the
    engine's CNF propagation solves, and keeps exactly the clues that propagation keeps."""
    from kumo_gym.envs.grid.mosaic import kernel as K

    rng = np.random.default_rng(5)
    H, W = 4, 5
    n = H * W
    nbr, bufs = K.blocks(H, W), K.scratch(H, W)
    none, no_image = np.zeros(0, np.int64), np.zeros(0, np.int8)
    solvable = 0
    for _ in range(60):
        black = rng.random((H, W)) < 0.5
        full = [[sum(black[a][b] for a, b in block(r, c, H, W)) for c in range(W)] for r in range(H)]
        enc = T.encode({"grid": full})
        ok = enc.engine.fixes_answer(enc.engine.propagate(enc.assumptions()))
        # a batch of two: the first image solvable exactly when the CNF's propagation solves it
        two = np.concatenate([black.astype(np.int8).ravel(), np.zeros(n, np.int8)])
        assert K.run(H, W, nbr, two, *bufs[:3], none, *bufs[3:]) == (0 if ok else 1)
        if not ok:
            continue
        solvable += 1
        K.run(H, W, nbr, two[:n], *bufs[:3], none, *bufs[3:])
        assert bufs[0].tolist() == np.where(black, 1, -1).ravel().tolist() and bufs[1].tolist() == np.ravel(full).tolist()
        order = rng.permutation(n).astype(np.int64)
        K.run(H, W, nbr, no_image, *bufs[:3], order, *bufs[3:])
        # the engine's propagation, clue by clue in the same order
        lits = {k: list(enc.clues[k][1]) for k in enc.clues}
        on = set(enc.clues)
        for i in order.tolist():
            k = (i // W, i % W)
            on.discard(k)
            if not enc.engine.fixes_answer(enc.engine.propagate([x for j in sorted(on) for x in lits[j]])):
                on.add(k)
        assert sorted(on) == [(i // W, i % W) for i in np.flatnonzero(bufs[2])]
    assert solvable >= 2


def test_sizes_follow_tathams_limit():
    """3x3 up to 10,000 cells, as Tatham's Mosaic; a refusal says whose limit it is."""
    task = MosaicTask()
    assert task.resolve_params(W=27)["H"] == 27
    assert task.resolve_params(W=3, H=3333)["H"] == 3333
    with pytest.raises(ConfigError, match="10,000, the largest grid Tatham"):
        task.resolve_params(W=101, H=100)
    with pytest.raises(ConfigError, match="3..3333"):
        task.resolve_params(W=2)
    inst = task.generate(np.random.default_rng(0), **task.resolve_params(W=30, H=26))
    assert task.count_solutions(inst, limit=2) == 1
    assert task.load(inst.data["game_id"]).data["state"] == inst.data["state"]
    with pytest.raises(ConfigError, match="limit of our generator, not of Tatham"):
        task.generate(np.random.default_rng(0), **task.resolve_params(W=3, H=80))
