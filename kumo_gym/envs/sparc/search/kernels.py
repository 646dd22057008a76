"""The SPaRC enumerator's search (``docs/specs/sparc.md`` §8), as plain Python functions
compiled by numba on demand.

Written to compile quickly, because a fresh process compiles them at its first large SPaRC
search: every kernel has one explicit signature (numba never compiles a second,
literally specialised copy), every array is ``int64``, the geometry comes in as precomputed tables
(neighbours, the cells beside each edge, the edges of each cell) packed into one array with an
offset table, so no kernel does index arithmetic, allocates or counts references. The region
check and the poly/ylop check are separate kernels called through function pointers: each is
compiled once, only when a puzzle needs it (:func:`region_checker`, :func:`poly_checker`), and
never re-linked into its callers.

The same functions also run as they are, in plain Python over memoryviews of the same arrays
(``search``, ``regions_plain``, ``polys_plain``): :mod:`kumo_gym.envs.sparc.search` explores the
first nodes of a search that way, so small puzzles never import numba (about 20 us a node
against 0.2 us, but no compile time), and hands the search state on to
:func:`compiled_search` when the search grows.

``make install`` also builds these functions ahead of time, into the one native extension of
:mod:`kumo_gym.solvers.native` (``python -m kumo_gym.envs.build_native``; the entry point is
:func:`sparc_search`, loaded by :func:`native`): a process that has it neither imports numba nor
compiles anything, at any search size.

Position tables are indexed by ``q = y * cols + x``; cell tables by ``ci = cy * w + cx`` (the
cell at ``(2 cx + 1, 2 cy + 1)``). Directions ``k = 0..3`` are +x, -y, -x, +y.
"""
from __future__ import annotations

from functools import cache

from ....solvers.native import compiled as twin
from ....solvers.native import export_name, kernel, native_module

SQUARE, STAR, TRIANGLE, POLY, YLOP = 1, 2, 3, 4, 5
#: the tables packed into ``tab`` (``tab[off[i]:off[i + 1]]`` is table ``TABLES[i]``)
TABLES = ("nbr", "edge_cell", "cell_nb", "cell_edge", "dots", "tris", "ckind", "ccolour", "ccount", "cshape",
          "shape_size", "shape_w", "shape_h")
(T_NBR, T_EDGE_CELL, T_CELL_NB, T_CELL_EDGE, T_DOTS, T_TRIS, T_CKIND, T_CCOLOUR, T_CCOUNT, T_CSHAPE, T_SSIZE, T_SW,
 T_SH) = range(len(TABLES))
#: the search state packed into ``st`` (same layout rule with ``soff``); ``ctr`` = (depth,
#: solutions found, nodes expanded, flood stamp, started)
STATE = ("visited", "reach", "touch", "path", "nextdir", "comp_mark", "ctr", "fstack", "comp", "rsize")
S_VISITED, S_REACH, S_TOUCH, S_PATH, S_NEXTDIR, S_MARK, S_CTR, S_FSTACK, S_COMP, S_RSIZE = range(len(STATE))
#: rows of the ``work`` buffer (each ``4 * w * h + 8`` long)
W_DEMAND, W_USED, W_PIECE, W_OX, W_OY, W_NEXT, W_TPOS, W_STACK, W_MEMBERS, W_POLYS, W_YLOPS, W_COUNT, W_PLACED = \
    range(13)
WORK_ROWS = 13

_OPTS = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}
#: kernels called only from other kernels need no Python wrapper
_INNER = {**_OPTS, "no_cpython_wrapper": True}


