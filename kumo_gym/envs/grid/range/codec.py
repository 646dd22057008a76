"""Range game IDs (docs/specs/grid_puzzles.md §5 "Range"): a NUMGRID of the clue numbers (at most W+H-1)."""
from __future__ import annotations

from ..tatham.grammar import ParamFormat, decode_numgrid, encode_numgrid

PARAMS = ParamFormat(("W", "H"), (), title="Range")


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = decode_numgrid(desc, W * H, max_value=W + H - 1)
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_numgrid([int(v) for row in state["grid"] for v in row])
