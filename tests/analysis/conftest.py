"""Shared fixtures: a Tents instance (the spec's E8 puzzle) and a 4x4 Sudoku, with hand-written traces."""
import pytest

from kumo_gym.core.instance import Instance

TENTS_ID = "4x4:_jba,1,1,0,1,0,2,0,1"
TENTS_SOLUTION = [["T", ".", ".", "."], ["A", ".", ".", "A"], [".", ".", ".", "T"], [".", "A", "T", "."]]

# reasoning_graphs.md §4 E8, written out as a model might (0-based coordinates)
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