@cache
def _signatures():
    """The kernels' signatures (numba is imported on the first compile only)."""
    from numba import types as nt

    i, a, a2, a3 = nt.int64, nt.int64[::1], nt.int64[:, ::1], nt.int64[:, :, ::1]
    # the poly/ylop check of one region: (tab, off, shape_cells, work, region size, w, h, #polys, #ylops)
    poly_sig = nt.boolean(a, a, a3, a2, i, i, i, i, i)
    # the region check: (w, h, tab, off, st, soff, shape_cells, work, stamp, depth, use_marks, poly check)
    regions_sig = nt.boolean(i, i, a, a, a, a, a3, a2, i, i, i, nt.FunctionType(poly_sig))
    search_sig = nt.int64(i, i, i, i, i, i, i, a, a, a, a, a3, a2, a2, nt.FunctionType(regions_sig),
                          nt.FunctionType(poly_sig))
    tile_sig = nt.boolean(a, i, i, a, i, a3, a, a2)
    return {"poly": poly_sig, "regions": regions_sig, "search": search_sig, "tile": tile_sig}


def _njit(fn, sig: str, **bound):
    """``fn`` compiled with signature ``sig`` (its numba twin, :func:`kumo_gym.solvers.native.compiled`);
    ``bound`` rebinds globals it calls (compiled callees), leaving the plain function as it is."""
    return twin(fn, _signatures()[sig], **bound)


@kernel(python=True, no_cfunc_wrapper=True, **_INNER)
def _tile(demand, w, h, pieces, npieces, shape_cells, shape_size, work):
    """Exact cover of ``demand`` (per cell, may be > 1) by every piece in ``pieces`` (translated
    only). The first cell with demand left (row-major) must be a piece's first cell, so each
    level tries one anchor; identical shapes are used in index order."""
    used, st_piece, st_ox, st_oy, next_cand = work[W_USED], work[W_PIECE], work[W_OX], work[W_OY], work[W_NEXT]
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


@kernel(python=True, **_INNER)
def _poly_ok(tab, off, shape_cells, work, nreg, w, h, npolys, nylops):
    """The poly/ylop rule of docs/specs/sparc.md §5 for one region: its cells are ``work[W_MEMBERS][:nreg]`` (as
    ``cy * w + cx``), its pieces' shape indices ``work[W_POLYS][:npolys]`` and
    ``work[W_YLOPS][:nylops]``, each sorted."""
    shape_size, shape_w, shape_h = tab[off[T_SSIZE]:off[T_SSIZE + 1]], tab[off[T_SW]:off[T_SW + 1]], \
        tab[off[T_SH]:off[T_SH + 1]]
    members, polys, ylops = work[W_MEMBERS], work[W_POLYS], work[W_YLOPS]
    net = 0
    for i in range(npolys):
        net += shape_size[polys[i]]
    for i in range(nylops):
        net -= shape_size[ylops[i]]
    if net < 0 or (net > 0 and net != nreg):
        return False
    demand = work[W_DEMAND]
    for i in range(w * h):
        demand[i] = 0
    if net > 0:
        for i in range(nreg):
            demand[members[i]] = 1
    # odometer over ylop translations (none without ylops); identical ylops in non-decreasing
    # translation order; each full placement is followed by one tiling of what is left
    tpos, placed = work[W_TPOS], work[W_PLACED]
    k = 0
    tpos[0] = -1
    placed[0] = 0
    while k >= 0:
        if k == nylops:
            if tile(demand, w, h, polys, npolys, shape_cells, shape_size, work):
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


