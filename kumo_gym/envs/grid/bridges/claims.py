"""Bridges' claims (docs/specs/grid_puzzles.md §7).

``Bridge {r1, c1, r2, c2, n}`` solution: islands (r1, c1) and (r2, c2) are joined by exactly n
bridges (n = 0: not joined); ``Island {r, c, n}`` clue: the island at (r, c) shows n;
``Needs {r, c, n}`` state: that island still needs n more bridges; ``Contradiction`` state.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..claims import INCORRECT, UNVERIFIABLE, ClaimRules, inside, int_field, verdict
from .geometry import islands_of, read_bridge, sight_lines

KINDS = {"Bridge": "solution", "Island": "clue", "Needs": "state", "Contradiction": "state"}


def bridges_between(sol: list[list], H: int, W: int) -> dict[tuple, int]:
    """``{(island a, island b): bridges}`` for every pair of islands in sight of each other."""
    isles = islands_of(sol)
    out = {}
    for i, j, letter, cells in sight_lines(H, W, isles):
        got = read_bridge(sol[cells[0][0]][cells[0][1]])
        # a bridge of the other direction crossing this line is not a bridge of this pair
        out[isles[i], isles[j]] = got[1] if got is not None and got[0] == letter and all(sol[r][c] == sol[cells[0][0]][cells[0][1]]
                                                                    for r, c in cells) else 0
    return out


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    a, b = (int_field(p, "r1"), int_field(p, "c1")), (int_field(p, "r2"), int_field(p, "c2"))
    pairs = bridges_between(sol, H, W)
    n = pairs.get((a, b), pairs.get((b, a)))
    return INCORRECT if n is None else verdict(n == int_field(p, "n"))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    r, c = int_field(p, "r"), int_field(p, "c")
    return verdict(inside(H, W, r, c) and instance.data["state"]["grid"][r][c] == int_field(p, "n"))


def label_consistency(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    if kind == "Needs":
        r, c = int_field(p, "r"), int_field(p, "c")
        v = instance.data["state"]["grid"][r][c] if inside(H, W, r, c) else None
        return UNVERIFIABLE if isinstance(v, int) and 0 <= int_field(p, "n") <= v else INCORRECT
    return UNVERIFIABLE


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    H, W = len(sol), len(sol[0])
    return [{"type": "Bridge", "r1": a[0], "c1": a[1], "r2": b[0], "c2": b[1], "n": n}
            for (a, b), n in bridges_between(sol, H, W).items() if n]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue, consistency=label_consistency)
