"""Range's own deduction and generator driver (``kernel``: Tatham's reasoning below
recursion, with connectivity by cut vertices); the rules and encoding are in ``range.py``."""
from __future__ import annotations

import numpy as np

from ..geometry import flat_neighbours, still_connected

BLACK, WHITE = -1, 0


def _kernel():
    from . import kernel

    return kernel


def deduce_grid(numbers: list[list[int]], probe: bool = False) -> np.ndarray | None:
    """Range's deduction from the numbers (``kernel``), with failed-literal probing on top
    when ``probe`` (each open cell tried black and white; a colour that leads to a contradiction
    is ruled out). Cells 1 white, -1 black, 0 undecided, as an H x W array; None when the
    numbers contradict the rules. Every step is sound: no 0 left means the only solution."""
    k = _kernel()
    H, W = len(numbers), len(numbers[0])
    clue = np.asarray(numbers, np.int64).ravel()
    nbr, *_, st, work = k.scratch(H, W)
    if k.run(H, W, nbr, 0, k.NONE, st, clue, clue, st, work) < 0:
        return None
    while probe and (st == 0).any():
        for i in np.flatnonzero(st == 0).tolist():
            for colour in (-1, 1):
                trial = st.copy()
                trial[i] = colour
                if k.run(H, W, nbr, 0, k.NONE, trial, clue, clue, trial, work) < 0:
                    st[i] = -colour
                    break
            if st[i]:
                break
        else:
            break  # no probe learnt anything
        if k.run(H, W, nbr, 0, k.NONE, st, clue, clue, st, work) < 0:
            return None
    return st.reshape(H, W)


def grade(numbers: list[list[int]]) -> int:
    """docs/specs/grid_puzzles.md §8 grade by Range's deduction: 0 it solves the puzzle, 1 it does with probing, 2
    search."""
    for level in (0, 1):
        st = deduce_grid(numbers, probe=bool(level))
        if st is not None and (st != 0).all():
            return level
    return 2


def draw(rng: np.random.Generator, H: int, W: int) -> tuple[dict, list[list]]:
    """Tatham's generator by the kernel: a third of the cells, in a random order, each made black
    unless that puts two blacks side by side or splits the whites (about a fifth end up black);
    every white cell numbered but those facing a black cell under a half turn (redrawn when the
    deduction cannot solve that); numbers removed in half-turn pairs in a random order while the
    deduction still solves the puzzle (which proves it unique)."""
    k = _kernel()
    n = H * W
    nbr, black, full, clue, st, work = k.scratch(H, W)
    near = flat_neighbours(H, W)
    for _attempt in range(500):
        scatter, order = rng.permutation(n), rng.permutation(n)
        dark = [False] * n
        for i in scatter[:n // 3].tolist():
            if not any(dark[j] for j in near[i]):
                dark[i] = True
                dark[i] = still_connected(dark, near, i)
        if not any(dark):
            continue
        black[:] = dark
        if k.run(H, W, nbr, 1, order, black, full, clue, st, work):
            sol = np.where(black > 0, BLACK, WHITE).reshape(H, W).tolist()
            return {"grid": clue.reshape(H, W).tolist()}, sol
    raise RuntimeError(f"could not generate a unique {W}x{H} Range puzzle")