@kernel(python=True, **_INNER)
def _regions_ok(w, h, tab, off, st, soff, shape_cells, work, stamp, depth, use_marks, poly_fn):
    """Check every region that can no longer change (all of them when nothing is reachable).

    A region is final when none of its internal edge midpoints (between two of its cells) is an
    unvisited reachable position: the future path cannot split it. Its squares, stars and
    polyominoes are checked then; a triangle in it only once its own four edges are closed.
    ``comp_mark[ci]`` records the search depth at which a cell's final region was verified, so
    descendants skip regions their ancestors checked (marks from abandoned branches are cleared).
    """
    cell_nb, cell_edge = tab[off[T_CELL_NB]:off[T_CELL_NB + 1]], tab[off[T_CELL_EDGE]:off[T_CELL_EDGE + 1]]
    ckind, ccolour = tab[off[T_CKIND]:off[T_CKIND + 1]], tab[off[T_CCOLOUR]:off[T_CCOLOUR + 1]]
    ccount, cshape = tab[off[T_CCOUNT]:off[T_CCOUNT + 1]], tab[off[T_CSHAPE]:off[T_CSHAPE + 1]]
    shape_size = tab[off[T_SSIZE]:off[T_SSIZE + 1]]
    visited, reach, touch = st[soff[S_VISITED]:soff[S_VISITED + 1]], st[soff[S_REACH]:soff[S_REACH + 1]], \
        st[soff[S_TOUCH]:soff[S_TOUCH + 1]]
    comp, comp_mark = st[soff[S_COMP]:soff[S_COMP + 1]], st[soff[S_MARK]:soff[S_MARK + 1]]
    stack, members, polys, ylops, ccount8 = work[W_STACK], work[W_MEMBERS], work[W_POLYS], work[W_YLOPS], \
        work[W_COUNT]
    nc = w * h
    for ci in range(nc):
        comp[ci] = -1
        if use_marks and comp_mark[ci] >= depth:
            comp_mark[ci] = -1
    ncomp = 0
    for c0 in range(nc):
        if comp[c0] >= 0:
            continue
        # flood fill of one region
        comp[c0] = ncomp
        nmem = 0
        sp = 1
        stack[0] = c0
        final = True
        while sp > 0:
            sp -= 1
            ci = stack[sp]
            members[nmem] = ci
            nmem += 1
            for k in range(4):
                e = cell_edge[4 * ci + k]
                nci = cell_nb[4 * ci + k]
                if visited[e] == 0 and nci >= 0:
                    # only an internal edge can still split the region; border edges
                    # change triangle counts alone, which are checked per cell below
                    if reach[e] == stamp:
                        final = False
                    if comp[nci] < 0:
                        comp[nci] = ncomp
                        stack[sp] = nci
                        sp += 1
        ncomp += 1
        if not final or not (use_marks and comp_mark[c0] >= 0):
            for i in range(8):
                ccount8[i] = 0
            # colours, squares, triangles; gather the pieces
            sq = -1
            npl = 0
            nyl = 0
            parea = 0
            for m in range(nmem):
                ci = members[m]
                kd = ckind[ci]
                if kd == 0:
                    continue
                ccount8[ccolour[ci]] += 1
                if kd == SQUARE and final:
                    if sq < 0:
                        sq = ccolour[ci]
                    elif sq != ccolour[ci]:
                        return False
                elif kd == TRIANGLE and final:
                    # final only when none of the cell's edges can still be reached
                    closed = True
                    for k in range(4):
                        e = cell_edge[4 * ci + k]
                        if visited[e] == 0 and reach[e] == stamp:
                            closed = False
                    if closed and touch[ci] != ccount[ci]:
                        return False
                elif kd == POLY:
                    polys[npl] = cshape[ci]
                    npl += 1
                    parea += shape_size[cshape[ci]]
                elif kd == YLOP:
                    ylops[nyl] = cshape[ci]
                    nyl += 1
            if not final:
                # the future path can only split this region further, so a star already short
                # of partners, or polyominoes larger than the region (without ylops), stay broken
                if nyl == 0 and parea > nmem:
                    return False
                for m in range(nmem):
                    ci = members[m]
                    if ckind[ci] == STAR and ccount8[ccolour[ci]] < 2:
                        return False
                continue
            for m in range(nmem):
                ci = members[m]
                if ckind[ci] == STAR and ccount8[ccolour[ci]] != 2:
                    return False
            if npl + nyl > 0:
                # the poly check wants each list sorted (identical shapes side by side)
                for lst, n in ((polys, npl), (ylops, nyl)):
                    for i in range(1, n):
                        v = lst[i]
                        j = i - 1
                        while j >= 0 and lst[j] > v:
                            lst[j + 1] = lst[j]
                            j -= 1
                        lst[j + 1] = v
                if not poly_fn(tab, off, shape_cells, work, nmem, w, h, npl, nyl):
                    return False
            if use_marks:
                for m in range(nmem):
                    comp_mark[members[m]] = depth
    return True


