"""Galaxies game IDs (docs/specs/grid_puzzles.md §5 "Galaxies"): skip codes over the (2W-1) x (2H-1)
half-cell positions, ``a``..``y`` skip 0..24 positions and place a dot (upper case: a black dot,
a display mark only), ``z`` skips 25. Position p is (r2, c2) = divmod(p, 2W - 1)."""
from __future__ import annotations

from ....core.errors import ConfigError
from ..tatham.grammar import Field, ParamFormat, decode_skips, encode_skips

PARAMS = ParamFormat(("W", "H"), (Field("tatham_difficulty", "d", choices="nu"),), title="Galaxies")


def decode(params: dict, desc: str) -> dict:
    W, H = params["W"], params["H"]
    width, area = 2 * W - 1, (2 * W - 1) * (2 * H - 1)
    if len(desc) > area:
        raise ConfigError(f"the Galaxies description is longer than a {W}x{H} grid allows")
    placed = decode_skips(desc, area, sentinel=False)
    if not placed:
        raise ConfigError("a Galaxies description needs at least one dot")
    state = {"W": W, "H": H, "dots": [list(divmod(p, width)) for p in sorted(placed)]}
    black = [i for i, p in enumerate(sorted(placed)) if placed[p]]
    if black:
        state["black"] = black
    return state


def encode(state: dict) -> str:
    width = 2 * state["W"] - 1
    black = set(state.get("black", ()))
    return encode_skips({r2 * width + c2: i in black for i, (r2, c2) in enumerate(state["dots"])},
                        width * (2 * state["H"] - 1), sentinel=False)
