"""Search kernels behind the FineReason label oracles (docs/specs/finereason.md §2).

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

import functools
import itertools

import numpy as np

from ...solvers.bits import popcount
from ...solvers.native import compiled, kernel

__all__ = [
    "GridPuzzle",
    "GridSearchBudget",
    "GridTables",
    "coloring_extends",
    "coloring_extends_py",
    "grid_clue_holds",
    "grid_count_solutions",
    "sudoku_count_solutions",
    "sudoku_count_solutions_py",
    "sudoku_solve",
]


def _bit_index(bit):
    """The index of the one set bit of ``bit`` (a power of two)."""
    v = 0
    while bit > 1:
        bit >>= 1
        v += 1
    return v


@kernel(python=True, callees=("_bit_index", "popcount"))
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
                    n = popcount(m)
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
        g[i] = _bit_index(bit)
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
        level += 1
        descend = True


@kernel(python=True, callees=("_bit_index",))
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
        c = _bit_index(bit)
        col[v] = c
        used[c] += 1
        for u in range(n):
            if adj[v, u]:
                cnt[u, c] += 1
        level += 1
        descend = True


try:  # numba is a core dependency; the fallback only keeps the module importable without it
    _sudoku_search_nb, _coloring_search_nb = compiled(_sudoku_search), compiled(_coloring_search)
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


# ---- logic grid puzzles: column permutations, clues checked vectorised --------------------------
# A full table fixes the first column and gives every other column a permutation of its domain
# over the rows. The search assigns one column at a time (the order that lets the most clues be
# checked earliest), keeps *all* partial assignments of a bounded chunk in numpy arrays, and
# filters them with every clue whose columns have just become known (each clue is checked exactly
# once, the moment its last column is assigned). Chunks are explored depth-first, so counting
# stops as soon as ``limit`` tables are found. The evaluator implements the clue semantics of
# docs/specs/finereason.md §3 on whole arrays; ``kumo_gym.envs.finereason.cluelang.clue_holds`` is the
# scalar reference it is tested against.

class GridSearchBudget(RuntimeError):
    """The search would look at more candidate tables than its budget allows."""


_STR_BASE = 1 << 40  # string ids live far above every scaled number used as a key


def _node_values(node, out: list):
    kind = node[0]
    if kind == "lit" or kind == "cell":
        out.append(node[1])
    elif kind in ("and", "or"):
        for p in node[1]:
            _node_values(p, out)
    elif kind in ("cmp", "bin"):
        _node_values(node[2], out)
        _node_values(node[3], out)
    elif kind == "neg":
        _node_values(node[1], out)


class _Codec:
    """Typed values as int64 keys: numbers scaled to integers, strings as ids above ``_STR_BASE``."""

    def __init__(self, values):
        from fractions import Fraction
        from math import lcm

        dens = [v.denominator for v in values if isinstance(v, Fraction)]
        self.scale = lcm(*dens) if dens else 1
        self.sid: dict[str, int] = {}
        self.Fraction = Fraction

    def key(self, v) -> tuple[bool, int]:
        if isinstance(v, self.Fraction):
            scaled = v * self.scale
            if scaled.denominator != 1:  # a literal finer than every value the codec was made for
                raise ValueError(f"number {v} is not a multiple of 1/{self.scale}")
            return True, int(scaled)
        if v not in self.sid:
            self.sid[v] = _STR_BASE + len(self.sid)
        return False, self.sid[v]


class _Grid:
    """The compiled puzzle: codec, column value keys, where each literal key lives."""

    def __init__(self, header, domains, asts):
        lits: list = []
        for a in asts:
            _node_values(a, lits)
        self.codec = _Codec([v for d in domains for v in d] + lits + [""])
        self.header = list(header)
        self.col_num = [np.array([self.codec.key(v)[0] for v in d], bool) for d in domains]
        self.col_key = [np.array([self.codec.key(v)[1] for v in d], np.int64) for d in domains]
        self.empty = self.codec.key("")
        self._places: dict = {}

    def places(self, value) -> list[tuple[int, int]]:
        """``(column, index)`` of every domain value equal to ``value`` (typed equality)."""
        num, key = self.codec.key(value)
        got = self._places.get((num, key))
        if got is None:
            got = [(j, int(k)) for j in range(len(self.col_key))
                   for k in np.flatnonzero((self.col_num[j] == num) & (self.col_key[j] == key))]
            self._places[(num, key)] = got
        return got

    def deps(self, node) -> set[int]:
        kind = node[0]
        if kind == "cell":
            if node[2] not in self.header:
                return set()
            where = self.places(node[1])
            return {j for j, _ in where} | {self.header.index(node[2])} if where else set()
        if kind in ("and", "or"):
            return set().union(*(self.deps(p) for p in node[1]))
        if kind in ("cmp", "bin"):
            return self.deps(node[2]) | self.deps(node[3])
        if kind == "neg":
            return self.deps(node[1])
        return set()


def _evaluate(g: _Grid, node, assign: dict, pos: dict, n: int, mask, fail):
    """Vectorised evaluation over ``n`` candidate tables.

    Values come back as ``("v", is_number, key)`` arrays, conditions as ``("b", truth)``. Any
    evaluation error where ``mask`` holds is recorded in ``fail`` (the whole clue is then False,
    docs/specs/finereason.md §3); ``mask`` shrinks inside ``and``/``or`` to implement short-circuiting.
    """
    kind = node[0]
    if kind == "lit":
        num, key = g.codec.key(node[1])
        return "v", np.full(n, num), np.full(n, key, np.int64)
    if kind == "cell":
        where = g.places(node[1])
        if not where or node[2] not in g.header:
            return "v", np.zeros(n, bool), np.full(n, g.empty[1], np.int64)
        rows = pos[where[0][0]][:, where[0][1]]
        for j, k in where[1:]:  # the first row (top-down) holding the key in any cell
            rows = np.minimum(rows, pos[j][:, k])
        jc = g.header.index(node[2])
        idx = assign[jc][np.arange(n), rows]
        return "v", g.col_num[jc][idx], g.col_key[jc][idx]
    if kind == "neg":
        _, num, key = _value(g, node[1], assign, pos, n, mask, fail)
        fail |= mask & ~num
        return "v", num, -key
    if kind == "bin":
        _, an, ak = _value(g, node[2], assign, pos, n, mask, fail)
        _, bn, bk = _value(g, node[3], assign, pos, n, mask, fail)
        ok = an & bn
        fail |= mask & ~ok
        return "v", ok, (ak + bk) if node[1] == "+" else (ak - bk)
    if kind == "cmp":
        _, an, ak = _value(g, node[2], assign, pos, n, mask, fail)
        _, bn, bk = _value(g, node[3], assign, pos, n, mask, fail)
        op = node[1]
        if op in ("==", "!="):
            eq = (an == bn) & (ak == bk)
            return "b", eq if op == "==" else ~eq
        fail |= mask & ~(an & bn)
        return "b", {"<": ak < bk, ">": ak > bk, "<=": ak <= bk, ">=": ak >= bk}[op]
    if kind in ("and", "or"):
        live = mask.copy()
        out = np.full(n, kind == "and")
        for part in node[1]:
            truth = _truth(g, part, assign, pos, n, live, fail)
            if kind == "and":
                out &= ~live | truth
                live &= truth
            else:
                out |= live & truth
                live &= ~truth
        return "b", out
    raise ValueError(f"unknown clue node {kind!r}")


def _value(g, node, assign, pos, n, mask, fail):
    r = _evaluate(g, node, assign, pos, n, mask, fail)
    if r[0] != "v":  # a condition used as a value (e.g. in arithmetic): an evaluation error
        fail |= mask
        return "v", np.zeros(n, bool), np.zeros(n, np.int64)
    return r


def _truth(g, node, assign, pos, n, mask, fail):
    r = _evaluate(g, node, assign, pos, n, mask, fail)
    if r[0] != "b":  # a bare value used as a condition
        fail |= mask
        return np.zeros(n, bool)
    return r[1]


def _holds(g, node, assign, pos, n):
    fail = np.zeros(n, bool)
    truth = _truth(g, node, assign, pos, n, np.ones(n, bool), fail)
    return truth & ~fail


def grid_clue_holds(header, domains, ast, rows: list[list[int]]) -> list[bool]:
    """Evaluate one clue on full tables given as domain indices (``rows[t][j][i]``), vectorised.

    For tests against the scalar interpreter; the search uses the same evaluator.
    """
    g = _Grid(header, domains, [ast])
    arr = np.asarray(rows, np.int64)  # (tables, columns, rows)
    n = arr.shape[0]
    assign = {j: arr[:, j, :] for j in range(arr.shape[1])}
    pos = {j: np.argsort(assign[j], axis=1) for j in assign}
    return _holds(g, ast, assign, pos, n).tolist()


class GridPuzzle:
    """A logic grid compiled once for many searches: header, typed domains, clue trees and the
    columns each clue depends on (``grid_count_solutions`` builds one per call)."""

    def __init__(self, header, domains, asts):
        self.header, self.domains, self.asts = list(header), domains, list(asts)
        self.grid = _Grid(header, domains, self.asts)
        self.deps = [self.grid.deps(a) for a in self.asts]

    def count(self, fixed, limit: int = 2, budget: int = 20_000_000,
              chunk: int = 200_000) -> tuple[int, list[list[int]] | None]:
        """See :func:`grid_count_solutions`."""
        return _column_search(self, fixed, limit, budget, chunk)


@functools.lru_cache(maxsize=8)
def _permutations(n: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n))), np.int8).reshape(-1, n)


class GridTables:
    """Every full table of a puzzle at once (the first column fixed, each other column one of its
    permutations), so that clues added one by one filter them with one vectorised pass each.

    For generators: uniqueness after each new clue is a count, and which clues are redundant
    follows from the per-clue truth arrays. ``size(n, m)`` tells whether it fits (``MAX`` tables).
    """

    MAX = 2_000_000

    @staticmethod
    def size(n_rows: int, n_columns: int) -> int:
        return _permutations(n_rows).shape[0] ** (n_columns - 1)

    def __init__(self, header, domains, first):
        n, m = len(first), len(domains)
        perms = _permutations(n)
        k = len(perms)
        total = k ** (m - 1)
        if total > self.MAX:
            raise GridSearchBudget(f"{total} tables are more than {self.MAX}")
        idx = np.arange(total)
        self.assign = {0: np.broadcast_to(np.asarray(first, np.int8)[None, :], (total, n))}
        for c in range(1, m):
            self.assign[c] = perms[(idx // k ** (m - 1 - c)) % k]
        self.pos = {j: np.argsort(a, axis=1).astype(np.int8) for j, a in self.assign.items()}
        self.grid = _Grid(header, domains, [])
        self.total = total

    def holds(self, ast) -> np.ndarray:
        """Whether the clue holds, for every table (a boolean array)."""
        return _holds(self.grid, ast, self.assign, self.pos, self.total)

    def table(self, t: int) -> list[list[int]]:
        """Table number ``t`` as ``[column][row]`` domain indices."""
        return [self.assign[j][t].tolist() for j in range(len(self.assign))]


def grid_count_solutions(header, domains, asts, fixed, limit: int = 2, budget: int = 20_000_000,
                         chunk: int = 200_000) -> tuple[int, list[list[int]] | None]:
    """Count full tables (up to ``limit``) that satisfy every clue and agree with ``fixed``.

    ``domains[j]`` lists column j's values (interpreter values: Fraction or str), one per row;
    ``fixed[j][i]`` is the index into ``domains[j]`` of the value at row i, or -1 where the cell
    is empty (column 0 must be full). ``asts`` are clue syntax trees. Returns the count and the
    first table found as ``[column][row]`` domain indices. Raises :class:`GridSearchBudget` past
    ``budget`` candidate tables (so hostile puzzles cannot stall a caller).
    """
    return GridPuzzle(header, domains, asts).count(fixed, limit, budget, chunk)


def _column_search(puzzle: GridPuzzle, fixed, limit: int, budget: int, chunk: int):
    domains, asts, g, deps = puzzle.domains, puzzle.asts, puzzle.grid, puzzle.deps
    m, n = len(domains), len(fixed[0])
    perms_all = _permutations(n)
    perms = {}
    for j in range(1, m):
        p = perms_all
        for i, k in enumerate(fixed[j]):
            if k >= 0:
                p = p[p[:, i] == k]
        perms[j] = p
    # column order: each next column completes the most clues, ties broken by fewer permutations
    order, known = [], {0}
    while len(order) < m - 1:
        best = max((j for j in range(1, m) if j not in known),
                   key=lambda j: (sum(d <= known | {j} and not d <= known for d in deps), -len(perms[j]), -j))
        order.append(best)
        known.add(best)
    checks, known = [], {0}
    start = [a for a, d in zip(asts, deps) if d <= known]
    for j in order:
        checks.append([a for a, d in zip(asts, deps) if d <= known | {j} and not d <= known])
        known.add(j)
    first = np.array(fixed[0], np.int64)[None, :]
    assign0 = {0: first}
    pos0 = {0: np.argsort(first, axis=1)}
    if not all(_holds(g, a, assign0, pos0, 1)[0] for a in start):
        return 0, None
    found = [0, None]
    work = [0]

    def rec(level: int, assign: dict, pos: dict, size: int) -> bool:
        if level == len(order):
            if found[1] is None:
                found[1] = [assign[j][0].tolist() for j in range(m)]
            found[0] += size
            return found[0] >= limit
        j = order[level]
        p = perms[j]
        if len(p) == 0:
            return False
        step = max(1, chunk // len(p))
        for s in range(0, size, step):
            e = min(size, s + step)
            k = (e - s) * len(p)
            work[0] += k
            if work[0] > budget:
                raise GridSearchBudget(f"more than {budget} candidate tables")
            sub = {c: np.repeat(a[s:e], len(p), axis=0) for c, a in assign.items()}
            sub[j] = np.tile(p, (e - s, 1)).astype(np.int64)
            sub_pos = {c: np.repeat(a[s:e], len(p), axis=0) for c, a in pos.items()}
            sub_pos[j] = np.argsort(sub[j], axis=1)
            keep = np.ones(k, bool)
            for a in checks[level]:
                keep &= _holds(g, a, sub, sub_pos, k)
                if not keep.any():
                    break
            if keep.any():
                idx = np.flatnonzero(keep)
                nxt = {c: a[idx] for c, a in sub.items()}
                nxt_pos = {c: a[idx] for c, a in sub_pos.items()}
                if rec(level + 1, nxt, nxt_pos, len(idx)):
                    return True
        return False

    rec(0, {0: first}, {0: pos0[0]}, 1)
    return found[0], found[1]