@kernel(python=True, **_INNER)
def _no_poly(tab, off, shape_cells, work, nreg, w, h, npolys, nylops):
    """Stands in for the poly check in puzzles without polyominoes (never called there)."""
    return True


@kernel(python=True, **_INNER)
def _no_regions(w, h, tab, off, st, soff, shape_cells, work, stamp, depth, use_marks, poly_fn):
    """Stands in for the region check in puzzles without cell symbols (every region is fine)."""
    return True


@kernel(python=True, **_OPTS)
def search(w, h, start, end, cap, prune, node_budget, tab, off, st, soff, shape_cells, sols, work, regions_fn,
           poly_fn):
    """The depth-first search, resumable: its state lives in ``st`` (see :data:`STATE`).
    Returns 0 when the search is over, 1 when it stopped after ``cap + 1`` solutions
    (``cap >= 0``), 2 when ``node_budget`` nodes (> 0) were expanded in this call; calling
    again continues where it stopped.

    ``nbr[4 q + k]`` is the line position beside ``q`` in direction ``k`` (-1: none, a cell or a
    gap); ``edge_cell[2 q + i]`` the cells beside edge midpoint ``q`` (-1: none). Solutions beyond
    the buffer ``sols`` are counted but not stored.
    """
    nbr, edge_cell = tab[off[T_NBR]:off[T_NBR + 1]], tab[off[T_EDGE_CELL]:off[T_EDGE_CELL + 1]]
    cell_edge, dots, tris = tab[off[T_CELL_EDGE]:off[T_CELL_EDGE + 1]], tab[off[T_DOTS]:off[T_DOTS + 1]], \
        tab[off[T_TRIS]:off[T_TRIS + 1]]
    ckind, ccount = tab[off[T_CKIND]:off[T_CKIND + 1]], tab[off[T_CCOUNT]:off[T_CCOUNT + 1]]
    visited, reach, touch = st[soff[S_VISITED]:soff[S_VISITED + 1]], st[soff[S_REACH]:soff[S_REACH + 1]], \
        st[soff[S_TOUCH]:soff[S_TOUCH + 1]]
    path, nextdir, ctr = st[soff[S_PATH]:soff[S_PATH + 1]], st[soff[S_NEXTDIR]:soff[S_NEXTDIR + 1]], \
        st[soff[S_CTR]:soff[S_CTR + 1]]
    fstack, rsize = st[soff[S_FSTACK]:soff[S_FSTACK + 1]], st[soff[S_RSIZE]:soff[S_RSIZE + 1]]
    comp_mark = st[soff[S_MARK]:soff[S_MARK + 1]]
    cols = 2 * w + 1
    rows = 2 * h + 1
    ndots = dots.shape[0]
    ntri = tris.shape[0]
    maxsol = sols.shape[0]
    if ctr[4] == 0:
        path[0] = start
        visited[start] = 1
        for i in range(2):
            c = edge_cell[2 * start + i]
            if c >= 0:
                touch[c] += 1
        nextdir[0] = 0
        rsize[0] = -1  # no flood fill at the start
        ctr[4] = 1
    d = ctr[0]
    found = ctr[1]
    nodes = ctr[2]
    stamp = ctr[3]
    nodes_at_entry = nodes
    status = 0
    while d >= 0:
        q = path[d]
        if nextdir[d] >= 4:
            # retreat: undo the head
            visited[q] = 0
            for i in range(2):
                c = edge_cell[2 * q + i]
                if c >= 0:
                    touch[c] -= 1
            d -= 1
            continue
        k = nextdir[d]
        nextdir[d] += 1
        nq = nbr[4 * q + k]
        if nq < 0 or visited[nq] == 1:
            continue
        nodes += 1
        # step onto nq
        visited[nq] = 1
        path[d + 1] = nq
        ok = True
        midpoint = False
        for i in range(2):
            c = edge_cell[2 * nq + i]
            if c >= 0:
                midpoint = True
                touch[c] += 1
                if ckind[c] == TRIANGLE and touch[c] > ccount[c] and (prune & 1) != 0:
                    ok = False
        at_end = nq == end
        run_regions = False
        if ok and at_end:
            # full check: everything final; dots all visited
            for i in range(ndots):
                if visited[dots[i]] == 0:
                    ok = False
                    break
            if ok:
                stamp += 1
                reach[nq] = stamp
                run_regions = True
        elif ok and (prune & 2) != 0 and not midpoint:
            # an edge midpoint has one way on, to the corner beyond it: the flood fill and the
            # region check wait for that corner (one node later, the same verdicts)
            stamp += 1
            sp = 1
            fstack[0] = nq
            reach[nq] = stamp
            size = 1
            while sp > 0:
                sp -= 1
                p = fstack[sp]
                for kk in range(4):
                    a = nbr[4 * p + kk]
                    if a >= 0 and visited[a] == 0 and reach[a] != stamp:
                        reach[a] = stamp
                        fstack[sp] = a
                        sp += 1
                        size += 1
            rsize[d + 1] = size
            if reach[end] != stamp:
                ok = False
            if ok:
                for i in range(ndots):
                    dq = dots[i]
                    if visited[dq] == 0:
                        if reach[dq] != stamp:
                            ok = False
                            break
                        # the line must enter and leave the dot: two ways in or out must be
                        # left (unvisited neighbours, or the head itself)
                        ways = 0
                        for kk in range(4):
                            a = nbr[4 * dq + kk]
                            if a >= 0 and (visited[a] == 0 or a == nq):
                                ways += 1
                        if ways < 2:
                            ok = False
                            break
            if ok:
                for i in range(ntri):
                    c = tris[i]
                    avail = touch[c]
                    for kk in range(4):
                        e = cell_edge[4 * c + kk]
                        if visited[e] == 0 and reach[e] == stamp:
                            avail += 1
                    if avail < ccount[c]:
                        ok = False
                        break
            run_regions = ok and (prune & 4) != 0
            if run_regions and d >= 1 and rsize[d - 1] == size + 2:
                # only the last step (an edge midpoint, and this corner) left the reachable
                # set. When that edge is on the border, no region changed; when this corner is
                # inside the grid, none of its other edges is on the line and one of them is
                # reachable, the cut edge split no region (the line has not closed a loop) and
                # the cut region keeps a reachable inner edge. Either way the regions pass as
                # they did at the corner before
                e = path[d]
                same = edge_cell[2 * e] < 0 or edge_cell[2 * e + 1] < 0
                if not same:
                    x = nq % cols
                    y = nq // cols
                    if 0 < x < cols - 1 and 0 < y < rows - 1 and \
                            visited[nq + 1] + visited[nq - 1] + visited[nq + cols] + visited[nq - cols] == 1:
                        for kk in range(4):
                            a = nbr[4 * nq + kk]
                            if a >= 0 and visited[a] == 0:
                                same = True
                if same:
                    run_regions = False
                    for ci in range(w * h):  # the marks the region check would have dropped
                        if comp_mark[ci] >= d + 1:
                            comp_mark[ci] = -1
        if run_regions:
            # at E nothing is reachable any more: every region is final (no marks)
            ok = regions_fn(w, h, tab, off, st, soff, shape_cells, work, stamp, d + 1, 0 if at_end else 1, poly_fn)
        if at_end:
            if ok:
                if found < maxsol:
                    for i in range(d + 2):
                        sols[found, i] = path[i]
                    sols[found, sols.shape[1] - 1] = d + 2
                found += 1
            ok = False  # E ends the path either way
        if ok:
            d += 1
            nextdir[d] = 0
        else:
            visited[nq] = 0
            for i in range(2):
                c = edge_cell[2 * nq + i]
                if c >= 0:
                    touch[c] -= 1
        if cap >= 0 and found > cap:
            status = 1
            break
        if node_budget > 0 and nodes - nodes_at_entry >= node_budget:
            status = 2
            break
    ctr[0] = d
    ctr[1] = found
    ctr[2] = nodes
    ctr[3] = stamp
    return status


