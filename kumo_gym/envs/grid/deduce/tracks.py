"""Tracks' own deduction (Tatham's way: pieces are removed while a deduction solver still finds the
track, no SAT needed): the driver of ``_tracks_kernel``; the rules and the SAT encoding, which
certify what the deduction leaves (Tricky's minimal piece sets), are in ``tracks.py``."""
from __future__ import annotations

import numpy as np

from ..tatham.tracks import track_ends

#: random removal orders tried per track, by level (the fewest pieces kept): Tricky's better of two
#: draws of two orders keeps 4.5 pieces at 8x8 against Tatham's 4.0 to 4.3; Hard is then reduced
#: to a minimal set by SAT (``tracks.py``)
STRIP_ORDERS = {"e": 1, "t": 2, "h": 1}
#: bit of each direction letter in the kernel's masks
BIT = {"U": 1, "R": 2, "D": 4, "L": 8}


def _run(state: dict, sol: list[list[str]], given: np.ndarray, order: np.ndarray) -> int:
    from .. import _tracks_kernel

    H, W = len(state["row_counts"]), len(state["col_counts"])
    counts = np.asarray([*state["row_counts"], *state["col_counts"]], np.int64)
    masks = np.asarray([sum(BIT[x] for x in v) for row in sol for v in row], np.int64)
    for (r, c), x in track_ends(state).items():  # the two off-grid ends
        masks[r * W + c] |= BIT[x]
    side, cell, dsf = np.zeros(4 * H * W, np.int64), np.zeros(H * W, np.int64), np.zeros(H * W, np.int64)
    return _tracks_kernel.run(H, W, counts, masks, order, given, side, cell, dsf)


def solves(state: dict, sol: list[list[str]]) -> int:
    """1 when the deduction finds the track from the state's counts, ends and given pieces alone
    (then it is the only one), 0 when it gets stuck, -1 when there is none. ``sol``: a grid of
    direction strings that agrees with the given pieces (only theirs are read)."""
    W = len(state["col_counts"])
    given = np.zeros(len(state["row_counts"]) * W, np.int64)
    for key in state["given_pieces"]:
        r, c = map(int, key.split(","))
        given[r * W + c] = 1
    return _run(state, sol, given, np.zeros(0, np.int64))


def strip_pieces(rng: np.random.Generator, state: dict, sol: list[list[str]], path: list, orders: int = 1) -> dict:
    """The given pieces of ``state`` (every track cell's) less those that can go, tried in random
    order, with the deduction still finding the track: the end pieces always stay. With ``orders``
    above 1, the fewest pieces of that many random orders."""
    W = len(state["col_counts"])
    best = None
    for _ in range(orders):
        given = np.zeros(len(state["row_counts"]) * W, np.int64)
        for r, c in path:
            given[r * W + c] = 1
        order = np.asarray([r * W + c for r, c in path[1:-1]], np.int64)[rng.permutation(len(path) - 2)]
        if _run(state, sol, given, order) != 1:
            return dict(state["given_pieces"])
        if best is None or given.sum() < best.sum():
            best = given
    return {k: v for k, v in state["given_pieces"].items() if best[int(k.split(",")[0]) * W + int(k.split(",")[1])]}
