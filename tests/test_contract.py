"""The contract suite of docs/architecture.md §3, §4 and §8, run over the whole registry.

Every environment registered by ``import kumo_gym`` is checked here with its default kwargs, so
a new family is covered the moment its catalogue row lands. Optional Task hooks used here:

* ``corrupt_answer(instance, answer, rng) -> answer``: a minimally altered golden answer that is
  invalid (required: the corrupted gold must score below 1);
* ``golden_moves(instance) -> list`` or ``oracle_move(instance, state) -> move``: how to play the
  interactive mode to the goal (required for interactive modes);
* ``move_catalog``/``encode_state``: the structured (Stable-Baselines3) view.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kumo_gym
from kumo_gym.core import Instance, Verdict
from kumo_gym.core.capabilities import Corruptible, GoldenMoves, OracleMoves, StructuredView
from kumo_gym.core.errors import ConfigError
from kumo_gym.core.registry import entries, get_task

from .conftest import hostile_strings
from .registry_helpers import first_instance

ENTRIES = entries()
IDS = [e.id for e in ENTRIES]
MODES = [(e.id, m) for e in ENTRIES for m in e.modes]
INTERACTIVE = [e.id for e in ENTRIES if "interactive" in e.modes]

pytestmark = pytest.mark.skipif(not IDS, reason="no environment is registered yet")


@pytest.mark.parametrize("env_id,mode", MODES)
def test_check_env(env_id, mode):
    """Gymnasium's checker with its defaults (render check included, no skip flags)."""
    env = gym.make(env_id, mode=mode)
    check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_with_default_arguments(env_id):
    check_env(gym.make(env_id).unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_rgb_array_advertised_only_where_it_works(env_id):
    env = gym.make(env_id)
    modes = env.unwrapped.metadata.get("render_modes", [])
    if "rgb_array" in modes:
        env = gym.make(env_id, render_mode="rgb_array")
        env.reset(seed=0)
        img = env.render()
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        assert len(np.unique(img.reshape(-1, 3), axis=0)) >= 2, "a blank image"


def _other_value(spec):
    """A valid non-default value of a prompt option (None when none can be named)."""
    if spec.kind is bool:
        return not spec.default
    if spec.choices:
        return next((c for c in spec.choices if c != spec.default), None)
    if spec.kind is int:
        lo = int(spec.lo) if spec.lo is not None else 0
        hi = int(spec.hi) if spec.hi is not None else lo + 3
        return next((v for v in (1, 2, lo, hi) if lo <= v <= hi and v != spec.default), None)
    return None


PROMPT_OPTIONS = [(e.id, s) for e in ENTRIES for cls in [get_task(e.id).Params] if cls is not None
                  for s in cls.specs() if s.prompt]


@pytest.mark.parametrize("env_id,spec", PROMPT_OPTIONS, ids=[f"{e}-{s.name}" for e, s in PROMPT_OPTIONS])
def test_prompt_options_never_change_the_instance_drawn(env_id, spec):
    """Paired ablations: the same id, sizes, split and seed draw the same instance whatever the
    prompt options (the planning paper's algorithm-in-prompt experiment needs exactly this)."""
    value = _other_value(spec)
    if value is None:
        pytest.skip(f"{spec.name} takes free text ({spec.describe()}); no other value to try")
    for difficulty in [d for d in list(get_task(env_id).difficulties)[:2]] or [None]:
        kw = {} if difficulty is None else {"difficulty": difficulty}
        for seed in (0, 1):
            base = gym.make(env_id, **kw)
            other = gym.make(env_id, **kw, **{spec.name: value})
            _, a = base.reset(seed=seed)
            _, b = other.reset(seed=seed)
            assert a["instance_id"] == b["instance_id"], (spec.name, value, difficulty, seed)


def test_every_env_declares_its_parameters():
    missing = [e.id for e in ENTRIES if get_task(e.id).Params is None]
    assert not missing, f"tasks without a Params dataclass: {missing}"


def _class_docstring(path: str) -> str:
    """The docstring of ``"package.module:Class"``, read from the module's source with ast (no import):
    what a reader of the code sees, whatever the manual machinery does with it at run time."""
    import ast
    import importlib.util

    module, _, name = path.partition(":")
    source = Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return ast.get_docstring(node) or ""
    raise AssertionError(f"{path}: no such class in the module's source")


def _spaced(name: str) -> str:
    """``RiverCrossing`` -> ``River Crossing`` (``KUMO``, ``SPaRC``, ``FineReason`` stay whole)."""
    import re

    return re.sub(r"(?<=[a-z])(?=[A-Z][a-z])", " ", name.replace("FineReason", "FineReason "))


@pytest.mark.parametrize("env_id", IDS)
def test_task_docstring_names_its_own_puzzle(env_id):
    """The first line of every registered id's Task docstring (the manual's title) names that puzzle
    and no other registered one, so a class copied from another puzzle cannot keep its manual."""
    import re

    e = next(x for x in ENTRIES if x.id == env_id)
    title = _class_docstring(e.task).split("\n", 1)[0].split(":", 1)[0]
    squashed = re.sub(r"\W", "", title).lower()
    assert e.name.lower() in squashed, f"{e.task}: its docstring's title {title!r} does not name {e.name}"
    others = [x.name for x in ENTRIES if x.name != e.name
              and re.search(rf"\b{re.escape(_spaced(x.name))}\b", title, re.IGNORECASE)]
    assert not others, f"{e.task}: its docstring's title {title!r} names {others}"


@pytest.mark.parametrize("env_id", IDS)
def test_reset_info_and_render(env_id):
    env = gym.make(env_id, render_mode="ansi")
    obs, info = env.reset(seed=3)
    assert isinstance(obs, str) and obs.strip()
    assert env.observation_space.contains(obs)
    for key in ("instance_id", "family", "difficulty", "split", "optimal_steps"):
        assert key in info
    assert info["split"] == "train"
    text = env.render()
    assert isinstance(text, str) and text.strip()


@pytest.mark.parametrize("env_id", IDS)
def test_determinism_same_seed_same_instance(env_id):
    _, a, _ = first_instance(env_id, seed=11)
    _, b, _ = first_instance(env_id, seed=11)
    assert a == b and a.instance_id == b.instance_id
    # the same env continues to fresh items; a new env with the same seed replays them
    env1, env2 = gym.make(env_id), gym.make(env_id)
    ids1 = [env1.reset(seed=5)[1]["instance_id"]] + [env1.reset()[1]["instance_id"] for _ in range(2)]
    ids2 = [env2.reset(seed=5)[1]["instance_id"]] + [env2.reset()[1]["instance_id"] for _ in range(2)]
    assert ids1 == ids2


def test_determinism_across_processes():
    """The same id, kwargs and seed give the same instance in a fresh interpreter."""
    code = ("import json, gymnasium as gym, kumo_gym\n"
            f"ids = {IDS!r}\n"
            "out = {}\n"
            "for i in ids:\n"
            "    e = gym.make(i); out[i] = e.reset(seed=123)[1]['instance_id']\n"
            "print(json.dumps(out))\n")
    res = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=600,
                         env={"PYTHONHASHSEED": "12345", **__import__("os").environ})
    assert res.returncode == 0, res.stderr[-2000:]
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    ours = {i: first_instance(i, seed=123)[1].instance_id for i in IDS}
    assert theirs == ours


