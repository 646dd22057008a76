"""Netslide (docs/games.md, Netslide): Tatham's IDs read and written exactly, the rules one by one (the
centre lines never move, barriers stay put), Tatham's win test reached in an arrangement other than
the one the shuffle started from, the listing of solved boards against every permutation of the tiles,
and the certified bounds of large boards against breadth-first search."""
from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.netslide import codec
from kumo_gym.envs.games.netslide.search import arrangements, moves_of, neighbours, play, routed, solved
from kumo_gym.envs.games.sixteen.search import apply_move

#: printed by sgt-netslide 20230122 (--generate at Tatham's presets and with 'm' and 'b')
TATHAM_IDS = ["3x3:1hch74hd1h615", "3x3:8643bd1c2", "3x3w:b2a89d426", "4x4m6:93426d782abd186c",
              "2x3:836aa8", "4x4:1h2v1hc5ehch7evh2d299v6v1", "5x5wm9:1hah6cv2dvh2h4v1cd9hb71e49eh38vhbe2v2v"]
MALFORMED = ["3x3", "3x3:8643bd1c", "3x3:8643bd1c2a", "3x3:8643BD1C2", "3x3:8643bd1c2v", "3x3:8643bd1c2h",
             "3x3:8643bd1c0", "3x3:f643bd1c2", "3x3q:8643bd1c2", "1x3:836", "12x12:0", "3x3b2:8643bd1c2",
             "3x3:8hv643bd1c2", "3x3:4v1d97c342"]  # the last: a barrier leaves no way to join every tile


@pytest.fixture(scope="module")
def task():
    return get_task("kumo_gym/Netslide-v0")


@pytest.mark.parametrize("game_id", TATHAM_IDS)
def test_tatham_ids_round_trip_and_are_solved(task, game_id):
    inst = task.load(game_id)
    assert task.to_game_id(inst) == game_id == inst.data["game_id"]
    gold = task.solve(inst)
    assert task.verify(inst, task.parse(task.format_answer(gold))).solved
    assert not task.verify(inst, gold[:-1]).solved
    lower, upper = task.optimum_bounds(inst)
    assert 1 <= lower <= upper == len(gold)


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_ids_are_refused_with_a_reason(task, bad):
    with pytest.raises(ConfigError) as err:
        task.load(bad)
    assert len(str(err.value)) > 20


def test_parameters_short_and_full():
    assert codec.decode_params("4") == {"w": 4, "h": 4, "wrap": False, "barrier": 0.0, "movetarget": None}
    p = codec.decode_params("5x4wb0.3m12")
    assert p == {"w": 5, "h": 4, "wrap": True, "barrier": 0.3, "movetarget": 12}
    assert codec.encode_params(p, full=True) == "5x4wb0.3m12" and codec.encode_params(p, full=False) == "5x4wm12"
    assert codec.encode_params({"w": 3, "h": 3, "barrier": 1.0}) == "3x3b1"
    assert codec.probability_text(0.1) == "0.1" and codec.probability_text(1 / 3) == "0.333333"


def test_presets_are_tathams(task):
    assert [task.tatham_preset(n) for n in task.tatham_presets] == [
        "3x3b1", "3x3", "3x3w", "4x4b1", "4x4", "4x4w", "5x5b1", "5x5", "5x5w"]
    assert task.tatham_preset("hard") == "4x4m5"


def test_rules_one_by_one(task):
    inst = task.load("3x3:41d97c342")  # the worked example: row 0 shifted left once solves it
    s0 = task.initial_state(inst)
    assert task.check_move(inst, s0, ["R", 1, 1]) == "centre_line"
    assert task.check_move(inst, s0, ["C", 1, -1]) == "centre_line"
    assert task.check_move(inst, s0, ["R", 3, 1]) == "off_board"
    assert task.check_move(inst, s0, ["C", 0, 2]) == "bad_shift"
    assert task.check_move(inst, s0, ["C", 2, -1]) is None
    v = task.verify(inst, [["R", 0, 1], ["R", 1, 1]])
    assert not v.solved and v.first_error == 2 and v.details["rule"] == "centre_line"
    assert task.verify(inst, [["R", 0, -1]]).solved and task.verify(inst, [["R", 0, 1], ["R", 0, 1]]).solved
    assert task.apply(inst, s0, ["R", 0, 1])[:3] == (s0[2], s0[0], s0[1])  # right: the last tile comes round
    assert task.apply(inst, s0, ["C", 0, 1])[::3] == (s0[6], s0[0], s0[3])  # down


