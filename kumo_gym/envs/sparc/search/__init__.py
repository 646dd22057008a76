"""Exhaustive SPaRC path enumeration (``docs/specs/sparc.md`` §8).

Every simple ``S -> E`` path that satisfies the rules of docs/specs/sparc.md §5 is found by an iterative depth-first
search over line positions, in the fixed neighbour order +x, -y, -x, +y. The search runs in the
kernels of :mod:`kumo_gym.envs.sparc.search.kernels` over flat tables built here: natively when
``make install`` built them ahead of time (:mod:`kumo_gym.envs.build_native`), otherwise
its first nodes in plain Python and the rest (if any) compiled by numba, or loaded from numba's
cache, at the first search that needs them (the result is the same either way). Pruning, all sound, each
switchable (a test checks that switching any subset off changes no result):

* ``PRUNE_TRIANGLE`` (1): a triangle's touch count never exceeds its target;
* ``PRUNE_REACH`` (2): flood fill from the head over unvisited line positions: ``E``, every
  unvisited dot and enough untouched edges of every triangle must stay reachable, and every
  unvisited dot must keep two ways in and out (unvisited neighbours or the head);
* ``PRUNE_REGIONS`` (4): a cell region none of whose internal edge midpoints is still reachable
  can no longer be split, so its squares, stars and polyominoes are checked at once (and each
  triangle whose four edges are out of reach); in a region that can still be split, a star
  already short of a partner or polyominoes larger than the region (no ylops) prune as well.

Cells and gaps are never nodes. The flood fill and the region check run at corners only (an
edge midpoint has one way on, so its verdicts wait one node), and the region check is skipped
where it provably passes as it did at the corner before: when the last step left only itself
unreachable and either ran along the border or reached an inner corner with its other edges
free. At ``E`` the full rule check runs (the same region check with nothing reachable), so no
skip can change a result. :func:`enumerate_python` is a plain-Python enumerator of the same
search (pruning 1 and 2, rules checked by a callback) used by tests and the benchmark.

This module also holds the pure data helpers of the format (token kinds, colour codes,
polyshape arrays): the family's parser (:mod:`kumo_gym.envs.sparc.puzzle`) builds on them, and
the solver reads records, Instances and parsed puzzles without importing the family (layering).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np

PRUNE_TRIANGLE, PRUNE_REACH, PRUNE_REGIONS = 1, 2, 4
PRUNE_ALL = PRUNE_TRIANGLE | PRUNE_REACH | PRUNE_REGIONS

# ---- the token format (docs/specs/sparc.md §2, §3) --------------------------------------------------------------
#: colour codes of the token grammar, in a fixed order (index = colour id in the arrays)
COLOURS = "RBGYWOPK"
# Symbol kinds of a rule cell; the kernels use the same numbers.
NONE, SQUARE, STAR, TRIANGLE, POLY, YLOP = 0, 1, 2, 3, 4, 5
TRIANGLE_LETTERS = "ABCD"
#: directions k = 0..3 (+x, -y, -x, +y), the search's neighbour order
DIRECTION_STEPS = ((1, 0), (0, -1), (-1, 0), (0, 1))


def is_cell(x: int, y: int) -> bool:
    """Both coordinates odd: a rule cell, which the path never occupies (docs/specs/sparc.md §1)."""
    return (x & 1) == 1 and (y & 1) == 1


def symbol_of_token(tok: str) -> tuple[int, str, object] | None:
    """``(kind, colour letter, count or shape id)`` of a cell token, None for ``N`` (docs/specs/sparc.md §2).

    The token must already match the grammar (the family's parser checks it).
    """
    head = tok[0]
    if tok == "N":
        return None
    if head == "o":
        return SQUARE, tok[2], 0
    if head == "*":
        return STAR, tok[2], 0
    if head in TRIANGLE_LETTERS:
        return TRIANGLE, tok[2], TRIANGLE_LETTERS.index(head) + 1
    return (POLY if head == "P" else YLOP), tok[2], tok[4:]


def shape_cells(array) -> tuple[tuple[int, int], ...]:
    """The cells ``(dx, dy)`` of a 4x4 polyshape array ``arr[y][x]``, translated to min 0 (docs/specs/sparc.md §3).

    The array is authoritative; the shape's id is never decoded.
    """
    cells = [(x, y) for y, row in enumerate(array) for x, v in enumerate(row) if v]
    if not cells:
        return ()
    mx = min(x for x, _ in cells)
    my = min(y for _, y in cells)
    return tuple(sorted(((x - mx, y - my) for x, y in cells), key=lambda c: (c[1], c[0])))


# ---- Python side ---------------------------------------------------------------------------------
@dataclass
class SolveResult:
    """Outcome of an enumeration (docs/specs/sparc.md §8).

    ``count`` solutions were found (``cap + 1`` when ``capped``); ``solutions`` lists them as
    ``(x, y)`` paths in search order; ``shortest`` is the first of the fewest positions;
    ``nodes`` counts search nodes; ``complete`` is False when a node limit stopped the search.
    """

    count: int
    capped: bool
    solutions: list
    shortest: list | None
    nodes: int = 0
    complete: bool = True


def grid_tables(grid, shapes: dict) -> dict:
    """The solver's tables for a token grid ``grid[y][x]`` and ``shapes`` (id -> cells) (docs/specs/sparc.md §8).

    Position arrays (``q = y * cols + x``): ``line`` (may hold the path: not a cell, not a gap),
    ``dot``, ``kind`` and ``count`` (for the Python enumerator); ``nbr[4 q + k]`` the line
    position beside ``q`` in direction ``k`` or -1; ``edge_cell[2 q + i]`` the cells beside an
    edge midpoint. Cell arrays (``ci = cy * w + cx``): ``ckind``, ``ccolour``, ``ccount``,
    ``cshape`` (index into the shape table), ``cell_nb[4 ci + k]`` (the cell across edge ``k`` or
    -1) and ``cell_edge[4 ci + k]`` (that edge's position). Shapes: ``shape_cells[s, i] = (dx,
    dy)``, ``shape_size``, ``shape_w``, ``shape_h``. Every array is int64.
    """
    rows, cols = len(grid), len(grid[0])
    w, h = (cols - 1) // 2, (rows - 1) // 2
    n, nc = cols * rows, w * h
    line = np.zeros(n, np.int64)
    dot = np.zeros(n, np.int64)
    kind = np.zeros(n, np.int64)
    count = np.zeros(n, np.int64)
    ckind = np.zeros(nc, np.int64)
    ccolour = np.zeros(nc, np.int64)
    ccount = np.zeros(nc, np.int64)
    cshape = np.full(nc, -1, np.int64)
    sids = sorted(shapes)
    index = {sid: i for i, sid in enumerate(sids)}
    start = end = -1
    for y, row in enumerate(grid):
        for x, tok in enumerate(row):
            q = y * cols + x
            if is_cell(x, y):
                sym = symbol_of_token(tok)
                if sym is None:
                    continue
                ci = (y // 2) * w + x // 2
                kind[q] = ckind[ci] = sym[0]
                ccolour[ci] = COLOURS.index(sym[1])
                if sym[0] == TRIANGLE:
                    count[q] = ccount[ci] = sym[2]
                elif sym[0] in (POLY, YLOP):
                    cshape[ci] = index[sym[2]]
                continue
            line[q] = tok != "G"
            dot[q] = tok == "."
            if tok == "S":
                start = q
            elif tok == "E":
                end = q
    nbr, edge_cell, cell_nb, cell_edge = _geometry(w, h)
    nbr = nbr.copy()
    nbr[(nbr >= 0) & (line[nbr] == 0)] = -1  # no step onto a gap
    k = max(1, len(sids))
    shape_size = np.zeros(k, np.int64)
    shape_tab = np.zeros((k, 16, 2), np.int64)
    shape_w = np.ones(k, np.int64)
    shape_h = np.ones(k, np.int64)
    for i, sid in enumerate(sids):
        cells = shapes[sid]
        shape_size[i] = len(cells)
        for j, (dx, dy) in enumerate(cells):
            shape_tab[i, j] = (dx, dy)
        shape_w[i] = max(dx for dx, _ in cells) + 1
        shape_h[i] = max(dy for _, dy in cells) + 1
    return {"cols": cols, "rows": rows, "w": w, "h": h, "start": start, "end": end,
            "line": line, "dot": dot, "kind": kind, "count": count, "nbr": nbr, "edge_cell": edge_cell,
            "dots": np.flatnonzero(dot).astype(np.int64), "tris": np.flatnonzero(ckind == TRIANGLE).astype(np.int64),
            "ckind": ckind, "ccolour": ccolour, "ccount": ccount, "cshape": cshape, "cell_nb": cell_nb,
            "cell_edge": cell_edge, "shape_cells": shape_tab, "shape_size": shape_size, "shape_w": shape_w,
            "shape_h": shape_h}


@lru_cache(maxsize=64)
def _geometry(w: int, h: int) -> tuple:
    """The tables of :func:`grid_tables` that depend on the size alone (read-only): ``nbr``
    over every line position (gaps not yet taken out), ``edge_cell``, ``cell_nb`` and
    ``cell_edge``."""
    cols, rows = 2 * w + 1, 2 * h + 1
    n, nc = cols * rows, w * h
    nbr = np.full(4 * n, -1, np.int64)
    edge_cell = np.full(2 * n, -1, np.int64)
    for y in range(rows):
        for x in range(cols):
            q = y * cols + x
            if is_cell(x, y):
                continue
            for k, (dx, dy) in enumerate(DIRECTION_STEPS):
                nx, ny = x + dx, y + dy
                if 0 <= nx < cols and 0 <= ny < rows and not is_cell(nx, ny):
                    nbr[4 * q + k] = ny * cols + nx
            if (x + y) % 2 == 1:  # an edge midpoint: the cells on its two sides
                sides = [(x, y - 1), (x, y + 1)] if x % 2 == 1 else [(x - 1, y), (x + 1, y)]
                i = 0
                for cx, cy in sides:
                    if 0 <= cx < cols and 0 <= cy < rows:
                        edge_cell[2 * q + i] = (cy // 2) * w + cx // 2
                        i += 1
    cell_nb = np.full(4 * nc, -1, np.int64)
    cell_edge = np.zeros(4 * nc, np.int64)
    for ci in range(nc):
        cx, cy = ci % w, ci // w
        x, y = 2 * cx + 1, 2 * cy + 1
        for k, (dx, dy) in enumerate(DIRECTION_STEPS):
            cell_edge[4 * ci + k] = (y + dy) * cols + x + dx
            if 0 <= cx + dx < w and 0 <= cy + dy < h:
                cell_nb[4 * ci + k] = (cy + dy) * w + cx + dx
    for a in (nbr, edge_cell, cell_nb, cell_edge):
        a.flags.writeable = False
    return nbr, edge_cell, cell_nb, cell_edge


def record_shapes(polyshapes) -> dict:
    """``{id: cells}`` from a record's ``polyshapes`` (a JSON string or a dict of 4x4 arrays)."""
    if isinstance(polyshapes, str):
        polyshapes = json.loads(polyshapes or "{}")
    return {str(sid): shape_cells(arr) for sid, arr in (polyshapes or {}).items()}


def puzzle_data(obj) -> dict:
    """Solver tables from ready tables, a parsed puzzle (anything with ``grid`` and ``shapes``),
    an Instance (``.data`` holding a record), an official record or its JSON text."""
    if isinstance(obj, dict) and "nbr" in obj and "shape_cells" in obj:
        return obj
    if hasattr(obj, "grid") and hasattr(obj, "shapes"):
        return grid_tables(obj.grid, obj.shapes)
    data = getattr(obj, "data", None)
    if isinstance(data, dict):
        obj = data
    if isinstance(obj, str):
        obj = json.loads(obj)
    if isinstance(obj, dict):
        if "puzzle_array" not in obj and isinstance(obj.get("data"), dict):
            obj = obj["data"]
        if "puzzle_array" in obj:
            return grid_tables(obj["puzzle_array"], record_shapes(obj.get("polyshapes")))
    raise ValueError(f"cannot read a SPaRC puzzle from {type(obj).__name__}")


#: nodes per kernel call when a time limit is checked between calls
TIME_SLICE_NODES = 100_000
#: nodes an enumeration first explores in plain Python (no numba: small puzzles never compile);
#: a search still going then continues, from the same state, in the compiled kernel
PYTHON_SLICE_NODES = 10_000
#: plain-Python nodes a process may spend in all before every search goes straight to numba
#: (a process that compiles anyway loses at most this many, about 1.4 s)
PYTHON_NODES_PER_PROCESS = 70_000
_python_nodes = 0


def _pack(arrays: list) -> tuple[np.ndarray, np.ndarray]:
    """Arrays concatenated into one int64 array, with the offsets (``len + 1``) of each."""
    off = np.zeros(len(arrays) + 1, np.int64)
    off[1:] = np.cumsum([len(a) for a in arrays])
    return (np.concatenate([np.asarray(a, np.int64) for a in arrays]) if arrays else np.zeros(0, np.int64)), off


def _run(data: dict, cap: int, prune: int, node_limit: int, buffer: int, time_limit: float | None,
         python_nodes: int | None = None, python_slice: int | None = None):
    """One enumeration. The first ``python_nodes`` nodes (default: ``python_slice``, itself
    :data:`PYTHON_SLICE_NODES` by default, while the process has not compiled the kernel and has
    no native build of it, and no more than it has left of :data:`PYTHON_NODES_PER_PROCESS`) run
    as plain Python; the rest in the native build (:func:`kernels.native`) when there is one, else
    in the kernel compiled on first use; each resumes the same search state, so the result is the
    same either way."""
    global _python_nodes
    import time

    from . import kernels

    cols, rows, w, h = data["cols"], data["rows"], data["w"], data["h"]
    n, nc = cols * rows, w * h
    tab, off = _pack([data[name] for name in kernels.TABLES])
    sizes = {"visited": n, "reach": n, "touch": nc, "path": n + 1, "nextdir": n + 1, "comp_mark": nc, "ctr": 5,
             "fstack": n + 1, "comp": nc, "rsize": n + 1}
    st, soff = _pack([np.full(sizes[name], -1 if name == "comp_mark" else 0, np.int64) for name in kernels.STATE])
    sols = np.zeros((buffer, n + 1), np.int64)  # the last column holds each path's length
    work = np.zeros((kernels.WORK_ROWS, 4 * nc + 8), np.int64)
    symbols = bool(data["ckind"].any())
    pieces = bool((data["ckind"] >= kernels.POLY).any())
    ctr = st[soff[kernels.S_CTR]:soff[kernels.S_CTR + 1]]
    if python_nodes is None:
        left = 0 if kernels.compiled() else PYTHON_NODES_PER_PROCESS - _python_nodes
        python_nodes = max(0, min(PYTHON_SLICE_NODES if python_slice is None else python_slice, left))
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    stopped = False
    while True:
        budget = TIME_SLICE_NODES if deadline is not None else 0
        if node_limit > 0:
            left = node_limit - int(ctr[2])
            budget = min(budget, left) if budget else left
        args = (w, h, int(data["start"]), int(data["end"]), int(cap), int(prune))
        if python_nodes > 0:
            budget = min(budget, python_nodes) if budget else python_nodes
            # memoryviews of the same arrays: plain Python reads them as ints, about 2.5 times
            # faster than numpy scalars, and writes go to the arrays the kernel resumes from
            status = kernels.search(*args, int(budget), memoryview(tab), memoryview(off), memoryview(st),
                                    memoryview(soff), memoryview(data["shape_cells"]), memoryview(sols),
                                    [memoryview(row) for row in work], kernels.regions_plain(symbols),
                                    kernels.polys_plain(pieces))
            _python_nodes += int(ctr[2])
            python_nodes = 0
        elif kernels.native() is not None:  # built ahead of time: nothing to compile
            status = kernels.native()(*args, int(budget), tab, off, st, soff, data["shape_cells"], sols, work,
                                      int(symbols), int(pieces))
        else:
            status = kernels.compiled_search()(*args, int(budget), tab, off, st, soff, data["shape_cells"], sols,
                                               work, kernels.region_checker(symbols), kernels.poly_checker(pieces))
        if status != 2:
            break
        if (node_limit > 0 and ctr[2] >= node_limit) or (deadline is not None and time.perf_counter() > deadline):
            stopped = True
            break
    return int(ctr[1]), int(ctr[2]), stopped, sols[:, :-1], sols[:, -1]


def preferring(data: dict, path) -> dict:
    """``data`` whose search tries the steps of ``path`` (``(x, y)`` positions) first: at each
    position of the path its next position leads the neighbour order, the other directions
    follow in their usual order. The solutions are the same; a search that runs to the end finds
    them in another order, and a search cut short (``cap``, ``node_limit``) starts from ``path``
    and the lines that branch off it late."""
    cols = data["cols"]
    nbr = data["nbr"].reshape(-1, 4).copy()
    steps = [(y * cols + x, ny * cols + nx) for (x, y), (nx, ny) in pairwise(path)]
    if steps:
        q, nq = np.array(steps, np.int64).T
        rows = nbr[q]
        # the step first, the other directions in their order (a stable sort on that key)
        order = np.argsort(np.where(rows == nq[:, None], -1, np.arange(4)), axis=1, kind="stable")
        nbr[q] = np.take_along_axis(rows, order, axis=1)
    return {**data, "nbr": nbr.ravel()}


def within(data: dict, paths) -> dict:
    """``data`` whose search takes only the steps of ``paths`` (lists of ``(x, y)``; each step
    either way), in the usual neighbour order: it finds exactly the solutions among the lines
    made of those steps, in the order a full search finds them. A caller that knows every solution of a puzzle and has only
    added constraints that rule lines out since recounts them this way."""
    cols = data["cols"]
    nbr = data["nbr"].reshape(-1, 4)
    keep = np.full_like(nbr, -1)
    steps = [(y * cols + x, ny * cols + nx) for path in paths for (x, y), (nx, ny) in pairwise(path)]
    if steps:
        a, b = np.array(steps, np.int64).T
        frm, to = np.concatenate([a, b]), np.concatenate([b, a])  # both ways: the pruning reads both
        rows, ks = np.nonzero(nbr[frm] == to[:, None])
        keep[frm[rows], ks] = to[rows]
    keep = keep.ravel()
    return {**data, "nbr": keep}


def enumerate_solutions(puzzle, cap: int | None = 50, prune: int = PRUNE_ALL, node_limit: int = 0,
                        time_limit: float | None = None, python_slice: int | None = None,
                        prefer=None, within_paths=None) -> SolveResult:
    """Every solution of ``puzzle`` up to ``cap`` (docs/specs/sparc.md §8).

    Stops after ``cap + 1`` solutions (``capped=True``); ``cap=None`` is exhaustive.
    ``node_limit > 0`` (search nodes) and ``time_limit`` (seconds, checked every
    :data:`TIME_SLICE_NODES` nodes) bound the search; ``complete=False`` says one was hit.
    ``python_slice``: the most nodes this search runs in plain Python before the compiled kernel
    takes over (default :data:`PYTHON_SLICE_NODES`; a caller that expects small searches may
    allow more, so that its process never compiles); it changes no result. ``prefer``: a path
    whose steps the search tries first (:func:`preferring`); ``within_paths``: paths outside
    whose steps the search never goes (:func:`within`).
    """
    data = puzzle_data(puzzle)
    cols = data["cols"]
    if within_paths is not None:
        data = within(data, within_paths)
    if prefer is not None:
        data = preferring(data, prefer)
    if cap is None:
        buffer = 256
        while True:
            found, nodes, stopped, sols, lens = _run(data, -1, prune, node_limit, buffer, time_limit,
                                                     python_slice=python_slice)
            if found <= buffer:
                break
            buffer = found  # more solutions than stored: run again with room for all
    else:
        if cap < 0:
            raise ValueError(f"cap {cap} must be >= 0 or None")
        found, nodes, stopped, sols, lens = _run(data, cap, prune, node_limit, cap + 1, time_limit,
                                                 python_slice=python_slice)
    paths = [[(int(q % cols), int(q // cols)) for q in sols[i, :lens[i]]] for i in range(min(found, len(lens)))]
    shortest = min(paths, key=len) if paths else None
    capped = cap is not None and found > cap
    return SolveResult(found, capped, paths, shortest, nodes, not stopped)


def solve_all(instance, limit: int | None = None) -> list[list[tuple[int, int]]]:
    """All solution paths of ``instance`` (each a list of ``(x, y)`` from S to E), at most
    ``limit`` of them; exhaustive when ``limit`` is None."""
    if limit is None:
        return enumerate_solutions(instance, cap=None).solutions
    if limit <= 0:
        return []
    return enumerate_solutions(instance, cap=limit - 1).solutions[:limit]


def count_solutions(instance, cap: int | None = 50) -> int:
    return enumerate_solutions(instance, cap=cap).count


def enumerate_python(data: dict, is_solution, cap: int | None = None, prune: int = PRUNE_TRIANGLE | PRUNE_REACH,
                     time_limit: float | None = None) -> SolveResult:
    """The same search in plain Python with pruning 1 and 2 (docs/specs/sparc.md §8), for tests and benchmarks.

    ``is_solution(path)`` decides at ``E`` (the family passes its rule checker). A search cut by
    ``time_limit`` seconds returns ``complete=False``.
    """
    import time

    data = puzzle_data(data)
    cols, rows = data["cols"], data["rows"]
    line, dot, kind, count = data["line"], data["dot"], data["kind"], data["count"]
    start, end = int(data["start"]), int(data["end"])
    triangles = [q for q in range(cols * rows) if kind[q] == TRIANGLE]
    dots = [q for q in range(cols * rows) if dot[q]]
    dirs = [(1, 0), (0, -1), (-1, 0), (0, 1)]

    def neighbours(q):
        x, y = q % cols, q // cols
        for dx, dy in dirs:
            nx, ny = x + dx, y + dy
            if 0 <= nx < cols and 0 <= ny < rows:
                yield ny * cols + nx

    touch = [0] * (cols * rows)
    visited = [False] * (cols * rows)
    path = [start]
    solutions = []
    nodes = 0
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    timed_out = False

    def step_touch(q, delta):
        x, y = q % cols, q // cols
        if (x + y) % 2 == 1:
            for c in neighbours(q):
                touch[c] += delta

    def viable(head) -> bool:
        if prune & PRUNE_TRIANGLE and any(touch[c] > count[c] for c in triangles):
            return False
        if not prune & PRUNE_REACH:
            return True
        seen = {head}
        stack = [head]
        while stack:
            for a in neighbours(stack.pop()):
                if line[a] and not visited[a] and a not in seen:
                    seen.add(a)
                    stack.append(a)
        if end not in seen or any(not visited[q] and q not in seen for q in dots):
            return False
        for q in dots:  # a dot needs two ways in and out: unvisited neighbours or the head
            if not visited[q] and sum(1 for a in neighbours(q) if line[a] and (not visited[a] or a == head)) < 2:
                return False
        for c in triangles:
            avail = touch[c] + sum(1 for e in neighbours(c) if not visited[e] and e in seen)
            if avail < count[c]:
                return False
        return True

    def dfs(q):
        nonlocal nodes, timed_out
        for a in neighbours(q):
            if timed_out or (cap is not None and len(solutions) > cap):
                return
            if not line[a] or visited[a]:
                continue
            nodes += 1
            if deadline is not None and nodes % 4096 == 0 and time.perf_counter() > deadline:
                timed_out = True
                return
            visited[a] = True
            path.append(a)
            step_touch(a, 1)
            if a == end:
                pts = [(p % cols, p // cols) for p in path]
                if is_solution(pts):
                    solutions.append(pts)
            elif viable(a):
                dfs(a)
            step_touch(a, -1)
            path.pop()
            visited[a] = False

    import sys

    visited[start] = True
    step_touch(start, 1)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * cols * rows + 100))
    try:
        dfs(start)
    finally:
        sys.setrecursionlimit(old)
    capped = cap is not None and len(solutions) > cap
    shortest = min(solutions, key=len) if solutions else None
    return SolveResult(len(solutions), capped, solutions, shortest, nodes, not timed_out)
