"""Rectangles game IDs (docs/specs/grid_puzzles.md §5 "Rect"): a NUMGRID of the area numbers.

Tatham's full parameter form may add ``e<f>`` (expansion) and ``a`` (allow ambiguous puzzles);
both are generation-only, so game IDs carry the size alone. ``a`` is accepted (our puzzles are
unique either way); ``e`` divides a smaller grid and stretches it by inserting rows and columns. Save files carry
AUXINFO as a move string, which we do not need (the solution is found by SAT).
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_numgrid, encode_numgrid

PARAMS = ParamFormat(("W", "H"), (Field("expansion", "e", kind="decimal", omit=0.0),
                                  Field("ambiguous", "a", kind="flag")), title="Rect")


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = decode_numgrid(desc, W * H, max_value=W * H)
    if sum(vals) != W * H:
        raise ConfigError(f"the Rect numbers add up to {sum(vals)}, but a {W}x{H} grid has {W * H} cells")
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_numgrid([int(v) for row in state["grid"] for v in row])
