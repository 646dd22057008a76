"""Magnets' geometry: the slot pairs of a layout and the cells across a slot."""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np


def slot_pairs(slots: list[list[str]]) -> tuple[tuple, tuple, Mapping]:
    """Of a tiling (``L``/``R``, ``T``/``B`` halves, ``*`` single cells): (the two-cell slots as
    (first, second) cells, the single cells, each cell's other half). Kept for the last few
    tilings (Magnets asks for them four times per drawn puzzle), so read-only."""
    try:
        key = tuple(map(tuple, slots))
        hit = _SLOT_PAIRS.get(key)
    except TypeError:  # an unhashable cell: not kept
        key = hit = None
    if hit is None:
        pairs = tuple(((r, c), (r, c + 1) if v == "L" else (r + 1, c)) for r, row in enumerate(slots)
                      for c, v in enumerate(row) if v in "LT")
        singles = tuple((r, c) for r, row in enumerate(slots) for c, v in enumerate(row) if v == "*")
        hit = pairs, singles, MappingProxyType({a: b for a, b in pairs} | {b: a for a, b in pairs})
        if key is not None:
            if len(_SLOT_PAIRS) >= 256:
                _SLOT_PAIRS.clear()
            _SLOT_PAIRS[key] = hit
    return hit


_SLOT_PAIRS: dict[tuple, tuple] = {}


def across(H: int, W: int, mate: dict) -> list:
    """The pairs of orthogonally adjacent cells that lie in different slots."""
    return [((r, c), (a, b)) for r, c in np.ndindex(H, W) for a, b in ((r, c + 1), (r + 1, c))
            if a < H and b < W and mate.get((r, c)) != (a, b)]
