"""Pearl's geometry: random loops, a loop's cells in order from its edges, and the straight/turn
test of three cells (the loop variables and cuts of the SAT encoding, which Loopy shares, are in the
shared ``geometry.py``)."""
from __future__ import annotations

import numpy as np

from ..geometry import Cell, stretch


def loop_edges(loop: list[Cell]) -> set:
    """The edges (sorted cell pairs) of a closed loop given as its cells in order."""
    return {tuple(sorted((loop[i - 1], loop[i]))) for i in range(len(loop))}


def random_loop(rng: np.random.Generator, H: int, W: int, length: float) -> list[Cell]:
    """A random closed loop of cells (in loop order): a random 2x2 square stretched by random
    detours until it has ``length`` cells (:func:`stretch`; Pearl)."""
    r, c = int(rng.integers(H - 1)), int(rng.integers(W - 1))
    return stretch(rng, H, W, [(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)], length, closed=True)


def straight(a: Cell, b: Cell, c: Cell) -> bool:
    """Whether the steps a -> b -> c go the same way."""
    return (b[0] - a[0], b[1] - a[1]) == (c[0] - b[0], c[1] - b[1])


def cycle(edges) -> list[Cell]:
    """The cells of one closed loop, given as its edges (every cell on two), in the order the
    loop visits them from its first cell in reading order (the direction is immaterial to the
    callers: a loop's edges and pearls read the same either way)."""
    adj: dict = {}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    start = min(adj)
    out, prev, cur = [start], start, adj[start][0]
    while cur != start:
        out.append(cur)
        a, b = adj[cur]
        prev, cur = cur, (b if a == prev else a)
    return out
