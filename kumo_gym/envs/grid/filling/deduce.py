"""Filling's block-size cuts stated up front, so the generator's SAT certificates need fewer cut
rounds."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.sat import Formula
from ..geometry import neighbours4

#: block-size cuts are stated up front for every connected shape of up to this many cells (larger
#: shapes add more clauses than they save cut rounds)
SHAPE_CUTS = 4
#: grids of at most this many cells are reduced against the table of all their solutions
SMALL = 9
#: a layout still mending clashes after this many passes over the cells is given up
MAX_PASSES = 100


def shape_cuts(f: Formula, x: np.ndarray, H: int, W: int) -> None:
    """Add to ``f`` (``x[r, c, d - 1]``: cell (r, c) holds digit d) the commonest block-size cuts.

    Stated up front, they save about half the cut rounds: for every
    connected shape of 2 to SHAPE_CUTS cells, all of it holding a k larger than the shape
    means a k next to it, and all of it holding size - 1 never happens."""
    shapes = {frozenset([(r, c)]) for r in range(H) for c in range(W)}
    for size in range(2, SHAPE_CUTS + 1):
        shapes = {s | {n} for s in shapes for p in s for n in neighbours4(*p, H, W) if n not in s}
        for shape in sorted(sorted(s) for s in shapes):
            rim = sorted({n for p in shape for n in neighbours4(*p, H, W)} - set(shape))
            for k in range(size, 9):
                f.add([-int(x[p][k]) for p in shape] + [int(x[n][k]) for n in rim], rule="R2")
            if size > 2:  # two 1s side by side: stated in the rules
                f.add([-int(x[p][size - 2]) for p in shape], rule="R2")


@functools.lru_cache(maxsize=16)
def neighbour_table(H: int, W: int) -> np.ndarray:
    """``nbr[4c:4c+4]``: the row-major indices of cell c's neighbours, -1 where none."""
    out = np.full(4 * H * W, -1, np.int64)
    for r in range(H):
        for c in range(W):
            for k, (a, b) in enumerate(neighbours4(r, c, H, W)):
                out[4 * (r * W + c) + k] = a * W + b
    return out


def deduce(grid: list[list[int]]) -> tuple[int, list[list[int]]]:
    """Our Filling deduction (:mod:`.kernel`) from the givens ``grid`` (0: empty):
    ``(empty cells left, grid deduced)``; 0 left means this is the only solution, -1 that the
    givens contradict each other."""
    from . import kernel as k

    H, W = len(grid), len(grid[0])
    given = np.asarray(grid, np.int64).ravel()
    empty = np.zeros(0, np.int64)
    work = k.scratch(H * W)
    left = k.run(neighbour_table(H, W), empty, empty, empty, given, *work)
    return int(left), work[0][:H * W].reshape(H, W).tolist()


def reduce_givens(rng: np.random.Generator, sol: list[list[int]], regions: list[list[tuple[int, int]]]) -> list[list[int]]:
    """The givens of the full grid ``sol`` reduced as Tatham's generator does: whole blocks
    (``regions``) blanked in a seeded cell order, then single cells in the same order, each
    blanking kept while the deduction still fills the grid with ``sol`` (so the puzzle is unique)."""
    from . import kernel as k

    H, W = len(sol), len(sol[0])
    flat = np.asarray(sol, np.int64).ravel()
    region = np.zeros(H * W, np.int64)
    for b, cells in enumerate(regions):
        for r, c in cells:
            region[r * W + c] = b
    given = flat.copy()
    order = rng.permutation(H * W).astype(np.int64)
    wrong = k.run(neighbour_table(H, W), flat, order, region, given, *k.scratch(H * W))
    if wrong:
        raise RuntimeError(f"Filling deduction filled {wrong} grids other than the solution (an unsound deduction)")
    return given.reshape(H, W).tolist()


