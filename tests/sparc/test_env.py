"""The environment, text interface, rendering and contamination guard (docs/specs/sparc.md §6, §7, §11, §13)."""
from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kumo_gym
from kumo_gym.core.errors import ConfigError, ContaminationError, ParseError
from kumo_gym.envs.base import TEXT_CHARSET
from kumo_gym.envs.sparc.puzzle import SparcPuzzle
from kumo_gym.envs.sparc.render import render_rgb, write_png
from kumo_gym.envs.sparc.search import enumerate_solutions
from kumo_gym.envs.sparc.task import SparcTask
from kumo_gym.envs.sparc.text import EXAMPLES, cut_at_end, extract_path, parse_direction

from .conftest import stored_paths

ENV = "kumo_gym/SPaRC-v0"
TASK = SparcTask()


@pytest.mark.parametrize("mode", ["answer", "interactive"])
def test_check_env_and_rgb(mode):
    env = gym.make(ENV, mode=mode, render_mode="rgb_array", difficulty="2")
    check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert np.array_equal(img, env.render())


def test_official_record_plays_and_round_trips(ref_lines):
    env = gym.make(ENV)
    rec = json.loads(ref_lines[0])
    obs, info = env.reset(options={"instance": rec})
    inst = env.unwrapped.instance
    assert json.dumps(inst.data) == ref_lines[0]
    assert info["split"] == "test" and info["difficulty"] == str(rec["difficulty_level"])
    assert all(c in TEXT_CHARSET for c in obs)
    for path in stored_paths(rec):
        env.reset(options={"instance": rec})
        _, reward, terminated, _, info = env.step("I think...\n#### " + " -> ".join(f"({x},{y})" for x, y in path))
        assert reward == 1.0 and terminated


def test_official_test_records_never_enter_training(reference, ref_records):
    inst = TASK.load(ref_records[0])
    with pytest.raises(ContaminationError):
        TASK.check_trainable(inst)
    # a copy stripped of its tags is still caught by id / fingerprint
    from kumo_gym.core import Instance

    bare = Instance(family="sparc", data=ref_records[0], params={"source": "record"})
    with pytest.raises(ContaminationError):
        TASK.check_trainable(bare)
    path = str(reference / "sparc" / "sparc_dev_50.jsonl")
    with pytest.raises(ContaminationError):
        kumo_gym.make_dataset(ENV, 3, split="train", records=path)
    rows = kumo_gym.make_dataset(ENV, 3, split="test", records=path)
    assert all(r["instance"]["data"]["id"] in {x["id"] for x in ref_records} for r in rows)
    # generated puzzles are trainable
    for inst in kumo_gym.generate_instances(ENV, 3, split="train", difficulty="1"):
        TASK.check_trainable(inst)


def test_extraction():
    assert extract_path("x (9, 9) #### (0, 1), (0,2)\n->(1 ,2)") == [(0, 1), (0, 2), (1, 2)]
    assert extract_path("[(0, 1), (2, 3)]") == [(0, 1), (2, 3)]
    assert extract_path("#### a\n#### [(4,4)]") == [(4, 4)]
    assert extract_path("#### (1, 1), (2.5, 1) x (-1,2)") == [(1, 1), "(2.5, 1)", "x", (-1, 2)]
    assert cut_at_end([(0, 0), (1, 0), (2, 0), (3, 0)], (1, 0)) == [(0, 0), (1, 0)]
    with pytest.raises(ParseError):
        extract_path("#### no coordinates here (1, 2")
    big = "(" * 200_000 + "#### " + "(1, 1), " * 50_000
    assert len(extract_path(big)) == 4096


@pytest.mark.parametrize("bad", ["(-1, 0)", "(1.5, 0)", "(0, 0, 7)", "(0,)", "and then"])
def test_a_bad_point_among_gold_points_is_never_skipped(bad):
    """One point that is not two integers on the grid, or text that is no separator, inserted in
    the middle of a gold path voids it, with a verdict naming the entry (docs/specs/sparc.md §7)."""
    for seed in range(3):
        inst = next(iter(kumo_gym.generate_instances(ENV, 1, seed=seed, difficulty="2")))
        gold = [f"({x}, {y})" for x, y in TASK.solve(inst)]
        assert TASK.score(inst, "#### " + " -> ".join(gold)).solved
        mid = len(gold) // 2
        v = TASK.score(inst, "#### " + ", ".join(gold[:mid] + [bad] + gold[mid:]))
        assert v.reward == 0.0, (seed, bad)
        assert bad.strip("()").split(",")[0] in v.message, v.message
    # a structured answer is held to the same rule: 2.5 is not truncated to 2, True is not 1
    path = [tuple(p) for p in TASK.solve(inst)]
    assert TASK.verify(inst, [tuple(float(v) for v in p) for p in path]).solved  # integral floats are integers
    for broken in ([(path[0][0] + 0.5, path[0][1])], [(True, path[0][1])], [path[0] + (7,)]):
        v = TASK.verify(inst, broken + path[1:])
        assert v.status == "parse_error" and v.details["reason"] == "malformed_point", v


