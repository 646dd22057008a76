"""Shared fixtures: a Tents instance (the spec's E8 puzzle) and a 4x4 Sudoku, with hand-written traces."""
import pytest

from kumo_gym.core.instance import Instance

TENTS_ID = "4x4:_jba,1,1,0,1,0,2,0,1"
TENTS_SOLUTION = [["T", ".", ".", "."], ["A", ".", ".", "A"], [".", ".", ".", "T"], [".", "A", "T", "."]]

# docs/specs/reasoning_graphs.md §4 E8, written out as a model might (0-based coordinates)
TENTS_TRACE = """<think>Row 0 needs 0 tents.
The tree at (0, 0) needs a tent, and since row 0 needs 0 tents, the tent must be at (1, 0).
Because of the tent at (1, 0), (1, 1) cannot be a tent and (1, 3) cannot be a tent.
Row 1 needs 2 tents, so the tree at (2, 3) must have its tent at (1, 3).
Suppose there is a tent at (2, 2).
Then it touches the tent at (1, 3), which is a contradiction, so (2, 2) is not a tent.
The tree at (3, 2) therefore gets its tent at (3, 1).
With the tent at (3, 1) and since column 1 needs 1 tent, column 1 is now full.</think>
[["T",".",".","."],["A",".",".","A"],[".",".",".","T"],[".","A","T","."]]"""

SOLO_SOLUTION = [[3, 2, 1, 4], [1, 4, 2, 3], [2, 3, 4, 1], [4, 1, 3, 2]]
SOLO_GRID = [[3, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 2]]
# 1-based "r1c4" notation, as most models write Sudoku cells
SOLO_TRACE = """Row 1 already contains 3 and 1.
So row 1 is missing 2 and 4.
Since column 4 contains 2, r1c4 cannot be 2.
Therefore r1c4 = 4.
Then r1c2 = 2, the only digit left in row 1.
Suppose r2c1 is 2.
That clashes with the 2 in r1c2 inside box 1, which is a contradiction.
So r2c1 cannot be 2.
r2c1 must be 1 because r2c1 can only be 1 or 2.
Place 4 in r4c1.

Answer: [[3,2,1,4],[1,4,2,3],[2,3,4,1],[4,1,3,2]]"""


@pytest.fixture(scope="session")
def tents_task():
    import kumo_gym

    return kumo_gym.get_task("kumo_gym/Tents-v0")


@pytest.fixture(scope="session")
def tents_instance(tents_task):
    return tents_task.load(TENTS_ID)


@pytest.fixture(scope="session")
def solo_instance():
    return Instance("solo", {"W": 4, "H": 4, "state": {"n": 4, "box_w": 2, "box_h": 2, "grid": SOLO_GRID},
                             "solution": SOLO_SOLUTION})


@pytest.fixture
def tents_record(tents_instance):
    return {"env_id": "kumo_gym/Tents-v0", "instance": tents_instance.to_dict(),
            "instance_id": tents_instance.instance_id, "completion": TENTS_TRACE,
            "verdict": {"status": "solved", "solved": True}, "reward": 1.0, "model": "hand", "difficulty": "trivial"}


@pytest.fixture
def solo_record(solo_instance):
    return {"env_id": "kumo_gym/Solo-v0", "instance": solo_instance.to_dict(),
            "instance_id": solo_instance.instance_id, "completion": SOLO_TRACE,
            "verdict": {"status": "solved", "solved": True}, "reward": 1.0, "model": "hand", "difficulty": "trivial"}


def synthetic_tents_text(inst, rng, noise: int = 0) -> str:
    """A plausible 0-based Tents trace for a generated instance: clues, placements, final grid."""
    st, sol = inst.data["state"], inst.data["solution"]
    lines = []
    for r, k in enumerate(st["row_counts"]):
        lines.append(f"Row {r} needs {k} tents.")
    tents = [(r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if v == "A"]
    trees = [(r, c) for r, row in enumerate(st["grid"]) for c, v in enumerate(row) if v == "T"]
    for (tr, tc), (r, c) in zip(trees, tents):
        lines.append(f"The tree at ({tr}, {tc}) needs a tent, so the tent goes at ({r}, {c}).")
        for _ in range(int(rng.integers(0, noise + 1))):
            lines.append(f"Again, the tent at ({r}, {c}) is fixed.")
    empty = [(r, c) for r, row in enumerate(sol) for c, v in enumerate(row) if v == "."]
    for r, c in empty[: int(rng.integers(0, 3))]:
        lines.append(f"Because of the tent at {tents[0]}, ({r}, {c}) cannot be a tent.".replace("(", "(", 1))
    import json

    return "<think>" + "\n".join(lines) + "</think>\n" + json.dumps(sol)


def synthetic_solo_text(inst, rng, noise: int = 0) -> str:
    """A 1-based Sudoku trace: a few unit facts, every placement, the final grid."""
    sol = inst.data["solution"]
    grid = inst.data["state"]["grid"]
    lines = []
    for r, row in enumerate(grid):
        given = [v for v in row if v]
        if given:
            lines.append(f"Row {r + 1} already contains {' and '.join(map(str, given))}.")
    cells = [(r, c) for r in range(len(sol)) for c in range(len(sol)) if not grid[r][c]]
    for r, c in cells:
        lines.append(f"So r{r + 1}c{c + 1} = {sol[r][c]}.")
        for _ in range(int(rng.integers(0, noise + 1))):
            lines.append(f"Check: r{r + 1}c{c + 1} is {sol[r][c]}.")
    import json

    return "\n".join(lines) + "\nAnswer: " + json.dumps(sol)


def write_trace_file(path, n_each: int = 4, seed: int = 0):
    """A real trace file: Tents and Solo episodes stepped through TraceWrapper, some solved, some not."""
    import gymnasium as gym
    import numpy as np

    import kumo_gym  # noqa: F401  (registers the environments)
    from kumo_gym.wrappers.trace import TraceWrapper

    rng = np.random.default_rng(seed)
    for env_id, make_text in (("kumo_gym/Tents-v0", synthetic_tents_text), ("kumo_gym/Solo-v0", synthetic_solo_text)):
        env = TraceWrapper(gym.make(env_id, difficulty="trivial"), path, model="synthetic-a")
        for i in range(n_each):
            env.reset(seed=i)
            inst = env.unwrapped.instance
            text = make_text(inst, rng, noise=i % 3)
            if i == n_each - 1:  # one wrong answer per family
                text = text.rsplit("[[", 1)[0] + "[[1]]"
            env.annotate(model="synthetic-a" if i % 2 else "synthetic-b", completion_tokens=len(text) // 4)
            env.step(text)
        env.close()
    return path
