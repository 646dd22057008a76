"""Light Up's generator machinery: the per-size tables and Python driver of the level-0 numba kernel
(``kernel``, Tatham's generator) and the engine's number reduction for levels 1 and 2; the
rules and encoding are in ``lightup.py``, which takes its cell symbols from here."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.engine import random_phases, reduce_clues
from ..geometry import neighbours4
from .geometry import symmetry_orbit

LIGHT, DARK, BLOCK = "L", ".", "#"
#: the docs/specs/grid_puzzles.md §8 grade a number removal must keep, per level (level 2 reduces to a minimal set)
GRADE_TARGET = {0: 0, 1: 1, 2: None}


@functools.cache
def kernel_tables(H: int, W: int, symmetry: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """What kernel reads: each cell's images under the symmetry and its neighbours (4 per
    cell, -1: none), and Tatham's black-cell count basis: the cells of one symmetric part (the
    centre of a quarter turn apart, black one time in (percent + 1) / 100) and that centre."""
    orbit = np.full((H * W, 4), -1, np.int64)
    nbr = np.full((H * W, 4), -1, np.int64)
    for r in range(H):
        for c in range(W):
            images = sorted(a * W + b for a, b in symmetry_orbit(r, c, H, W, symmetry))
            orbit[r * W + c, :len(images)] = images
            around = [a * W + b for a, b in neighbours4(r, c, H, W)]
            nbr[r * W + c, :len(around)] = around
    part = {0: W * H, 1: (W - W // 2) * H, 2: W * (H - H // 2), 3: (W - W // 2) * (H - H // 2),
            4: (W // 2) * (H - H // 2)}[symmetry]
    centre = (H // 2) * W + W // 2 if symmetry == 4 and H % 2 else -1
    return orbit.ravel(), nbr.ravel(), part, centre


def with_numbers(state: dict, grid: list[list]) -> list[list]:
    """An answer grid with each black cell written as the state shows it (# or its number)."""
    return [[v if s == DARK else BLOCK if s == BLOCK else int(s) for s, v in zip(*rows)] for rows in zip(state["grid"], grid)]


def easy_level(rng: np.random.Generator, params: dict, percent: int):
    """Level 0 as Tatham's generator: 20 layouts at ``percent`` black by the kernel, (state,
    solution) of the first that every number pins down by propagation, or None; numbers are
    removed while propagation still solves it, with no floor (Tatham's clue density follows)."""
    from . import kernel

    W, H = params["W"], params["H"]
    orbit, nbr, part, centre = kernel_tables(H, W, params["symmetry"])
    draws = np.argsort(rng.random((20, 3, H * W)), axis=2).reshape(20, 3 * H * W)
    draws = np.concatenate([draws, (rng.integers(0, 100, (20, 1)) <= percent)], axis=1).ravel()
    black, light, number, active, *scratch = kernel.scratch(H, W)
    if kernel.run(H, W, centre, part * percent // 100, draws, orbit, nbr, black, light, number, active,
                           *scratch) < 0:
        return None
    grid = np.where(black > 0, np.where(active > 0, number.astype(str), BLOCK), DARK).astype(object)
    state = {"grid": grid.reshape(H, W).tolist()}
    lights = np.where(light > 0, LIGHT, DARK).astype(object).reshape(H, W).tolist()
    return state, with_numbers(state, lights)


def reduce_numbers(rng: np.random.Generator, encode, params: dict, blocks: set, keep: int):
    """Levels 1 and 2 on the layout ``blocks`` (a set of black cells) by the engine: random lights from a SAT model,
    numbers reduced while probing solves it (1) or to a minimal unique set (2); None when
    even every number does not pin the lights down."""
    W, H = params["W"], params["H"]
    enc = encode({"grid": [[BLOCK if (r, c) in blocks else DARK for c in range(W)] for r in range(H)]})
    value = enc.engine.sample([], random_phases(rng, enc.answer))
    lights = enc.decode(value)
    numbers = {b: sum(lights[a][c] == LIGHT for a, c in neighbours4(*b, H, W)) for b in sorted(blocks)}
    full = encode({"grid": [[str(numbers[r, c]) if (r, c) in blocks else DARK for c in range(W)]
                                 for r in range(H)]})
    keys, target, every = sorted(full.clues), GRADE_TARGET[params["tatham_difficulty"]], full.assumptions()
    if not (full.engine.grade(every) <= target if target is not None else full.engine.unique(every, value)):
        return None  # not pinned down even with every number: new layout
    kept = reduce_clues(full.engine, [list(full.clues[k][1]) for k in keys], rng, value, grade_limit=target,
                        keep=keep)
    on = {k for k, keep in zip(keys, kept) if keep}
    state = {"grid": [[(str(numbers[r, c]) if (r, c) in on else BLOCK) if (r, c) in blocks else DARK
                       for c in range(W)] for r in range(H)]}
    return state, with_numbers(state, lights)
