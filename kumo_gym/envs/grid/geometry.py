"""Grid geometry shared by the puzzles: neighbours, connected components, matchings, and the lazy
cuts that make "these cells are connected" a rule the SAT engine can enforce (grid_puzzles.md
§8; Range, Singles, Filling, Galaxies, Net, Pearl and Tracks need it)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

Cell = tuple[int, int]


def neighbours4(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
        if 0 <= r + dr < H and 0 <= c + dc < W:
            yield r + dr, c + dc


def neighbours8(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < H and 0 <= c + dc < W:
                yield r + dr, c + dc


def components(mask: np.ndarray) -> list[list[Cell]]:
    """The 4-connected components of the True cells of ``mask``, each sorted, smallest first
    (ties in row-major order of their first cell)."""
    H, W = mask.shape
    seen = np.zeros_like(mask, bool)
    out = []
    for r, c in zip(*np.nonzero(mask)):
        if seen[r, c]:
            continue
        comp, stack = [], [(int(r), int(c))]
        seen[r, c] = True
        while stack:
            cell = stack.pop()
            comp.append(cell)
            for n in neighbours4(*cell, H, W):
                if mask[n] and not seen[n]:
                    seen[n] = True
                    stack.append(n)
        out.append(sorted(comp))
    return sorted(out, key=lambda comp: (len(comp), comp[0]))


def matching(left: Iterable, options: Callable[[object], Iterable]) -> dict:
    """A maximum bipartite matching ``{left item: right item}`` (augmenting paths, Kuhn)."""
    owner: dict = {}

    def augment(item, seen) -> bool:
        for other in options(item):
            if other not in seen:
                seen.add(other)
                if other not in owner or augment(owner[other], seen):
                    owner[other] = item
                    return True
        return False

    for item in left:
        augment(item, set())
    return {item: other for other, item in owner.items()}


def connected_cuts(cell_lits: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback of an :class:`~kumo_gym.solvers.engine.Encoding` for "the cells whose
    literal ``cell_lits[r, c]`` is true form one 4-connected region" (Range and Singles: white
    cells, with the literal "white"; use 0 for cells that can never be in the region).

    For a model with several regions, take the smallest region S, a cell s of it and a cell t of
    another region: every path from s to t leaves S through its outer border B (cells next to S,
    all outside the region in this model), so ``not s or not t or some cell of B is in`` holds in
    every solution -- it follows from the rule alone, so the layout's solver may keep it.
    """
    H, W = cell_lits.shape

    def cuts(value: np.ndarray) -> list[list[int]]:
        lits = cell_lits.astype(np.int64)
        on = (lits != 0) & (np.sign(lits) * value[np.abs(lits)] > 0)
        comps = components(on)
        if len(comps) <= 1:
            return []
        s = comps[0]
        inside = set(s)
        border = sorted({n for cell in s for n in neighbours4(*cell, H, W) if n not in inside and lits[n] != 0})
        return [[-int(lits[s[0]]), -int(lits[other[0]])] + [int(lits[b]) for b in border] for other in comps[1:]]

    return cuts


def line_runs(mask: np.ndarray) -> list[list[Cell]]:
    """The maximal runs of True cells along every row, then every column (single cells
    included): Light Up's white stretches, Range's lines of sight."""
    H, W = mask.shape
    out = []
    for line in [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]:
        run: list = []
        for cell in line + [None]:
            if cell is not None and mask[cell]:
                run.append(cell)
            elif run:
                out.append(run)
                run = []
    return out


def symmetry_orbit(r: int, c: int, H: int, W: int, symm: int) -> set[Cell]:
    """The cells Tatham's symmetry code maps (r, c) to: 0 none, 1 left-right mirror, 2 half
    turn, 3 both mirrors, 4 quarter turn (square grids)."""
    cells = {(r, c)}
    if symm in (1, 3):
        cells.add((r, W - 1 - c))
    if symm in (2, 3, 4):
        cells.add((H - 1 - r, W - 1 - c))
    if symm == 3:
        cells.add((H - 1 - r, c))
    if symm == 4:
        cells |= {(c, W - 1 - r), (W - 1 - c, r)}
    return cells


def dominoes(grid: list[list]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The well-formed dominoes of an answer grid (an L with an R right of it, a T with a B below)."""
    H, W = len(grid), len(grid[0])
    out = []
    for r in range(H):
        for c in range(W):
            if grid[r][c] == "L" and c + 1 < W and grid[r][c + 1] == "R":
                out.append(((r, c), (r, c + 1)))
            elif grid[r][c] == "T" and r + 1 < H and grid[r + 1][c] == "B":
                out.append(((r, c), (r + 1, c)))
    return out


def random_tiling(rng: np.random.Generator, H: int, W: int) -> list[list[str]]:
    """A random domino tiling: straight rows (or columns), then random flips of 2x2 blocks."""
    g = [["LR"[c % 2] for c in range(W)] if W % 2 == 0 else ["TB"[r % 2]] * W for r in range(H)]
    for r, c in zip(rng.integers(H - 1, size=25 * H * W).tolist(), rng.integers(W - 1, size=25 * H * W).tolist()):
        if g[r][c] == "L" and g[r + 1][c] == "L":
            g[r][c], g[r][c + 1], g[r + 1][c], g[r + 1][c + 1] = "T", "T", "B", "B"
        elif g[r][c] == "T" and g[r][c + 1] == "T":
            g[r][c], g[r][c + 1], g[r + 1][c], g[r + 1][c + 1] = "L", "R", "L", "R"
    return g