@pytest.mark.parametrize("env_id", IDS)
def test_splits_draw_different_items(env_id):
    _, a, _ = first_instance(env_id, seed=0, split="train")
    _, b, _ = first_instance(env_id, seed=0, split="test")
    assert a.split == "train" and b.split == "test"
    assert a.seed != b.seed


@pytest.mark.parametrize("env_id", IDS)
def test_gold_answer_scores_one(env_id):
    env, inst, _ = first_instance(env_id, seed=1)
    task = get_task(env_id)
    gold = task.solve(inst)
    text = task.format_answer(gold)
    assert task.parse(text) == gold, "parse(format_answer(a)) must give back a"
    verdict = task.score(inst, text)
    assert verdict.solved and verdict.reward == 1.0 and verdict.score == 1.0, verdict.message
    # through the environment, with prose and a thinking block around the answer
    env.reset(options={"instance": inst})
    _, reward, terminated, _, info = env.step(f"<think>let me think [[ not this ]]</think>Here it is.\n{text}\n")
    assert terminated and reward == 1.0, info["verdict"]["message"]


@pytest.mark.parametrize("env_id", IDS)
def test_corrupted_gold_scores_below_one(env_id):
    _, inst, _ = first_instance(env_id, seed=2)
    task = get_task(env_id)
    assert isinstance(task, Corruptible), f"{type(task).__name__} needs corrupt_answer(instance, answer, rng)"
    rng = np.random.default_rng(0)
    for _ in range(5):
        bad = task.corrupt_answer(inst, task.solve(inst), rng)
        verdict = task.score(inst, task.format_answer(bad))
        assert not verdict.solved and verdict.reward < 1.0 and verdict.score < 1.0, (bad, verdict.message)


