"""Tatham's Pegs game IDs: ``WxH:DESC`` (docs/games.md, Pegs).

DESC has W*H letters in reading order: ``P`` a hole with a peg, ``H`` an empty hole, ``O`` a cell
that is not part of the board. The full parameter string adds the board type (``7x7cross``,
``7x7octagon``, ``5x5random``); the short one in game IDs leaves it out, and the type is read back
from the layout (Tatham's cross and octagon are 7x7 layouts with fixed shapes).
"""
from __future__ import annotations

from ....core.errors import ConfigError
from ..base import parse_size

MIN_SIDE, MAX_SIDE = 4, 9
TYPES = ("cross", "octagon", "random")
#: the empty holes Tatham starts the octagon board with, in his three classes: a corner piece, a
#: piece two from the centre, a piece one from the centre (the other holes leave a board that a
#: three-colouring parity argument proves cannot be won)
OCTAGON_CLASSES = (((0, 2), (0, 4), (6, 2), (6, 4), (2, 0), (4, 0), (2, 6), (4, 6)),
                   ((1, 3), (5, 3), (3, 1), (3, 5)),
                   ((2, 3), (4, 3), (3, 2), (3, 4)))
OCTAGON_STARTS = tuple(cell for group in OCTAGON_CLASSES for cell in group)


def shape(kind: str, r: int, c: int) -> bool:
    """Whether cell (r, c) of the 7x7 ``cross`` or ``octagon`` layout is a hole."""
    dr, dc = abs(r - 3), abs(c - 3)
    return not (dr > 1 and dc > 1) if kind == "cross" else dr + dc <= 4


def layout(kind: str, hole: tuple[int, int] = (3, 3)) -> str:
    """The 7x7 description of a ``cross`` or ``octagon`` board full of pegs but the empty ``hole``."""
    return "".join("O" if not shape(kind, r, c) else "H" if (r, c) == hole else "P"
                   for r in range(7) for c in range(7))


def board_type(w: int, h: int, desc: str) -> str:
    """``cross`` or ``octagon`` when the description is one of Tatham's layouts of that type, else ``random``."""
    if (w, h) == (7, 7):
        if desc == layout("cross"):
            return "cross"
        if any(desc == layout("octagon", cell) for cell in OCTAGON_STARTS):
            return "octagon"
    return "random"


def encode_params(params: dict, full: bool = True) -> str:
    text = f"{params['w']}x{params['h']}"
    return text + params.get("type", "random") if full else text


def decode_params(text: str) -> dict:
    w, h, rest = parse_size(text, "Pegs")
    if rest and rest not in TYPES:
        raise ConfigError(f"Pegs parameter string {text[:40]!r}: after the size comes a board type "
                          f"{'/'.join(TYPES)} or nothing, not {rest[:12]!r}")
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise ConfigError(f"Pegs size {w}x{h} is not in {MIN_SIDE}..{MAX_SIDE} x {MIN_SIDE}..{MAX_SIDE}")
    if rest in ("cross", "octagon") and (w, h) != (7, 7):
        raise ConfigError(f"the Pegs {rest} board is 7x7 only, got {w}x{h}")
    return {"w": w, "h": h, **({"type": rest} if rest else {})}


def encode_desc(data: dict) -> str:
    return data["board"]


def decode_desc(params: dict, desc: str) -> dict:
    w, h = params["w"], params["h"]
    if len(desc) != w * h or desc.strip("PHO"):
        raise ConfigError(f"a {w}x{h} Pegs description is {w * h} letters P (peg), H (hole) or O (off the board), "
                          f"got {desc[:60]!r}")
    if desc.count("P") < 2:
        raise ConfigError(f"a Pegs board needs at least two pegs, got {desc.count('P')} in {desc[:60]!r}")
    kind = board_type(w, h, desc)
    if params.get("type") not in (None, kind):
        raise ConfigError(f"the Pegs parameters say {params['type']} but the board is {kind}")
    data = {"w": w, "h": h, "type": kind, "board": desc}
    data["game_id"] = f"{encode_params(data, full=False)}:{desc}"
    return data
