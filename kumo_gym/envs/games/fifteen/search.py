"""Sliding-tile search (the Fifteen puzzle and its W x H cousins): IDA* with Manhattan distance
plus linear conflicts, compiled with numba for searches past a few thousand nodes.

A board is a sequence of ``W*H`` tiles in reading order, ``0`` the gap; the goal is 1, 2, ...,
``W*H - 1`` with the gap last. The heuristic is admissible: every tile must travel at least its
Manhattan distance, and in each row (column) the tiles already in their goal row (column) that
are out of order relative to each other need at least two extra moves per tile outside a longest
in-order subsequence (one tile must leave the line and come back). IDA* with it is optimal; when
the node budget runs out, the threshold it had reached is a proven lower bound and a weighted A*
supplies a solution, so the optimum is certified to lie between the two.
"""
from __future__ import annotations

import heapq

import numpy as np

from ....solvers.native import compiled, kernel

#: searches with a smaller heuristic value start in plain Python (no numba import)
PYTHON_BELOW = 14
#: nodes the plain-Python IDA* may expand before handing over to the compiled one
PYTHON_NODES = 20_000
#: nodes the plain-Python IDA* may expand on boards of at most 9 cells
SMALL_BOARD_NODES = 400_000
#: default node budget of the exact search
DEFAULT_BUDGET = 20_000_000
DR = np.array([-1, 1, 0, 0], np.int64)  # gap moves up, down, left, right
DC = np.array([0, 0, -1, 1], np.int64)


def solvable(tiles, w: int, h: int) -> bool:
    """Whether ``tiles`` can reach the goal (inversion parity, and the gap's row when W is even)."""
    seq = [t for t in tiles if t]
    inv = sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])
    if w % 2:
        return inv % 2 == 0
    gap_row_from_bottom = h - list(tiles).index(0) // w
    return (inv + gap_row_from_bottom) % 2 == 1


def _line_extra(vals, n, lis):
    """Two moves per tile outside a longest increasing run of ``vals[:n]`` (goal positions)."""
    if n < 2:
        return 0
    best = 0
    for i in range(n):
        m = 1
        for j in range(i):
            if vals[j] < vals[i] and lis[j] + 1 > m:
                m = lis[j] + 1
        lis[i] = m
        best = max(best, m)
    return 2 * (n - best)


def _row_extra(tiles, w, r, vals, lis):
    n = 0
    for c in range(w):
        t = tiles[r * w + c]
        if t and (t - 1) // w == r:
            vals[n] = (t - 1) % w
            n += 1
    return _line_extra(vals, n, lis)


def _col_extra(tiles, w, h, c, vals, lis):
    n = 0
    for r in range(h):
        t = tiles[r * w + c]
        if t and (t - 1) % w == c:
            vals[n] = (t - 1) // w
            n += 1
    return _line_extra(vals, n, lis)


