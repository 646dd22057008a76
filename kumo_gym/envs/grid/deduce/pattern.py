"""Pattern's line-by-line deduction for its generator: the Python driver of the numba kernel in
``_pattern_kernel`` (issue 21)."""
from __future__ import annotations

import numpy as np


class LineSolver:
    """Line-by-line deduction on H x W pictures, its scratch arrays allocated once."""

    def __init__(self, H: int, W: int):
        from .. import _pattern_kernel

        self.H, self.W, self._kernel = H, W, _pattern_kernel
        self.scratch = _pattern_kernel.scratch(H, W)

    def clues_if_solved(self, pic: np.ndarray) -> list[list[int]] | None:
        """The clues of every row, then every column, when line-by-line deduction solves ``pic``
        from them, which proves it the only solution (no SAT search; see _pattern_kernel); else None."""
        H, W, scratch = self.H, self.W, self.scratch
        if not self._kernel.solves(H, W, pic.ravel(), *scratch):
            return None
        clue, nk = scratch[0].tolist(), scratch[1].tolist()  # the kernel's runs of every line
        return [clue[i][:nk[i]] for i in range(H + W)]
