"""Filling game IDs (docs/specs/grid_puzzles.md §5 "Filling"): a CHARGRID of the digits ``1``-``9``."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import ParamFormat, decode_chargrid, encode_chargrid

PARAMS = ParamFormat(("W", "H"), (), title="Filling")


def largest(W: int, H: int) -> int:
    """The largest digit Tatham's parser accepts: max(W, H, 3), at most 9."""
    return min(9, max(W, H, 3))


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = [0 if ch == "." else int(ch) for ch in decode_chargrid(desc, W * H, "123456789")]
    top = largest(W, H)
    for i, v in enumerate(vals):
        if v > top:
            raise ConfigError(f"Filling digit {v} at ({i // W}, {i % W}) exceeds {top}, the largest a {W}x{H} "
                              "game may hold (max(W, H, 3))")
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_chargrid([str(int(v)) if v else "." for row in state["grid"] for v in row])
