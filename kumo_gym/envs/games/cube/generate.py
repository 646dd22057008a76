"""Cube boards (docs/games.md, Cube), drawn as Tatham draws them.

The cells are split into the solid's classes (:func:`.geometry.classes`: one per face of the
tetrahedron, up- and down-pointing triangles for the octahedron, one class otherwise) and each
class gets ``faces / classes`` blue cells drawn uniformly without replacement, so the blue cells
are exactly as many as the faces and every face can reach one; the solid starts on a plain cell
drawn uniformly.
"""
from __future__ import annotations

import numpy as np

from . import geometry as geo


def random_board(solid: str, w: int, h: int, rng: np.random.Generator) -> tuple[str, int]:
    """``(blue, start)``: the blue cells as a string of ``0``/``1`` in cell order, and the start cell."""
    cls = geo.classes(solid, w, h)
    k = 4 if solid == "tetrahedron" else max(cls) + 1
    per = geo.FACES[solid] // k
    blue = [False] * len(cls)
    for c in range(k):
        cells = [i for i, x in enumerate(cls) if x == c]
        for j in rng.choice(len(cells), size=per, replace=False):
            blue[cells[int(j)]] = True
    plain = [i for i, b in enumerate(blue) if not b]
    start = plain[int(rng.integers(len(plain)))]
    return "".join("1" if b else "0" for b in blue), start
