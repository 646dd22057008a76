"""Net's own deduction (Tatham's way: a tree his kind of solver pins down is the only network, no SAT
needed): the driver of ``kernel`` (orientation deduction, tree growth and repair); the rules
and the SAT encoding, the fallback certificate, are in ``net.py``."""
from __future__ import annotations

import functools

import numpy as np

from ..geometry import STEP
from .codec import rotate, tile, tile_of

TURN = "URDL"
#: a tile's connections by its mask (bit k: a pipe end towards TURN[k])
DIRS = tuple("".join(d for k, d in enumerate(TURN) if m >> k & 1) for m in range(16))
#: trees the kernel grows (the first, then repairs) before the SAT loop takes over, per tile
TRIES_PER_TILE = 4


@functools.cache
def neighbours(H: int, W: int, wrap: bool, barriers: frozenset = frozenset()) -> np.ndarray:
    """``nbr[4 * (r * W + c) + k]``: the tile that side TURN[k] of (r, c) faces, -1 off a
    non-wrapping grid or through a barrier (``(r, c, "R")`` right of (r, c), ``(r, c, "D")`` below it)."""
    nbr = np.full(4 * H * W, -1, np.int64)
    for r in range(H):
        for c in range(W):
            for k, d in enumerate(TURN):
                rr, cc = r + STEP[d][0], c + STEP[d][1]
                if wrap:
                    rr, cc = rr % H, cc % W
                elif not (0 <= rr < H and 0 <= cc < W):
                    continue
                wall = (r, c, d) if d in "RD" else (rr, cc, TURN[(k + 2) % 4])
                if wall not in barriers:
                    nbr[4 * (r * W + c) + k] = rr * W + cc
    nbr.setflags(write=False)
    return nbr


def _scratch(n: int) -> list[np.ndarray]:
    """The kernel's buffers after ``tree``: poss, edge, dead, dsf, order, parent, grown."""
    return [np.zeros(k * n, np.int64) for k in (1, 4, 4, 1, 4, 1, 1)]


def unique_tree(rng: np.random.Generator, H: int, W: int, wrap: bool) -> list[list[str]] | None:
    """A spanning tree without crosses grown from the centre and repaired until the deduction
    solves its tiles (``kernel.run``): each tile's connections, or None when that failed
    ``TRIES_PER_TILE`` trees a tile (the caller's SAT loop takes over)."""
    from . import kernel

    n = H * W
    tree = np.zeros(n, np.int64)
    if kernel.run(n, neighbours(H, W, wrap), (H // 2) * W + W // 2, TRIES_PER_TILE * n,
                       int(rng.integers(1, 2**31 - 1)), tree, *_scratch(n)) < 0:
        return None
    return [[DIRS[m] for m in tree[r * W:(r + 1) * W].tolist()] for r in range(H)]


def deduces(dirs: list[list[str]], wrap: bool, barriers: frozenset = frozenset()) -> bool | None:
    """Whether the deduction pins every tile of a puzzle with these tiles down (then it has one
    network only); None when it finds there is none."""
    from . import kernel

    H, W = len(dirs), len(dirs[0])
    tiles = np.asarray([sum(1 << TURN.index(x) for x in d) for row in dirs for d in row], np.int64)
    left = kernel.run(H * W, neighbours(H, W, wrap, barriers), -1, 1, 1, tiles, *_scratch(H * W))
    return None if left < 0 else left == 0


def scramble(rng: np.random.Generator, dirs: list[list[str]], wrap: bool) -> tuple[dict, list[list[int]]]:
    """(state, solution) of the solved tiles ``dirs``: each tile turned at random; the solution
    gives each tile's smallest orientation that shows its solved connections."""
    turns = rng.integers(4, size=(len(dirs), len(dirs[0]))).tolist()
    state = {"tiles": [[dict(_turned(d, t)) for d, t in zip(row, trow)] for row, trow in zip(dirs, turns)],
             "wrap": wrap, "barriers": []}
    return state, [list(map(_smallest, row)) for row in dirs]


@functools.cache
def _smallest(dirs: str) -> int:
    """The smallest orientation of a tile that shows connections ``dirs``."""
    return tile_of(dirs)[1]


@functools.cache
def _turned(dirs: str, quarters: int) -> dict:
    """The state's tile for connections ``dirs`` turned clockwise by ``quarters`` quarter turns (a template: copy it)."""
    return tile(rotate(dirs, 90 * quarters))
