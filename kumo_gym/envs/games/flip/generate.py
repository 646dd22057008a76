"""Flip boards (docs/games.md, Flip): the toggle shapes and a starting pattern.

Crosses are classic Lights Out. Random shapes grow, for every cell, a connected patch inside its
3x3 neighbourhood (the cell itself first), adding squares one at a time until the matrix holds as
many toggles as the crosses matrix of the board would; boards where two cells toggle the same set
are drawn again. The start is Tatham's draw (every cell pressed with probability 1/2 from the
solved board, so every reachable pattern is equally likely; never the solved board) or, with
``presses=k``, k distinct random cells pressed, which caps the optimum at k.
"""
from __future__ import annotations

import numpy as np

from .codec import crosses


def random_shapes(w: int, h: int, rng: np.random.Generator) -> list[list[int]]:
    wh = w * h
    limit = 4 * wh - 2 * (w + h)  # the number of neighbour toggles in the crosses matrix
    while True:
        sets = [{i} for i in range(wh)]
        for _ in range(limit):
            frontier = []
            for i in range(wh):
                r, c = divmod(i, w)
                for j in sets[i]:
                    jr, jc = divmod(j, w)
                    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        nr, nc = jr + dr, jc + dc
                        if 0 <= nr < h and 0 <= nc < w and abs(nr - r) <= 1 and abs(nc - c) <= 1 \
                                and nr * w + nc not in sets[i]:
                            frontier.append((i, nr * w + nc))
            if not frontier:
                break
            i, j = frontier[int(rng.integers(len(frontier)))]
            sets[i].add(j)
        rows = [sorted(s) for s in sets]
        if len({tuple(r) for r in rows}) == wh:
            return rows


def toggles_for(w: int, h: int, shape: str, rng: np.random.Generator) -> list[list[int]]:
    return crosses(w, h) if shape == "crosses" else random_shapes(w, h, rng)


def start_lights(toggles: list[list[int]], presses: int | None, rng: np.random.Generator) -> list[int]:
    wh = len(toggles)
    while True:
        if presses is None:
            chosen = [i for i in range(wh) if rng.integers(0, 2)]
        else:
            chosen = rng.choice(wh, size=min(presses, wh), replace=False).tolist()
        lit = 0
        for i in chosen:
            for j in toggles[i]:
                lit ^= 1 << j
        if lit:
            return [j for j in range(wh) if lit >> j & 1]
