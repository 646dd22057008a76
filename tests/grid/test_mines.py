"""Mines (docs/grid.md "Mines"): Tatham's game IDs with their obfuscated bitmap, the no-guess
oracle, the answer mode's rules (one wrong answer per rule) and the interactive game."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.grid.mines import HIDDEN, MINE, SAFE, codec, deduce

TASK = get_task("kumo_gym/Mines-v0")
#: a Tatham 9x9n10 ID (sgt-mines 20230122.806ae71 --generate)
TATHAM_ID = "9x9:8,8,ma90e72848f5911e7b1190"


@pytest.fixture(scope="module")
def example():
    return TASK.load(TATHAM_ID)


def test_obfuscation_matches_tathams_test_vector():
    """Tatham's own vector: the 28-bit stream 1234567 masks to 07FA650, and back."""
    raw = bytearray(b"\x12\x34\x56\x70")
    masked = codec.obfuscate(raw, 28, decode=False)
    assert bytes(masked) == b"\x07\xfa\x65\x00"
    assert bytes(codec.obfuscate(masked, 28, decode=True)) == b"\x12\x34\x56\x70"


def test_example_parses_solves_verifies_and_round_trips(example):
    st = example.data["state"]
    assert st["mines"] == 10 and st["start"] == [8, 8]
    assert TASK.to_game_id(example) == TATHAM_ID
    assert TASK.count_solutions(example) == 1
    gold = TASK.solve(example)
    assert sum(v == MINE for row in gold for v in row) == 10
    assert TASK.verify(example, TASK.parse(TASK.format_answer(gold))).solved
    # the first click's 3x3 block holds no mine, so the first opening is a zero
    assert st["grid"][8][8] == 0 and all(gold[r][c] == SAFE for r in (7, 8) for c in (7, 8))


@pytest.mark.parametrize("desc,match", [
    ("ma90e72848f5911e7b1190", "first click"),
    ("9,8,ma90e72848f5911e7b1190", "outside"),
    ("8,8,ma90e72848f5911e7b119", "hex digits"),
    ("8,8,ma90e72848f5911e7b119g", "not a hex digit"),
    ("0,0,u" + "8" + "0" * 20, "on a mine"),
])
def test_codec_errors_name_the_problem(desc, match):
    with pytest.raises(ConfigError, match=match):
        TASK.load(f"9x9:{desc}")


