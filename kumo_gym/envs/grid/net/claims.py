"""Net's claims (docs/specs/grid_puzzles.md §7).

``TileDirs {r, c, dirs}`` (the solved tile's pipe directions, letters of URDL in any order),
``Link {a: [r, c], b: [r, c], on}`` (whether pipes join the two neighbouring tiles) solution;
``Tile {r, c, type}`` (E, I, C, T or X) and ``Ends {r, c, n}`` (its number of pipe ends) clue. A
``cell`` claim's orientation is compared by the connections it gives, so equivalent orientations
of symmetric tiles are the same claim.
"""
from __future__ import annotations

from ....core.instance import Instance
from ..answer import normalize_cell
from ..claims import INCORRECT, ClaimError, ClaimRules, inside, int_field, ints_field, verdict
from ..geometry import STEP
from .codec import CANONICAL, rotate

KINDS = {"TileDirs": "solution", "Link": "solution", "Tile": "clue", "Ends": "clue", "Contradiction": "state"}


def _dirs(instance: Instance, sol: list[list], r: int, c: int) -> str:
    return rotate(CANONICAL[instance.data["state"]["tiles"][r][c]["type"]], sol[r][c])


def _dir_letters(p: dict, key: str) -> frozenset:
    v = p.get(key)
    if not isinstance(v, str) or not set(v.upper()) <= set("URDL"):
        raise ClaimError(f"claim field {key!r} must be a string of directions U, R, D, L, got {v!r}")
    return frozenset(v.upper())


def label_solution(instance: Instance, kind: str, p: dict, sol: list[list], H: int, W: int) -> str:
    """A tile's connections (an orientation is read as the connections it gives)."""
    if kind == "Link":
        a, b = (ints_field(p, k) for k in ("a", "b"))
        if len(a) != 2 or len(b) != 2 or not (inside(H, W, *a) and inside(H, W, *b)):
            return INCORRECT
        wrap = instance.data["state"]["wrap"]
        here = [d for d in _dirs(instance, sol, *a) if
                ((a[0] + STEP[d][0]) % H, (a[1] + STEP[d][1]) % W) == tuple(b) and
                (wrap or (0 <= a[0] + STEP[d][0] < H and 0 <= a[1] + STEP[d][1] < W))]
        return verdict(bool(here) == bool(p.get("on", True)))
    r, c = (int_field(p, "row"), int_field(p, "col")) if kind == "cell" else (int_field(p, "r"), int_field(p, "c"))
    if not inside(H, W, r, c):
        return INCORRECT
    dirs = frozenset(_dirs(instance, sol, r, c))
    if kind == "TileDirs":
        return verdict(_dir_letters(p, "dirs") == dirs)
    v = normalize_cell(p.get("value"))
    kind_ = instance.data["state"]["tiles"][r][c]["type"]
    same = v in (0, 90, 180, 270) and frozenset(rotate(CANONICAL[kind_], v)) == dirs
    return verdict(same != bool(p.get("negated", False)))


def label_clue(instance: Instance, kind: str, p: dict, H: int, W: int) -> str:
    st = instance.data["state"]
    r, c = int_field(p, "r"), int_field(p, "c")
    if kind == "Ends":
        return verdict(inside(H, W, r, c) and len(st["tiles"][r][c]["dirs"]) == int_field(p, "n"))
    return verdict(inside(H, W, r, c) and st["tiles"][r][c]["type"] == str(p.get("type", "")).upper())


def minimal(instance: Instance, sol: list[list]) -> list[dict]:
    return [{"type": "TileDirs", "r": r, "c": c, "dirs": _dirs(instance, sol, r, c)}
            for r, row in enumerate(sol) for c, _ in enumerate(row)]


RULES = ClaimRules(KINDS, label_solution, minimal, clue=label_clue, cells=True)