def _check_answer_picture(task, inst, answer, verdict: dict):
    """The picture of ``answer`` shows its final state and frames exactly what it says it marks."""
    from kumo_gym.envs.raster import MARK, MARK_ALSO

    pic = task.answer_picture(inst, answer, verdict)
    state = task.final_state(inst, answer)
    if state is None:
        assert pic is None  # a label or a claim: nothing to draw beyond the puzzle
        return None
    assert pic is not None and pic.text and pic.caption
    json.dumps(pic.marks)
    if pic.image is None:
        return pic
    img = pic.image
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and min(img.shape[:2]) >= 60
    outside = np.ones(img.shape[:2], bool)
    for m in pic.marks:
        if "box" not in m:
            continue
        x0, y0, x1, y1 = m["box"]
        region = img[y0:y1, x0:x1]
        if m["first"]:
            ring = np.concatenate([region[0], region[-1], region[:, 0], region[:, -1]])
            assert (ring == MARK).all(), m
        else:
            assert (region == MARK_ALSO).all(axis=-1).any(), m
        outside[y0:y1, x0:x1] = False
    # outside the marks: the final state as render_rgb draws it (not the puzzle's start)
    assert (img[outside] == task.render_rgb(inst, state)[outside]).all()
    return pic


@pytest.mark.parametrize("env_id", IDS)
def test_answer_pictures_draw_the_final_state_and_mark_what_the_verdict_names(env_id):
    """``kumo-gym report`` draws each answer's final state beside the puzzle: for the golden answer
    and corrupted ones, the picture is the state the answer leaves, and its marks are what the
    verdict names (the first failing cell of a grid, the ruling test of a KUMO play ...)."""
    _, inst, _ = first_instance(env_id, seed=2)
    task = get_task(env_id)
    gold = task.solve(inst)
    pic = _check_answer_picture(task, inst, gold, task.verify(inst, gold).to_dict())
    if pic is not None and pic.image is not None and task.final_state(inst, gold) != task.final_state(inst, []):
        assert not np.array_equal(pic.image, task.render_rgb(inst)), "the solved state is drawn as the puzzle"
    rng = np.random.default_rng(0)
    for _ in range(3):
        bad = task.corrupt_answer(inst, gold, rng)
        verdict = task.verify(inst, bad).to_dict()
        pic = _check_answer_picture(task, inst, bad, verdict)
        details = verdict["details"]
        if pic is not None and details.get("first_error_cell") is not None:
            assert pic.marks[0]["first"] and pic.marks[0]["at"] == details["first_error_cell"]
        if pic is not None and details.get("ruled_out_by") is not None:
            assert any(m["at"] == details["ruled_out_by"] and m["first"] for m in pic.marks)


@pytest.mark.parametrize("env_id", IDS)
def test_instance_and_verdict_json_round_trip(env_id):
    _, inst, _ = first_instance(env_id, seed=4)
    again = Instance.from_json(inst.to_json())
    assert again == inst and again.instance_id == inst.instance_id and again.to_json() == inst.to_json()
    task = get_task(env_id)
    v = task.score(inst, task.format_answer(task.solve(inst)))
    assert Verdict.from_dict(json.loads(json.dumps(v.to_dict()))).to_dict() == v.to_dict()
    # replaying a stored instance gives the same prompt
    env = gym.make(env_id)
    p1, _ = env.reset(options={"instance": inst.to_dict()})
    p2, _ = env.reset(options={"instance": inst.to_json()})
    assert p1 == p2

#: the ids whose instances carry a Tatham game ID (every grid puzzle and game)
GAME_ID_IDS = [e.id for e in ENTRIES if e.family in ("grid", "games")]


