"""Tracks' own deduction (Tatham's way: pieces are removed while a deduction solver still finds the
track, no SAT needed): the driver of ``kernel``; the rules and the SAT encoding, which
certify what the deduction leaves (Tricky's minimal piece sets), are in ``tracks.py``."""
from __future__ import annotations

import itertools

import numpy as np

from ..net.deduce import neighbours
from .codec import track_ends

#: random removal orders tried per track, by level (the fewest pieces kept): Tricky's better of two
#: draws of three orders keeps 4.2 pieces at 8x8 (two orders: 4.4, for the same time, the third
#: order often cut short by :data:`FEW`) against 3.8 for Tatham's (200 puzzles a side); Hard is
#: then reduced to a minimal set by SAT (``tracks.py``)
STRIP_ORDERS = {"e": 1, "t": 3, "h": 1}
#: few enough pieces to stop trying more orders or draws, as a share of the track's cells (8x8:
#: four; the mean then rises from 4.45 to 4.5 pieces for a fifth less work)
FEW = 0.12
#: bit of each direction letter in the kernel's masks, and each mask's direction string
BIT = {"U": 1, "R": 2, "D": 4, "L": 8}
DIRS = tuple("".join(d for d in "URDL" if m & BIT[d]) for m in range(16))
#: the bits of a step (dr, dc) from a cell and back into it
STEP_BITS = {(-1, 0): (1, 4), (0, 1): (2, 8), (1, 0): (4, 1), (0, -1): (8, 2)}


def path_masks(H: int, W: int, path: list) -> tuple[np.ndarray, list[list[str]]]:
    """The kernel's masks of a track through the cells of ``path`` (entering from the left,
    leaving through the bottom), and the same as a grid of direction strings (the solution)."""
    masks = [0] * (H * W)
    for (r, c), (rr, cc) in itertools.pairwise(path):
        out, back = STEP_BITS[rr - r, cc - c]
        masks[r * W + c] |= out
        masks[rr * W + cc] |= back
    masks[path[0][0] * W + path[0][1]] |= 8
    masks[path[-1][0] * W + path[-1][1]] |= 4
    return np.asarray(masks, np.int64), [[DIRS[m] for m in masks[r * W:(r + 1) * W]] for r in range(H)]


def _run(state: dict, masks: np.ndarray, given: np.ndarray, order: np.ndarray) -> int:
    from . import kernel

    H, W = len(state["row_counts"]), len(state["col_counts"])
    counts = np.asarray([*state["row_counts"], *state["col_counts"]], np.int64)
    side, cell, dsf = np.zeros(4 * H * W, np.int64), np.zeros(H * W, np.int64), np.zeros(H * W, np.int64)
    return kernel.run(H, W, neighbours(H, W, False), counts, masks, order, given, side, cell, dsf)


def solves(state: dict, sol: list[list[str]]) -> int:
    """1 when the deduction finds the track from the state's counts, ends and given pieces alone
    (then it is the only one), 0 when it gets stuck, -1 when there is none. ``sol``: a grid of
    direction strings that agrees with the given pieces (only theirs are read)."""
    W = len(state["col_counts"])
    given = np.zeros(len(state["row_counts"]) * W, np.int64)
    for key in state["given_pieces"]:
        r, c = map(int, key.split(","))
        given[r * W + c] = 1
    masks = np.asarray([sum(BIT[x] for x in v) for row in sol for v in row], np.int64)
    for (r, c), x in track_ends(state).items():  # the two off-grid ends
        masks[r * W + c] |= BIT[x]
    return _run(state, masks, given, np.zeros(0, np.int64))


def strip_pieces(rng: np.random.Generator, state: dict, masks: np.ndarray, path: list, orders: int = 1,
                 keep: int = 0) -> dict:
    """The given pieces of ``state`` (every track cell's) less those that can go, tried in random
    order, with the deduction still finding the track (``masks``: :func:`path_masks`): the end
    pieces always stay. With ``orders`` above 1, the fewest pieces of that many random orders, or
    of those up to the first with :data:`FEW` pieces; then removed ones come back at random up to
    ``keep`` pieces (more pieces never stop the deduction)."""
    W = len(state["col_counts"])
    cells = np.asarray([r * W + c for r, c in path], np.int64)
    best = None
    for _ in range(orders):
        given = np.zeros(len(masks), np.int64)
        given[cells] = 1
        if _run(state, masks, given, cells[1:-1][rng.permutation(len(path) - 2)]) != 1:
            return dict(state["given_pieces"])
        if best is None or given.sum() < best.sum():
            best = given
        if best.sum() <= FEW * len(path):
            break
    if best.sum() < keep:
        gone = cells[best[cells] == 0]
        best[rng.permutation(gone)[:keep - best.sum()]] = 1
    at = {f"{r},{c}": r * W + c for r, c in path}
    return {k: v for k, v in state["given_pieces"].items() if best[at[k]]}


def few(state: dict) -> bool:
    """Whether a puzzle shows few enough pieces (:data:`FEW`) that another draw is not worth it."""
    return len(state["given_pieces"]) <= FEW * sum(state["row_counts"])
