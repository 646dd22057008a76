"""Light Up game IDs (docs/specs/grid_puzzles.md §5 "Lightup"): a CHARGRID of ``B`` and ``0``-``4``."""
from __future__ import annotations

from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid

#: ``b`` black percentage, ``s`` symmetry, ``d`` level, in this strict order (docs/specs/grid_puzzles.md §3)
PARAMS = ParamFormat(("W", "H"), (Field("black_percent", "b", kind="number"), Field("symmetry", "s", kind="number"),
                                  Field("tatham_difficulty", "d", kind="number")), title="Light Up")
DARK, BLOCK = ".", "#"


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    cells = [BLOCK if ch == "B" else ch for ch in decode_chargrid(desc, W * H, "B01234", empty=DARK)]
    return {"grid": [cells[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_chargrid(["B" if v == BLOCK else str(v) for row in state["grid"] for v in row], empty=DARK)