def test_text_after_the_end_of_the_path_is_not_judged():
    inst = next(iter(kumo_gym.generate_instances(ENV, 1, seed=0, difficulty="2")))
    gold = ", ".join(f"({x}, {y})" for x, y in TASK.solve(inst))
    assert TASK.score(inst, f"#### {gold}\nThat ends at E (see (1, 1) above; (2.5, 1) was rejected).").solved


def test_parse_direction():
    assert parse_direction("I go up then down. Final: left") == 2
    assert parse_direction("final: 3") == 3
    assert parse_direction("maybe right") == 0
    with pytest.raises(ParseError):
        parse_direction("nothing")


def test_prompt_contents_and_formats():
    env = gym.make(ENV, difficulty="3", grid_format="coords", shots=2)
    obs, _ = env.reset(seed=1)
    for token in ("`S`", "`E`", "`G`", "`o-C`", "`*-C`", "`A-C`", "`P-C-<id>`", "`Y-C-<id>`", "####", "| y \\ x |"):
        assert token in obs
    assert obs.count("#### (") == 3  # two worked examples and the format example
    obs2, _ = gym.make(ENV, difficulty="3", vision=True).reset(seed=1)
    assert "Grid (" not in obs2.split("## Puzzle")[1]
    with pytest.raises(ConfigError, match="grid_format 'x'"):
        gym.make(ENV, grid_format="x")
    with pytest.raises(ConfigError, match="difficulty '9'"):
        gym.make(ENV, difficulty="9")


def test_worked_examples_have_unique_listed_answers():
    for ex in EXAMPLES:
        res = enumerate_solutions(SparcPuzzle.from_grid(ex["grid"], ex["shapes"]), cap=None)
        assert res.solutions == [ex["answer"]]


def test_interactive_episode():
    env = gym.make(ENV, mode="interactive", difficulty="2")
    obs, info = env.reset(seed=4)
    inst = env.unwrapped.instance
    assert "Legal moves:" in obs and " L" in obs.replace("'L'", " L")
    moves = TASK.golden_moves(inst)
    for m in moves[:-1]:
        obs, r, term, _, info = env.step(f"thinking... Final: {['right', 'up', 'left', 'down'][m]}")
        assert not term and r == 0
        assert "'V'" in obs
    obs, r, term, _trunc, info = env.step(str(moves[-1]))
    assert term and r == 1.0 and info["verdict"]["status"] == "solved"
    # an illegal move has no effect: the state stays, feedback comes back, the episode goes on
    env.reset(seed=4)
    state = env.unwrapped.state
    bad = next(m for m in range(4) if TASK.check_move(inst, state, m) is not None)
    _, r, term, trunc, info = env.step(f"Final: {bad}")
    assert not (term or trunc) and r == 0 and info["verdict"]["status"] == "illegal_move"
    assert env.unwrapped.state == state
    assert env.unwrapped.max_steps == TASK.max_steps(inst)


def test_structured_view():
    inst = next(kumo_gym.generate_instances(ENV, 1, difficulty="2"))
    state = TASK.initial_state(inst)
    assert TASK.move_catalog(inst) == [0, 1, 2, 3]
    vec = TASK.encode_state(inst, state)
    assert vec.dtype == np.float32 and vec.shape == (12 * 13 * 13,)
    assert set(TASK.legal_moves(inst, state)) <= {0, 1, 2, 3}


def test_render_draws_every_symbol_type(tmp_path, ref_records):
    grid = [["S", "+", ".", "+", "+", "+", "+"],
            ["+", "o-R", "G", "*-B", "+", "A-Y", "+"],
            ["+", "+", "+", "+", "+", "+", "+"],
            ["+", "B-G", "+", "C-W", "+", "D-O", "+"],
            ["+", "+", "+", "+", "+", "+", "+"],
            ["+", "P-P-3", "+", "Y-K-1", "+", "N", "+"],
            ["+", "+", "+", "+", "+", "+", "E"]]
    p = SparcPuzzle.from_grid(grid, {"1": [[1, 0, 0, 0]] + [[0] * 4] * 3, "3": [[1, 1, 0, 0]] + [[0] * 4] * 3})
    img = render_rgb(p)
    assert np.array_equal(img, render_rgb(p))  # deterministic
    # each symbol cell differs from an empty cell
    empty = render_rgb(SparcPuzzle.from_grid([["N" if (x % 2 and y % 2) else t for x, t in enumerate(row)]
                                              for y, row in enumerate(grid)], {}))
    half = 40
    for (x, y) in p.symbols:
        cx, cy = int(0.6 * 80 + x * half), int(0.6 * 80 + y * half)
        assert not np.array_equal(img[cy - 15:cy + 15, cx - 15:cx + 15], empty[cy - 15:cy + 15, cx - 15:cx + 15])
    out = tmp_path / "p.png"
    write_png(out, img)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with_path = render_rgb(p, [(0, 0), (1, 0), (2, 0)])
    assert not np.array_equal(with_path, img)


