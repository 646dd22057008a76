"""Flood (docs/games.md, Flood): Tatham's IDs read and written exactly, his move limit reproduced by
our account of his player, the rules one by one, and A* against breadth-first search over boards."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games import tatham
from kumo_gym.envs.games.flood import codec
from kumo_gym.envs.games.flood.search import Regions, beam_moves, best_moves, flood, optimal_moves, tatham_moves

#: printed by sgt-flood 20230122 (--generate with the seed "kumo"): parameters, ID
TATHAM_IDS = [
    ("5x5c3m0", "5x5:2100212222200002011020200,5"),
    ("5x5c3m0", "5x5:1202022212011100202101212,7"),
    ("6x4c4m0", "6x4:320213131310022102003010,9"),
    ("6x4c4m0", "6x4:233212311132301001230223,7"),
    ("12x12c6m0", ("12x12:54032525252003320410502041335044244535200532534404215430235254420343322434333321500142114003523"
                   "1153340540242315303241031123155525513221053553524,18")),
    ("12x12c6m5", ("12x12:54032525252003320410502041335044244535200532534404215430235254420343322434333321500142114003523"
                   "1153340540242315303241031123155525513221053553524,23")),
    ("8x8c10m0", "8x8:4958141424100387086040253138593293984250921488903264320129243420,20"),
]
MALFORMED = ["5x5", "5x5:21002,5", "5x5:2100212222200002011020200", "5x5:2100212222200002011020200,x",
             "5x5:2100212222200002011020200,05", "5x5:2100212222200002011020200,", "5x5:210021222220000201102020A,5",
             "5x5c3:2100212222200002011020205,5", "5x5q:2100212222200002011020200,5", "5x5c11:2100212222200002011020200,5",
             "5x5:0000000000000000000000000,5", "40x40:1,5", "1x1:0,1", "5x5:2100212222200002011020200,0"]


@pytest.fixture(scope="module")
def task():
    return get_task("kumo_gym/Flood-v0")


@pytest.mark.parametrize("full,game_id", TATHAM_IDS)
def test_tatham_ids_round_trip_and_are_solved_within_the_limit(task, full, game_id):
    inst = task.load(game_id)
    assert task.to_game_id(inst) == game_id == inst.data["game_id"]
    gold = task.solve(inst)
    assert len(gold) <= inst.data["limit"]
    assert task.parse(task.format_answer(gold)) == gold
    assert task.verify(inst, gold).solved
    assert not task.verify(inst, gold[:-1]).solved


@pytest.mark.parametrize("full,game_id", TATHAM_IDS)
def test_our_account_of_tathams_player_gives_his_limit(task, full, game_id):
    inst = task.load(game_id)
    leniency = codec.decode_params(full)["leniency"]
    assert len(task.tatham_solution(inst)) + leniency == inst.data["limit"]
    assert task.verify(inst, task.tatham_solution(inst)).solved


@pytest.mark.parametrize("full", ["3x3c3m0", "7x5c4m0", "12x12c6m0", "12x12c3m0", "10x10c8m0", "16x16c6m0"])
def test_tathams_limits_on_fresh_boards(full):
    """Fresh boards of Tatham's generator at leniency 0: our account of his player reproduces every limit."""
    if tatham.sgt_binary("flood") is None:
        pytest.skip("sgt-flood not found: install Debian's sgt-puzzles (binaries in /usr/games)")
    for game_id in tatham.sgt_generate("flood", full, 6):
        head, _, desc = game_id.partition(":")
        w, _, h = head.partition("x")
        cells, _, limit = desc.partition(",")
        grid = [int(ch) for ch in cells]
        assert len(tatham_moves(Regions(grid, int(w), int(h)), codec.implied_colours(grid))) == int(limit), game_id


def test_parameters_short_full_and_implied_colours(task):
    assert codec.decode_params("12x12") == {"w": 12, "h": 12, "colours": None, "leniency": None}
    assert codec.decode_params("16x8c4m2") == {"w": 16, "h": 8, "colours": 4, "leniency": 2}
    assert codec.decode_params("9m1c3") == {"w": 9, "h": 9, "colours": 3, "leniency": 1}
    assert task.tatham_preset("tatham_12x12_medium") == "12x12c6m2"
    assert task.tatham_params({"w": 5, "h": 4, "colours": 3, "leniency": 0}) == "5x4c3m0"
    # a short ID implies Tatham's fresh program's 6 colours, or more when the board holds a higher one
    assert task.load(TATHAM_IDS[0][1]).data["colours"] == 6
    assert task.load(TATHAM_IDS[-1][1]).data["colours"] == 10
    # a board of fewer colours is written with c (Tatham's program reads and ignores it)
    inst = task.generate(np.random.default_rng(0), w=5, h=5, colours=3, leniency=0)
    assert inst.data["game_id"].startswith("5x5c3:")
    assert task.load(inst.data["game_id"]).data == inst.data


@pytest.mark.parametrize("bad", MALFORMED)
def test_malformed_ids_are_refused_with_a_reason(task, bad):
    with pytest.raises(ConfigError) as err:
        task.load(bad)
    assert len(str(err.value)) > 20


def _rule(task, inst, moves):
    v = task.verify(inst, moves)
    return v.details.get("rule"), v.first_error


