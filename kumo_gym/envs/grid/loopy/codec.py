"""Loopy game IDs (docs/grid.md "Loopy"): the size, ``t`` and the tiling's number, ``d`` and the level;
the description gives one character per face in Tatham's face order (for squares: reading order; for the
other tilings: :mod:`.tiling`), a clue digit (``A``, ``B``, ``C`` for 10-12 on dodecagons) or RUN letters for
faces without one. A tiling with a grid
description (the triangular grid's ``0``) writes it first, followed by ``_``. Tatham's Loopy writes no
AUXINFO."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid
from .tiling import tiling

#: the tiling is part of the rules (game IDs carry it); the level only of generation
PARAMS = ParamFormat(("W", "H"), (Field("tiling", "t", kind="number", in_id=True),
                                  Field("tatham_difficulty", "d", choices="enth")), title="Loopy")
#: a face without a clue in our state
NONE = -1
#: a square face has four sides, so its clue is 0..4
DIGITS = "01234"
#: clues on the other tilings: 0..9, then A = 10, B = 11, C = 12 (a dodecagon's)
CLUE_CHARS = "0123456789ABC"


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    kind = params.get("tiling", 0)
    if kind:
        return _decode_tiling(kind, W, H, desc)
    if "_" in desc:
        raise ConfigError("a square Loopy grid has no grid description: '_' follows one only on the triangular and Penrose tilings")
    cells = decode_chargrid(desc, W * H, DIGITS, empty=".")
    vals = [NONE if v == "." else int(v) for v in cells]
    return {"clues": [vals[r * W:(r + 1) * W] for r in range(H)]}


def _decode_tiling(kind: int, W: int, H: int, desc: str) -> dict:
    grid_desc, sep, rest = desc.partition("_")
    if not sep:
        grid_desc, rest = None, desc
    try:
        t = tiling(kind, W, H, grid_desc)
    except ValueError as e:
        raise ConfigError(f"Loopy t{kind} grid description: {e}") from None
    cells = decode_chargrid(rest, len(t.faces), CLUE_CHARS, empty=".")
    clues = [NONE if v == "." else CLUE_CHARS.index(v) for v in cells]
    for f, n in enumerate(clues):
        if n > len(t.faces[f]):
            raise ConfigError(f"Loopy clue {n} on face {f} exceeds its {len(t.faces[f])} sides")
    return {"tiling": kind, "size": [W, H], "grid_desc": grid_desc, "clues": clues}


def encode(state: dict) -> str:
    if state.get("tiling"):
        t = tiling(state["tiling"], *state["size"], state["grid_desc"])
        clues = state["clues"]
        bad = next((v for f, v in enumerate(clues) if type(v) is not int or not NONE <= v <= len(t.faces[f])), None)
        if bad is not None or len(clues) != len(t.faces):
            raise ConfigError(f"Loopy clue {bad!r} is not -1 (no clue) or within its face's sides (or the clue "
                              f"list has {len(clues)} entries for {len(t.faces)} faces)")
        body = encode_chargrid(["." if v == NONE else CLUE_CHARS[v] for v in clues], empty=".")
        return body if t.desc is None else f"{t.desc}_{body}"
    cells = [v for row in state["clues"] for v in row]
    bad = next((v for v in cells if type(v) is not int or not NONE <= v <= 4), None)
    if bad is not None:
        raise ConfigError(f"Loopy clue {bad!r} is not -1 (no clue) or one of 0..4")
    return encode_chargrid(["." if v == NONE else str(v) for v in cells], empty=".")
