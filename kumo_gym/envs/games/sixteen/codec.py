"""Tatham's Sixteen game IDs: ``WxH[mK]:T1,T2,...`` (docs/games.md, Sixteen).

The description lists the tiles 1..W*H in reading order; the goal is them in order. ``mK`` (kept in
the short parameters too) records that the board was scrambled by K moves.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import parse_size
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
    return ",".join(str(t) for t in data["tiles"])


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    n = w * h
    parts = desc.split(",", n)
    if len(parts) != n or not all(p.isdigit() and len(p) <= 3 for p in parts):
        raise ConfigError(f"a {w}x{h} Sixteen description is {n} comma-separated numbers, got {desc[:60]!r}")
    tiles = [int(p) for p in parts]
    if sorted(tiles) != list(range(1, n + 1)) or any(p != str(t) for p, t in zip(parts, tiles, strict=True)):
        raise ConfigError(f"a {w}x{h} Sixteen description holds 1..{n} once each without leading zeros, "
                          f"got {desc[:60]!r}")
    if not solvable(tiles, w, h):
        raise ConfigError(f"Sixteen board {desc[:60]!r} cannot be solved (an odd permutation on an odd-by-odd grid)")
    data = {"w": w, "h": h, "movetarget": params.get("movetarget"), "tiles": tiles}
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data
