"""Netslide boards (docs/games.md, Netslide), Tatham's way: a random spanning tree of wires grown from
the centre with no four-way tile (Net's generator, :func:`kumo_gym.solvers.trees.random_tree`),
barriers on a share of the links the tree leaves unused, then a number of random shifts of the
lines off the centre (Sixteen's scramble, Tatham's rule against the obvious waste)."""
from __future__ import annotations

import numpy as np

from ....solvers.trees import random_tree
from ..sixteen.generate import scramble_moves
from .search import OPPOSITE, D, R, lines, neighbours, play, solved


def default_moves(w: int, h: int) -> int:
    """Tatham's shuffle when none is asked for: two moves per cell off the centre lines."""
    return (w - 1) * (h - 1) * 2


def tree_tiles(w: int, h: int, wrap: bool, rng: np.random.Generator) -> list[int]:
    """The tiles of a random network joining every cell (masks in reading order)."""
    links = [(r * w + c, bit, ((r + (bit == D)) % h) * w + (c + (bit == R)) % w)
             for r in range(h) for c in range(w) for bit in (R, D)
             if wrap or (bit == R and c < w - 1) or (bit == D and r < h - 1)]
    tree = random_tree(rng, w * h, [(p, q) for p, _, q in links], (h // 2) * w + w // 2, 3)
    tiles = [0] * (w * h)
    for i in sorted(tree):
        p, bit, q = links[i]
        tiles[p] |= bit
        tiles[q] |= OPPOSITE[bit]
    return tiles


def barrier_set(w: int, h: int, wrap: bool, tiles: list[int], share: float, rng: np.random.Generator) -> list[list]:
    """Barriers on ``int(share * N)`` of the N sides the network does not use (Tatham's count),
    drawn at random; sorted ``[row, col, "R" or "D"]``."""
    free = [[r, c, s] for r in range(h) for c in range(w) for s, bit in (("R", R), ("D", D))
            if not tiles[r * w + c] & bit and (wrap or (s == "R" and c < w - 1) or (s == "D" and r < h - 1))]
    k = int(float(np.float32(share)) * len(free))
    if k == 0:
        return []
    pick = rng.choice(len(free), size=k, replace=False)
    return sorted(free[int(i)] for i in pick)


def board(w: int, h: int, wrap: bool, share: float, k: int | None,
          rng: np.random.Generator) -> tuple[list, list, list]:
    """``(tiles, barriers, shuffle)``: a network shuffled by the moves ``shuffle`` (``k`` of them,
    Tatham's count when None) that leaves some tile unjoined."""
    solved_tiles = tree_tiles(w, h, wrap, rng)
    bars = barrier_set(w, h, wrap, solved_tiles, share, rng)
    nbr = neighbours(w, h, wrap, frozenset(map(tuple, bars)))
    rows, cols = lines(w, h)
    centre = (h // 2) * w + w // 2
    while True:
        moves = scramble_moves(w, h, k or default_moves(w, h), rng, rows, cols)
        tiles = play(tuple(solved_tiles), w, h, moves)
        if not solved(tiles, nbr, centre):
            return list(tiles), bars, [list(m) for m in moves]
