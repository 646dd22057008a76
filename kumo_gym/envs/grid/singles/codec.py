"""Singles game IDs (docs/specs/grid_puzzles.md §5 "Singles"): one B62 character per cell, row-major."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, b62_decode, b62_encode

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="ek"),), title="Singles")


def decode(params: dict, desc: str) -> dict:
    """W*H base-62 numbers, each 1..max(W, H) (Tatham's own limit)."""
    W, H = params["W"], params["H"]
    if len(desc) != W * H:
        raise ConfigError(f"a {W}x{H} Singles description has {W * H} characters, got {len(desc)}")
    top = max(W, H)
    vals = [b62_decode(ch) for ch in desc]
    for i, v in enumerate(vals):
        if not 1 <= v <= top:
            raise ConfigError(f"Singles number {v} at ({i // W}, {i % W}) is outside 1..{top}")
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return "".join(b62_encode(int(v)) for row in state["grid"] for v in row)
