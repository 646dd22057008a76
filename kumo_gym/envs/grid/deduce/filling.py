"""Filling's block-size cuts stated up front, so the generator's SAT certificates need fewer cut
rounds (issues 14, 21)."""
from __future__ import annotations

import numpy as np

from ....solvers.sat import Formula
from ..geometry import neighbours4

#: block-size cuts are stated up front for every connected shape of up to this many cells (larger
#: shapes add more clauses than they save cut rounds)
SHAPE_CUTS = 4


def shape_cuts(f: Formula, x: np.ndarray, H: int, W: int) -> None:
    """Add to ``f`` (``x[r, c, d - 1]``: cell (r, c) holds digit d) the commonest block-size cuts.

    Stated up front, they save about half the cut rounds (issue 14): for every
    connected shape of 2 to SHAPE_CUTS cells, all of it holding a k larger than the shape
    means a k next to it, and all of it holding size - 1 never happens."""
    shapes = {frozenset([(r, c)]) for r in range(H) for c in range(W)}
    for size in range(2, SHAPE_CUTS + 1):
        shapes = {s | {n} for s in shapes for p in s for n in neighbours4(*p, H, W) if n not in s}
        for shape in sorted(sorted(s) for s in shapes):
            rim = sorted({n for p in shape for n in neighbours4(*p, H, W)} - set(shape))
            for k in range(size, 9):
                f.add([-int(x[p][k]) for p in shape] + [int(x[n][k]) for n in rim], rule="R2")
            if size > 2:  # two 1s side by side: stated in the rules
                f.add([-int(x[p][size - 2]) for p in shape], rule="R2")
