"""Grid geometry that two or more puzzles share: neighbours, connected components, the lazy cuts
that make "these cells are connected" a rule the SAT engine can enforce (docs/specs/grid_puzzles.md §8),
domino tilings, sight lines, steps between cells and loops through cell centres.

A helper that only one puzzle needs lives in that puzzle's package (``<puzzle>/geometry.py``:
Net's trees, Tracks' and Pearl's line variables, Signpost's queen paths, Galaxies' symmetric
partitions, ...)."""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from .play import direction, grid_edges

Cell = tuple[int, int]


def neighbours4(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
        if 0 <= r + dr < H and 0 <= c + dc < W:
            yield r + dr, c + dc


def neighbours8(r: int, c: int, H: int, W: int) -> Iterator[Cell]:
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < H and 0 <= c + dc < W:
                yield r + dr, c + dc


def components(mask: np.ndarray) -> list[list[Cell]]:
    """The 4-connected components of the True cells of ``mask``, each sorted, smallest first
    (ties in row-major order of their first cell)."""
    H, W = mask.shape
    seen = np.zeros_like(mask, bool)
    out = []
    for r, c in zip(*np.nonzero(mask)):
        if seen[r, c]:
            continue
        comp, stack = [], [(int(r), int(c))]
        seen[r, c] = True
        while stack:
            cell = stack.pop()
            comp.append(cell)
            for n in neighbours4(*cell, H, W):
                if mask[n] and not seen[n]:
                    seen[n] = True
                    stack.append(n)
        out.append(sorted(comp))
    return sorted(out, key=lambda comp: (len(comp), comp[0]))


def connected_cuts(cell_lits: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback of an :class:`~kumo_gym.solvers.engine.Encoding` for "the cells whose
    literal ``cell_lits[r, c]`` is true form one 4-connected region" (Range and Singles: white
    cells, with the literal "white"; use 0 for cells that can never be in the region).

    For a model with several regions, take the smallest region S, a cell s of it and a cell t of
    another region: every path from s to t leaves S through its outer border B (cells next to S,
    all outside the region in this model), so ``not s or not t or some cell of B is in`` holds in
    every solution -- it follows from the rule alone, so the layout's solver may keep it.
    """
    H, W = cell_lits.shape

    def cuts(value: np.ndarray) -> list[list[int]]:
        lits = cell_lits.astype(np.int64)
        on = (lits != 0) & (np.sign(lits) * value[np.abs(lits)] > 0)
        comps = components(on)
        if len(comps) <= 1:
            return []
        s = comps[0]
        inside = set(s)
        border = sorted({n for cell in s for n in neighbours4(*cell, H, W) if n not in inside and lits[n] != 0})
        return [[-int(lits[s[0]]), -int(lits[other[0]])] + [int(lits[b]) for b in border] for other in comps[1:]]

    return cuts


def random_tiling(rng: np.random.Generator, H: int, W: int) -> list[list[str]]:
    """A random domino tiling (``L``/``R``, ``T``/``B`` halves): straight rows (or columns), then random
    flips of 2x2 blocks. An odd grid keeps one single cell ``*``, which wanders by sliding a domino
    into it (Magnets). The walk runs in ``_tiling_kernel``."""
    from ._tiling_kernel import walk

    steps = 25 * H * W
    rows, cols = rng.integers(max(H - 1, 1), size=steps), rng.integers(max(W - 1, 1), size=steps)
    slides = rng.integers(4, size=steps) if W * H % 2 else _NO_STEPS
    # the cells as codes (flat, cell r * W + c), the 2x2 blocks that fit precomputed
    f = _straight_tiling(H, W).copy()
    at = np.where((rows + 1 < H) & (cols + 1 < W), rows * W + cols, -1).astype(np.int64, copy=False)
    walk(f, at, slides.astype(np.int64, copy=False), H, W)
    return _CODE_CHARS[f].reshape(H, W).tolist()


@functools.lru_cache(maxsize=16)
def _straight_tiling(H: int, W: int) -> np.ndarray:
    """The walk's start as ``_tiling_kernel`` codes (row-major): straight rows (or columns); on an
    odd grid the last column stands upright and the corner cell is the single one (read only)."""
    from ._tiling_kernel import CODES

    if W % 2 == 0 or H % 2 == 0:
        g = [["LR"[c % 2] for c in range(W)] if W % 2 == 0 else ["TB"[r % 2]] * W for r in range(H)]
    else:
        g = [["LR"[c % 2] for c in range(W - 1)] + ["TB"[r % 2] if r < H - 1 else "*"] for r in range(H)]
    f = np.fromiter((CODES.index(v) for row in g for v in row), np.int8, H * W)
    f.flags.writeable = False
    return f


_NO_STEPS = np.zeros(0, np.int64)
_CODE_CHARS = np.array(list("LRTB*"))


# ---- rays and connected marks (Signpost, Range, Singles) --------------------------------------


def ray(r: int, c: int, step: tuple[int, int] | None, H: int, W: int) -> list[Cell]:
    """The cells from (r, c) in direction ``step`` (dr, dc) to the edge, nearest first (none for None)."""
    if step is None:
        return []
    out = []
    while 0 <= r + step[0] < H and 0 <= c + step[1] < W:
        r, c = r + step[0], c + step[1]
        out.append((r, c))
    return out


def random_scatter(rng: np.random.Generator, H: int, W: int, target: int) -> np.ndarray:
    """Up to ``target`` marked cells in a random order, never two side by side, the unmarked cells
    staying orthogonally connected (Range's black cells); a boolean mask."""
    near = [[a * W + b for a, b in neighbours4(i // W, i % W, H, W)] for i in range(W * H)]
    marked, count = [False] * (W * H), 0
    for idx in rng.permutation(W * H).tolist():
        if count >= target or any(marked[n] for n in near[idx]):
            continue
        marked[idx] = True
        if unmarked_connected(marked, near):
            count += 1
        else:
            marked[idx] = False
    return np.asarray(marked, bool).reshape(H, W)


def unmarked_connected(marked: list[bool], near: list[list[int]]) -> bool:
    """Whether the cells not ``marked`` (flat indices; ``near[i]`` the neighbours of cell i) are
    connected: one breadth-first search over plain lists (the generators' inner loop)."""
    start = marked.index(False)
    seen = {start}
    todo = [start]
    while todo:
        for j in near[todo.pop()]:
            if not marked[j] and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == len(marked) - sum(marked)


@functools.lru_cache(maxsize=64)
def flat_neighbours(H: int, W: int) -> list[list[int]]:
    """Every cell's orthogonal neighbours, as flat indices (built once per grid size; read only)."""
    return [[a * W + b for a, b in neighbours4(i // W, i % W, H, W)] for i in range(W * H)]


def still_connected(marked: list[bool], near: list[list[int]], idx: int) -> bool:
    """:func:`unmarked_connected` just after marking cell ``idx``, when the unmarked cells were
    connected before: they still are exactly when the unmarked neighbours of ``idx`` are joined
    without it (a search from one of them that stops once it has met the others)."""
    ends = [j for j in near[idx] if not marked[j]]
    if len(ends) <= 1:
        return True
    want = set(ends[1:])
    seen = {ends[0]}
    todo = [ends[0]]
    while todo:
        for j in near[todo.pop()]:
            if not marked[j] and j not in seen:
                if j in want:
                    want.discard(j)
                    if not want:
                        return True
                seen.add(j)
                todo.append(j)
    return False


def step_towards(a: Cell, b: Cell) -> tuple[int, int]:
    """The unit step (dr, dc) from ``a`` towards ``b`` (same row, column or diagonal)."""
    return (int(np.sign(b[0] - a[0])), int(np.sign(b[1] - a[1])))


# ---- directions and steps (Net, Tracks, Pearl, Signpost, Unequal) ------------------------------
STEP = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def step(r: int, c: int, d: str, H: int, W: int, wrap: bool = False, walls: frozenset = frozenset()) -> Cell | None:
    """The cell that a connection from (r, c) towards ``d`` (U, R, D, L) reaches, or None when it
    leaves a non-wrapping grid or crosses a wall; ``walls`` holds ``(r, c, "R")`` (the wall right
    of (r, c)) and ``(r, c, "D")`` (the wall below it)."""
    rr, cc = r + STEP[d][0], c + STEP[d][1]
    if wrap:
        rr, cc = rr % H, cc % W
    elif not (0 <= rr < H and 0 <= cc < W):
        return None
    return None if ((r, c, d) if d in "RD" else (rr, cc, OPPOSITE[d])) in walls else (rr, cc)


# ---- lines through cell centres (Tracks, Pearl) ----------------------------------------------
def link_components(H: int, W: int, links: Iterable[tuple[Cell, Cell]]) -> list[tuple[list[Cell], int]]:
    """The connected components of the graph of ``links`` (pairs of cells of the H x W grid), each
    as (sorted cells, number of links), in row-major order of their first cell. With every cell on
    at most two links, a component with as many links as cells is a closed loop."""
    parent = list(range(H * W))  # by row-major index; a root is its component's first cell

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    links = [(a[0] * W + a[1], b[0] * W + b[1]) for a, b in links]
    for a, b in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[Cell]] = {}
    for x in sorted({x for link in links for x in link}):
        groups.setdefault(find(x), []).append(divmod(x, W))
    count: dict[int, int] = {}
    for a, _ in links:
        count[find(a)] = count.get(find(a), 0) + 1
    return [(cells, count.get(root, 0)) for root, cells in groups.items()]


#: (dr, dc) of the direction letters U, R, D, L (the order of the last axis of direction variables)
URDL = ((-1, 0), (0, 1), (1, 0), (0, -1))


def loop_around(one: dict, step: dict, k: int, L: int) -> list[Cell] | None:
    """The cells numbered k - 2, k - 1, k + 1, k + 2 along a loop of :func:`loop_numbers` (None
    when the loop is broken anywhere from k - 2 to k + 2)."""
    ks = [(k + i - 1) % L + 1 for i in (-2, -1, 0, 1)] if k > 0 and L >= 4 else []
    if not ks or not all(step[j] for j in ks):
        return None
    return [one[(k + i - 1) % L + 1] for i in (-2, -1, 1, 2)]


def loop_order(grid: list[list]) -> list[Cell]:
    """The cells of a numbered answer in the order of their numbers."""
    return [x for _, x in sorted((v, (r, c)) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0)]


def loop_numbers(grid: list[list]) -> tuple[int, list[Cell], dict, dict]:
    """How a numbered answer forms a loop: its length L, the cells whose number repeats or exceeds
    L, ``one`` (number -> its cell, for the numbers used once) and ``step`` (k -> whether k and
    k + 1, or L and 1, lie on neighbouring cells)."""
    at: dict = {}
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v > 0:
                at.setdefault(v, []).append((r, c))
    L = sum(map(len, at.values()))
    bad = sorted(x for v, xs in at.items() if v > L or len(xs) > 1 for x in xs)
    one = {k: xs[0] for k, xs in at.items() if len(xs) == 1 and k <= L}
    step_ = {k: bool(one.get(k) and one.get(k % L + 1) and direction(one[k], one[k % L + 1])) for k in range(1, L + 1)}
    return L, bad, one, step_


def stretch(rng: np.random.Generator, H: int, W: int, path: list[Cell], length: float, *, closed: bool) -> list[Cell]:
    """Random detours: one step a -> b of the path (or loop) is pushed sideways by a cell, through
    two free neighbours a', b' (a -> a' -> b' -> b), until ``length`` cells or no detour fits."""
    path, used = list(path), set(path)

    def options(a: Cell, b: Cell) -> list[tuple[Cell, Cell]]:  # the detours of step a -> b, in a fixed order
        out = []
        (a0, a1), (b0, b1) = a, b
        for dr, dc in ((b1 - a1, b0 - a0), (a1 - b1, a0 - b0)):
            x, y = (a0 + dr, a1 + dc), (b0 + dr, b1 + dc)
            if 0 <= x[0] < H and 0 <= x[1] < W and 0 <= y[0] < H and 0 <= y[1] < W and x not in used and y not in used:
                out.append((x, y))
        return out

    # the detours of every step, kept up to date as the path grows (only x and y change each time)
    spots = [options(path[i], path[(i + 1) % len(path)]) for i in range(len(path) - (0 if closed else 1))]
    while len(path) < length:
        k = sum(map(len, spots))
        if not k:
            break
        k = int(rng.integers(k))
        i = 0
        while k >= len(spots[i]):
            k, i = k - len(spots[i]), i + 1
        x, y = spots[i][k]
        path[i + 1:i + 1] = [x, y]
        used.add(x)
        used.add(y)
        spots = [[o for o in opts if x not in o and y not in o] if opts else opts for opts in spots]
        spots[i:i + 1] = [options(path[i], x), options(x, y), options(y, path[(i + 3) % len(path)])]
    return path


def number_loops(H: int, W: int, edges) -> list[list]:
    """Pearl's answer grid of a set of edges: each loop numbered on from the last, starting at its
    first cell in reading order and heading right; -1 elsewhere (all -1 unless every cell on an
    edge has exactly two)."""
    adj: dict = {}
    for a, b in sorted(edges):
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    grid = [[-1] * W for _ in range(H)]
    if any(len(n) != 2 for n in adj.values()):
        return grid
    k = 0
    for start in sorted(adj):
        if grid[start[0]][start[1]] != -1:
            continue
        prev, cur = start, max(adj[start], key=lambda x: (x[0] == start[0], -x[0]))  # right of start
        k += 1
        grid[start[0]][start[1]] = k
        while cur != start:
            k += 1
            grid[cur[0]][cur[1]] = k
            prev, cur = cur, next(x for x in adj[cur] if x != prev)
    return grid


def numbered_edges(grid: list[list]) -> set:
    """The edges of a numbered answer: k joins k + 1 and L joins 1 where those cells touch."""
    where = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if isinstance(v, int) and v > 0}
    out = set()
    for k, a in where.items():
        b = where.get(k % len(where) + 1)
        if b is not None and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
            out.add(tuple(sorted((a, b))))
    return out


# ---- neighbour tables (Magnets, Galaxies) ------------------------------------------------------


@functools.lru_cache(maxsize=64)
def neighbour_table(H: int, W: int) -> dict[Cell, list[Cell]]:
    """Every cell's orthogonal neighbours (built once per grid size; read only)."""
    return {(r, c): list(neighbours4(r, c, H, W)) for r in range(H) for c in range(W)}


def loop_cuts(on: np.ndarray, exits: dict[tuple[Cell, str], int], links: Callable[[np.ndarray], Iterable],
              *, single_loop: bool) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "the connections form one path" (Tracks: ``single_loop=False``,
    no closed loop at all) or "one closed loop" (Pearl: ``single_loop=True``, no second loop).

    ``on[r, c]`` is the literal "the cell is on the line", ``exits[(cell, d)]`` the literal "the
    cell connects in direction d" (URDL; off-grid directions where the line may leave the grid),
    ``links(values)`` the cell pairs connected in a model. For a closed loop S of the model that
    the rule forbids: in every solution where all of S is on the line, the line leaves S (Tracks:
    S is never the whole path, whose ends leave the grid; Pearl: another component's cell t is on
    the loop too, so the clause also has ``not t``). Both follow from the rule alone.
    """
    steps = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}

    def cuts(value: np.ndarray) -> list[list[int]]:
        comps = link_components(*on.shape, links(value))
        loops = [cells for cells, n in comps if n == len(cells)]
        if single_loop and len(comps) <= 1:
            return []
        out = []
        for cells in loops:
            inside = set(cells)
            clause = [-int(on[x]) for x in cells]
            clause += [int(exits[x, d]) for x in cells for d, (dr, dc) in steps.items()
                       if (x[0] + dr, x[1] + dc) not in inside and (x, d) in exits]
            if single_loop:
                other = next(c for c, _ in comps if c[0] not in inside)
                clause.append(-int(on[other[0]]))
            out.append(clause)
        return out

    return cuts


def loop_vars(f, H: int, W: int) -> tuple[np.ndarray, Callable, np.ndarray, Callable, Callable]:
    """Lines through cell centres as one variable per pair of neighbours and "on the line" per
    cell (``on``); ``e(a, d, k)`` is the edge variable leaving the cell ``k`` - 1 steps from ``a``
    in direction d (U, R, D, L), None off the grid. With them the answer variables (the edges in
    :func:`~.play.grid_edges` order), the decoder (the loops numbered, :func:`number_loops`) and
    the single-loop cuts (:func:`loop_cuts`). Pearl, and Loopy on its grid of dots;
    :func:`loop_degree` adds each cell's rule."""
    edge = {x: f.var(("edge", x)) for x in grid_edges(H, W)}
    on = f.grid("on", H, W)

    def e(a: Cell, d: str, k: int = 1) -> int | None:
        dr, dc = STEP[d]
        a = (a[0] + dr * (k - 1), a[1] + dc * (k - 1))
        return edge.get(tuple(sorted((a, (a[0] + dr, a[1] + dc)))))

    keys, lits = list(edge), np.asarray(list(edge.values()), np.int64)

    def links(value: np.ndarray) -> list:
        return [keys[i] for i in np.flatnonzero(value[lits] > 0).tolist()]

    exits = {(x, d): e(x, d) for x in np.ndindex(H, W) for d in "URDL" if e(x, d)}
    return (on, e, np.asarray([edge[k] for k in grid_edges(H, W)], np.int32),
            lambda value: number_loops(H, W, links(value)), loop_cuts(on, exits, links, single_loop=True))


def loop_degree(f, on: np.ndarray, e: Callable, x: Cell) -> None:
    """Cell ``x`` of :func:`loop_vars` has two of its edges when on the line, none otherwise."""
    inc = [e(x, d) for d in "URDL" if e(x, d)]
    f.extend([[-i, int(on[x])] for i in inc])
    f.exactly(inc, 2, guard=int(on[x]))
