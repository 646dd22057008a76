"""Mosaic game IDs (docs/specs/grid_puzzles.md §5 "Mosaic"): a CHARGRID of the digits ``0``-``9``."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_chargrid, encode_chargrid

#: ``h0`` turns aggressive clue removal off; Tatham writes it only then (h1 is the default)
PARAMS = ParamFormat(("W", "H"), (Field("aggressive", "h", kind="bit", omit=True),), title="Mosaic")
NO_CLUE = -1


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    vals = [NO_CLUE if ch == "." else int(ch) for ch in decode_chargrid(desc, W * H, "0123456789")]
    for i, v in enumerate(vals):
        r, c = divmod(i, W)
        size = (min(r + 1, H - 1) - max(r - 1, 0) + 1) * (min(c + 1, W - 1) - max(c - 1, 0) + 1)
        if v > size:
            raise ConfigError(f"Mosaic clue {v} at ({r}, {c}) exceeds the {size} cells it counts")
    return {"grid": [vals[r * W:(r + 1) * W] for r in range(H)]}


def encode(state: dict) -> str:
    return encode_chargrid(["." if v < 0 else str(int(v)) for row in state["grid"] for v in row])
