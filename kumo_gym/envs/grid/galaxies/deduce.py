"""Galaxies' own deduction (no formula, and over the layout's formula with reachability) and the
draw loop that uses it to certify generated layouts; the rules and encoding are in ``galaxies.py``."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.engine import Encoding
from .geometry import dot_cells, flood

#: dots seeded before the regions grow (``geometry.random_symmetric_partition``): a * cells + b,
#: tuned so that our dot counts are Tatham's (docs/specs/grid_puzzles.md §8 calibration)
SEEDS = (0.082, -1.5)
#: how often a seeded dot goes on a cell centre, an edge or a corner
SHAPES = {(0, 0): 1.0, (0, 1): 1.5, (1, 0): 1.5, (1, 1): 4.0}
#: level 'n' draws so many partitions for one that :func:`deduce_encoding` solves before it takes
#: any unique one
DEDUCED_TRIES = 100
#: unique partitions drawn on grids of at most so many cells, keeping the one with the fewest dots
#: (3x3: 3.05 dots on average, Tatham's 2.96 over 200 of his)
PICK = {9: 12, 25: 2}


def deduce_regions(H: int, W: int, dots) -> np.ndarray | None:
    """Galaxies' deduction without a formula (what :func:`deduce_encoding` computes without
    probing, on arrays): ``open[r, c, k]`` (cell in dot k's region is still possible) and
    ``known[r, c, k]``, from the cells each dot touches, to a fixpoint of

    * R1: a cell known in one region is in no other; a cell with one region left is in it;
    * R4: a cell is in k's region exactly when its mirror image about dot k is (and never when
      that image lies off the grid);
    * R2: a cell that no path of cells still open to k joins to dot k's cells is not in k's region.

    These are unit propagation of the rules' clauses plus the reachability step, so the result is
    the same; every step follows from the rules. The dot index of every cell when that decides
    them all, -1 where some stay open; None when the dots contradict the rules.
    """
    K = len(dots)
    r = np.arange(H)[:, None, None]
    c = np.arange(W)[None, :, None]
    r2 = np.asarray([d[0] for d in dots])[None, None, :]
    c2 = np.asarray([d[1] for d in dots])[None, None, :]
    mr, mc = r2 - r, c2 - c
    open_ = (mr >= 0) & (mr < H) & (mc >= 0) & (mc < W)
    valid = open_.ravel()
    kk = np.broadcast_to(np.arange(K)[None, None, :], (H, W, K))
    mirror = ((np.clip(mr, 0, H - 1) * W + np.clip(mc, 0, W - 1)) * K + kk).ravel()
    known = np.zeros((H, W, K), bool)
    for k, dot in enumerate(dots):
        for cell in dot_cells(dot):
            known[cell][k] = True
    count = np.count_nonzero
    while True:
        before = (count(open_), count(known))
        if (known & ~open_).any() or (known.sum(axis=2) > 1).any():
            return None
        open_ &= known | ~known.any(axis=2, keepdims=True)
        flat_open, flat_known = open_.ravel(), known.ravel()
        open_ = (flat_open & flat_open[mirror]).reshape(H, W, K)
        known = (flat_known | (flat_known[mirror] & valid)).reshape(H, W, K)
        left = open_.sum(axis=2, keepdims=True)
        if (left == 0).any():
            return None
        known |= open_ & (left == 1)
        open_ &= flood(known & open_, open_)  # every region at once, from the cells known to be in it
        if (count(open_), count(known)) == before:
            break
    decided = known.any(axis=2)
    return np.where(decided, known.argmax(axis=2), -1)


@functools.lru_cache(maxsize=4096)
def deduced(H: int, W: int, dots: tuple) -> bool:
    """Whether :func:`deduce_regions` decides every cell (small grids draw the same dots often)."""
    labels = deduce_regions(H, W, dots)
    return labels is not None and bool((labels >= 0).all())


def deduce_encoding(enc: Encoding, probe: bool = False) -> np.ndarray | None:
    """Galaxies' own deduction (Tatham's way): unit propagation of the rules (or failed-literal
    probing, with ``probe``) alternated with reachability -- a cell that no path of cells still
    open to dot k joins to that dot's cells is not in k's region (R2) -- until neither learns
    anything. Sound, so a result that fixes every cell proves the puzzle unique; None: the
    clues contradict the rules."""
    x = enc.extra["x"]
    has = x != 0
    eng = enc.engine
    lits = np.asarray(enc.assumptions(), np.int64)
    while True:
        value = eng.probe(lits) if probe else eng.propagate(lits)
        if value is None:
            return None
        v = value[x]
        open_ = has & (v >= 0)
        cut = open_ & ~flood(has & (v > 0), open_)  # every region at once from its known cells
        if not cut.any():
            return value
        lits = np.concatenate([lits, -x[cut].astype(np.int64)])


def grade_layout(state: dict, encode) -> int:
    """docs/specs/grid_puzzles.md §8 grade of a dot layout: 0 :func:`deduce_regions` decides it, 1
    :func:`deduce_encoding` with probing does, 2 search is needed. ``encode(state)`` builds the layout's formula only
    when needed."""
    labels = deduce_regions(state["H"], state["W"], state["dots"])
    if labels is not None and (labels >= 0).all():
        return 0
    enc = encode(state)
    return 1 if enc.engine.fixes_answer(deduce_encoding(enc, probe=True)) else 2


def blind_solved(solution: list[list[int]]) -> bool:
    """``blind_solves`` of a Galaxies instance, read off its solution: Galaxies has no givens, its
    answer grid starts empty and any label may be written anywhere, so a blind grid (one label
    everywhere, or a checkerboard of two) is right, or played cell by cell passes through the
    solution, exactly when it is the solution: when the labels on the cells of each colour of the
    checkerboard are a single label (the shared test builds thousands of blind grids for this)."""
    sol = np.asarray(solution)
    even = np.indices(sol.shape).sum(axis=0) % 2 == 0
    return len(set(sol[even].tolist())) <= 1 and len(set(sol[~even].tolist())) <= 1


def _relabelled(dots: np.ndarray, own: np.ndarray) -> tuple[list, list[list]]:
    """Dots in scan order (by r2, then c2) and the grid of their new indices."""
    order = np.lexsort((dots[:, 1], dots[:, 0]))
    label = np.empty(len(order), np.int64)
    label[order] = np.arange(len(order))
    return dots[order].tolist(), label[own].tolist()


def draw(rng: np.random.Generator, H: int, W: int, level: str, encode) -> tuple[dict, list[list]]:
    """The draw loop of ``GalaxiesTask.sample``: random symmetric partitions (``kernel``, as
    ``geometry.random_symmetric_partition`` draws them) until one is certified unique: by the
    deduction of :func:`deduce_regions`, run in the same kernel (then no search runs), else by SAT with the connectivity cuts of
    ``encode(state)``. Level 'n' keeps only puzzles the deduction solves (Tatham's level 'n': his
    solver's normal deductions do) while any are found in :data:`DEDUCED_TRIES` draws; level 'u'
    prefers ones that need search (grade 2). On small grids the one with the fewest dots among
    :data:`PICK` unique draws (blocked growth leaves many one-cell regions, Tatham's are larger)."""
    picked: list = []
    from . import kernel

    bufs = kernel.scratch(H, W)
    weights = np.asarray([float(SHAPES[s]) for s in ((0, 0), (0, 1), (1, 0), (1, 1))])
    for attempt in range(500):
        # the partition and the deduction on its dots in the kernel (unique when it decides every cell)
        got = kernel.run(H, W, round(SEEDS[0] * H * W + SEEDS[1]), weights, rng.random(2 * H * W + 2), *bufs)
        K, solved = abs(got) - 1, got > 0
        if K <= 1:
            continue
        dots, sol = _relabelled(bufs[1][:2 * K].reshape(K, 2), bufs[2].reshape(H, W))
        state = {"W": W, "H": H, "dots": dots}
        if level == "u" and attempt < 50:  # 'u': prefer puzzles that need search
            if solved or grade_layout(state, encode) < 2:
                continue
            grade = 2
        elif solved:
            grade = 0
        elif attempt < DEDUCED_TRIES:
            continue
        else:
            grade = grade_layout(state, encode)
        if grade == 2:  # deduction stalls: SAT with the cuts certifies it
            enc = encode(state)
            truth = enc.solution_values([int(v) if k == sol[r][c] else -int(v)
                                         for (r, c, k), v in np.ndenumerate(enc.extra["x"]) if v])
            if enc.engine.alternative(enc.assumptions(), truth, deduce=False) is not None:
                continue
        picked.append((state, sol))
        if len(picked) >= next((n for cells, n in sorted(PICK.items()) if H * W <= cells), 1):
            return min(picked, key=lambda p: len(p[0]["dots"]))
    raise RuntimeError(f"could not generate a {W}x{H} Galaxies puzzle")