def test_unmasked_layouts_are_accepted():
    """``u`` writes the bitmap in the clear: the same board as the masked ID."""
    inst = TASK.load(TATHAM_ID)
    mines = [v == MINE for row in TASK.solve(inst) for v in row]
    raw = bytearray(11)
    for i, m in enumerate(mines):
        if m:
            raw[i // 8] |= 0x80 >> (i % 8)
    clear = "".join(f"{(raw[i // 2] >> (4 * (1 - i % 2))) & 15:x}" for i in range(21))
    assert TASK.load(f"9x9:8,8,u{clear}").data["state"] == inst.data["state"]


def test_a_board_that_needs_a_guess_is_refused():
    """A 5x5 board opened at its bottom-right corner whose last mines no number and no count can place."""
    mines = [False] * 25
    for r, c in ((2, 0), (2, 3), (3, 0), (3, 2)):
        mines[r * 5 + c] = True
    assert not deduce.play(5, 5, mines, 24).solved
    with pytest.raises(ConfigError, match="guess"):
        codec.state_of(5, 5, (4, 4), mines)


def _wrong(example, rule):
    gold = [list(r) for r in TASK.solve(example)]
    st = example.data["state"]["grid"]
    if rule == "R1":  # a mine on an opened cell far from... moved, keeping the count
        r, c = next((r, c) for r, row in enumerate(st) for c, v in enumerate(row) if v != HIDDEN)
        mr, mc = next((a, b) for a, row in enumerate(gold) for b, v in enumerate(row) if v == MINE)
        gold[r][c], gold[mr][mc] = MINE, SAFE
    elif rule == "R3":  # one more mine where no opened cell sees it
        H, W = len(gold), len(gold[0])
        r, c = next((r, c) for r in range(H) for c in range(W) if gold[r][c] == SAFE and st[r][c] == HIDDEN
                    and all(st[a][b] == HIDDEN for a in range(max(0, r - 1), min(H, r + 2))
                            for b in range(max(0, c - 1), min(W, c + 2))))
        gold[r][c] = MINE
    return gold


def test_each_rule_names_its_failure(example):
    v = TASK.verify(example, _wrong(example, "R1"))
    assert not v.solved and "mines.R1" in {x["rule"] for x in v.details["violations"]}
    # R2 alone: a safe cell and a mine swapped between two covered cells seen by the same numbers
    v = TASK.verify(example, [[MINE] * 9 for _ in range(9)])
    assert {"mines.R1", "mines.R2", "mines.R3"} <= {x["rule"] for x in v.details["violations"]}
    # more than 50 checks fail (R1 and R2 on each of the 34 opened cells, then R3): the verdict lists
    # the first 50 and names R3 after them
    assert v.details["n_failed"] > 50 and v.details["violations"][50:] == [{"rule": "mines.R3", "cells": [[0, 0]]}]


def test_r3_alone_counts_the_mines():
    """A mine more on a covered safe cell no opened number sees breaks R3 alone (the first board of
    a few seeds with such a cell; most have one)."""
    for seed in range(20):
        inst = TASK.generate(np.random.default_rng(seed), difficulty="normal")
        st = inst.data["state"]["grid"]
        H, W = len(st), len(st[0])
        gold = TASK.solve(inst)
        far = [(r, c) for r in range(H) for c in range(W) if st[r][c] == HIDDEN and gold[r][c] == SAFE
               and all(st[a][b] == HIDDEN for a in range(max(0, r - 1), min(H, r + 2))
                       for b in range(max(0, c - 1), min(W, c + 2)))]
        if far:
            break
    assert far, "no board of 20 has a covered safe cell that no number sees"
    bad = [list(r) for r in gold]
    bad[far[0][0]][far[0][1]] = MINE
    v = TASK.verify(inst, bad)
    assert [x["rule"] for x in v.details["violations"]] == ["mines.R3"]


def test_r2_alone_a_number_miscounted(example):
    gold = [list(r) for r in TASK.solve(example)]
    st = example.data["state"]["grid"]
    H, W = 9, 9
    # a covered safe cell next to an opened number, made a mine, and a mine removed elsewhere
    # where no opened cell sees it would keep R3; simplest: add one and remove one mine both seen
    for r in range(H):
        for c in range(W):
            if gold[r][c] == SAFE and st[r][c] == HIDDEN:
                bad = [list(x) for x in gold]
                bad[r][c] = MINE
                mr, mc = next((a, b) for a in range(H) for b in range(W) if gold[a][b] == MINE)
                bad[mr][mc] = SAFE
                rules = {x["rule"] for x in TASK.verify(example, bad).details["violations"]}
                if rules == {"mines.R2"}:
                    return
    pytest.fail("no swap broke only R2")


def test_oracle_never_guesses_and_beats_or_meets_bechtels_bound():
    rng = np.random.default_rng(0)
    for _ in range(5):
        start = int(rng.integers(81))
        mines, view = deduce.generate(rng, 9, 9, 10, start)
        played = deduce.play(9, 9, mines, start)
        assert played.solved and not mines[start] and start in view
        assert len(played.moves) + 1 >= deduce.three_bv(9, 9, mines)
        assert deduce.answer_view(9, 9, mines, start) == view


def test_interactive_game_opening_a_mine_ends_it(example):
    import gymnasium as gym

    env = gym.make("kumo_gym/Mines-v0", mode="interactive")
    obs, _ = env.reset(options={"instance": TATHAM_ID})
    assert "?" in obs and "*" not in env.unwrapped.task.render_state(example, env.unwrapped.state)
    gold = TASK.solve(example)
    r, c = next((r, c) for r, row in enumerate(gold) for c, v in enumerate(row) if v == MINE)
    _, _, term, _, info = env.step(f'{{"r": {r}, "c": {c}, "v": "flag"}}')
    assert not term and env.unwrapped.state[r][c] == "F"
    _, _, term, _, info = env.step(f'{{"r": {r}, "c": {c}, "v": "open"}}')
    assert not term and info["verdict"]["status"] == "illegal_move"  # flagged: unflag first
    env.step(f'{{"r": {r}, "c": {c}, "v": "unflag"}}')
    _, reward, term, _, info = env.step(f'{{"r": {r}, "c": {c}, "v": "open"}}')
    assert term and reward == 0.0 and info["verdict"]["status"] == "wrong"


def test_interactive_golden_trajectory_wins(example):
    state = TASK.initial_state(example)
    for m in TASK.golden_moves(example):
        t = TASK.transition(example, state, m)
        assert t.status in ("continue", "solved") and t.details.get("move_matches_solution", True)
        state = t.state
    assert TASK.is_goal(example, state) and t.status == "solved"


def _random_layout(rng, H, W, n):
    start = int(rng.integers(H * W))
    zone = deduce.clear_zone(H, W, start)
    mines = [False] * (H * W)
    for i in rng.choice([i for i in range(H * W) if i not in zone], size=n, replace=False):
        mines[int(i)] = True
    return start, mines


def test_kernel_plays_the_python_oracles_game():
    """``deduce.play`` (the numba kernel: local rules and a propagating search for the backbone)
    plays exactly the game of ``deduce.play_python`` (the same rules, SAT for the backbone): the same
    openings, snapshot, outcome and deduced cells, on boards it solves and on boards it gets stuck on,
    from the first click and from extra opened cells."""
    rng = np.random.default_rng(5)
    stuck = 0
    for k, (H, W, n) in enumerate([(9, 9, 10), (8, 8, 20), (16, 16, 40), (16, 16, 99), (16, 30, 99)] * 3):
        start, mines = _random_layout(rng, H, W, n)
        opened = None
        if k % 3 == 2:
            safe = [i for i in range(H * W) if not mines[i]]
            opened = sorted(int(i) for i in rng.choice(safe, size=4, replace=False))
        fast, ref = deduce.play(H, W, mines, start, opened), deduce.play_python(H, W, mines, start, opened)
        assert (fast.moves, fast.snapshot, fast.solved) == (ref.moves, ref.snapshot, ref.solved)
        assert fast.view.shown == ref.view.shown
        assert fast.view.mines - set(fast.view.shown) == ref.view.mines - set(ref.view.shown)
        assert fast.view.safe - set(fast.view.shown) == ref.view.safe - set(ref.view.shown)
        stuck += not ref.solved
    assert stuck >= 3  # the comparison covered games that need a guess


def test_kernel_settles_exactly_the_views_sat_settles():
    """``kernel.settles`` (whether a view fixes every mine: the answer view's certificate) answers as
    the complete Python deduction with its SAT backbone does, on views with a few neighbouring
    opened cells covered again."""
    from kumo_gym.envs.grid.mines import kernel

    rng = np.random.default_rng(11)
    answers = set()
    for H, W, n in [(9, 9, 10), (16, 16, 40), (16, 16, 99)] * 4:
        start, mines = _random_layout(rng, H, W, n)
        played = deduce.play(H, W, mines, start)
        if not played.solved:
            continue
        nums = deduce.numbers(H, W, mines)
        nbr, nnb = kernel.tables(H, W)
        lay = np.asarray(mines, np.int8)
        opened = sorted(played.snapshot)
        settled = set(opened)  # the snapshot fixes every mine
        for i in rng.permutation(opened)[:40].tolist():
            if i not in settled:
                continue
            # an opened cell with no opened neighbour, covered again, lies off the frontier
            run = [i] + [j for j in nbr[8 * i:8 * i + nnb[i]].tolist() if j in settled][:int(rng.integers(3))]
            view = settled - set(run)
            ref = not deduce.deduce(deduce.View(H, W, n, {j: nums[j] for j in view})).unknown()
            st = np.zeros(H * W, np.int8)
            st[sorted(view)] = kernel.OPENED
            got = kernel.settles(nbr, nnb, lay, np.asarray(nums, np.int64), n, st,
                                 np.zeros(kernel.work_size(H * W), np.int64), 10 ** 6)
            assert got == ref, (H, W, n, run)
            answers.add(ref)
            if ref:
                settled = view
    assert answers == {True, False}


def _closure(H, W, mines, start, opened=(), log=False):
    """``kernel.closure`` on a layout: (its result, its view ``st``, the answer view it read off its
    log, or None)."""
    from kumo_gym.envs.grid.mines import kernel

    nbr, nnb = kernel.tables(H, W)
    lay = np.asarray(mines, np.int8)
    st, view = np.zeros(H * W, np.int8), np.zeros(H * W, np.int8)
    got = kernel.closure(nbr, nnb, lay, np.asarray(deduce.numbers(H, W, mines), np.int64), int(lay.sum()), start,
                         np.asarray(opened, np.int64), st,
                         np.zeros(kernel.log_size(H * W) if log else 0, np.int64), view,
                         np.zeros(kernel.work_size(H * W), np.int64), 10 ** 6)
    return got, st, (np.flatnonzero(view).tolist() if log else None)


def test_closure_ends_where_the_oracles_game_stops():
    """``kernel.closure`` (every proved-safe cell opened at once: the generator's games and the
    answer view's) ends at the view the oracle's move-by-move game (``deduce.play_python``, with
    SAT) stops at: the same opened cells and, where stuck, the same deduced mines, from the first
    click and from extra opened cells; keeping the premise log changes nothing of that."""
    from kumo_gym.envs.grid.mines import kernel

    rng = np.random.default_rng(7)
    stuck = 0
    for k, (H, W, n) in enumerate([(9, 9, 10), (8, 8, 20), (16, 16, 40), (16, 16, 99), (16, 30, 99)] * 3):
        start, mines = _random_layout(rng, H, W, n)
        opened = []
        if k % 3 == 2:
            safe = [i for i in range(H * W) if not mines[i]]
            opened = sorted(int(i) for i in rng.choice(safe, size=4, replace=False))
        ref = deduce.play_python(H, W, mines, start, opened)
        for log in (False, True):
            got, st, _ = _closure(H, W, mines, start, opened, log)
            assert got == int(ref.solved), (H, W, n, log)
            assert set(np.flatnonzero(st == kernel.OPENED).tolist()) == set(ref.view.shown)
            assert not (st == kernel.SAFE).any()
            if not ref.solved:  # (a solved game ends as the last safe cell opens, some mines not yet named)
                assert set(np.flatnonzero(st == kernel.MINE).tolist()) == ref.view.mines - set(ref.view.shown)
        stuck += not ref.solved
    assert stuck >= 3


def test_answer_view_fixes_every_mine_from_numbers_the_oracle_used():
    """The answer view (``deduce.answer_view``): the first opening and numbers the oracle opened,
    and the complete Python deduction (SAT backbone) fixes every mine from it alone, on generated
    boards and on random boards that need no guess; it shows fewer cells than the oracle opened
    (the premise log's backward pass drops numbers it does not need: here about a third) and the
    first opening alone is not enough (so the test would see a view missing numbers)."""
    rng = np.random.default_rng(3)
    boards, shown, opened_all, short = 0, 0, 0, 0
    for H, W, n in [(9, 9, 10), (16, 16, 40), (16, 30, 99), (16, 16, 99), (12, 12, 30)] * 2:
        start, mines = _random_layout(rng, H, W, n)
        if not deduce.play(H, W, mines, start).solved:
            start = int(rng.integers(H * W))
            mines, view = deduce.generate(rng, H, W, n, start)
            assert deduce.answer_view(H, W, mines, start) == view
        view = deduce.answer_view(H, W, mines, start)
        assert view is not None
        nums = deduce.numbers(H, W, mines)
        first: dict[int, int] = {}
        deduce.flood(H, W, mines, nums, start, first)
        got, st, logged = _closure(H, W, mines, start, log=True)
        assert got == 1 and logged == view
        assert set(first) <= set(view) <= set(np.flatnonzero(st == 1).tolist())
        assert not any(mines[i] for i in view)
        settled = deduce.deduce(deduce.View(H, W, n, {i: nums[i] for i in view}))
        assert not settled.unknown() and settled.mines == {i for i in range(H * W) if mines[i]}
        short += bool(deduce.deduce(deduce.View(H, W, n, dict(first))).unknown())
        boards, shown, opened_all = boards + 1, shown + len(view), opened_all + H * W - n
    assert boards == 10 and short >= 8
    assert shown < 0.8 * opened_all, (shown, opened_all)


def test_answer_view_and_generator_fall_back_to_the_same_answers(monkeypatch):
    """Searches over budget take the slower paths and give the same answers: with the kernel's
    budget at zero the answer view comes from the larger budget and the generator's games from the
    Python oracle (the same layouts and views); with both at zero the view is the Python oracle's
    earliest view that fixes every mine (still certified)."""
    from kumo_gym.envs.grid.mines import kernel

    H, W, n, start = 16, 16, 99, 100
    want = [deduce.generate(np.random.default_rng(s), H, W, n, start) for s in range(4)]
    monkeypatch.setattr(kernel, "BUDGET", 0)
    assert [deduce.generate(np.random.default_rng(s), H, W, n, start) for s in range(4)] == want
    monkeypatch.setattr(deduce, "VIEW_BUDGET", 0)
    fell_back = 0
    for mines, view in want:
        slow = deduce.answer_view(H, W, mines, start)
        if slow != view:  # a board whose deduction needs a search
            assert slow == sorted(deduce.play_python(H, W, mines, start).snapshot)
            fell_back += 1
        nums_of = deduce.numbers(H, W, mines)
        assert not deduce.deduce(deduce.View(H, W, n, {i: nums_of[i] for i in slow})).unknown()
    assert fell_back


def test_generator_moves_a_mine_out_of_a_pair_only_the_count_tells_apart():
    """Where the oracle is stuck on two covered cells holding one mine (nothing off the frontier to
    move it to), the generator's move may take the mine to an opened cell outside the first click's
    block (Tatham's last resort): ``kernel.perturb`` then solves the board within its draws, where
    swapping the two cells (the only move before) never could."""
    from kumo_gym.envs.grid.mines import kernel

    H, W, n = 9, 9, 10
    nbr, nnb = kernel.tables(H, W)
    boards = 0
    for seed in range(400):
        rng = np.random.default_rng(seed)
        start = int(rng.integers(H * W))
        zone = deduce.clear_zone(H, W, start)
        lay = np.zeros(H * W, np.int8)
        lay[rng.choice([i for i in range(H * W) if i not in zone], size=n, replace=False)] = 1
        nums = np.asarray(deduce.numbers(H, W, lay.astype(bool).tolist()), np.int64)
        st, work = np.zeros(H * W, np.int8), np.zeros(kernel.work_size(H * W), np.int64)
        got = kernel.closure(nbr, nnb, lay, nums, n, start, np.zeros(0, np.int64), st, np.zeros(0, np.int64),
                             np.zeros(0, np.int8), work, 10 ** 6)
        if got or (st == kernel.COVERED).sum() != 2:
            continue
        boards += 1
        out = np.zeros(2, np.int64)
        got = kernel.perturb(nbr, nnb, lay, nums, n, start, st, np.zeros(H * W, np.int64), work,
                             np.zeros(2 * H * W, np.int64), np.zeros(2, np.int64), np.random.default_rng(seed).random(40),
                             out, 10 ** 6)
        assert got == 1, seed
        assert lay.sum() == n and not lay[sorted(zone)].any()
        assert np.array_equal(nums, deduce.numbers(H, W, lay.astype(bool).tolist()))
    assert boards >= 5