# the plain-Python twins of the function pointers (the poly check calls the tiler by name)
tile = _tile


def regions_plain(symbols: bool):
    """The region check run as plain Python, or its stand-in for puzzles without symbols."""
    return _regions_ok if symbols else _no_regions


def polys_plain(pieces: bool):
    """The poly/ylop check run as plain Python, or its stand-in for puzzles without pieces."""
    return _poly_ok if pieces else _no_poly


# the compiled kernels, each on first need: a puzzle without cell symbols needs neither check,
# one without polyominoes no tiling (compile only what the puzzle needs)
@cache
def compiled_search():
    return _njit(search, "search")


@cache
def tiler():
    return _njit(_tile, "tile")


@cache
def poly_checker(needed: bool = True):
    """The poly/ylop kernel (compiled on first need), or a stand-in for puzzles without pieces."""
    if not needed:
        return _njit(_no_poly, "poly")
    return _njit(_poly_ok, "poly", tile=tiler())


@cache
def region_checker(needed: bool = True):
    """The region kernel (compiled on first need), or a stand-in for puzzles without symbols."""
    return _njit(_regions_ok if needed else _no_regions, "regions")


def compiled() -> bool:
    """Whether this process has compiled (or loaded) the search kernel already, or has the
    native build (no compile needed)."""
    return native() is not None or compiled_search.cache_info().currsize > 0


