"""Dominosa's own deduction for the generator: the domino slots and their "exactly one" groups as
tables per size, and the Python driver of the numba kernel (``kernel``) that propagates or
probes them; the rules and encoding are in ``dominosa.py``."""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ....solvers.propagation import ClauseArrays


def deduce_slots(H: int, W: int, nums: list[list[int]], probe: bool) -> np.ndarray | None:
    """Per slot 1 (on), -1 (off) or 0 (open) after propagation (with ``probe``: and
    failed-literal probing) over the rules of the encoding for these numbers, or None on a
    contradiction: the deductions of the pairwise CNF of :func:`slot_arrays`, made by the
    kernel on the "exactly one" groups themselves (no clause arrays per test)."""
    from . import kernel

    ends, cell_start, cell_slots, pair_of, buffers = slot_groups(H, W)
    if not kernel.run(np.asarray(nums, np.int64).ravel(), ends, pair_of, H, cell_start, cell_slots, probe, *buffers):
        return None
    return buffers[4].copy()


@functools.lru_cache(maxsize=16)
def slot_groups(H: int, W: int) -> tuple:
    """Per size: the slots' cell indices, the cells' groups as (starts, slots), the pair index
    of ``min * H + max`` and the kernel's buffers."""
    from . import kernel

    ends = np.asarray([[a * W + b, c * W + d] for (a, b), (c, d) in slot_cells(H, W)], np.int64)
    members = [[] for _ in range(H * W)]
    for k, (x, y) in enumerate(ends.tolist()):
        members[x].append(k)
        members[y].append(k)
    cell_start = np.zeros(H * W + 1, np.int64)
    np.cumsum([len(m) for m in members], out=cell_start[1:])
    cell_slots = np.asarray([k for m in members for k in m], np.int64)
    pair_of = np.zeros(H * H, np.int64)
    for i, (x, y) in enumerate((a, b) for a in range(H) for b in range(a, H)):
        pair_of[x * H + y] = i
    P = H * (H + 1) // 2
    return ends, cell_start, cell_slots, pair_of, kernel.scratch(ends, H * W, P)


def undecided_slots(H: int, W: int, nums: list[list[int]]) -> list[int]:
    """The slots failed-literal probing leaves open (slot k is variable k + 1 of the encoding)."""
    value = deduce_slots(H, W, nums, True)
    return list(range(len(slot_cells(H, W)))) if value is None else np.flatnonzero(value == 0).tolist()


def slot_arrays(H: int, W: int, nums: list[list[int]]) -> ClauseArrays:
    """The rules of the encoding for these numbers (slot k is variable k + 1), pairwise, as
    clause arrays (built with numpy, the cells' part once per size): the reference that
    :func:`deduce_slots` follows."""
    ends, cover_lits, cover_sizes = cover_arrays(H, W)
    g = np.asarray(nums, np.int64).ravel()
    a, b = g[ends[:, 0]], g[ends[:, 1]]
    key = np.minimum(a, b) * H + np.maximum(a, b)  # the pair of each slot (numbers 0..H-1)
    present = np.unique(key)
    i, j = np.nonzero(np.triu(key[:, None] == key[None, :], 1))
    lits = np.concatenate([cover_lits, np.argsort(key, kind="stable") + 1, np.stack([-(i + 1), -(j + 1)], 1).ravel()])
    sizes = np.concatenate([cover_sizes, np.bincount(key)[present], np.full(len(i), 2, np.int64)])
    starts = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    counts = np.bincount(key)
    units = np.flatnonzero(counts[key] == 1) + 1  # the only slot of its pair
    # a pair on no slot has an empty clause: no solution
    return ClauseArrays(len(ends), lits, starts, units.astype(np.int64), len(present) < H * (H + 1) // 2)


@functools.lru_cache(maxsize=16)
def cover_arrays(H: int, W: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per slot its two cell indices; "exactly one slot per cell" (pairwise) as clause arrays."""
    ends = np.asarray([[a * W + b, c * W + d] for (a, b), (c, d) in slot_cells(H, W)], np.int64)
    lits: list[int] = []
    sizes: list[int] = []
    for group in slot_cover(H, W):
        lits += group
        sizes.append(len(group))
        for x, y in itertools.combinations(group, 2):
            lits += (-x, -y)
            sizes.append(2)
    return ends, np.asarray(lits, np.int64), np.asarray(sizes, np.int64)


@functools.lru_cache(maxsize=16)
def slot_cells(H: int, W: int) -> tuple:
    """The domino slots of an H x W grid, sorted (the order of the answer variables)."""
    return tuple(sorted([((r, c), (r, c + 1)) for r in range(H) for c in range(W - 1)] +
                        [((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W)]))


@functools.lru_cache(maxsize=16)
def slot_cover(H: int, W: int) -> tuple:
    return tuple(tuple(k + 1 for k, s in enumerate(slot_cells(H, W)) if cell in s) for cell in np.ndindex(H, W))
