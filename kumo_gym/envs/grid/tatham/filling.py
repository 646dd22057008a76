"""Filling game IDs (grid_puzzles.md §5 "Filling"): a CHARGRID of the digits ``1``-``9``."""
from __future__ import annotations

from .grammar import ParamFormat, decode_chargrid, encode_chargrid

PARAMS = ParamFormat(("W", "H"), (), title="Filling")


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = [0 if ch == "." else int(ch) for ch in decode_chargrid(desc, W * H, "123456789")]
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_chargrid([str(int(v)) if v else "." for row in state["grid"] for v in row])
