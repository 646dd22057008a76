"""Tatham's Fifteen game IDs: ``WxH:T1,T2,...`` (docs/games.md, Fifteen).

The description lists the W*H cells in reading order, each a decimal number; ``0`` is the gap and
the goal is 1, 2, ..., W*H - 1 with the gap last. The parameter string is the size only.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import plain_size
from ..tiles import decode_tiles, encode_tiles
from .search import solvable

MAX_SIDE = 4


def encode_params(params: dict, full: bool = True) -> str:
    return f"{params['w']}x{params['h']}"


def decode_params(text: str) -> dict:
    w, h = plain_size(text, "Fifteen", 2, MAX_SIDE)
    return {"w": w, "h": h}


def encode_desc(data: dict) -> str:
    return encode_tiles(data["tiles"])


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    n = w * h
    tiles = decode_tiles(desc, w, h, "Fifteen", 0,
                         f"0..{n - 1} once each (0 is the gap), written without leading zeros;")
    if not solvable(tiles, w, h):
        raise ConfigError(f"Fifteen board {desc[:60]!r} cannot reach the goal (wrong permutation parity)")
    data = {"w": w, "h": h, "tiles": tiles}
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data
