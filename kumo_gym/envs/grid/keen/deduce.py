"""Keen's deduction for its generator: a draw's grade (docs/specs/grid_puzzles.md §8) by propagation and
failed-literal probing on clause arrays built from per-clue cage templates, without building the formula."""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ....solvers.propagation import ClauseArrays
from ..latin import latin_copy
from .cages import cage_template


@functools.lru_cache(maxsize=8)
def latin_arrays(n: int) -> ClauseArrays:
    f, _ = latin_copy(n, rules=("R1", "R2", None))
    return ClauseArrays.from_clauses(f.clauses, f.n_vars)


def extended(base: ClauseArrays, clauses: list[list[int]], n_vars: int) -> ClauseArrays:
    """``base`` followed by ``clauses``, as one set of clause arrays (only the new part is converted)."""
    more = ClauseArrays.from_clauses(clauses, n_vars)
    return ClauseArrays(max(base.n_vars, more.n_vars), np.concatenate([base.lits, more.lits]),
                        np.concatenate([base.starts, more.starts[1:] + base.starts[-1]]),
                        np.concatenate([base.units, more.units]), base.empty or more.empty)


@functools.lru_cache(maxsize=8)
def _latin_base(n: int) -> tuple[ClauseArrays, list, int, np.ndarray]:
    """Per n: the Latin square's clause arrays, each cell's variables (a list of n per cell,
    row-major), the top variable and the answer variables for probing."""
    f, x = latin_copy(n, rules=("R1", "R2", None))
    x = np.asarray(x, np.int64)
    return latin_arrays(n), x.reshape(n * n, n).tolist(), f.pool.top, x.ravel()


def cage_grade(n: int, cages: list[dict]) -> int:
    """docs/specs/grid_puzzles.md §8 grade of a Keen draw (0 propagation, 1 failed-literal probing, 2 neither), deduced
    on the clauses :meth:`..keen.KeenTask._rules` writes (each cage's :func:`..cages.cage_literal`
    clauses, from a template kept per clue, its variables numbered in the same order), without
    building the formula. The templates' local variables are shifted into one table per draw
    (the cells' variables, then each cage's new ones) and read back in one gather."""
    base, cell_vars, top, answer = _latin_base(n)
    table = [0]  # local index -> variable
    where, signs, sizes, oks = [], [], [], []
    for cage in cages:
        t_where, t_sign, t_sizes, n_new, ok = cage_template(n, len(cage["cells"]), cage["op"], cage["target"])
        offset = len(table) - 1
        for r, c in cage["cells"]:
            table += cell_vars[r * n + c]
        table += range(top + 1, top + n_new + 1)
        top += n_new
        where.append(t_where + offset)
        signs.append(t_sign)
        sizes.append(t_sizes)
        oks.append(table[abs(ok) + offset] * (1 if ok > 0 else -1))
    sizes_all = np.concatenate([np.diff(base.starts), *sizes])
    starts = np.zeros(len(sizes_all) + 1, np.int64)
    np.cumsum(sizes_all, out=starts[1:])
    flat = np.concatenate([base.lits, np.asarray(table, np.int64)[np.concatenate(where)] * np.concatenate(signs)])
    units = flat[starts[:-1][sizes_all == 1]]
    arrays = ClauseArrays(top, flat, starts, units, bool((sizes_all == 0).any()))
    value = arrays.propagate(oks)
    if value is not None and (value[answer] != 0).all():
        return 0
    value = arrays.probe(oks, answer)
    return 1 if value is not None and (value[answer] != 0).all() else 2


#: up to this order every Latin square is listed (576 at 4): uniqueness is then a filter over them
ENUMERATE_UP_TO = 4


@functools.lru_cache(maxsize=4)
def latin_squares(n: int) -> np.ndarray:
    """Every Latin square of order ``n`` (one per row, row-major cells), built row by row."""
    rows = np.asarray(list(itertools.permutations(range(1, n + 1))), np.int64)
    squares = rows[:, None, :]
    for _ in range(n - 1):  # extend each by every row clashing with none of its columns
        clash = (squares[:, :, None, :] == rows[None, None, :, :]).any(axis=(1, 3))
        s, r = np.nonzero(~clash)
        squares = np.concatenate([squares[s], rows[r][:, None, :]], axis=1)
    return squares.reshape(len(squares), n * n)


@functools.lru_cache(maxsize=8192)
def _meeting(n: int, cells: tuple, op: str, t: int) -> int:
    """The Latin squares of order n (as bits of an int, by their index in :func:`latin_squares`)
    in which the cage on ``cells`` meets its clue; cached, the same cages come back draw after draw."""
    vals = latin_squares(n)[:, [r * n + c for r, c in cells]]
    if op == "+":
        ok = vals.sum(axis=1) == t
    elif op == "x":
        ok = vals.prod(axis=1) == t
    else:
        lo, hi = vals.min(axis=1), vals.max(axis=1)
        ok = hi - lo == t if op == "-" else hi == t * lo
    return int.from_bytes(np.packbits(ok, bitorder="little").tobytes(), "little")


def several_solutions(n: int, cages: list[dict]) -> bool:
    """Whether more than one Latin square meets every cage's clue (n <= ENUMERATE_UP_TO): the
    sets of squares each cage allows are intersected, stopping once one is left (the solution
    always is)."""
    left = -1
    for cage in cages:
        left &= _meeting(n, tuple(map(tuple, cage["cells"])), cage["op"], cage["target"])
        if left & (left - 1) == 0:
            return False
    return True
