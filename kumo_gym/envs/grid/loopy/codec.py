"""Loopy game IDs (docs/grid.md "Loopy"): the size, ``t`` and the tiling's number, ``d`` and the level;
the description gives one character per face in Tatham's face order (for squares: reading order), a
clue digit or RUN letters for faces without one. Tatham's Loopy writes no AUXINFO."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid

#: the tiling is part of the rules (game IDs carry it); the level only of generation
PARAMS = ParamFormat(("W", "H"), (Field("tiling", "t", kind="number", in_id=True),
                                  Field("tatham_difficulty", "d", choices="enth")), title="Loopy")
#: a face without a clue in our state
NONE = -1
#: a square face has four sides, so its clue is 0..4
DIGITS = "01234"


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    if "_" in desc:
        raise ConfigError("a square Loopy grid has no grid description: '_' is only written for Penrose tilings")
    cells = decode_chargrid(desc, W * H, DIGITS, empty=".")
    vals = [NONE if v == "." else int(v) for v in cells]
    return {"clues": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    cells = [v for row in state["clues"] for v in row]
    bad = next((v for v in cells if type(v) is not int or not NONE <= v <= 4), None)
    if bad is not None:
        raise ConfigError(f"Loopy clue {bad!r} is not -1 (no clue) or one of 0..4")
    return encode_chargrid(["." if v == NONE else str(v) for v in cells], empty=".")
