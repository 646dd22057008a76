"""Tatham's Untangle game IDs: ``6:0-1,0-2,1-2,...`` (docs/games.md, Untangle).

The parameters are the number of points ``n`` (at least 4). The description lists the edges as
``a-b`` pairs of point numbers (0-based), separated by commas; Tatham's generator writes each pair
with ``a < b`` and sorts the list, and an ID is kept exactly as written, so it is written back byte
for byte. Tatham's ID holds no coordinates: the game starts with the points on a circle in number
order (:func:`~.generate.circle`), scaled here to our integer grid of side ``2n``.

A save file's AUXINFO holds Tatham's solution, scrambled (:mod:`kumo_gym.envs.games.obfuscate`):
``S;P0:x,y/d;P1:...``, each point at ``(x/d, y/d)``; his points sit at the centres of the cells
of his ``isqrt(3n)``-wide grid, so ``(x/d - 1/2, y/d - 1/2)`` are integers there, stretched over
ours as our generator's placements are (:func:`aux_solution`).
"""
from __future__ import annotations

import re

from ....core.errors import ConfigError
from ..obfuscate import is_hex, reveal_bytes
from .generate import circle, grid_side, spread, tatham_side

#: the most points read (Tatham sets no limit; his presets go to 25; the move catalogue of the
#: structured view has n x (2n)^2 moves, 256,000 at 40)
MIN_POINTS, MAX_POINTS = 4, 40
_PARAMS = re.compile(r"\d{1,3}")
_EDGE = re.compile(r"(\d{1,3})-(\d{1,3})")
_EDGES = re.compile(r"\d{1,3}-\d{1,3}(?:,\d{1,3}-\d{1,3})*")
_AUX_POINT = re.compile(r"P(\d{1,3}):(-?\d{1,9}),(-?\d{1,9})/(\d{1,9})")


def encode_params(params: dict, full: bool = True) -> str:
    return str(params["n"])


def decode_params(text: str) -> dict:
    if not isinstance(text, str) or _PARAMS.fullmatch(text) is None:
        raise ConfigError(f"{str(text)[:40]!r} is not an Untangle parameter string (expected the number of points, "
                          f"e.g. '10')")
    n = int(text)
    if not MIN_POINTS <= n <= MAX_POINTS:
        raise ConfigError(f"Untangle needs {MIN_POINTS}..{MAX_POINTS} points, got {n}")
    return {"n": n}


def encode_desc(data: dict) -> str:
    return ",".join(f"{a}-{b}" for a, b in data["edges"])


def decode_desc(params: dict, desc: str) -> dict:
    """The instance data of an edge list (ConfigError naming the first bad edge)."""
    n = params["n"]
    if not isinstance(desc, str) or not desc:
        raise ConfigError("an Untangle description lists at least one edge as 'a-b' pairs, e.g. '0-1,0-2,1-2'")
    if len(desc) > 16 * n * n:
        raise ConfigError(f"an Untangle description for {n} points is at most {16 * n * n} characters")
    edges = _well_formed(desc, n)
    if edges is None:
        edges = _edges_or_error(desc, n)
    data = {"n": n, "size": grid_side(n), "edges": edges, "start": [list(p) for p in circle(n)]}
    data["game_id"] = f"{encode_params(data)}:{encode_desc(data)}"
    return data


def _well_formed(desc: str, n: int) -> list[list[int]] | None:
    """The edges of a description that breaks no rule of :func:`_edges_or_error`, read at once
    (None when one is broken: that function then names it)."""
    if _EDGES.fullmatch(desc) is None:
        return None
    nums = [int(v) for v in re.split("[-,]", desc)]
    edges = [[a, b] for a, b in zip(nums[::2], nums[1::2])]
    if max(nums) >= n or any(a == b for a, b in edges) or len({(min(a, b), max(a, b)) for a, b in edges}) < len(edges):
        return None
    return edges


def _edges_or_error(desc: str, n: int) -> list[list[int]]:
    """The edges of a description, read one by one (ConfigError naming the first bad one)."""
    edges, seen = [], set()
    for item in desc.split(","):
        m = _EDGE.fullmatch(item)
        if m is None:
            raise ConfigError(f"Untangle edge {item[:20]!r} is not 'a-b' with point numbers a and b")
        a, b = int(m.group(1)), int(m.group(2))
        if not (0 <= a < n and 0 <= b < n):
            raise ConfigError(f"Untangle edge {item!r} names a point outside 0..{n - 1}")
        if a == b:
            raise ConfigError(f"Untangle edge {item!r} joins a point to itself")
        if (min(a, b), max(a, b)) in seen:
            raise ConfigError(f"Untangle edge {item!r} is listed twice")
        seen.add((min(a, b), max(a, b)))
        edges.append([a, b])
    return edges


def aux_solution(n: int, auxinfo: str) -> list[list[int]]:
    """Tatham's solution placement from a save file's AUXINFO (scrambled hex), moved onto our grid."""
    if not isinstance(auxinfo, str) or len(auxinfo) % 2 or not is_hex(auxinfo) or len(auxinfo) > 200 * n:
        raise ConfigError("Untangle AUXINFO is an even number of hex digits")
    text = reveal_bytes(auxinfo).decode("ascii", "replace")
    parts = text.split(";")
    if parts[0] != "S" or len(parts) != n + 1:
        raise ConfigError(f"Untangle AUXINFO {text[:40]!r} is not 'S;P0:x,y/d;...' for {n} points")
    out = []
    for i, part in enumerate(parts[1:]):
        m = _AUX_POINT.fullmatch(part)
        if m is None or int(m.group(1)) != i or int(m.group(4)) == 0:
            raise ConfigError(f"Untangle AUXINFO entry {part[:30]!r} is not 'P{i}:x,y/d'")
        x, y, d = int(m.group(2)), int(m.group(3)), int(m.group(4))
        if (2 * x - d) % (2 * d) or (2 * y - d) % (2 * d):
            raise ConfigError(f"Untangle AUXINFO point {part!r} is not at a cell centre of Tatham's grid")
        out.append([(2 * x - d) // (2 * d), (2 * y - d) // (2 * d)])
    w = tatham_side(n)
    if any(not (0 <= v < w) for p in out for v in p):
        raise ConfigError(f"Untangle AUXINFO places a point outside Tatham's {w}x{w} grid")
    return spread(n, out)
