"""Tatham's Samegame game IDs: ``WxHcNsS:C1,C2,...`` (docs/games.md, Samegame).

The parameters are the width W, the height H, the number of colours N (``c``, 3 when left out) and
the scoring threshold S (``s``: a removal of n cells scores (n - S)^2 in Tatham's game; 2 when left
out); the full string ends in ``r`` when the board was drawn at random rather than built to be
soluble. Tatham writes the short string (without ``r``) in game IDs, always with ``c`` and ``s``.
The description lists the W*H cells in reading order, comma-separated, each a colour 1..N or 0 for
an empty cell. We accept only settled boards (no cell above an empty one, no empty column left of
a filled one), which is every board a game reaches.
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import parse_size
from .search import is_settled

MAX_SIDE = 30
MAX_COLOURS = 9


def encode_params(params: dict, full: bool = True) -> str:
    text = f"{params['w']}x{params['h']}c{params['colours']}s{params['scoresub']}"
    return text + ("r" if full and params.get("soluble") is False else "")


def _number(rest: str, key: str, default: int) -> tuple[int, str]:
    if not rest.startswith(key):
        return default, rest
    i = 1
    while i < len(rest) and rest[i].isdigit():
        i += 1
    if i == 1 or i > 3:
        raise ConfigError(f"Samegame parameter {key!r} needs a number, got {rest[:10]!r}")
    return int(rest[1:i]), rest[i:]


def decode_params(text: str) -> dict:
    w, h, rest = parse_size(text, "Samegame")
    colours, rest = _number(rest, "c", 3)
    scoresub, rest = _number(rest, "s", 2)
    soluble = True
    if rest == "r":
        soluble, rest = False, ""
    if rest:
        raise ConfigError(f"Samegame parameter string {text[:40]!r}: after the size come 'c<colours>', "
                          f"'s<1 or 2>' and 'r', not {rest[:10]!r}")
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE) or w * h < 2:
        raise ConfigError(f"Samegame size {w}x{h} is not in 1..{MAX_SIDE} x 1..{MAX_SIDE} with at least 2 cells")
    if not 2 <= colours <= MAX_COLOURS:
        raise ConfigError(f"Samegame colours {colours} is not in 2..{MAX_COLOURS}")
    if scoresub not in (1, 2):
        raise ConfigError(f"Samegame scoring threshold s{scoresub} is not 1 or 2")
    return {"w": w, "h": h, "colours": colours, "scoresub": scoresub, "soluble": soluble}


def encode_desc(data: dict) -> str:
    return ",".join(str(c) for c in data["grid"])


def decode_desc(params: dict, desc: str) -> dict:
    w, h, n = params["w"], params["h"], params["colours"]
    parts = desc.split(",", w * h)
    if len(parts) != w * h or not all(p.isdigit() and len(p) <= 2 for p in parts):
        raise ConfigError(f"a {w}x{h} Samegame description is {w * h} comma-separated colours, got {desc[:60]!r}")
    grid = [int(p) for p in parts]
    bad = next((p for p, c in zip(parts, grid, strict=True) if c > n or p != str(c)), None)
    if bad is not None:
        raise ConfigError(f"Samegame cell {bad!r} is not a colour 0..{n} written without leading zeros")
    if not any(grid):
        raise ConfigError("a Samegame board with no coloured cell is already cleared")
    if not is_settled(grid, w, h):
        raise ConfigError(f"Samegame board {desc[:60]!r} has a cell above an empty one or an empty column left of "
                          "a filled one")
    data = {"w": w, "h": h, "colours": n, "scoresub": params["scoresub"], "grid": grid}
    data["game_id"] = f"{encode_params(data, full=False)}:{encode_desc(data)}"
    return data
