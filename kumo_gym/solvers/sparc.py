"""Exhaustive SPaRC path enumeration (spec ``shared/specs/sparc.md`` §8).

Every simple ``S -> E`` path that satisfies the rules of §5 is found by an iterative depth-first
search over line positions, in the fixed neighbour order +x, -y, -x, +y. The search runs in one
numba kernel over flat arrays (positions ``q = y * cols + x``). Pruning, all sound, each
switchable (a test checks that switching any subset off changes no result):

* ``PRUNE_TRIANGLE`` (1): a triangle's touch count never exceeds its target;
* ``PRUNE_REACH`` (2): flood fill from the head over unvisited line positions: ``E``, every
  unvisited dot and enough untouched edges of every triangle must stay reachable;
* ``PRUNE_REGIONS`` (4): a cell region none of whose internal edge midpoints is still reachable
  can no longer be split, so its squares, stars and polyominoes are checked at once (and each
  triangle whose four edges are out of reach); in a region that can still be split, a star
  already short of a partner or polyominoes larger than the region (no ylops) prune as well.

Cells and gaps are never nodes. At ``E`` the full rule check runs (the same region check
with nothing reachable). :func:`enumerate_python` is a plain-Python enumerator of the same
search (pruning 1 and 2, rules checked by a callback) used by tests and the benchmark.

The kernels work on arrays only; :func:`solve_all` and :func:`enumerate_solutions` also accept an
Instance or an official record and convert it with the family's parser (imported lazily).
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

PRUNE_TRIANGLE, PRUNE_REACH, PRUNE_REGIONS = 1, 2, 4
PRUNE_ALL = PRUNE_TRIANGLE | PRUNE_REACH | PRUNE_REGIONS

# symbol kinds (same numbers as kumo_gym.envs.sparc.puzzle)
_SQUARE, _STAR, _TRIANGLE, _POLY, _YLOP = 1, 2, 3, 4, 5
_DX = np.array([1, 0, -1, 0], np.int64)
_DY = np.array([0, -1, 0, 1], np.int64)


@numba.njit(cache=True)
def _tile(demand, w, h, pieces, npieces, shape_cells, shape_size, used, st_piece, st_ox, st_oy, next_cand):
    """Exact cover of ``demand`` (per cell, may be > 1) by every piece in ``pieces`` (translated
    only). The first cell with demand left (row-major) must be a piece's first cell, so each
    level tries one anchor; identical shapes are used in index order."""
    for i in range(npieces):
        used[i] = 0
    depth = 0
    next_cand[0] = 0
    while True:
        f = -1
        for i in range(w * h):
            if demand[i] > 0:
                f = i
                break
        placed = False
        if f < 0:
            if depth == npieces:
                return True
        else:
            fx = f % w
            fy = f // w
            i = next_cand[depth]
            while i < npieces:
                s = pieces[i]
                if used[i] == 0 and not (i > 0 and pieces[i - 1] == s and used[i - 1] == 0):
                    ox = fx - shape_cells[s, 0, 0]
                    oy = fy - shape_cells[s, 0, 1]
                    ok = True
                    for j in range(shape_size[s]):
                        cx = ox + shape_cells[s, j, 0]
                        cy = oy + shape_cells[s, j, 1]
                        if cx < 0 or cy < 0 or cx >= w or cy >= h or demand[cy * w + cx] <= 0:
                            ok = False
                            break
                    if ok:
                        for j in range(shape_size[s]):
                            demand[(oy + shape_cells[s, j, 1]) * w + ox + shape_cells[s, j, 0]] -= 1
                        used[i] = 1
                        st_piece[depth] = i
                        st_ox[depth] = ox
                        st_oy[depth] = oy
                        next_cand[depth] = i + 1
                        depth += 1
                        next_cand[depth] = 0
                        placed = True
                        break
                i += 1
        if not placed:
            depth -= 1
            if depth < 0:
                return False
            i = st_piece[depth]
            s = pieces[i]
            for j in range(shape_size[s]):
                demand[(st_oy[depth] + shape_cells[s, j, 1]) * w + st_ox[depth] + shape_cells[s, j, 0]] += 1
            used[i] = 0


@numba.njit(cache=True)
def _poly_ok(region_cells, nreg, w, h, polys, npolys, ylops, nylops, shape_cells, shape_size, shape_w, shape_h,
             work):
    """The poly/ylop rule of §5 for one region (cells given as indices ``cy * w + cx``)."""
    if npolys == 0 and nylops == 0:
        return True
    net = 0
    for i in range(npolys):
        net += shape_size[polys[i]]
    for i in range(nylops):
        net -= shape_size[ylops[i]]
    if net < 0 or (net > 0 and net != nreg):
        return False
    demand = work[0]
    for i in range(w * h):
        demand[i] = 0
    if net > 0:
        for i in range(nreg):
            demand[region_cells[i]] = 1
    used, st_piece, st_ox, st_oy, next_cand, tpos = work[1], work[2], work[3], work[4], work[5], work[6]
    if nylops == 0:
        return _tile(demand, w, h, polys, npolys, shape_cells, shape_size, used, st_piece, st_ox, st_oy, next_cand)
    # odometer over ylop translations; identical ylops in non-decreasing translation order
    placed = work[12]
    k = 0
    tpos[0] = -1
    placed[0] = 0
    while k >= 0:
        if k == nylops:
            if _tile(demand, w, h, polys, npolys, shape_cells, shape_size, used, st_piece, st_ox, st_oy,
                     next_cand):
                return True
            k -= 1
            continue
        s = ylops[k]
        if placed[k] == 1:
            ox, oy = tpos[k] % w, tpos[k] // w
            for j in range(shape_size[s]):
                demand[(oy + shape_cells[s, j, 1]) * w + ox + shape_cells[s, j, 0]] -= 1
            placed[k] = 0
        t = tpos[k] + 1
        while t < w * h and (t % w + shape_w[s] > w or t // w + shape_h[s] > h):
            t += 1
        if t >= w * h:
            k -= 1
            continue
        tpos[k] = t
        ox, oy = t % w, t // w
        for j in range(shape_size[s]):
            demand[(oy + shape_cells[s, j, 1]) * w + ox + shape_cells[s, j, 0]] += 1
        placed[k] = 1
        k += 1
        if k < nylops:
            tpos[k] = (t - 1) if ylops[k] == s else -1
            placed[k] = 0
    return False


@numba.njit(cache=True)
def _regions_ok(cols, rows, visited, reach, stamp, kind, colour, count, shape, touch,
                shape_cells, shape_size, shape_w, shape_h, comp, comp_mark, depth, use_marks, work):
    """Check every region that can no longer change (all of them when nothing is reachable).

    A region is final when none of its internal edge midpoints (between two of its cells) is an
    unvisited reachable position: the future path cannot split it. Its squares, stars and
    polyominoes are checked then; a triangle in it only once its own four edges are closed.
    ``comp_mark[ci]`` records the search depth at which a cell's final region was verified, so
    descendants skip regions their ancestors checked (marks from abandoned branches are cleared).
    """
    w = (cols - 1) // 2
    h = (rows - 1) // 2
    nc = w * h
    if use_marks:
        for ci in range(nc):
            if comp_mark[ci] >= depth:
                comp_mark[ci] = -1
    for ci in range(nc):
        comp[ci] = -1
    stack = work[7]
    members = work[8]
    polys = work[9]
    ylops = work[10]
    ccount = work[11]
    ncomp = 0
    for c0 in range(nc):
        if comp[c0] >= 0:
            continue
        # flood fill of one region
        comp[c0] = ncomp
        nmem = 0
        sp = 0
        stack[sp] = c0
        sp += 1
        final = True
        while sp > 0:
            sp -= 1
            ci = stack[sp]
            members[nmem] = ci
            nmem += 1
            cx = ci % w
            cy = ci // w
            x = 2 * cx + 1
            y = 2 * cy + 1
            for k in range(4):
                ex = x + (1 if k == 0 else (-1 if k == 2 else 0))
                ey = y + (-1 if k == 1 else (1 if k == 3 else 0))
                e = ey * cols + ex
                if visited[e] == 0:
                    nx = cx + (1 if k == 0 else (-1 if k == 2 else 0))
                    ny = cy + (-1 if k == 1 else (1 if k == 3 else 0))
                    if 0 <= nx < w and 0 <= ny < h:
                        # only an internal edge can still split the region; border edges
                        # change triangle counts alone, which are checked per cell below
                        if reach[e] == stamp:
                            final = False
                        nci = ny * w + nx
                        if comp[nci] < 0:
                            comp[nci] = ncomp
                            stack[sp] = nci
                            sp += 1
        ncomp += 1
        if not final:
            # the future path can only split this region further, so a star already short of
            # partners, or polyominoes larger than the region (without ylops), stay broken
            for i in range(8):
                ccount[i] = 0
            parea = 0
            has_ylop = False
            for m in range(nmem):
                ci = members[m]
                q = (2 * (ci // w) + 1) * cols + 2 * (ci % w) + 1
                if kind[q] != 0:
                    ccount[colour[q]] += 1
                    if kind[q] == _POLY:
                        parea += shape_size[shape[q]]
                    elif kind[q] == _YLOP:
                        has_ylop = True
            if not has_ylop and parea > nmem:
                return False
            for m in range(nmem):
                ci = members[m]
                q = (2 * (ci // w) + 1) * cols + 2 * (ci % w) + 1
                if kind[q] == _STAR and ccount[colour[q]] < 2:
                    return False
            continue
        if use_marks and comp_mark[c0] >= 0:
            continue
        # squares, stars, triangles; gather pieces
        for i in range(8):
            ccount[i] = 0
        sq = -1
        npl = 0
        nyl = 0
        for m in range(nmem):
            ci = members[m]
            q = (2 * (ci // w) + 1) * cols + 2 * (ci % w) + 1
            kd = kind[q]
            if kd == 0:
                continue
            ccount[colour[q]] += 1
            if kd == _SQUARE:
                if sq < 0:
                    sq = colour[q]
                elif sq != colour[q]:
                    return False
            elif kd == _TRIANGLE:
                # final only when none of the cell's edges can still be reached
                closed = True
                for k in range(4):
                    e = q + (1 if k == 0 else (-1 if k == 2 else 0)) + cols * (-1 if k == 1 else (1 if k == 3 else 0))
                    if visited[e] == 0 and reach[e] == stamp:
                        closed = False
                if closed and touch[q] != count[q]:
                    return False
            elif kd == _POLY:
                polys[npl] = shape[q]
                npl += 1
            elif kd == _YLOP:
                ylops[nyl] = shape[q]
                nyl += 1
        for m in range(nmem):
            ci = members[m]
            q = (2 * (ci // w) + 1) * cols + 2 * (ci % w) + 1
            if kind[q] == _STAR and ccount[colour[q]] != 2:
                return False
        if npl + nyl > 0:
            polys[:npl].sort()
            ylops[:nyl].sort()
            if not _poly_ok(members, nmem, w, h, polys, npl, ylops, nyl, shape_cells, shape_size, shape_w,
                            shape_h, work):
                return False
        if use_marks:
            for m in range(nmem):
                comp_mark[members[m]] = depth
    return True


@numba.njit(cache=True)
def _touch_cells(q, cols, rows, touch, delta):
    """Add ``delta`` to the touch counters of the cells beside an edge midpoint ``q``."""
    x, y = q % cols, q // cols
    if (x + y) % 2 == 1:
        for k in range(4):
            cx, cy = x + _DX[k], y + _DY[k]
            if 0 <= cx < cols and 0 <= cy < rows:
                touch[cy * cols + cx] += delta


@numba.njit(cache=True)
def _enumerate(cols, rows, line, dot, kind, colour, count, shape, shape_cells, shape_size, shape_w, shape_h,
               start, end, cap, prune, node_budget, sols, sol_len, visited, reach, touch, path, nextdir, comp_mark,
               ctr):
    """The search, resumable: its state lives in the arrays passed in and in ``ctr`` = (depth,
    solutions found, nodes expanded, flood stamp, started). Returns 0 when the search is over,
    1 when it stopped after ``cap + 1`` solutions (``cap >= 0``), 2 when ``node_budget`` nodes
    (> 0) were expanded in this call; calling again continues where it stopped.

    Solutions beyond the buffer ``sols`` are counted but not stored.
    """
    n = cols * rows
    w = (cols - 1) // 2
    h = (rows - 1) // 2
    fstack = np.zeros(n + 1, np.int64)
    comp = np.zeros(w * h, np.int64)
    work = np.zeros((13, max(64, 4 * w * h + 8)), np.int64)
    tri = np.zeros(n, np.int64)
    ntri = 0
    dots = np.zeros(n, np.int64)
    ndots = 0
    for q in range(n):
        if kind[q] == _TRIANGLE:
            tri[ntri] = q
            ntri += 1
        if dot[q] == 1:
            dots[ndots] = q
            ndots += 1
    maxsol = sols.shape[0]
    if ctr[4] == 0:
        path[0] = start
        visited[start] = 1
        _touch_cells(start, cols, rows, touch, 1)
        nextdir[0] = 0
        ctr[4] = 1
    d = ctr[0]
    found = ctr[1]
    nodes = ctr[2]
    stamp = ctr[3]
    nodes_at_entry = nodes
    while d >= 0:
        q = path[d]
        if nextdir[d] >= 4:
            # retreat: undo the head
            visited[q] = 0
            _touch_cells(q, cols, rows, touch, -1)
            d -= 1
            continue
        k = nextdir[d]
        nextdir[d] += 1
        qx, qy = q % cols, q // cols
        nx, ny = qx + _DX[k], qy + _DY[k]
        if nx < 0 or ny < 0 or nx >= cols or ny >= rows:
            continue
        nq = ny * cols + nx
        if line[nq] == 0 or visited[nq] == 1:
            continue
        nodes += 1
        # step onto nq
        visited[nq] = 1
        path[d + 1] = nq
        over = False
        is_edge = (nx + ny) % 2 == 1
        if is_edge:
            for kk in range(4):
                cx, cy = nx + _DX[kk], ny + _DY[kk]
                if 0 <= cx < cols and 0 <= cy < rows:
                    c = cy * cols + cx
                    touch[c] += 1
                    if kind[c] == _TRIANGLE and touch[c] > count[c] and (prune & 1) != 0:
                        over = True
        ok = not over
        if ok and nq == end:
            # full check: everything final; dots all visited
            for i in range(ndots):
                if visited[dots[i]] == 0:
                    ok = False
                    break
            if ok:
                stamp += 1
                reach[nq] = stamp
                ok = _regions_ok(cols, rows, visited, reach, stamp, kind, colour, count, shape, touch,
                                 shape_cells, shape_size, shape_w, shape_h, comp, comp_mark, d + 1, False, work)
            if ok:
                if found < maxsol:
                    for i in range(d + 2):
                        sols[found, i] = path[i]
                    sol_len[found] = d + 2
                found += 1
            ok = False  # E ends the path either way
        elif ok and (prune & 2) != 0:
            stamp += 1
            sp = 0
            fstack[sp] = nq
            sp += 1
            reach[nq] = stamp
            while sp > 0:
                sp -= 1
                p = fstack[sp]
                px, py = p % cols, p // cols
                for kk in range(4):
                    ax, ay = px + _DX[kk], py + _DY[kk]
                    if 0 <= ax < cols and 0 <= ay < rows:
                        a = ay * cols + ax
                        if line[a] == 1 and visited[a] == 0 and reach[a] != stamp:
                            reach[a] = stamp
                            fstack[sp] = a
                            sp += 1
            if reach[end] != stamp:
                ok = False
            if ok:
                for i in range(ndots):
                    if visited[dots[i]] == 0 and reach[dots[i]] != stamp:
                        ok = False
                        break
            if ok:
                for i in range(ntri):
                    c = tri[i]
                    cx, cy = c % cols, c // cols
                    avail = touch[c]
                    for kk in range(4):
                        e = (cy + _DY[kk]) * cols + cx + _DX[kk]
                        if visited[e] == 0 and reach[e] == stamp:
                            avail += 1
                    if avail < count[c]:
                        ok = False
                        break
            if ok and (prune & 4) != 0:
                ok = _regions_ok(cols, rows, visited, reach, stamp, kind, colour, count, shape, touch,
                                 shape_cells, shape_size, shape_w, shape_h, comp, comp_mark, d + 1, True, work)
        if ok:
            d += 1
            nextdir[d] = 0
        else:
            visited[nq] = 0
            _touch_cells(nq, cols, rows, touch, -1)
        if cap >= 0 and found > cap:
            ctr[0], ctr[1], ctr[2], ctr[3] = d, found, nodes, stamp
            return 1
        if node_budget > 0 and nodes - nodes_at_entry >= node_budget:
            ctr[0], ctr[1], ctr[2], ctr[3] = d, found, nodes, stamp
            return 2
    ctr[0], ctr[1], ctr[2], ctr[3] = d, found, nodes, stamp
    return 0


# ---- Python side ---------------------------------------------------------------------------------
@dataclass
class SolveResult:
    """Outcome of an enumeration (§8).

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


