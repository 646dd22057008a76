"""Tents game IDs (docs/specs/grid_puzzles.md §5 "Tents"): a tree map, then the column and row counts."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, NotExportable, ParamFormat

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="et"),), title="Tents")
TREE, TENT, GRASS = "T", "A", "."


def decode(params: dict, desc: str) -> dict:
    """Tree map: ``_`` a tree, ``a``..``y`` k = 1..25 empty cells then a tree, ``z`` 25 empty
    cells; a sentinel tree at index W*H ends it. ``!``/``-`` after a cell mark it as a given
    tent / non-tent (never generated, but accepted). Then W column and H row counts."""
    W, H = params["W"], params["H"]
    area = W * H
    if "," not in desc:
        raise ConfigError("a Tents description needs the tree map, then ',' and the counts")
    tree_map, _, counts = desc.partition(",")
    grid = [GRASS] * area
    marks: dict[int, str] = {}
    i = 0
    for ch in tree_map:
        if ch == "_" or "a" <= ch <= "y":
            i += 0 if ch == "_" else ord(ch) - ord("a") + 1
            if i < area:
                grid[i] = TREE
            elif i > area:
                raise ConfigError("the Tents tree map runs past the grid")
            i += 1
        elif ch == "z":
            i += 25
        elif ch in "!-":
            if i == 0 or i > area or grid[i - 1] == TREE:
                raise ConfigError(f"misplaced {ch!r} in the Tents tree map")
            marks[i - 1] = TENT if ch == "!" else "-"
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Tents tree map")
        if i > area + 1:
            raise ConfigError("the Tents tree map runs past the grid")
    if i != area + 1:
        raise ConfigError(f"the Tents tree map covers {i - 1} cells, expected {area}")
    nums = counts.split(",")
    if len(nums) != W + H or not all(n.isdigit() and len(n) <= 3 for n in nums):
        raise ConfigError(f"a {W}x{H} Tents description needs {W + H} counts, got {counts[:40]!r}")
    vals = [int(n) for n in nums]
    state = {"grid": [grid[r * W:(r + 1) * W] for r in range(H)], "col_counts": vals[:W], "row_counts": vals[W:]}
    if marks:
        state["marks"] = [[k // W, k % W, v] for k, v in sorted(marks.items())]
    return state


def encode(state: dict) -> str:
    if state.get("marks"):
        raise NotExportable("Tents instances with given tents or non-tents cannot be written as game IDs")
    flat = [v for row in state["grid"] for v in row] + [TREE]  # the sentinel tree at index W*H
    out = []
    run = 0
    for v in flat:
        if v == TREE:
            out.append("_" if run == 0 else chr(ord("a") + run - 1))
            run = 0
        elif v == GRASS:
            run += 1
            if run == 26:
                # "z" is 25 empty cells and no tree; a run of exactly 25 before a tree is "y"
                out.append("z")
                run = 1
        else:
            raise ConfigError(f"Tents grid cell {v!r} is not {TREE!r} or {GRASS!r}")
    counts = list(state["col_counts"]) + list(state["row_counts"])
    return "".join(out) + "," + ",".join(str(int(n)) for n in counts)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S;T{c},{r};...`` (column first) as the answer grid."""
    grid = [[TREE if v == TREE else GRASS for v in row] for row in state["grid"]]
    for part in aux.split(";")[1:]:
        if part.startswith("T"):
            c, r = (int(x) for x in part[1:].split(","))
            grid[r][c] = TENT
    return grid
