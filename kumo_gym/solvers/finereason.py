"""Search kernels behind the FineReason label oracles (spec finereason.md §2).

Two exact backtracking searches over numpy arrays, each written once in plain Python and
compiled with numba from the same source:

* :func:`sudoku_count_solutions` - bitmask DFS with the minimum-remaining-values cell choice;
  counts completions of a 9x9 grid up to ``limit`` (2 answers "is it unique?").
* :func:`coloring_extends` - DSATUR-order backtracking: does a partial colouring extend to a
  proper colouring with colours ``1..k``? Colours not yet used anywhere are interchangeable,
  so only the smallest unused one is tried (symmetry breaking).

The ``*_py`` functions are the pure-Python reference of the same algorithm (tests and
benchmarks compare them); the public functions use the compiled kernels.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "coloring_extends",
    "coloring_extends_py",
    "sudoku_count_solutions",
    "sudoku_count_solutions_py",
    "sudoku_solve",
]


def _sudoku_search(grid, limit, out):
    """Count completions of ``grid`` (81 int64, 0 = empty) up to ``limit``.

    The first completion found is written to ``out``. Returns the count (0 when a given clashes).
    """
    rows = np.zeros(9, np.int64)
    cols = np.zeros(9, np.int64)
    boxes = np.zeros(9, np.int64)
    g = grid.copy()
    n_empty = 0
    for i in range(81):
        v = g[i]
        if v == 0:
            n_empty += 1
            continue
        if v < 0 or v > 9:
            return 0
        bit = 1 << v
        r, c = i // 9, i % 9
        b = (r // 3) * 3 + c // 3
        if (rows[r] & bit) or (cols[c] & bit) or (boxes[b] & bit):
            return 0
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
    cell_at = np.zeros(82, np.int64)
    mask_at = np.zeros(82, np.int64)
    count = 0
    level = 0
    descend = True
    while True:
        if descend:
            if level == n_empty:
                count += 1
                if count == 1:
                    for i in range(81):
                        out[i] = g[i]
                if count >= limit:
                    return count
                level -= 1
                if level < 0:
                    return count
                descend = False
                continue
            best = -1
            best_n = 10
            best_mask = 0
            for i in range(81):
                if g[i] == 0:
                    r, c = i // 9, i % 9
                    b = (r // 3) * 3 + c // 3
                    m = ~(rows[r] | cols[c] | boxes[b]) & 0x3FE
                    n = 0
                    x = m
                    while x:  # popcount, inline so numba and Python run the same code
                        x &= x - 1
                        n += 1
                    if n < best_n:
                        best, best_n, best_mask = i, n, m
                        if n <= 1:
                            break
            cell_at[level] = best
            mask_at[level] = best_mask
        else:
            # coming back up: take the value tried at this level off the board
            i = cell_at[level]
            bit = 1 << g[i]
            r, c = i // 9, i % 9
            b = (r // 3) * 3 + c // 3
            rows[r] ^= bit
            cols[c] ^= bit
            boxes[b] ^= bit
            g[i] = 0
        m = mask_at[level]
        if m == 0:
            level -= 1
            if level < 0:
                return count
            descend = False
            continue
        bit = m & -m
        mask_at[level] = m ^ bit
        i = cell_at[level]
        r, c = i // 9, i % 9
        b = (r // 3) * 3 + c // 3
        v = 0
        x = bit
        while x > 1:
            x >>= 1
            v += 1
        g[i] = v
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
        level += 1
        descend = True


def _coloring_search(adj, colours, k):
    """1 when the partial colouring ``colours`` (0 = uncoloured) extends to a proper k-colouring."""
    n = colours.shape[0]
    col = colours.copy()
    cnt = np.zeros((n, k + 2), np.int64)  # cnt[v, c]: neighbours of v coloured c
    used = np.zeros(k + 2, np.int64)  # used[c]: vertices coloured c
    m = 0
    for v in range(n):
        c = col[v]
        if c == 0:
            m += 1
            continue
        if c < 0 or c > k:
            return 0
        used[c] += 1
        for u in range(n):
            if adj[v, u]:
                if col[u] == c:
                    return 0
                cnt[u, c] += 1
    if m == 0:
        return 1
    vert_at = np.zeros(n + 1, np.int64)
    cand_at = np.zeros(n + 1, np.int64)
    level = 0
    descend = True
    while True:
        if descend:
            if level == m:
                return 1
            best = -1
            best_sat = -1
            best_deg = -1
            for v in range(n):
                if col[v] != 0:
                    continue
                sat = 0
                for c in range(1, k + 1):
                    if cnt[v, c] > 0:
                        sat += 1
                deg = 0
                for u in range(n):
                    if adj[v, u] and col[u] == 0:
                        deg += 1
                if sat > best_sat or (sat == best_sat and deg > best_deg):
                    best, best_sat, best_deg = v, sat, deg
            mask = 0
            fresh_tried = False
            for c in range(1, k + 1):
                if cnt[best, c] > 0:
                    continue
                if used[c] > 0:
                    mask |= 1 << c
                elif not fresh_tried:
                    mask |= 1 << c
                    fresh_tried = True
            vert_at[level] = best
            cand_at[level] = mask
        else:
            v = vert_at[level]
            c = col[v]
            used[c] -= 1
            for u in range(n):
                if adj[v, u]:
                    cnt[u, c] -= 1
            col[v] = 0
        mask = cand_at[level]
        if mask == 0:
            level -= 1
            if level < 0:
                return 0
            descend = False
            continue
        bit = mask & -mask
        cand_at[level] = mask ^ bit
        v = vert_at[level]
        c = 0
        x = bit
        while x > 1:
            x >>= 1
            c += 1
        col[v] = c
        used[c] += 1
        for u in range(n):
            if adj[v, u]:
                cnt[u, c] += 1
        level += 1
        descend = True


try:  # numba is a core dependency; the fallback only keeps the module importable without it
    import numba

    _sudoku_search_nb = numba.njit(cache=True)(_sudoku_search)
    _coloring_search_nb = numba.njit(cache=True)(_coloring_search)
except ImportError:  # pragma: no cover
    _sudoku_search_nb = _sudoku_search
    _coloring_search_nb = _coloring_search


def _grid_array(grid) -> np.ndarray:
    a = np.asarray(grid, dtype=np.int64).reshape(81)
    return a


def sudoku_count_solutions(grid, limit: int = 2) -> int:
    """The number of completions of ``grid`` (9x9, 0 = empty), counted up to ``limit``."""
    out = np.zeros(81, np.int64)
    return int(_sudoku_search_nb(_grid_array(grid), int(limit), out))


def sudoku_count_solutions_py(grid, limit: int = 2) -> int:
    """Pure-Python reference of :func:`sudoku_count_solutions` (same algorithm)."""
    out = np.zeros(81, np.int64)
    return int(_sudoku_search(_grid_array(grid), int(limit), out))


def sudoku_solve(grid) -> list[list[int]] | None:
    """One completion of ``grid`` (the first in search order), or None."""
    out = np.zeros(81, np.int64)
    if _sudoku_search_nb(_grid_array(grid), 1, out) == 0:
        return None
    return out.reshape(9, 9).tolist()


def _adjacency(graph: list[list[int]]) -> np.ndarray:
    n = len(graph)
    adj = np.zeros((n, n), np.uint8)
    for v, nbrs in enumerate(graph):
        for u in nbrs:
            if u != v:
                adj[v, u] = adj[u, v] = 1
    return adj


def coloring_extends(graph_or_adj, colours, k: int) -> bool:
    """Whether ``colours`` (0 = uncoloured) extends to a proper colouring with colours 1..k."""
    adj = graph_or_adj if isinstance(graph_or_adj, np.ndarray) else _adjacency(graph_or_adj)
    return bool(_coloring_search_nb(adj, np.asarray(colours, np.int64), int(k)))


def coloring_extends_py(graph_or_adj, colours, k: int) -> bool:
    """Pure-Python reference of :func:`coloring_extends` (same algorithm)."""
    adj = graph_or_adj if isinstance(graph_or_adj, np.ndarray) else _adjacency(graph_or_adj)
    return bool(_coloring_search(adj, np.asarray(colours, np.int64), int(k)))