#: what the native build exports: :func:`search` with the region check and the poly check chosen by
#: two flags (whether the puzzle has cell symbols, and polyominoes) instead of passed as function pointers
_A, _A2, _A3 = "i8[::1]", "i8[:, ::1]", "i8[:, :, ::1]"
NATIVE_SIG = f"i8(i8, i8, i8, i8, i8, i8, i8, {_A}, {_A}, {_A}, {_A}, {_A3}, {_A2}, {_A2}, i8, i8)"


@kernel(None, aot_sig=NATIVE_SIG, callees=("tile", "_poly_ok", "_no_poly", "_regions_ok", "_no_regions", "search"),
        jit=False, error_model="numpy", _nrt=False)
def sparc_search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work, symbols, pieces):
    """The native build's entry point (compiled against numba twins of the functions it calls; without
    the build it is never called: :func:`compiled_search` takes the function pointers instead)."""
    if symbols == 0:
        return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                      _no_regions, _no_poly)
    if pieces == 0:
        return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                      _regions_ok, _no_poly)
    return search(w, h, start, end, cap, prune, budget, tab, off, st, soff, shape_cells, sols, work,
                  _regions_ok, _poly_ok)


@cache
def native():
    """The search built ahead of time (``python -m kumo_gym.envs.build_native``), or None when it
    was not built, is stale or is turned off (``KUMO_GYM_NATIVE=0``): the one check of
    :func:`kumo_gym.solvers.native.native_module`. It takes the arguments of :func:`search` with the
    two function pointers replaced by flags: whether the puzzle has cell symbols, and polyominoes."""
    mod = native_module()
    return getattr(mod, export_name(__name__, "sparc_search"), None) if mod is not None else None