@pytest.mark.parametrize("env_id", GAME_ID_IDS)
def test_a_game_id_with_a_digit_of_another_script_is_refused(env_id):
    """Python's int() reads '\u0661' as 1 and regex \\d matches it, so a codec could import an ID that
    Tatham's binaries refuse and export another one: each ASCII digit of the ID (parameters or
    description) turned into an Arabic-Indic one must be refused at reset, naming the character."""
    _, inst, _ = first_instance(env_id, seed=0)
    game_id = inst.data["game_id"]
    env = gym.make(env_id)
    assert env.reset(options={"instance": game_id})[0]  # the ASCII ID itself imports
    colon = game_id.index(":")
    digits = [i for i, ch in enumerate(game_id) if ch.isdigit()]
    # the first digit of the parameters, and the first of the description where it has one
    for i in sorted({digits[0], next((i for i in digits if i > colon), digits[0])}):
        bad = game_id[:i] + chr(0x0660 + int(game_id[i])) + game_id[i + 1:]
        with pytest.raises(ConfigError, match=r"U\+066\d"):
            env.reset(options={"instance": bad})


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("env_id,mode", MODES)
def test_hostile_strings_never_raise(env_id, mode):
    env = gym.make(env_id, mode=mode)
    env.reset(seed=0)
    inst = env.unwrapped.instance
    for s in hostile_strings(800):
        env.reset(options={"instance": inst})
        obs, reward, terminated, _truncated, _info = env.step(s)
        assert isinstance(obs, str) and reward in (0.0, 1.0) or 0.0 <= reward <= 1.0
        if mode == "answer":
            assert terminated


@pytest.mark.parametrize("env_id", IDS)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=300))
def test_fuzzed_answers_never_raise(env_id, text):
    task = get_task(env_id)
    inst = _cached_instance(env_id)
    v = task.score(inst, text)
    assert v.status in ("solved", "wrong", "illegal_move", "incomplete", "parse_error", "truncated", "hedge")


_CACHE: dict = {}


def _cached_instance(env_id):
    if env_id not in _CACHE:
        _CACHE[env_id] = first_instance(env_id, seed=0)[1]
    return _CACHE[env_id]


@pytest.mark.parametrize("env_id", INTERACTIVE)
def test_interactive_golden_rollout(env_id):
    task = get_task(env_id)
    env = gym.make(env_id, mode="interactive")
    env.reset(seed=6)
    base = env.unwrapped
    inst = base.instance
    if isinstance(task, GoldenMoves):
        moves = list(task.golden_moves(inst))
        next_move = lambda state, i: moves[i]
        limit = len(moves)
    else:
        assert isinstance(task, OracleMoves), f"{type(task).__name__} needs golden_moves() or oracle_move()"
        next_move = lambda state, i: task.oracle_move(inst, state)
        limit = base.max_steps
    total, terminated, truncated = 0.0, False, False
    for i in range(limit):
        _, r, terminated, truncated, info = env.step(task.format_move(next_move(base.state, i)))
        total += r
        if terminated or truncated:
            break
    assert terminated and total == 1.0, info.get("verdict")


@pytest.mark.parametrize("env_id", IDS)
def test_sync_vector_env(env_id):
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="sync")
    obs, info = envs.reset(seed=42)
    assert len(obs) == 3 and all(isinstance(o, str) for o in obs)
    assert len(set(info["instance_id"])) >= 1
    obs2, _ = gym.make_vec(env_id, num_envs=3, vectorization_mode="sync").reset(seed=42)
    assert list(obs) == list(obs2)
    envs.step(["no answer"] * 3)
    envs.close()


@pytest.mark.parametrize("env_id", IDS)
def test_make_dataset_records(env_id):
    recs = kumo_gym.make_dataset(env_id, 2, split="validation", seed=7)
    assert len(recs) == 2 and recs[0]["instance_id"] != "" and recs[0]["env_id"] == env_id
    for r in recs:
        assert r["prompt"] and r["prompt"][-1]["role"] == "user"
        inst = Instance.from_dict(r["instance"])
        assert inst.instance_id == r["instance_id"]
    # item 0 of a dataset is the first instance of an env reset with the same item seed
    env = gym.make(env_id, split="validation")
    env.reset(seed=7)
    assert env.unwrapped.instance.instance_id == recs[0]["instance_id"]


STRUCTURED = [e.id for e in ENTRIES if "interactive" in e.modes and isinstance(get_task(e.id), StructuredView)]


@pytest.mark.parametrize("env_id", STRUCTURED)
def test_structured_wrapper_passes_sb3_check_env(env_id):
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    from kumo_gym.wrappers import StructuredWrapper

    env = StructuredWrapper(gym.make(env_id, mode="interactive"))
    sb3_check_env(env, warn=False)
    _obs, info = env.reset(seed=0)
    assert info["action_mask"].any()
    assert sb3 is not None
