"""Pattern's line-by-line deduction for its generator: the Python driver of the numba kernel in
``kernel``."""
from __future__ import annotations

import functools

import numpy as np

from .codec import BLACK, WHITE


class LineSolver:
    """Line-by-line deduction on H x W pictures, its scratch arrays allocated once."""

    def __init__(self, H: int, W: int):
        from . import kernel

        self.H, self.W, self._kernel = H, W, kernel
        self.scratch = kernel.scratch(H, W)

    def clues_if_solved(self, pic: np.ndarray) -> list[list[int]] | None:
        """The clues of every row, then every column, when line-by-line deduction solves ``pic``
        from them, which proves it the only solution (no SAT search; see kernel); else None."""
        H, W, scratch = self.H, self.W, self.scratch
        if not self._kernel.solves(H, W, pic.ravel(), *scratch):
            return None
        clue, nk = scratch[0].tolist(), scratch[1].tolist()  # the kernel's runs of every line
        return [clue[i][:nk[i]] for i in range(H + W)]


@functools.lru_cache(maxsize=16)
def _window_sizes(H: int, W: int) -> np.ndarray:
    """How many cells each 3x3 window of an H x W grid holds: 9 inside, 6 on an edge, 4 in a corner."""
    rows, cols = np.full(H, 3.0), np.full(W, 3.0)
    rows[[0, -1]] = cols[[0, -1]] = 2.0
    out = np.outer(rows, cols)
    out.flags.writeable = False
    return out


def picture(rng: np.random.Generator, H: int, W: int) -> np.ndarray:
    """Random noise smoothed by 3x3 neighbourhood averaging, thresholded at the median, as
    Tatham's generator does, so the picture has blobs rather than salt and pepper (an int8
    array of BLACK / WHITE)."""
    a = rng.random((H, W))
    if min(H, W) <= 3:
        return np.where(a < 0.5, BLACK, WHITE).astype(np.int8)
    pad = np.zeros((H + 2, W + 2))
    pad[1:-1, 1:-1] = a
    total = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            total = total + pad[1 + dr:1 + dr + H, 1 + dc:1 + dc + W]
    a = total / _window_sizes(H, W)
    # the median as np.median takes it (the middle value, or the mean of the middle two)
    flat, k = a.ravel(), H * W // 2
    if H * W % 2:
        med = np.partition(flat, k)[k]
    else:
        part = np.partition(flat, (k - 1, k))
        med = (part[k - 1] + part[k]) / 2
    return np.where(a > med, BLACK, WHITE).astype(np.int8)
