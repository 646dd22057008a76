"""Tatham's Black Box game IDs: ``w5h5m3M3:HEX`` (docs/games.md, Black Box).

The parameters are the width (``w``), height (``h``) and the fewest and most balls (``m``, ``M``).
The description is a byte string, the width, the height, then each ball's column and row (0-based,
in the generator's order), hidden by Tatham's reversible scrambling
(:mod:`kumo_gym.envs.games.obfuscate`) and written as lowercase hex. Balls are kept in that order,
so an imported ID is written back byte for byte.
"""
from __future__ import annotations

import re

from ....core.errors import ConfigError
from ..base import match_params
from ..obfuscate import hide_bytes, is_hex, reveal_bytes

_PARAMS = re.compile(r"w(\d{1,3})h(\d{1,3})m(\d{1,3})M(\d{1,3})")
#: the largest side and ball count read
MAX_SIDE, MAX_BALLS = 16, 40


def encode_params(params: dict, full: bool = True) -> str:
    return f"w{params['w']}h{params['h']}m{params['minballs']}M{params['maxballs']}"


def check_params(w: int, h: int, lo: int, hi: int, text: str) -> None:
    if not 2 <= w <= MAX_SIDE or not 2 <= h <= MAX_SIDE:
        raise ConfigError(f"Black Box parameters {text!r}: width and height must be 2..{MAX_SIDE}")
    if not 1 <= lo <= hi:
        raise ConfigError(f"Black Box parameters {text!r}: the fewest balls must be at least 1 and at most the most")
    if hi >= w * h or hi > MAX_BALLS:
        raise ConfigError(f"Black Box parameters {text!r}: at most {min(w * h - 1, MAX_BALLS)} balls fit a "
                          f"{w}x{h} box here")


def decode_params(text: str) -> dict:
    w, h, lo, hi = (int(g) for g in match_params(_PARAMS, text, "a Black Box parameter string (expected e.g. "
                                                 "'w8h8m5M5': width, height, fewest and most balls)"))
    check_params(w, h, lo, hi, text)
    return {"w": w, "h": h, "minballs": lo, "maxballs": hi}


def encode_desc(data: dict) -> str:
    raw = [data["w"], data["h"]]
    for r, c in data["balls"]:
        raw += [c, r]
    return hide_bytes(bytes(raw))


def decode_desc(params: dict, desc: str) -> dict:
    w, h, lo, hi = params["w"], params["h"], params["minballs"], params["maxballs"]
    n = (len(desc) // 2 - 2) // 2
    if len(desc) < 4 or len(desc) % 4 or not lo <= n <= hi or not is_hex(desc):
        raise ConfigError(f"a Black Box description for {lo}..{hi} balls is 4 + 4 x balls hex digits "
                          f"(8 + 4 x {lo}..{hi}), got {desc[:40]!r} ({len(desc)} characters)")
    raw = reveal_bytes(desc)
    if raw[0] != w or raw[1] != h:
        raise ConfigError(f"the Black Box description {desc!r} is for a {raw[0]}x{raw[1]} box, not {w}x{h}")
    balls = [[raw[i + 1], raw[i]] for i in range(2, len(raw), 2)]
    if any(not (0 <= r < h and 0 <= c < w) for r, c in balls):
        raise ConfigError(f"the Black Box description {desc!r} puts a ball outside the {w}x{h} box")
    if len({tuple(b) for b in balls}) != len(balls):
        raise ConfigError(f"the Black Box description {desc!r} puts two balls in one cell")
    data = dict(params)
    data["balls"] = balls
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data
