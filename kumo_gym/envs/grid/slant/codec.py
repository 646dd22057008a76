"""Slant game IDs (docs/specs/grid_puzzles.md §5 "Slant"): a CHARGRID of the digits ``0``-``4`` over
the (W+1) x (H+1) grid points, row by row; AUXINFO is one ``/`` or ``\\`` per cell."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="eh"),), title="Slant")
NO_CLUE = -1
SLASH, BACK = "/", "\\"


def point_limit(r: int, c: int, H: int, W: int) -> int:
    """How many cells touch the grid point (r, c) of an H x W grid of cells (1 at a corner, 2 on a side, 4 inside)."""
    return (1 + (0 < r < H)) * (1 + (0 < c < W))


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = [NO_CLUE if ch == "." else int(ch) for ch in decode_chargrid(desc, (W + 1) * (H + 1), "01234")]
    for i, v in enumerate(vals):
        r, c = divmod(i, W + 1)
        if v > point_limit(r, c, H, W):
            raise ConfigError(f"Slant clue {v} at point ({r}, {c}) exceeds the {point_limit(r, c, H, W)} cells "
                              "touching it")
    return {"clues": [vals[r * (W + 1):(r + 1) * (W + 1)] for r in range(H + 1)]}


def encode(state: dict) -> str:
    return encode_chargrid(["." if v < 0 else str(int(v)) for row in state["clues"] for v in row])


def aux_solution(state: dict, aux: str) -> list[list]:
    """AUXINFO: one ``\\`` or ``/`` per cell, row by row, as the answer grid."""
    H, W = len(state["clues"]) - 1, len(state["clues"][0]) - 1
    if len(aux) != H * W or set(aux) - {SLASH, BACK}:
        raise ConfigError(f"a {W}x{H} Slant AUXINFO needs {H * W} characters '/' or '\\\\', got {aux[:40]!r}")
    return [list(aux[r * W:(r + 1) * W]) for r in range(H)]