def heuristic(tiles, w, h):
    """Manhattan distance plus linear conflicts of ``tiles`` (an int64 array)."""
    vals = np.zeros(8, np.int64)
    lis = np.zeros(8, np.int64)
    total = 0
    for i in range(w * h):
        t = tiles[i]
        if t:
            total += abs((t - 1) // w - i // w) + abs((t - 1) % w - i % w)
    for r in range(h):
        total += _row_extra(tiles, w, r, vals, lis)
    for c in range(w):
        total += _col_extra(tiles, w, h, c, vals, lis)
    return total


@kernel(python=True, callees=("_line_extra", "_row_extra", "_col_extra", "heuristic"))
def _ida_kernel(tiles, w, h, gap, max_nodes, path):
    """Iterative-deepening A* from ``tiles`` (a scratch copy: the search leaves it modified).

    The heuristic is updated per move: the moved tile's Manhattan term, and the conflicts of the two
    lines it leaves and enters (a tile sliding along a row keeps its order among that row's tiles,
    so only the two columns change, and vice versa). Returns ``(length, nodes, bound)``:
    ``length`` >= 0 the optimal length with the gap moves in ``path[:length]`` (indices into
    DR/DC); -1 when ``max_nodes`` ran out (``bound`` is then a proven lower bound); -2 when no
    solution exists within ``len(path)`` moves.
    """
    dr = np.array([-1, 1, 0, 0], np.int64)
    dc = np.array([0, 0, -1, 1], np.int64)
    inverse = np.array([1, 0, 3, 2], np.int64)
    vals = np.zeros(8, np.int64)
    lis = np.zeros(8, np.int64)
    depth_cap = path.shape[0]
    tried = np.zeros(depth_cap + 1, np.int64)
    gaps = np.zeros(depth_cap + 1, np.int64)
    hs = np.zeros(depth_cap + 1, np.int64)
    bound = heuristic(tiles, w, h)
    if bound == 0:
        return 0, 0, 0
    nodes = 0
    while bound < depth_cap:
        next_bound = 1 << 30
        depth = 0
        tried[0] = -1
        gaps[0] = gap
        hs[0] = heuristic(tiles, w, h)
        while depth >= 0:
            d = tried[depth] + 1
            g0 = gaps[depth]
            if d > 3:
                depth -= 1
                if depth >= 0:  # undo the move made from this depth
                    g = gaps[depth]
                    nb = gaps[depth + 1]
                    tiles[nb] = tiles[g]
                    tiles[g] = 0
                continue
            tried[depth] = d
            if depth > 0 and d == inverse[path[depth - 1]]:
                continue
            r = g0 // w + dr[d]
            c = g0 % w + dc[d]
            if r < 0 or r >= h or c < 0 or c >= w:
                continue
            nb = r * w + c
            t = tiles[nb]
            gr, gc = g0 // w, g0 % w
            if dr[d] != 0:  # the tile changes row: rows r and gr change their conflicts
                old = _row_extra(tiles, w, r, vals, lis) + _row_extra(tiles, w, gr, vals, lis)
            else:
                old = _col_extra(tiles, w, h, c, vals, lis) + _col_extra(tiles, w, h, gc, vals, lis)
            md_old = abs((t - 1) // w - r) + abs((t - 1) % w - c)
            tiles[g0] = t
            tiles[nb] = 0
            if dr[d] != 0:
                new = _row_extra(tiles, w, r, vals, lis) + _row_extra(tiles, w, gr, vals, lis)
            else:
                new = _col_extra(tiles, w, h, c, vals, lis) + _col_extra(tiles, w, h, gc, vals, lis)
            md_new = abs((t - 1) // w - gr) + abs((t - 1) % w - gc)
            nodes += 1
            hv = hs[depth] + md_new - md_old + new - old
            f = depth + 1 + hv
            if f > bound:
                next_bound = min(next_bound, f)
                tiles[nb] = tiles[g0]
                tiles[g0] = 0
                if nodes >= max_nodes:
                    return -1, nodes, bound
                continue
            path[depth] = d
            if hv == 0:
                return depth + 1, nodes, bound
            depth += 1
            gaps[depth] = nb
            hs[depth] = hv
            tried[depth] = -1
            if nodes >= max_nodes:
                return -1, nodes, bound
        bound = next_bound
    return -2, nodes, bound




def ida_star(tiles, w: int, h: int, max_nodes: int = DEFAULT_BUDGET) -> tuple[list[int] | None, int, int]:
    """``(gap_moves, lower_bound, nodes)``: an optimal list of gap moves (0 up, 1 down, 2 left,
    3 right) or None when the budget ran out (then ``lower_bound`` is proven)."""
    arr = np.asarray(tiles, np.int64)
    gap = int(np.flatnonzero(arr == 0)[0])
    path = np.zeros(200, np.int64)
    h0 = heuristic(arr, w, h)
    used = 0
    small = w * h <= 9  # 3x3 and smaller: at most a few hundred thousand nodes, never worth compiling
    if h0 < PYTHON_BELOW or small:
        budget = min(max_nodes, SMALL_BOARD_NODES if small else PYTHON_NODES)
        length, used, bound = _ida_kernel(arr.copy(), w, h, gap, budget, path)
        if length >= 0:
            return path[:length].tolist(), length, used
    search = compiled(_ida_kernel)
    length, nodes, bound = search(arr.copy(), w, h, gap, max(1, max_nodes - used), path)
    if length >= 0:
        return path[:length].tolist(), length, used + nodes
    return None, max(int(bound), h0), used + nodes


def weighted_astar(tiles, w: int, h: int, weight: float = 3.0, max_nodes: int = 2_000_000) -> list[int] | None:
    """A solution (gap moves) by weighted A* (f = g + weight * h): fast, not always optimal."""
    start = tuple(int(t) for t in tiles)
    if not solvable(start, w, h):
        return None
    parent: dict[tuple, tuple] = {start: (None, -1)}
    g_of = {start: 0}
    heap = [(weight * heuristic(np.asarray(start, np.int64), w, h), 0, start)]
    count = 0
    while heap and count < max_nodes:
        _, g, s = heapq.heappop(heap)
        if g > g_of.get(s, 1 << 30):
            continue
        count += 1
        hv = heuristic(np.asarray(s, np.int64), w, h)
        if hv == 0:
            out = []
            while parent[s][0] is not None:
                prev, d = parent[s]
                out.append(d)
                s = prev
            return out[::-1]
        gap = s.index(0)
        for d in range(4):
            r, c = gap // w + int(DR[d]), gap % w + int(DC[d])
            if 0 <= r < h and 0 <= c < w:
                nb = r * w + c
                t = list(s)
                t[gap], t[nb] = t[nb], 0
                t2 = tuple(t)
                if g + 1 < g_of.get(t2, 1 << 30):
                    g_of[t2] = g + 1
                    parent[t2] = (s, d)
                    heapq.heappush(heap, (g + 1 + weight * heuristic(np.asarray(t2, np.int64), w, h), g + 1, t2))
    return None
