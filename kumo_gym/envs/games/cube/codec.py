"""Tatham's Cube game IDs: ``c4x4:HEX,N`` (docs/games.md, Cube).

The parameters are the solid's letter (``t`` tetrahedron, ``c`` cube, ``o`` octahedron, ``i``
icosahedron) and the grid's two dimensions (``W`` x ``H`` squares for the cube; the two side
lengths of the hexagon of triangles otherwise); Tatham writes them the same way in full and in
game IDs, ``c4x4``, and reads a missing letter as the cube and a single number as both sides. The
description is a hex bitmap of the blue cells, four cells per digit in Tatham's cell order
(:mod:`.geometry`), the first cell in the digit's highest bit, then a comma and the number of the
cell the solid starts on.
"""
from __future__ import annotations

import re

from ....core.errors import ConfigError
from . import geometry as geo

#: the largest side we take (a hexagon of side 8 has 384 triangles; Tatham's default is 4x4)
MAX_SIDE = 8
#: the solids this package plays (all four of Tatham's)
SUPPORTED = ("cube", "tetrahedron", "octahedron", "icosahedron")
_PARAMS = re.compile(r"([tcoi]?)(\d{1,3})(?:x(\d{1,3}))?")
_DESC = re.compile(r"([0-9A-Fa-f]*),(\d{1,6})")
HEX = "0123456789ABCDEF"


def encode_params(params: dict, full: bool = True) -> str:
    return f"{geo.LETTERS[geo.SOLIDS.index(params.get('solid', 'cube'))]}{params['w']}x{params['h']}"


def check_size(solid: str, w: int, h: int) -> None:
    """Tatham's checks of a grid (and our size limit); ConfigError naming what is wrong."""
    if solid not in SUPPORTED:
        raise ConfigError(f"the Cube solid {solid!r} is not one of {', '.join(SUPPORTED)}")
    if not (0 <= w <= MAX_SIDE and 0 <= h <= MAX_SIDE):
        raise ConfigError(f"Cube grid sides are at most {MAX_SIDE}, got {w}x{h}")
    if solid == "cube" and (w <= 1 or h <= 1):
        raise ConfigError(f"both sides of the cube's grid must be greater than one, got {w}x{h}")
    if w <= 0 and h <= 0:
        raise ConfigError(f"at least one side of the {solid}'s grid must be greater than zero, got {w}x{h}")
    nf = geo.FACES[solid]
    cls = geo.classes(solid, w, h)
    k = max(cls) + 1 if solid != "tetrahedron" else 4
    if any(cls.count(i) < nf // k for i in range(k)):
        raise ConfigError(f"a {w}x{h} grid has no room for the {solid}'s {nf} blue faces")
    if len(cls) < nf + 1:
        raise ConfigError(f"a {w}x{h} grid has no room for the {solid} to start on a plain cell")


def decode_params(text: str) -> dict:
    m = _PARAMS.fullmatch(text)
    if m is None:
        raise ConfigError(f"{text[:40]!r} is not a Cube parameter string (expected e.g. 'c4x4', 't1x2', 'o2x2', 'i3x3')")
    letter, a, b = m.groups()
    solid = geo.SOLIDS[geo.LETTERS.index(letter or "c")]
    w = int(a)
    h = int(b) if b is not None else w
    check_size(solid, w, h)
    return {"solid": solid, "w": w, "h": h}


def encode_bitmap(blue: str) -> str:
    """The hex digits of a string of ``0``/``1`` cells."""
    out = []
    for i in range(0, len(blue), 4):
        v = 0
        for j, ch in enumerate(blue[i:i + 4]):
            if ch == "1":
                v |= 8 >> j
        out.append(HEX[v])
    return "".join(out)


def encode_desc(data: dict) -> str:
    return data.get("desc") or f"{encode_bitmap(data['blue'])},{data['start']}"


def decode_desc(params: dict, desc: str) -> dict:
    solid, w, h = params["solid"], params["w"], params["h"]
    n = geo.area(solid, w, h)
    digits = (n + 3) // 4
    m = _DESC.fullmatch(desc)
    if m is None or len(m.group(1)) != digits:
        raise ConfigError(f"a {solid} {w}x{h} Cube description is {digits} hex digits (the blue cells), a comma and "
                          f"the number of the starting cell, got {desc[:60]!r}")
    hexpart, start_text = m.groups()
    blue = "".join("1" if int(hexpart[i // 4], 16) & (8 >> (i % 4)) else "0" for i in range(n))
    start = int(start_text)
    if start >= n:
        raise ConfigError(f"the Cube starting cell {start} is not one of the grid's cells 0..{n - 1}")
    nf = geo.FACES[solid]
    if blue.count("1") < nf:
        raise ConfigError(f"the {solid} has {nf} faces to turn blue but the grid holds {blue.count('1')} blue cells")
    data = {"solid": solid, "w": w, "h": h, "blue": blue, "start": start}
    canonical = encode_desc(data)
    if desc != canonical:
        data["desc"] = desc  # Tatham's parser also takes lower-case digits, spare bits and leading zeros
    data["game_id"] = f"{encode_params(data)}:{desc}"
    return data
