"""Plain-Python reference of the KUMO optimal search (``specs/kumo.md`` §9, Algorithm 3).

The same algorithm and the same arithmetic as the numba kernel in ``kumo_gym/solvers/kumo.py``,
written the way the paper's code reads (Python ints as bitmasks, a dict memo), so the two can be
compared value by value and side by side in ``benchmarks/kumo.py``.
"""
from __future__ import annotations

import math
import time


class SearchTimeout(Exception):
    pass


def reference_search(masks, rel, n, deadline=None, bound=True):
    """Return ``E(T, A) -> (expected, action)`` for the lists ``masks[j][s]`` and ``rel[t]``.

    ``bound=True`` adds the admissible bound of the numba kernel (a non-base child costs at
    least 1), so both run the same algorithm; ``bound=False`` is the paper's code as written.
    Values and choices are the same either way.
    """
    memo = {}

    def is_base(T, A):
        if popcount(T) <= 1 or A == 0:
            return True
        return any(T >> t & 1 and rel[t] & A == 0 for t in range(n))

    def popcount(x):
        return (x).bit_count()

    def search(T, A):
        cnt = popcount(T)
        if cnt <= 1 or A == 0:
            return 0.0, -1
        for t in range(n):
            if T >> t & 1 and rel[t] & A == 0:
                return 0.0, -1
        key = T | (A << n)
        if key in memo:
            return memo[key]
        if deadline is not None and time.perf_counter() > deadline:
            raise SearchTimeout
        best, best_j = math.inf, -1
        for j, states in enumerate(masks):
            if not A >> j & 1:
                continue
            rest = A & ~(1 << j)
            total = 0.0
            for m in states:
                total += cnt - popcount(m & T)
            lower = 0.0
            if bound and best < math.inf:
                for m in states:
                    if not is_base(T & ~m, rest):
                        lower += (cnt - popcount(m & T)) / (total + 1e-9)
                if lower * (1.0 - 1e-12) >= best:
                    continue
            acc = 0.0
            for m in states:
                p = (cnt - popcount(m & T)) / (total + 1e-9)
                acc += p * search(T & ~m, rest)[0]
                if acc >= best:
                    break
                if bound and best < math.inf:
                    if not is_base(T & ~m, rest):
                        lower -= p
                    if (acc + lower) * (1.0 - 1e-12) >= best:
                        acc = best
                        break
            if acc < best:
                best, best_j = acc, j
        memo[key] = (1.0 + best, best_j)
        return memo[key]

    search.memo = memo
    return search


def reference_tables(tab):
    """Python lists from an ``OracleTables`` (drops the numpy padding)."""
    masks = [[int(tab.masks[j, s]) for s in range(int(tab.nstates[j]))] for j in range(tab.m)]
    return masks, [int(r) for r in tab.rel]
