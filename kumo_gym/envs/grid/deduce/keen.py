"""Keen's deduction for its generator: a draw's §8 grade by propagation and failed-literal
probing on clause arrays built from per-clue cage templates, without building the formula
(issues 14, 21)."""
from __future__ import annotations

import functools

import numpy as np

from ....solvers.propagation import ClauseArrays
from ..cages import cage_template
from ..latin import latin_copy


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
    """§8 grade of a Keen draw (0 propagation, 1 failed-literal probing, 2 neither), deduced on
    the clauses :meth:`..keen.KeenTask._rules` writes (each cage's :func:`..cages.cage_literal`
    clauses, from a template kept per clue, its variables numbered in the same order), without
    building the formula (issue 14). The templates' local variables are shifted into one table per draw
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