def partition(rng: np.random.Generator, H: int, W: int, top: int) -> list[list[int]] | None:
    """A random layout of blocks of at most ``top`` cells, no two of one size side by side, as
    Tatham's generator draws it: from single cells, in passes over the cells in a seeded order,
    a block touching another of its size merges with its smallest neighbour that keeps it within
    ``top`` (each candidate passed over with chance 1/10). Where none fits, a block of its size
    beside it grows instead (its smallest neighbour that fits), and where neither can, the block
    breaks up into single cells to be merged again (Tatham starts the layout over, which on
    17x13 happens 99 times in 100); None after MAX_PASSES passes. Then lone cells join
    neighbouring blocks where the grown block touches none of its new size."""
    n = H * W
    nbr = neighbour_table(H, W).reshape(n, 4).tolist()
    parent, size = list(range(n)), [1] * n

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = rng.permutation(n).tolist()
    changed, passes = True, 0
    while changed:
        changed, passes = False, passes + 1
        if passes > MAX_PASSES:
            return None
        draws = rng.random((n, 4)).tolist()  # per neighbour: below 0.1 passed over, else its rank in a random order
        for i in order:
            a = find(i)
            sa, clash, best, room, rank = size[a], False, -1, top - size[a] + 1, 1.0
            for j, u in zip(nbr[i], draws[i]):
                if j < 0:
                    continue
                b = find(j)
                if b == a:
                    continue
                sb = size[b]
                clash = clash or sb == sa
                if u >= 0.1 and (sb < room or (sb == room and best >= 0 and u < rank)):
                    best, room, rank = b, sb, u
            if clash and best < 0:  # mended from the other side: a block of a's size beside it grows instead
                for b in sorted({find(j) for j in nbr[i] if j >= 0} - {a}):
                    if size[b] == sa:
                        fits = {find(k) for c in range(n) if find(c) == b for k in nbr[c] if k >= 0} - {a, b}
                        fits = sorted((size[d], d) for d in fits if size[d] + sa <= top)
                        if fits:
                            a, best = b, fits[0][1]
                            break
                if best < 0:  # neither: a breaks up into single cells, to be merged again
                    for c in [c for c in range(n) if find(c) == a]:
                        parent[c], size[c] = c, 1
                    changed = True
                    continue
            if clash:
                parent[best] = a
                size[a] += size[best]
                changed = True
    grid = [size[find(i)] for i in range(n)]
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if grid[i] == 1 and any(_absorb(grid, nbr, i, grid[j], top) for j in nbr[i] if j >= 0 and grid[j] > 1):
                changed = True
    return [grid[r * W:(r + 1) * W] for r in range(H)]


def _absorb(grid: list[int], nbr: list[list[int]], i: int, s: int, top: int) -> bool:
    """Lone cell i joins the blocks of size s around it (one block of all of them) when that
    block fits ``top`` and touches no block of its new size; whether it did."""
    grid[i] = s
    seen, stack = {i}, [i]
    while stack:
        for j in nbr[stack.pop()]:
            if j >= 0 and j not in seen and grid[j] == s:
                seen.add(j)
                stack.append(j)
    new = len(seen)
    if new > top or any(j >= 0 and j not in seen and grid[j] == new for c in seen for j in nbr[c]):
        grid[i] = 1
        return False
    for c in seen:
        grid[c] = new
    return True


@functools.lru_cache(maxsize=8)
def every_solution(H: int, W: int) -> np.ndarray:
    """Every filled H x W grid that keeps the rules (digits 1-9), one row-major row each: the
    blocks laid out one at a time, each the connected set of free cells around the first free
    cell, never touching a block of its size. For small grids only (a few hundred grids on 3x3)."""
    n = H * W
    nbr = [[j for j in row if j >= 0] for row in neighbour_table(H, W).reshape(n, 4).tolist()]
    grid = [0] * n
    out: list[list[int]] = []

    def shapes(u: int) -> set[frozenset]:
        found, frontier = set(), {frozenset([u])}
        while frontier:
            found |= frontier
            frontier = {s | {j} for s in frontier if len(s) < 9 for i in s for j in nbr[i] if not grid[j] and j not in s}
            frontier -= found
        return found

    def place(u: int) -> None:
        while u < n and grid[u]:
            u += 1
        if u == n:
            out.append(list(grid))
            return
        for shape in sorted(shapes(u), key=sorted):
            size = len(shape)
            if any(grid[j] == size for i in shape for j in nbr[i]):
                continue
            for i in shape:
                grid[i] = size
            place(u + 1)
            for i in shape:
                grid[i] = 0

    place(0)
    return np.asarray(out, np.int8)


def small_layout(rng: np.random.Generator, H: int, W: int, top: int) -> list[list[int]]:
    """For grids of at most SMALL cells: a layout drawn uniformly from the table of every
    solution with no block over ``top`` cells (:func:`partition` fails most of its tries there;
    on 3x3 the two give the same clue density)."""
    table = every_solution(H, W)
    fits = np.flatnonzero(table.max(axis=1) <= top)
    return table[fits[rng.integers(len(fits))]].reshape(H, W).tolist()


def reduce_exactly(rng: np.random.Generator, sol: list[list[int]], regions: list[list[tuple[int, int]]]) -> list[list[int]]:
    """:func:`reduce_givens` for grids of at most SMALL cells, with uniqueness read off the table
    of every solution (:func:`every_solution`) instead of deduction: our deduction sees no block
    without a given, which on a few cells would leave far more givens than Tatham's generator does."""
    H, W = len(sol), len(sol[0])
    flat = np.asarray(sol, np.int8).ravel()
    match = every_solution(H, W) == flat
    region = np.zeros(H * W, np.int64)
    for b, cells in enumerate(regions):
        for r, c in cells:
            region[r * W + c] = b
    shown = np.ones(H * W, bool)
    order = rng.permutation(H * W)
    blocks = list(dict.fromkeys(region[order].tolist()))  # each block once, by its first cell in the order
    for blank in [region == b for b in blocks] + [np.arange(H * W) == c for c in order]:
        keep = shown & ~blank
        if match[:, keep].all(axis=1).sum() == 1:
            shown = keep
    return np.where(shown, flat, 0).reshape(H, W).tolist()