def test_barriers_stay_and_block(task):
    # a barrier right of (0,0) separates its R wire from (0,1)'s L wire (so the example cannot be solved then)
    nbr = neighbours(3, 3, False, frozenset({(0, 0, "R")}))
    board = (1, 13, 4, 9, 7, 12, 3, 4, 2)  # the example's solved board: (0,0) R meets (0,1) RDL
    assert not solved(board, nbr, 4) and solved(board, neighbours(3, 3, False, frozenset()), 4)


def test_the_goal_is_any_joined_arrangement(task):
    """Tatham's test is that every tile is lit, not the original grid: a board whose two L tiles or
    two R tiles swap places is solved as well, and so is an arrangement other than the shuffled one."""
    inst = task.load("3x3:41d97c342")
    goals, complete = task.goals(inst)
    assert complete and len(goals) >= 1
    for g in goals:
        assert task.is_goal(inst, g)
    # wrapping lets a straight run slide along itself: many solved boards
    wrap = task.load("3x3w:b2a89d426")
    goals, complete = task.goals(wrap)
    assert complete and len(goals) > 1


def _all_solved(tiles, w, h, wrap, bars=frozenset()):
    nbr = neighbours(w, h, wrap, bars)
    centre = (h // 2) * w + w // 2
    rest = [t for p, t in enumerate(tiles) if p != centre]
    out = set()
    for perm in set(itertools.permutations(rest)):
        board = list(perm)
        board.insert(centre, tiles[centre])
        if solved(board, nbr, centre):
            out.add(tuple(board))
    return out, nbr, centre


@pytest.mark.parametrize("game_id", ["3x3:8643bd1c2", "3x3w:b2a89d426", "2x3:836aa8", "3x3:1hch74hd1h615"])
def test_solved_boards_listed_against_every_permutation(task, game_id):
    inst = task.load(game_id)
    d = inst.data
    bars = frozenset(map(tuple, d["barriers"]))
    truth, nbr, centre = _all_solved(tuple(d["tiles"]), d["w"], d["h"], d["wrap"], bars)
    found, complete = arrangements(tuple(d["tiles"]), nbr, centre, 10_000)
    assert complete and set(found) == truth and len(found) == len(truth)


def test_routed_solutions_reach_the_chosen_board():
    rng = np.random.default_rng(5)
    task = get_task("kumo_gym/Netslide-v0")
    for difficulty in ("tatham_4x4", "tatham_5x5b1"):
        inst = task.generate(rng, difficulty=difficulty)
        d = inst.data
        w, h = d["w"], d["h"]
        goals, _ = task.goals(inst)
        s0 = task.initial_state(inst)
        built = routed(s0, goals[0], w, h)
        assert built is not None and task.is_goal(inst, play(s0, w, h, built))
        assert all(task.check_move(inst, s0, list(m)) is None for m in built)


def test_routed_parity_swap_never_moves_the_centre_tile():
    """Tatham's 5x5b1 board whose centre tile has one twin: the odd permutation to its only solved
    board is made even by swapping two alike tiles, which must not be the centre one (no move reaches
    it); the fresh-ID conformance test met this board and found no solution at all."""
    task = get_task("kumo_gym/Netslide-v0")
    inst = task.load("5x5:aeh4h2vh494vh993h5h8evdh353vbdvhb4v2v26vc")
    goals, complete = task.goals(inst)
    s0 = task.initial_state(inst)
    assert complete and len(goals) == 1
    built = routed(s0, goals[0], 5, 5)
    assert built is not None and task.is_goal(inst, play(s0, 5, 5, built))
    assert task.is_goal(inst, play(s0, 5, 5, [tuple(m) for m in task.solve(inst)]))


def _bfs_optimum(task, inst, cap=300_000):
    d = inst.data
    w, h = d["w"], d["h"]
    start = task.initial_state(inst)
    seen, queue = {start: 0}, deque([start])
    while queue:
        s = queue.popleft()
        if task.is_goal(inst, s):
            return seen[s]
        for m in moves_of(w, h):
            t = apply_move(s, w, h, m)
            if t not in seen:
                seen[t] = seen[s] + 1
                queue.append(t)
        assert len(seen) < cap
    raise AssertionError("no solved board is reachable")


def test_large_boards_report_certified_bounds(task):
    """4x4 shuffles: the exact search or the certified pair agrees with plain breadth-first search
    (Tatham's own 4x4 shuffle is in tests/games/test_codecs_and_bounds.py)."""
    for seed in range(3):
        inst = task.generate(np.random.default_rng(seed), w=4, h=4, movetarget=4)
        true = _bfs_optimum(task, inst)
        lower, upper = task.optimum_bounds(inst)
        assert lower <= true <= upper
        if task.distance_exact(inst):
            assert lower == upper == true


def test_prompt_names_the_source_and_the_barriers(task):
    inst = task.load("3x3:1hch74hd1h615")
    text = task.user_prompt(inst)
    assert "marked *" in text and "below (0,0)" in text and "does not wrap" in text
    assert "tiles joined to the source" in text


def test_every_observation_counts_the_joined_tiles(task):
    """The interactive player sees how many tiles reach the source after each shift (Tatham lights them):
    the count is that of the board shown, recomputed from the rules, and reaches all tiles when solved."""
    import gymnasium as gym

    env = gym.make("kumo_gym/Netslide-v0", mode="interactive")
    env.reset(seed=3)
    inst = env.unwrapped.instance
    w, h, nbr, centre = task.grid(inst)
    state = task.initial_state(inst)
    for move in task.solve(inst):
        obs, _, terminated, _, _ = env.step(task.format_moves([move])[1:-1])
        state = play(state, w, h, [tuple(move)])
        joined = sum(1 for _ in _lit(state, nbr, centre))
        assert f"({joined} of {w * h} tiles joined to the source)" in obs
    assert terminated and f"({w * h} of {w * h} tiles joined" in obs


def _lit(board, nbr, centre):
    """Cells reached from the source by breadth-first search over mutual wires (independent of powered())."""
    seen, todo = {centre}, deque([centre])
    while todo:
        p = todo.popleft()
        for bit, q in nbr[p]:
            back = {1: 4, 4: 1, 2: 8, 8: 2}[bit]
            if q >= 0 and board[p] & bit and board[q] & back and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


@pytest.mark.parametrize(("split", "seed"), [("train", 57), ("test", 7), ("test", 29)])
def test_prompt_example_is_never_the_answer(split, seed):
    """At these seeds of the trivial preset the first worked example's one move solves the board: the prompt
    shows another example, and every example is a real solution of the board it describes."""
    import gymnasium as gym

    env = gym.make("kumo_gym/Netslide-v0", difficulty="trivial", split=split)
    obs, _ = env.reset(seed=seed)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    assert task.example_answers(inst, task.example()[1])
    desc, sol = task.example_for(inst)
    assert not task.example_answers(inst, sol) and desc in obs
    nbr = neighbours(3, 3, False, frozenset())
    letters = {"R": 1, "U": 2, "L": 4, "D": 8}
    for text, moves in [task.example(), *task.other_examples()]:
        rows = text.split("rows read ")[1].split(". ")[0]
        board = tuple(sum(letters[ch] for ch in tile.rstrip("*")) for row in rows.split(", ")
                      for tile in row.strip("'").split())
        assert not solved(board, nbr, 4) and solved(play(board, 3, 3, [tuple(m) for m in moves]), nbr, 4)
