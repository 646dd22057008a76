"""Dominosa game IDs (docs/specs/grid_puzzles.md §5 "Dominosa"): ``N:`` then the (N+1)x(N+2) numbers."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat

PARAMS = ParamFormat(("max_pip",), (Field("tatham_difficulty", "d", choices="tbhe"),), title="Dominosa")
HALVES = "LRTB"


def decode(params: dict, desc: str) -> dict:
    """Row-major numbers 0..N, one digit each, or ``[dd]`` (any number of digits) for values >= 10."""
    n = params["max_pip"]
    H, W = n + 1, n + 2
    cells: list[int] = []
    i = 0
    while i < len(desc):
        ch = desc[i]
        if ch.isdigit():
            v, i = int(ch), i + 1
        elif ch == "[":
            j = desc.find("]", i + 1, i + 5)
            if j < 0 or not desc[i + 1:j].isdigit():
                raise ConfigError(f"unclosed or empty '[' at offset {i} of the Dominosa description")
            v, i = int(desc[i + 1:j]), j + 1
        else:
            raise ConfigError(f"unexpected character {ch!r} in the Dominosa description")
        if v > n:
            raise ConfigError(f"number {v} in the Dominosa description exceeds the maximum {n}")
        cells.append(v)
        if len(cells) > W * H:
            raise ConfigError(f"the Dominosa description has more than the {W * H} numbers of a {W}x{H} grid")
    if len(cells) != W * H:
        raise ConfigError(f"the Dominosa description has {len(cells)} numbers, a {W}x{H} grid needs {W * H}")
    return {"max_pip": n, "grid": [cells[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return "".join(str(v) if v < 10 else f"[{v}]" for row in state["grid"] for v in row)


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO: one of L/R/T/B per cell, row-major."""
    W = len(state["grid"][0])
    if len(aux) != W * len(state["grid"]) or set(aux) - set(HALVES):
        raise ConfigError("a Dominosa AUXINFO is one L/R/T/B per cell")
    return [list(aux[r * W:(r + 1) * W]) for r in range(len(state["grid"]))]