def test_each_rule_alone(task):
    # rows: 0 1 / 1 2 ; limit 3
    inst = task.load("2x2c3:0112,3")
    assert _rule(task, inst, [[3]]) == ("bad_colour", 1)
    assert _rule(task, inst, [[-1]]) == ("bad_colour", 1)
    assert _rule(task, inst, [[0]]) == ("same_colour", 1)
    assert _rule(task, inst, [[1], [1]]) == ("same_colour", 2)
    assert _rule(task, inst, [[1], [2], [0]]) == ("game_over", 3)
    assert _rule(task, inst, [[2], [0], [2], [1]]) == ("move_limit", 4)
    assert _rule(task, inst, [[1]]) == ("goal_not_reached", 2)
    assert task.verify(inst, [[1], [2]]).solved
    assert task.verify(inst, [[2], [1], [2]]).solved  # within the limit, however roundabout
    assert task.optimal_length(inst) == 2
    with task.rules_disabled("move_limit"):
        assert task.verify(inst, [[2], [0], [2], [1], [2]]).solved


def test_a_move_floods_the_area_joined_to_the_corner(task):
    # rows: 0 0 1 / 2 1 1 / 2 2 0
    inst = task.load("3x3c3:001211220,9")
    s = task.apply(inst, task.initial_state(inst), [1])
    assert s == ((1, 1, 1, 2, 1, 1, 2, 2, 0), 1)
    s = task.apply(inst, s, [2])
    assert s == ((2, 2, 2, 2, 2, 2, 2, 2, 0), 2)
    assert not task.is_goal(inst, s)
    assert task.is_goal(inst, task.apply(inst, s, [0]))
    # a colour not next to the area only repaints it (legal, as in Tatham's game)
    assert task.apply(inst, task.initial_state(inst), [2])[0][:2] == (2, 2)


def test_no_partial_credit(task):
    inst = task.load(TATHAM_IDS[4][1])
    gold = task.solve(inst)
    assert task.verify(inst, gold[:-1]).score == 0.0
    assert task.verify(inst, gold).score == 1.0


def _bfs_optimum(grid, w, h) -> int:
    """The fewest moves by breadth-first search over whole boards (every colour but the current one),
    one level of boards at a time."""
    colours = sorted(set(grid))
    level, seen = {tuple(grid)}, {tuple(grid)}
    for depth in itertools.count():
        if any(len(set(g)) == 1 for g in level):
            return depth
        level = {tuple(flood(g, w, h, c)) for g in level for c in colours if c != g[0]} - seen
        seen |= level
    raise AssertionError("unreachable")


def test_astar_equals_breadth_first_search_and_bounds_the_others():
    rng = np.random.default_rng(5)
    boards = [(3, 2, g) for g in itertools.product(range(3), repeat=6) if len(set(g)) > 1][::7]
    boards += [(4, 4, tuple(int(v) for v in rng.integers(0, 4, 16))) for _ in range(40)]
    boards += [(5, 4, tuple(int(v) for v in rng.integers(0, 3, 20))) for _ in range(40)]
    boards += [(6, 5, tuple(int(v) for v in rng.integers(0, 5, 30))) for _ in range(10)]
    for w, h, grid in boards:
        if len(set(grid)) == 1:
            continue
        best = _bfs_optimum(grid, w, h)
        rg = Regions(grid, w, h)
        moves, decided, lower = optimal_moves(rg, 10 ** 6)
        assert decided and len(moves) == best == lower, (w, h, grid)
        g = list(grid)
        for c in moves:
            assert c != g[0]
            g = flood(g, w, h, c)
        assert len(set(g)) == 1
        assert len(beam_moves(rg, 4)) >= best and len(tatham_moves(rg, max(grid) + 1)) >= best
        # with the cap one below the optimum, A* proves that nothing shorter exists
        assert optimal_moves(rg, 10 ** 6, cap=best - 1) == (None, True, best)
        # out of budget, the bound it reports is still a lower bound; the reference's pair brackets the optimum
        assert optimal_moves(rg, 2)[2] <= best
        moves, exact, lower = best_moves(rg, max(grid) + 1, 2, 2)
        assert lower <= best <= len(moves) and (not exact or len(moves) == best)


def test_generation_is_deterministic_and_within_the_limit(task):
    for difficulty in ("trivial", "easy"):
        a = task.generate(np.random.default_rng(3), difficulty=difficulty)
        assert task.generate(np.random.default_rng(3), difficulty=difficulty).to_json() == a.to_json()
        lower, upper = task.optimum_bounds(a)
        assert lower == upper == len(task.solve(a)) <= a.data["limit"]
        assert a.data["limit"] == len(task.tatham_solution(a)) + a.params["leniency"]


def test_interactive_play_ends_when_the_limit_is_used_up():
    import gymnasium as gym

    import kumo_gym  # noqa: F401

    env = gym.make("kumo_gym/Flood-v0", mode="interactive", difficulty="trivial")
    env.reset(seed=0)
    task = env.unwrapped.task
    inst = env.unwrapped.instance
    grid, limit = inst.data["grid"], inst.data["limit"]
    # repaint the corner's area with colours it does not touch until the limit is used up
    state, term, reward = task.initial_state(inst), False, None
    for _ in range(limit):
        move = next(m for m in task.legal_moves(inst, state)
                    if not task.is_goal(inst, task.apply(inst, state, m)))
        state = task.apply(inst, state, move)
        _, reward, term, trunc, info = env.step(task.format_move(move))
    assert term and not trunc and reward == 0.0 and info["status"] == "wrong", (grid, info)
    gold = task.solve(inst)
    env.reset(seed=0)
    for m in gold:
        _, reward, term, _, info = env.step(task.format_move(m))
    assert term and reward == 1.0 and info["status"] == "solved"
