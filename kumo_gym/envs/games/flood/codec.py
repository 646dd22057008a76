"""Tatham's Flood game IDs: ``WxH:DIGITS,LIMIT`` (docs/games.md, Flood).

The full parameter string is ``WxHcNmL``: width W, height H, N colours (3..10; 6 when left out)
and the leniency L (``m``: extra moves allowed beyond Tatham's player; 5 when left out). Tatham
writes only ``WxH`` in game IDs, and his program then plays with its current number of colours (6
in a fresh program), so an ID implies max(6, highest colour + 1) colours; we write ``cN`` after the
size only when the board's colour count differs from that (Tatham's program reads and ignores it).
The description is the W*H cells in reading order, one digit each (colour 0..N-1), a comma and the
move limit in decimal.
"""
from __future__ import annotations

import re

from ....core.errors import ConfigError

MAX_SIDE = 30
MIN_COLOURS, MAX_COLOURS, DEFAULT_COLOURS = 3, 10, 6
DEFAULT_LENIENCY = 5
MAX_LENIENCY = 99
MAX_LIMIT = 9999
_PARAMS = re.compile(r"(\d{1,3})(?:x(\d{1,3}))?((?:[cm]\d{1,3})*)")
_KNOB = re.compile(r"([cm])(\d{1,3})")
_LIMIT = re.compile(r"0|[1-9]\d{0,3}")


def implied_colours(grid) -> int:
    """The number of colours a Tatham ID without ``c`` gives a board (his fresh program's 6, or more
    when the board holds a higher colour)."""
    return max(DEFAULT_COLOURS, max(grid) + 1)


def encode_params(params: dict, full: bool = True) -> str:
    text = f"{params['w']}x{params['h']}"
    if full:
        lenient = params.get("leniency")
        return text + f"c{params['colours']}m{DEFAULT_LENIENCY if lenient is None else lenient}"
    grid = params.get("grid")
    if grid is not None and params["colours"] != implied_colours(grid):
        text += f"c{params['colours']}"
    return text


def decode_params(text: str) -> dict:
    m = _PARAMS.fullmatch(text)
    if m is None:
        raise ConfigError(f"{text[:40]!r} is not a Flood parameter string (expected e.g. '12x12' or '12x12c6m5')")
    w = int(m.group(1))
    h = int(m.group(2)) if m.group(2) else w
    knobs = {k: int(v) for k, v in _KNOB.findall(m.group(3))}
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE) or w * h < 2:
        raise ConfigError(f"Flood size {w}x{h} is not in 1..{MAX_SIDE} x 1..{MAX_SIDE} with at least 2 cells")
    colours = knobs.get("c")
    if colours is not None and not MIN_COLOURS <= colours <= MAX_COLOURS:
        raise ConfigError(f"Flood colours {colours} is not in {MIN_COLOURS}..{MAX_COLOURS}")
    leniency = knobs.get("m")
    if leniency is not None and leniency > MAX_LENIENCY:
        raise ConfigError(f"Flood leniency m{leniency} is not in 0..{MAX_LENIENCY}")
    return {"w": w, "h": h, "colours": colours, "leniency": leniency}


def encode_desc(data: dict) -> str:
    return "".join(str(c) for c in data["grid"]) + f",{data['limit']}"


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    cells, sep, limit = desc.partition(",")
    if not sep or len(cells) != w * h or not cells.isdigit() or not cells.isascii():
        raise ConfigError(f"a {w}x{h} Flood description is {w * h} colour digits, a comma and the move limit, "
                          f"got {desc[:60]!r}")
    if _LIMIT.fullmatch(limit) is None:
        raise ConfigError(f"Flood move limit {limit[:20]!r} is not a number 0..{MAX_LIMIT} without leading zeros")
    grid = [int(ch) for ch in cells]
    colours = params.get("colours") or implied_colours(grid)
    if max(grid) >= colours:
        raise ConfigError(f"Flood colour {max(grid)} is out of range for {colours} colours (0..{colours - 1})")
    if len(set(grid)) == 1:
        raise ConfigError("a Flood board of one colour is already flooded")
    data = {"w": w, "h": h, "colours": colours, "limit": int(limit), "grid": grid}
    data["game_id"] = f"{encode_params(data, full=False)}:{encode_desc(data)}"
    return data
