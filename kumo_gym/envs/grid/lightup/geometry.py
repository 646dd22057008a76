"""Light Up's geometry: the runs of white cells in rows and columns, and symmetry orbits."""
from __future__ import annotations

import numpy as np

from ..geometry import Cell


def line_runs(mask: np.ndarray) -> list[list[Cell]]:
    """The maximal runs of True cells along every row, then every column (single cells
    included): Light Up's white stretches, Range's lines of sight."""
    H, W = mask.shape
    out = []
    for line in [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]:
        run: list = []
        for cell in line + [None]:
            if cell is not None and mask[cell]:
                run.append(cell)
            elif run:
                out.append(run)
                run = []
    return out


def symmetry_orbit(r: int, c: int, H: int, W: int, symm: int) -> set[Cell]:
    """The cells Tatham's symmetry code maps (r, c) to: 0 none, 1 left-right mirror, 2 half
    turn, 3 both mirrors, 4 quarter turn (square grids)."""
    cells = {(r, c)}
    if symm in (1, 3):
        cells.add((r, W - 1 - c))
    if symm in (2, 3, 4):
        cells.add((H - 1 - r, W - 1 - c))
    if symm == 3:
        cells.add((H - 1 - r, c))
    if symm == 4:
        cells |= {(c, W - 1 - r), (W - 1 - c, r)}
    return cells
