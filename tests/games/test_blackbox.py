"""Black Box's rays, reference player, rules and codec (docs/games.md, Black Box)."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import get_task
from kumo_gym.envs.games.blackbox import search as bb

TASK = get_task("kumo_gym/Blackbox-v0")
#: printed by sgt-blackbox --generate (sgt-puzzles 20230122): ID -> the balls as (row, col), in order
TATHAM_IDS = {
    "w5h5m3M3:26232f52f07fc593": [[0, 1], [0, 0], [2, 2]],
    "w6h6m4M4:558542e5c07e1ec7d64b": [[2, 1], [3, 5], [1, 2], [5, 0]],
    "w8h8m3M6:59778cc258a10a7d": [[0, 1], [7, 1], [5, 7]],
}


def test_rays_by_hand():
    balls = [(0, 1), (0, 0), (2, 2)]  # the first Tatham ID
    w = h = 5

    def ray(side, i):
        return bb.trace(w, h, balls, TASK_RAY(side, i))

    assert ray("T", 0) == bb.HIT  # straight into the ball at (0, 0)
    assert ray("T", 2) == bb.REFLECT  # the ball at (0, 1) is diagonally in front of the entry square
    assert ray("L", 1) == bb.REFLECT  # likewise the ball at (0, 0)
    assert ray("B", 4) == TASK_RAY("T", 4)  # column 4 is clear: straight through
    assert ray("L", 2) == bb.HIT  # row 2 runs into (2, 2)
    # row 3 from the left: at (3, 1) the ball (2, 2) is diagonally ahead on the left, so the ray turns down
    assert ray("L", 3) == TASK_RAY("B", 1)


def TASK_RAY(side, i):
    from kumo_gym.envs.games.blackbox.task import ray_number
    return ray_number(5, 5, side, i)


def test_ray_names_and_numbers_are_inverse():
    from kumo_gym.envs.games.blackbox.task import ray_name, ray_number
    for w, h in ((2, 3), (5, 5), (8, 6)):
        for r in range(bb.n_rays(w, h)):
            name = ray_name(w, h, r)
            assert ray_number(w, h, name[0], int(name[1:])) == r
        assert ray_number(w, h, "T", w) is None and ray_number(w, h, "L", -1) is None


@pytest.mark.parametrize("w,h,lo,hi", [(3, 3, 1, 2), (4, 3, 2, 2), (5, 4, 3, 3)])
def test_vectorised_table_equals_single_rays_and_paths_reverse(w, h, lo, hi):
    placements, results, weights = bb.table(w, h, lo, hi)
    assert len(placements) == bb.n_placements(w, h, lo, hi) and abs(weights.sum() - 1) < 1e-9
    rng = np.random.default_rng(0)
    for i in rng.choice(len(placements), min(150, len(placements)), replace=False):
        balls = [(c // w, c % w) for c in placements[i]]
        sig = bb.signature(w, h, balls)
        assert tuple(results[i].tolist()) == sig
        for r, out in enumerate(sig):
            if out >= 0:
                assert sig[out] == r  # a ray's path run backwards is the ray from its exit
                assert out != r


def brute_worst_case(w, h, placements):
    """The fewest rays that always settle ``placements`` (plain recursion over signatures)."""
    sigs = {p: bb.signature(w, h, [(c // w, c % w) for c in p]) for p in placements}
    memo = {}

    def solve(alive):
        if len({sigs[p] for p in alive}) == 1:
            return 0
        if alive in memo:
            return memo[alive]
        best = 99
        for r in range(bb.n_rays(w, h)):
            groups = {}
            for p in alive:
                groups.setdefault(sigs[p][r], []).append(p)
            if len(groups) > 1:
                best = min(best, 1 + max(solve(frozenset(g)) for g in groups.values()))
        memo[alive] = best
        return best

    return solve(frozenset(placements))


@pytest.mark.parametrize("w,h,lo,hi", [(2, 2, 1, 1), (3, 2, 1, 2), (3, 3, 1, 1), (4, 2, 1, 1), (2, 2, 1, 2)])
def test_tiny_boxes_are_played_in_the_brute_force_worst_case(w, h, lo, hi):
    placements = [p for k in range(lo, hi + 1) for p in combinations(range(w * h), k)]
    assert len(placements) <= bb.EXACT_UP_TO
    lengths = []
    for p in placements:
        balls = [(c // w, c % w) for c in p]
        rays = bb.play(w, h, lo, hi, balls)
        hist = [(r, bb.trace(w, h, balls, r)) for r in rays]
        alive = bb.consistent(w, h, lo, hi, hist)
        sig = bb.signature(w, h, balls)
        assert all(bb.signature(w, h, [(c // w, c % w) for c in bb.table(w, h, lo, hi)[0][i]]) == sig for i in alive)
        lengths.append(len(rays))
    assert max(lengths) == bb.exact_minimax(w, h, lo, hi) == brute_worst_case(w, h, placements)


def test_greedy_player_always_ends_settled_and_right():
    task = TASK
    for seed in range(12):
        inst = task.generate(np.random.default_rng(seed), difficulty="normal")
        gold = task.solve(inst)
        assert task.verify(inst, gold).solved
        assert len(gold) - 1 < bb.n_rays(5, 5)
        d = inst.data
        hist = []
        s = task.initial_state(inst)
        for m in gold[:-1]:
            s = task.apply(inst, s, m)
        hist = list(s[0])
        alive = bb.consistent(d["w"], d["h"], d["minballs"], d["maxballs"], hist)
        _, results, _ = bb.table(d["w"], d["h"], d["minballs"], d["maxballs"])
        assert (results[alive] == results[alive[0]]).all()


def test_unenumerable_boxes_fire_every_unknown_ray_once():
    inst = TASK.generate(np.random.default_rng(1), difficulty="tatham_8x8_5")
    gold = TASK.solve(inst)
    s = TASK.initial_state(inst)
    for m in gold[:-1]:
        assert TASK.check_move(inst, s, m) is None
        s = TASK.apply(inst, s, m)
    assert len(TASK._known(s)) == bb.n_rays(8, 8) and TASK.verify(inst, gold).solved


def test_tatham_ids_reveal_the_balls_and_round_trip():
    for game_id, balls in TATHAM_IDS.items():
        inst = TASK.load(game_id)
        assert inst.data["balls"] == balls and TASK.to_game_id(inst) == game_id
        assert TASK.verify(inst, TASK.solve(inst)).solved
    for bad in ("w5h5m3M3:26232f52f07fc5", "w5h5m3M3:26232f52f07fc59z", "w5h5m3M3", "w5h5m4M4:26232f52f07fc593",
                "w6h5m3M3:26232f52f07fc593", "w5h5m3M2:26232f52f07fc593", "w99h5m3M3:26232f52f07fc593",
                "w5h5m3M3:00000000000000000", "x5h5m3M3:26232f52f07fc593"):
        with pytest.raises(ConfigError):
            TASK.load(bad)


def _rule(inst, moves):
    v = TASK.verify(inst, moves)
    return v.details.get("rule") if not v.solved else "solved"


def test_each_rule_has_its_own_wrong_answer():
    inst = TASK.load("w5h5m3M3:26232f52f07fc593")  # balls (0,1), (0,0), (2,2)
    right = ["balls", [0, 0], [0, 1], [2, 2]]
    assert _rule(inst, [["T", 4], right]) == "solved"
    assert _rule(inst, [["T", 5], right]) == "off_board"
    assert _rule(inst, [["L", -1], right]) == "off_board"
    assert _rule(inst, [["balls", [0, 0], [0, 1], [5, 2]]]) == "off_board"
    assert _rule(inst, [["T", 4], ["T", 4], right]) == "already_known"
    assert _rule(inst, [["T", 4], ["B", 4], right]) == "already_known"  # B4 is where T4 came out
    assert _rule(inst, [["balls", [0, 0], [0, 1], [2, 2], [0, 0]]]) == "repeated_ball"
    assert _rule(inst, [["balls", [0, 0], [0, 1]]]) == "ball_count"
    assert _rule(inst, [["balls", [0, 0], [0, 1], [2, 2], [4, 4]]]) == "ball_count"
    assert _rule(inst, [["balls", [0, 0], [0, 1], [3, 3]], right]) == "game_over"
    assert _rule(inst, [["balls", [0, 0], [0, 1], [3, 3]]]) == "goal_not_reached"


def test_layouts_no_ray_tells_apart_are_both_right():
    # Tatham accepts any layout that gives every ray the hidden layout's result: find two such layouts
    w = h = 4
    lo, hi = 3, 4
    placements, results, _ = bb.table(w, h, lo, hi)
    seen = {}
    for p, row in zip(placements, map(tuple, results.tolist())):
        if row in seen:
            first, second = seen[row], p
            break
        seen[row] = p
    else:
        pytest.fail("no two 4x4 layouts of 3-4 balls share every ray's result")
    from kumo_gym.envs.games.blackbox import codec
    data = {"w": w, "h": h, "minballs": lo, "maxballs": hi, "balls": [[c // w, c % w] for c in first]}
    inst = TASK.load(f"{codec.encode_params(data)}:{codec.encode_desc(data)}")
    assert _rule(inst, [["balls", *[[c // w, c % w] for c in second]]]) == "solved"
    assert _rule(inst, [["balls", *[[c // w, c % w] for c in first]]]) == "solved"


def test_prompts_and_observations_never_show_the_balls():
    import gymnasium as gym

    env = gym.make("kumo_gym/Blackbox-v0", mode="interactive", difficulty="normal")
    obs, _ = env.reset(seed=3)
    task, inst = env.unwrapped.task, env.unwrapped.instance
    hidden = [f"[{r}, {c}]" for r, c in inst.data["balls"]]
    prompt = task.prompt(inst)
    obs, *_ = env.step('["T", 0]')
    assert "Ray 1" in obs
    assert not all(b in obs for b in hidden) and not all(b in prompt for b in hidden)