def puzzle_data(obj) -> dict:
    """Solver arrays from an Instance, an official record, a SparcPuzzle or ready arrays."""
    if isinstance(obj, dict) and "line" in obj and "shape_cells" in obj:
        data = obj
    else:
        from ..envs.sparc.puzzle import puzzle_arrays, to_puzzle  # lazy: the parser lives with the family

        data = puzzle_arrays(to_puzzle(obj))
    if "shape_w" not in data:
        cells, size = data["shape_cells"], data["shape_size"]
        data["shape_w"] = np.array([cells[i, :max(1, size[i]), 0].max() + 1 for i in range(len(size))], np.int64)
        data["shape_h"] = np.array([cells[i, :max(1, size[i]), 1].max() + 1 for i in range(len(size))], np.int64)
    return data


#: nodes per kernel call when a time limit is checked between calls
TIME_SLICE_NODES = 100_000


def _run(data: dict, cap: int, prune: int, node_limit: int, buffer: int, time_limit: float | None):
    import time

    cols, rows = data["cols"], data["rows"]
    n = cols * rows
    sols = np.zeros((buffer, n + 1), np.int64)
    lens = np.zeros(buffer, np.int64)
    state = (np.zeros(n, np.int8), np.zeros(n, np.int64), np.zeros(n, np.int16), np.zeros(n + 1, np.int64),
             np.zeros(n + 1, np.int64), np.full(((cols - 1) // 2) * ((rows - 1) // 2), -1, np.int64))
    ctr = np.zeros(5, np.int64)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    stopped = False
    while True:
        budget = TIME_SLICE_NODES if deadline is not None else 0
        if node_limit > 0:
            left = node_limit - int(ctr[2])
            budget = min(budget, left) if budget else left
        status = _enumerate(cols, rows, data["line"], data["dot"], data["kind"], data["colour"], data["count"],
                            data["shape"], data["shape_cells"], data["shape_size"], data["shape_w"], data["shape_h"],
                            data["start"], data["end"], cap, prune, budget, sols, lens, *state, ctr)
        if status != 2:
            break
        if (node_limit > 0 and ctr[2] >= node_limit) or (deadline is not None and time.perf_counter() > deadline):
            stopped = True
            break
    return int(ctr[1]), int(ctr[2]), stopped, sols, lens


def enumerate_solutions(puzzle, cap: int | None = 50, prune: int = PRUNE_ALL, node_limit: int = 0,
                        time_limit: float | None = None) -> SolveResult:
    """Every solution of ``puzzle`` up to ``cap`` (§8).

    Stops after ``cap + 1`` solutions (``capped=True``); ``cap=None`` is exhaustive.
    ``node_limit > 0`` (search nodes) and ``time_limit`` (seconds, checked every
    :data:`TIME_SLICE_NODES` nodes) bound the search; ``complete=False`` says one was hit.
    """
    data = puzzle_data(puzzle)
    cols = data["cols"]
    if cap is None:
        buffer = 256
        while True:
            found, nodes, stopped, sols, lens = _run(data, -1, prune, node_limit, buffer, time_limit)
            if found <= buffer:
                break
            buffer = found  # more solutions than stored: run again with room for all
    else:
        if cap < 0:
            raise ValueError(f"cap {cap} must be >= 0 or None")
        found, nodes, stopped, sols, lens = _run(data, cap, prune, node_limit, cap + 1, time_limit)
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
    """The same search in plain Python with pruning 1 and 2 (§8), for tests and benchmarks.

    ``is_solution(path)`` decides at ``E`` (the family passes its rule checker). A search cut by
    ``time_limit`` seconds returns ``complete=False``.
    """
    import time

    data = puzzle_data(data)
    cols, rows = data["cols"], data["rows"]
    line, dot, kind, count = data["line"], data["dot"], data["kind"], data["count"]
    start, end = int(data["start"]), int(data["end"])
    triangles = [q for q in range(cols * rows) if kind[q] == _TRIANGLE]
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
