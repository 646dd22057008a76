"""Tatham's Netslide game IDs: ``WxH[w][bP][mK]:DESC`` (docs/games.md, Netslide).

``w``: the grid wraps; ``bP``: the barrier probability (generation only, so only in the full
parameters, written like C's ``%g`` of a float); ``mK``: the board was shuffled by K moves (in the
short parameters too). The description gives one hex digit per tile in reading order (bit 1 a wire
to the right, 2 up, 4 left, 8 down), each followed by ``v`` when a barrier stands on its right and
``h`` when one stands below it.
"""
from __future__ import annotations

import re

import numpy as np

from ....core.errors import ConfigError
from .search import ends

MAX_SIDE = 9
PARAMS = re.compile(r"(\d{1,3})(?:x(\d{1,3})(w?)(?:b(\d{0,9}(?:\.\d{0,9})?))?(?:m(\d{1,4}))?)?")
TILE = re.compile(r"([0-9a-f])(v?)(h?)")


def probability_text(p: float) -> str:
    """C's ``%g`` of the float Tatham keeps (6 significant digits, no trailing zeros)."""
    return f"{float(np.float32(p)):g}"


def encode_params(params: dict, full: bool = True) -> str:
    out = f"{params['w']}x{params['h']}" + ("w" if params.get("wrap") else "")
    if full and params.get("barrier"):
        out += "b" + probability_text(params["barrier"])
    k = params.get("movetarget")
    return out + (f"m{k}" if k else "")


def decode_params(text: str) -> dict:
    m = PARAMS.fullmatch(text) if isinstance(text, str) else None
    if m is None or (m.group(4) is not None and m.group(4) in ("", ".")):
        raise ConfigError(f"{str(text)[:40]!r} is not a Netslide parameter string (expected e.g. '3x3', '4x4w', "
                          "'5x5b1m20')")
    w = int(m.group(1))
    h = w if m.group(2) is None else int(m.group(2))
    barrier = float(m.group(4)) if m.group(4) else 0.0
    if not (2 <= w <= MAX_SIDE and 2 <= h <= MAX_SIDE):
        raise ConfigError(f"Netslide size {w}x{h} is not in 2..{MAX_SIDE} x 2..{MAX_SIDE}")
    if not 0.0 <= barrier <= 1.0:
        raise ConfigError(f"a Netslide barrier probability is in 0..1, got {barrier}")
    return {"w": w, "h": h, "wrap": bool(m.group(3)), "barrier": barrier, "movetarget": int(m.group(5) or 0) or None}


def encode_desc(data: dict) -> str:
    w = data["w"]
    bars = {tuple(b) for b in data["barriers"]}
    out = []
    for p, t in enumerate(data["tiles"]):
        r, c = divmod(p, w)
        out.append(f"{t:x}" + "v" * ((r, c, "R") in bars) + "h" * ((r, c, "D") in bars))
    return "".join(out)


def decode_desc(params: dict, desc: str) -> dict:
    w, h, wrap = params["w"], params["h"], bool(params.get("wrap"))
    n = w * h
    if not isinstance(desc, str) or len(desc) > 3 * n:
        raise ConfigError(f"a {w}x{h} Netslide description is at most {3 * n} characters")
    tiles, barriers, pos = [], [], 0
    for m in TILE.finditer(desc):
        if m.start() != pos:
            break
        pos = m.end()
        r, c = divmod(len(tiles), w)
        tiles.append(int(m.group(1), 16))
        for mark, side, inside in ((m.group(2), "R", wrap or c < w - 1), (m.group(3), "D", wrap or r < h - 1)):
            if mark and not inside:
                raise ConfigError(f"a Netslide barrier on the outer edge of a non-wrapping grid (tile {len(tiles)}) "
                                  "is not written in a description")
            if mark:
                barriers.append([r, c, side])
    if pos != len(desc) or len(tiles) != n:
        raise ConfigError(f"a {w}x{h} Netslide description is {n} lower-case hex digits, each followed by an optional "
                          f"'v' then 'h' (barriers); got {desc[:60]!r}")
    if 0 in tiles or sum(map(ends, tiles)) != 2 * (n - 1):
        raise ConfigError(f"the tiles of Netslide description {desc[:60]!r} cannot join into one network: every "
                          f"tile needs a wire end and a network of {n} tiles has {2 * (n - 1)} ends in all")
    data = {"w": w, "h": h, "wrap": wrap, "movetarget": params.get("movetarget"), "tiles": tiles,
            "barriers": sorted(barriers)}
    data["game_id"] = f"{encode_params(data, full=False)}:{encode_desc(data)}"
    return data
