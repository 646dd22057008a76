"""Filling's geometry: the lazy cuts that keep each block exactly as big as its label."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..geometry import neighbours4


def sized_block_cuts(label_lits: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "every maximal 4-connected block of cells with the same label k
    has exactly k cells" (Filling), where ``label_lits[r, c, k - 1]`` is the literal "cell (r, c)
    has label k" (exactly one true per cell).

    For each block B of label k in a model that is the wrong size:

    * too big: a connected part S of B with k + 1 cells cannot all have label k (they would lie in
      one block of more than k cells): ``not all of S is k``;
    * too small: if all of B has label k, its block has k > |B| cells, so it reaches past B through
      a cell of its border N: ``not all of B is k, or some cell of N is k``.

    Both follow from the rule alone (never from clues), so the layout's solver may keep them.
    """
    H, W, K = label_lits.shape
    n = H * W
    near = [[a * W + b for a, b in neighbours4(i // W, i % W, H, W)] for i in range(n)]
    flat = label_lits.reshape(n, K)

    def cuts(value: np.ndarray) -> list[list[int]]:
        on = value[np.abs(flat)] * np.sign(flat) > 0
        label = np.where(on.any(axis=1), on.argmax(axis=1) + 1, 0).tolist()
        seen = [False] * n
        out = []
        for start in range(n):  # one flood fill over the grid, block by block in row-major order
            if seen[start]:
                continue
            k, block = label[start], [start]
            seen[start] = True
            for i in block:
                for j in near[i]:
                    if not seen[j] and label[j] == k:
                        seen[j] = True
                        block.append(j)
            if k == 0 or len(block) == k:
                continue
            col = flat[:, k - 1]
            if len(block) > k:  # the first k + 1 cells of the breadth-first fill are connected
                out.append([-int(col[i]) for i in sorted(block[:k + 1])])
            else:
                inside = set(block)
                border = sorted({j for i in block for j in near[i] if j not in inside})
                out.append([-int(col[i]) for i in sorted(block)] + [int(col[j]) for j in border])
        return out

    return cuts
