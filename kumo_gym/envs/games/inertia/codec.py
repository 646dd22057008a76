"""Tatham's Inertia game IDs: ``WxH:DESC`` (docs/games.md, Inertia).

DESC has W*H letters in reading order: ``b`` blank, ``g`` gem, ``m`` mine, ``s`` stop, ``w`` wall and
exactly one ``S``, the start (a stop square the ball stands on). The parameter string is the size
only, short and full alike; at least one gem is required, as Tatham's parser requires.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import plain_size

MIN_SIDE, MAX_SIDE = 2, 30
LETTERS = "bgmswS"


def encode_params(params: dict, full: bool = True) -> str:
    return f"{params['w']}x{params['h']}"


def decode_params(text: str) -> dict:
    w, h = plain_size(text, "Inertia", MIN_SIDE, MAX_SIDE)
    if w * h < 6:
        raise ConfigError(f"an Inertia grid has at least six squares, got {w}x{h}")
    return {"w": w, "h": h}


def encode_desc(data: dict) -> str:
    return data["grid"]


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    if len(desc) != w * h or desc.strip(LETTERS):
        raise ConfigError(f"a {w}x{h} Inertia description is {w * h} letters b (blank), g (gem), m (mine), "
                          f"s (stop), w (wall) and one S (start), got {desc[:60]!r}")
    if desc.count("S") != 1:
        raise ConfigError(f"an Inertia description has exactly one start S, got {desc.count('S')}")
    if "g" not in desc:
        raise ConfigError("an Inertia description has at least one gem g")
    data = {"w": w, "h": h, "grid": desc}
    data["game_id"] = f"{encode_params(data)}:{desc}"
    return data
