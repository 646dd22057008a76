"""Unruly game IDs (docs/specs/grid_puzzles.md §5 "Unruly"): SKIPS, lower case white, upper case black."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_skips, encode_skips

PARAMS = ParamFormat(("W", "H"), (Field("unique", "u", kind="flag", in_id=True),
                                  Field("tatham_difficulty", "d", choices="ten")), title="Unruly")
BLACK, WHITE, EMPTY = 1, 0, -1


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    cells = [EMPTY] * (W * H)
    for i, upper in decode_skips(desc, W * H, sentinel=True).items():
        cells[i] = BLACK if upper else WHITE
    return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)], "unique": bool(params.get("unique", False))}


def encode(state: dict) -> str:
    grid = state["grid"]
    W = len(grid[0])
    placed = {}
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v not in (BLACK, WHITE, EMPTY):
                raise ConfigError(f"Unruly grid cell ({r}, {c}) holds {v!r}, not 1, 0 or -1")
            if v != EMPTY:
                placed[r * W + c] = v == BLACK
    return encode_skips(placed, len(grid) * W, sentinel=True)
