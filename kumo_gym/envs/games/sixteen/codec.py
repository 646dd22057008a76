"""Tatham's Sixteen game IDs: ``WxH[mK]:T1,T2,...`` (docs/games.md, Sixteen).

The description lists the tiles 1..W*H in reading order; the goal is them in order. ``mK`` (kept in
the short parameters too) records that the board was scrambled by K moves.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import parse_size
from ..tiles import decode_tiles, encode_tiles
from .search import solvable

MAX_SIDE = 5


def encode_params(params: dict, full: bool = True) -> str:
    k = params.get("movetarget")
    return f"{params['w']}x{params['h']}" + (f"m{k}" if k else "")


def decode_params(text: str) -> dict:
    w, h, rest = parse_size(text, "Sixteen")
    k = None
    if rest:
        if not (rest[0] == "m" and rest[1:].isdigit() and len(rest) <= 4):
            raise ConfigError(f"Sixteen parameter string {text[:40]!r}: after the size only 'm<moves>' may follow")
        k = int(rest[1:]) or None
    if not (2 <= w <= MAX_SIDE and 2 <= h <= MAX_SIDE):
        raise ConfigError(f"Sixteen size {w}x{h} is not in 2..{MAX_SIDE} x 2..{MAX_SIDE}")
    return {"w": w, "h": h, "movetarget": k}


def encode_desc(data: dict) -> str:
    return encode_tiles(data["tiles"])


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    n = w * h
    tiles = decode_tiles(desc, w, h, "Sixteen", 1, f"1..{n} once each without leading zeros,")
    if not solvable(tiles, w, h):
        raise ConfigError(f"Sixteen board {desc[:60]!r} cannot be solved (an odd permutation on an odd-by-odd grid)")
    data = {"w": w, "h": h, "movetarget": params.get("movetarget"), "tiles": tiles}
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data