def test_answer_picture_frames_the_first_bad_position():
    """The report's final state of a path that revisits a position: the path as submitted, with
    the verdict's first bad position (the revisit) framed in red."""
    from kumo_gym.envs.raster import MARK
    from kumo_gym.envs.sparc.render import point_box

    env = gym.make(ENV, difficulty="3")
    env.reset(seed=4)
    inst = env.unwrapped.instance
    sol = [tuple(x) for x in TASK.solve(inst)]
    k = len(sol) // 2
    path = sol[:k + 1] + [sol[k - 1]] + sol[k - 1:]  # position k + 1 steps back onto sol[k - 1]
    verdict = TASK.verify(inst, path)
    assert verdict.status == "illegal_move" and verdict.first_error == k + 1
    pic = TASK.answer_picture(inst, path, verdict.to_dict())
    assert pic.marks[0] == {"what": "point", "at": list(sol[k - 1]), "first": True, "index": k + 1,
                            "box": list(point_box(TASK.puzzle(inst), *sol[k - 1]))}
    x0, y0, x1, y1 = pic.marks[0]["box"]
    region = pic.image[y0:y1, x0:x1]
    ring = np.concatenate([region[0], region[-1], region[:, 0], region[:, -1]])
    assert (ring == MARK).all()
    assert np.array_equal(pic.image[:y0], render_rgb(TASK.puzzle(inst), path)[:y0])  # the path as submitted
    assert f"{tuple(sol[k - 1])}" in pic.caption


def test_exact_scoring_uses_the_stored_list(ref_records):
    rec = ref_records[0]
    inst = TASK.load(rec)
    from dataclasses import replace

    exact = replace(inst, params={**inst.params, "scoring": "exact"})
    path = stored_paths(rec)[0]
    assert TASK.verify(exact, path).solved
    assert not TASK.verify(exact, path[:-1]).solved


def test_interactive_accepts_the_next_node():
    env = gym.make(ENV, mode="interactive", difficulty="1")
    env.reset(seed=2)
    inst = env.unwrapped.instance
    path = TASK.solve(inst)
    for i, (x, y) in enumerate(path[1:], 1):
        _, r, term, _, info = env.step(f"Final: ({x}, {y})")
        assert term == (i == len(path) - 1)
    assert r == 1.0
    env.reset(seed=2)
    _, r, term, _, info = env.step("Final: (12, 12)")
    assert not term and info["verdict"]["status"] == "illegal_move"


def test_vision_yaml_prompt():
    obs, _ = gym.make(ENV, difficulty="2", vision="yaml").reset(seed=0)
    assert "puzzle:\n  dimensions:" in obs


def test_stable_baselines3_view():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from kumo_gym.wrappers.structured import StructuredWrapper

    env = StructuredWrapper(gym.make(ENV, mode="interactive", difficulty="2"))
    sb3_check_env(env, warn=False)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].dtype == bool


def test_prompt_template_fields():
    env = gym.make(ENV, difficulty="1", template="Solve {width}x{height} from {start} to {end}:\n{grid}\n{rules}")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("Solve ") and "## Rules" in obs
    for bad in ("{grid.__class__}", "{nope}", "{grid[0]}", "{grid:>10}", "{"):
        with pytest.raises(ConfigError):
            gym.make(ENV, template=bad)


def test_prompt_options_of_an_instance_are_checked_at_reset():
    """An instance's ``shots`` set to None means the default; a value outside 0-2 is refused at
    reset with its name (before any step could fail on it)."""
    env = gym.make("kumo_gym/SPaRC-v0", difficulty="1")
    env.reset(seed=0)
    d = env.unwrapped.instance.to_dict()
    prompt, _ = env.reset(options={"instance": {**d, "params": {**d["params"], "shots": None, "grid_format": None}}})
    assert "####" in prompt
    with pytest.raises(ConfigError, match="'shots' 5"):
        env.reset(options={"instance": {**d, "params": {**d["params"], "shots": 5}}})
