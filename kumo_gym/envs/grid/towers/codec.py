"""Towers game IDs (docs/specs/grid_puzzles.md §5 "Towers"): 4n edge clues, then optional givens."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_numgrid, encode_numgrid

PARAMS = ParamFormat(("n",), (Field("tatham_difficulty", "d", choices="ehxu"),), title="Towers")
SIDES = ("top", "bottom", "left", "right")


def decode(params: dict, desc: str) -> dict:
    """``/``-separated clues top (by column), bottom, left (by row), right; empty = no clue;
    then ``,`` and a NUMGRID of givens."""
    n = params["n"]
    clues, _, givens = desc.partition(",")
    parts = clues.split("/")
    if len(parts) != 4 * n or not all(p == "" or (p.isdigit() and len(p) <= 2) for p in parts):
        raise ConfigError(f"a Towers {n} description needs {4 * n} '/'-separated clues, got {clues[:60]!r}")
    vals = [int(p) if p else 0 for p in parts]
    if any(v > n for v in vals):
        raise ConfigError(f"a Towers clue exceeds the size {n}")
    state = {"n": n}
    for k, side in enumerate(SIDES):
        state[side] = vals[k * n:(k + 1) * n]
    cells = decode_numgrid(givens, n * n, max_value=n) if givens else [0] * (n * n)
    state["grid"] = [cells[r * n:(r + 1) * n] for r in range(n)]
    return state


def encode(state: dict) -> str:
    clues = "/".join(str(int(v)) if v else "" for side in SIDES for v in state[side])
    flat = [int(v) for row in state["grid"] for v in row]
    return clues + ("," + encode_numgrid(flat) if any(flat) else "")


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO ``S`` plus n*n digits."""
    n = state["n"]
    return [[int(ch) for ch in aux[1 + r * n:1 + (r + 1) * n]] for r in range(n)]
