"""Bridges game IDs (docs/specs/grid_puzzles.md §5 "Bridges"): islands as ``1``-``9`` and ``A``-``G``
(10-16), runs of water as ``a``-``z`` (1-26 cells)."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid
from .geometry import WATER, islands_of

#: ``i`` island percentage, ``e`` expansion percentage, ``m`` most bridges between two islands,
#: ``L`` no loops, ``d`` level (0 easy, 1 medium, 2 hard); game IDs carry ``m`` and ``L``
PARAMS = ParamFormat(("W", "H"), (Field("islands", "i", kind="number"), Field("expansion", "e", kind="number"),
                                  Field("max_bridges", "m", kind="number", in_id=True),
                                  Field("no_loops", "L", kind="flag", in_id=True),
                                  Field("tatham_difficulty", "d", kind="number")), title="Bridges")
DIGITS = "123456789ABCDEFG"


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    cells = [DIGITS.index(ch) + 1 if ch != WATER else WATER for ch in decode_chargrid(desc, W * H, DIGITS, WATER)]
    grid = [cells[r * W:(r + 1) * W] for r in range(H)]
    isles = islands_of(grid)
    if len(isles) < 2:
        raise ConfigError(f"a Bridges puzzle needs at least two islands, got {len(isles)}")
    near = set(isles)
    for r, c in isles:
        if (r + 1, c) in near or (r, c + 1) in near:
            raise ConfigError(f"islands ({r}, {c}) and a neighbour touch; Bridges islands need water between them")
    return {"grid": grid, "max_bridges": int(params.get("max_bridges", 2)), "no_loops": bool(params.get("no_loops"))}


def encode(state: dict) -> str:
    return encode_chargrid([WATER if v == WATER else DIGITS[int(v) - 1] for row in state["grid"] for v in row], WATER)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S;L x1,y1,x2,y2,n;...`` (columns first; ``N`` entries are marks, ignored) as the answer grid."""
    grid = [list(row) for row in state["grid"]]
    for part in aux.split(";")[1:]:
        if not part.startswith("L"):
            continue
        x1, y1, x2, y2, n = (int(x) for x in part[1:].split(","))
        if y1 == y2:
            cells, letter = [(y1, c) for c in range(min(x1, x2) + 1, max(x1, x2))], "H"
        else:
            cells, letter = [(r, x1) for r in range(min(y1, y2) + 1, max(y1, y2))], "V"
        for r, c in cells:
            grid[r][c] = f"{letter}{n}" if n else WATER
    return grid
