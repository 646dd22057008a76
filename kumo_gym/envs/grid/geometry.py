"""Grid geometry shared by the puzzles: neighbours, connected components, matchings, and the lazy
cuts that make "these cells are connected" a rule the SAT engine can enforce (docs/specs/grid_puzzles.md
§8; Range, Singles, Filling, Galaxies, Net, Pearl and Tracks need it)."""
from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType

import numpy as np

from .play import direction, dirs_edges, grid_edges

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


def label_components(labels: list[list]) -> dict:
    """For every value of the grid ``labels``, the 4-connected components of its cells, as
    :func:`components` gives them for ``labels == value`` (each sorted, smallest first, ties in
    row-major order of their first cell): one pass over the grid instead of one per value."""
    H, W = len(labels), len(labels[0])
    flat = [v for row in labels for v in row]
    seen = [False] * (H * W)
    out: dict = {}
    for start in range(H * W):
        if seen[start]:
            continue
        v = flat[start]
        seen[start] = True
        comp, stack = [], [start]
        while stack:
            i = stack.pop()
            comp.append(i)
            r, c = divmod(i, W)
            for j in (i - W if r else -1, i + 1 if c + 1 < W else -1, i + W if r + 1 < H else -1, i - 1 if c else -1):
                if j >= 0 and not seen[j] and flat[j] == v:
                    seen[j] = True
                    stack.append(j)
        comp.sort()
        out.setdefault(v, []).append([divmod(i, W) for i in comp])
    for comps in out.values():
        comps.sort(key=lambda comp: (len(comp), comp[0]))
    return out


def flood(seeds: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The cells of ``inside`` joined to ``seeds`` (a subset of it) by 4-connected paths within
    ``inside``: boolean arrays whose first two axes are the rows and columns, every further axis a
    separate layer flooded on its own (Galaxies: one layer per dot), all layers at once."""
    reach, size = seeds, np.count_nonzero(seeds)
    while True:  # the reached set only grows: it is done when its size stops changing
        grown = reach.copy()
        grown[1:] |= reach[:-1]
        grown[:-1] |= reach[1:]
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown &= inside
        reach, grew = grown, np.count_nonzero(grown)
        if grew == size:
            return reach
        size = grew


def matching(left: Iterable, options: Callable[[object], Iterable]) -> dict:
    """A maximum bipartite matching ``{left item: right item}`` (augmenting paths, Kuhn)."""
    owner: dict = {}

    def augment(item, seen) -> bool:
        for other in options(item):
            if other not in seen:
                seen.add(other)
                if other not in owner or augment(owner[other], seen):
                    owner[other] = item
                    return True
        return False

    for item in left:
        augment(item, set())
    return {item: other for other, item in owner.items()}


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


def sized_block_cuts(label_lits: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "every maximal 4-connected block of cells with the same label k
    has exactly k cells" (Filling), where ``label_lits[r, c, k - 1]`` is the literal "cell (r, c)
    has label k" (exactly one true per cell).

    For each block B of label k in a model that is the wrong size:

    * too big: a connected part S of B with k + 1 cells cannot all have label k (they would lie in
      one block of more than k cells): ``not all of S is k``;
    * too small: if all of B has label k, its block has k > |B| cells, so it reaches past B through
      a cell of its border N: ``not all of B is k, or some cell of N is k``.

    Both follow from the rule alone (never from clues), so the layout's solver may keep them.
    """
    H, W, K = label_lits.shape
    n = H * W
    near = [[a * W + b for a, b in neighbours4(i // W, i % W, H, W)] for i in range(n)]
    flat = label_lits.reshape(n, K)

    def cuts(value: np.ndarray) -> list[list[int]]:
        on = value[np.abs(flat)] * np.sign(flat) > 0
        label = np.where(on.any(axis=1), on.argmax(axis=1) + 1, 0).tolist()
        seen = [False] * n
        out = []
        for start in range(n):  # one flood fill over the grid, block by block in row-major order
            if seen[start]:
                continue
            k, block = label[start], [start]
            seen[start] = True
            for i in block:
                for j in near[i]:
                    if not seen[j] and label[j] == k:
                        seen[j] = True
                        block.append(j)
            if k == 0 or len(block) == k:
                continue
            col = flat[:, k - 1]
            if len(block) > k:  # the first k + 1 cells of the breadth-first fill are connected
                out.append([-int(col[i]) for i in sorted(block[:k + 1])])
            else:
                inside = set(block)
                border = sorted({j for i in block for j in near[i] if j not in inside})
                out.append([-int(col[i]) for i in sorted(block)] + [int(col[j]) for j in border])
        return out

    return cuts


def line_runs(mask: np.ndarray) -> list[list[Cell]]:
    """The maximal runs of True cells along every row, then every column (single cells
    included): Light Up's white stretches, Range's lines of sight."""
    H, W = mask.shape
    out = []
    for line in [[(r, c) for c in range(W)] for r in range(H)] + [[(r, c) for r in range(H)] for c in range(W)]:
        run: list = []
        for cell in line + [None]:
            if cell is not None and mask[cell]:
                run.append(cell)
            elif run:
                out.append(run)
                run = []
    return out


def symmetry_orbit(r: int, c: int, H: int, W: int, symm: int) -> set[Cell]:
    """The cells Tatham's symmetry code maps (r, c) to: 0 none, 1 left-right mirror, 2 half
    turn, 3 both mirrors, 4 quarter turn (square grids)."""
    cells = {(r, c)}
    if symm in (1, 3):
        cells.add((r, W - 1 - c))
    if symm in (2, 3, 4):
        cells.add((H - 1 - r, W - 1 - c))
    if symm == 3:
        cells.add((H - 1 - r, c))
    if symm == 4:
        cells |= {(c, W - 1 - r), (W - 1 - c, r)}
    return cells


def dominoes(grid: list[list]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The well-formed dominoes of an answer grid (an L with an R right of it, a T with a B below)."""
    H, W = len(grid), len(grid[0])
    out = []
    for r in range(H):
        for c in range(W):
            if grid[r][c] == "L" and c + 1 < W and grid[r][c + 1] == "R":
                out.append(((r, c), (r, c + 1)))
            elif grid[r][c] == "T" and r + 1 < H and grid[r + 1][c] == "B":
                out.append(((r, c), (r + 1, c)))
    return out


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


# ---- queen moves (Signpost) ----------------------------------------------------------------
QUEEN_STEPS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def ray(r: int, c: int, step: tuple[int, int] | None, H: int, W: int) -> list[Cell]:
    """The cells from (r, c) in direction ``step`` (dr, dc) to the edge, nearest first (none for None)."""
    if step is None:
        return []
    out = []
    while 0 <= r + step[0] < H and 0 <= c + step[1] < W:
        r, c = r + step[0], c + step[1]
        out.append((r, c))
    return out


def seen_from(grid: list[list], r: int, c: int, blocker) -> int:
    """1 (the cell itself) plus the cells visible from (r, c) in the four directions, each line of
    sight ending before the first ``blocker`` cell or at the edge (Range's numbers)."""
    H, W = len(grid), len(grid[0])
    total = 1
    for step_ in ((-1, 0), (0, 1), (1, 0), (0, -1)):
        for a, b in ray(r, c, step_, H, W):
            if grid[a][b] == blocker:
                break
            total += 1
    return total


def scatter_symbols(rng: np.random.Generator, H: int, W: int, k: int, symbols, blank: str = ".") -> list[list]:
    """A grid with ``k`` random cells holding a random one of ``symbols`` each, ``blank`` elsewhere
    (Undead's mirrors)."""
    places = set(rng.permutation(W * H)[:k].tolist())
    return [[symbols[int(rng.integers(len(symbols)))] if r * W + c in places else blank for c in range(W)]
            for r in range(H)]


def change_one(rng: np.random.Generator, grid: list[list], cells: list[Cell], symbols) -> list[list]:
    """A copy of ``grid`` with one of ``cells`` (picked at random) changed to another of
    ``symbols`` (a generator's local search step, :func:`~kumo_gym.solvers.engine.descend`)."""
    (r, c), out = cells[int(rng.integers(len(cells)))], [list(row) for row in grid]
    others = [t for t in symbols if t != grid[r][c]]
    out[r][c] = others[int(rng.integers(len(others)))]
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


def queen_path(rng: np.random.Generator, H: int, W: int, tries: int = 1000, start: Cell | None = None,
               end: Cell | None = None) -> list[Cell]:
    """A random Hamiltonian path of queen moves over the H x W grid: Warnsdorff's rule (the
    cell with the fewest onward moves first) with random ties, restarted on a dead end; ``start``
    and ``end`` fix its first and last cells."""
    moves, masks = _queen_moves(H, W)
    n = H * W
    stop = -1 if end is None else end[0] * W + end[1]
    for _ in range(tries):
        r, c = start or (int(rng.integers(H)), int(rng.integers(W)))
        cell = r * W + c
        free = ((1 << n) - 1) & ~(1 << cell)  # the cells not yet on the path
        path = [cell]
        while len(path) < n:
            nxt = [b for b in moves[path[-1]] if free >> b & 1]
            if stop >= 0 and len(path) < n - 1:
                nxt = [b for b in nxt if b != stop]
            if not nxt:
                break
            degree = [(masks[b] & free).bit_count() - 1 for b in nxt]  # b itself is still free
            low = min(degree)
            best = [b for b, g in zip(nxt, degree) if g == low]
            path.append(best[int(rng.integers(len(best)))])
            free &= ~(1 << path[-1])
        if len(path) == n and (stop < 0 or path[-1] == stop):
            return [divmod(b, W) for b in path]
    raise RuntimeError(f"no Hamiltonian path of queen moves found on a {W}x{H} grid")


@functools.lru_cache(maxsize=16)
def _queen_moves(H: int, W: int) -> tuple[list[list[int]], list[int]]:
    """Per cell index: the cells a queen reaches (in QUEEN_STEPS order, nearest first) and the
    same set as a bit mask, plus the cell's own bit (so the onward count is one popcount)."""
    moves = [[r2 * W + c2 for st in QUEEN_STEPS for r2, c2 in ray(r, c, st, H, W)] for r in range(H) for c in range(W)]
    return moves, [sum(1 << b for b in m) | (1 << i) for i, m in enumerate(moves)]


def slot_pairs(slots: list[list[str]]) -> tuple[tuple, tuple, Mapping]:
    """Of a tiling (``L``/``R``, ``T``/``B`` halves, ``*`` single cells): (the two-cell slots as
    (first, second) cells, the single cells, each cell's other half). Kept for the last few
    tilings (Magnets asks for them four times per drawn puzzle), so read-only."""
    try:
        key = tuple(map(tuple, slots))
        hit = _SLOT_PAIRS.get(key)
    except TypeError:  # an unhashable cell: not kept
        key = hit = None
    if hit is None:
        pairs = tuple(((r, c), (r, c + 1) if v == "L" else (r + 1, c)) for r, row in enumerate(slots)
                      for c, v in enumerate(row) if v in "LT")
        singles = tuple((r, c) for r, row in enumerate(slots) for c, v in enumerate(row) if v == "*")
        hit = pairs, singles, MappingProxyType({a: b for a, b in pairs} | {b: a for a, b in pairs})
        if key is not None:
            if len(_SLOT_PAIRS) >= 256:
                _SLOT_PAIRS.clear()
            _SLOT_PAIRS[key] = hit
    return hit


_SLOT_PAIRS: dict[tuple, tuple] = {}


def across(H: int, W: int, mate: dict) -> list:
    """The pairs of orthogonally adjacent cells that lie in different slots."""
    return [((r, c), (a, b)) for r, c in np.ndindex(H, W) for a, b in ((r, c + 1), (r + 1, c))
            if a < H and b < W and mate.get((r, c)) != (a, b)]


def _forest_path(adj: dict[int, list[tuple[int, int]]], a: int, b: int) -> list[int] | None:
    """The edge indices on the path from ``a`` to ``b`` in a forest (``adj[node] = [(other, edge)]``)."""
    back: dict[int, tuple[int, int] | None] = {a: None}
    queue = [a]
    for node in queue:
        if node == b:
            break
        for other, e in adj.get(node, ()):
            if other not in back:
                back[other] = (node, e)
                queue.append(other)
    if b not in back:
        return None
    path, node = [], b
    while back[node] is not None:
        node, e = back[node]
        path.append(e)
    return path


def tree_small_clauses(n_nodes: int, edges: list[tuple[int, int, int]]) -> list[list[int]]:
    """Clauses every spanning tree of more than two nodes meets, for the smallest ways to break
    one (what the cuts of :func:`spanning_tree_cuts` would otherwise find one model at a time): no
    two joined nodes without a further edge, no cycle of four edges. ``edges`` as there."""
    if n_nodes <= 2:
        return []
    at: dict[int, list[tuple[int, int]]] = {}
    for u, v, lit in edges:
        at.setdefault(u, []).append((v, lit))
        at.setdefault(v, []).append((u, lit))
    out = [[-lit] + [x for w in (u, v) for _, x in at[w] if x != lit] for u, v, lit in edges]
    seen = set()
    for u in sorted(at):
        for i, (v, a) in enumerate(at[u]):
            for x, d in at[u][i + 1:]:
                for w, b in at[v]:
                    for y, c in at[x]:
                        if y == w and w != u and v != x and len({a, b, c, d}) == 4:
                            key = frozenset((a, b, c, d))
                            if key not in seen:
                                seen.add(key)
                                out.append([-a, -b, -c, -d])
    return out


def tree_rules(f, n_nodes: int, edges: list[tuple[int, int, int]]) -> Callable[[np.ndarray], list[list[int]]]:
    """The rule "the edges whose literal is true form a spanning tree": :func:`tree_small_clauses`
    added to the formula ``f``, and the cuts of :func:`spanning_tree_cuts` returned (Net)."""
    f.extend(tree_small_clauses(n_nodes, edges))
    return spanning_tree_cuts(n_nodes, edges)


def spanning_tree_cuts(n_nodes: int, edges: list[tuple[int, int, int]]) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "the edges whose literal is true form a spanning tree of nodes
    0..n-1" (Net's pipes): ``edges`` are ``(u, v, literal)``, parallel edges allowed.

    A model with several components gets, for each component S but the largest, the clause "some
    edge leaving S is on" (every spanning tree has one); a connected model with a cycle gets "not
    every edge of this cycle is on". Both follow from the rule alone, so the layout keeps them.
    """
    ends = np.asarray([(u, v) for u, v, _ in edges], np.int64).reshape(-1, 2)
    lits = np.asarray([lit for _, _, lit in edges], np.int64)

    def cuts(value: np.ndarray) -> list[list[int]]:
        parent = list(range(n_nodes))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        adj: dict[int, list[tuple[int, int]]] = {}
        cycle: list[int] | None = None
        for i in np.flatnonzero(np.sign(lits) * value[np.abs(lits)] > 0).tolist():
            u, v, _ = edges[i]
            ru, rv = find(u), find(v)
            if ru == rv:
                if cycle is None:
                    cycle = _forest_path(adj, u, v) + [i]
                continue
            parent[ru] = rv
            adj.setdefault(u, []).append((v, i))
            adj.setdefault(v, []).append((u, i))
        groups: dict[int, list[int]] = {}
        for x in range(n_nodes):
            groups.setdefault(find(x), []).append(x)
        comps = sorted(groups.values(), key=lambda g: (len(g), g[0]))
        if len(comps) > 1:
            out = []
            for comp in comps[:-1]:
                inside = np.zeros(n_nodes, bool)
                inside[comp] = True
                out.append(lits[inside[ends[:, 0]] != inside[ends[:, 1]]].tolist())
            return out
        if cycle is not None:
            return [[-int(edges[i][2]) for i in cycle]]
        return []

    return cuts


# ---- pipes and trees (Net; the loop puzzles) ---------------------------------------------------
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


def grid_links(H: int, W: int, wrap: bool = False, walls: frozenset = frozenset()) -> list[tuple[Cell, str, Cell]]:
    """Every place two cells can connect, ``(cell, "R" or "D", neighbour)`` in row-major order
    (two parallel ones between the same cells when a wrapping side has length 2)."""
    return [((r, c), d, n) for r in range(H) for c in range(W) for d in "RD"
            if (n := step(r, c, d, H, W, wrap, walls)) is not None]


def link_dirs(H: int, W: int, links: list[tuple[Cell, str, Cell]], chosen) -> list[list[str]]:
    """The directions (in URDL order) in which each cell joins a neighbour through the links of
    :func:`grid_links` whose indices are in ``chosen``."""
    dirs: list[list[set]] = [[set() for _ in range(W)] for _ in range(H)]
    for i in chosen:
        (r, c), d, (rr, cc) = links[i]
        dirs[r][c].add(d)
        dirs[rr][cc].add(OPPOSITE[d])
    return [["".join(d for d in "URDL" if d in cell) for cell in row] for row in dirs]


def union_find(nodes, edges) -> tuple[list[list], list[int]]:
    """The connected components of a graph (each sorted, largest first, ties by first node) and
    the indices of the edges that closed a cycle, in edge order."""
    parent = {x: x for x in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    closing = []
    for i, (a, b) in enumerate(edges):
        ra, rb = find(a), find(b)
        if ra == rb:
            closing.append(i)
        parent[ra] = rb
    groups: dict = {}
    for x in sorted(parent):
        groups.setdefault(find(x), []).append(x)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0])), closing


def random_tree(rng: np.random.Generator, n_nodes: int, edges: list[tuple[int, int]], start: int,
                max_degree: int) -> frozenset[int]:
    """A random spanning tree grown from ``start``, one random edge leaving the tree at a time,
    no node above ``max_degree``: the indices of its edges."""
    incident: dict[int, list[int]] = {}
    for i, (u, v) in enumerate(edges):
        incident.setdefault(u, []).append(i)
        incident.setdefault(v, []).append(i)
    degree = {start: 0}
    frontier: list[int] = []  # the edges leaving the tree at a node below max_degree, in index order
    tree = set()

    def enter(x: int) -> None:  # x joins the tree: its edges into the tree stop leaving it, the others start
        for j in incident.get(x, ()):
            if (edges[j][0] in degree) and (edges[j][1] in degree):
                k = bisect.bisect_left(frontier, j)
                if k < len(frontier) and frontier[k] == j:
                    del frontier[k]
            elif degree[x] < max_degree:
                bisect.insort(frontier, j)

    enter(start)
    while len(degree) < n_nodes:
        i = frontier[int(rng.integers(len(frontier)))]
        tree.add(i)
        new = [x for x in edges[i] if x not in degree]
        for x in edges[i]:
            degree[x] = degree.get(x, 0) + 1
        for x in new:
            enter(x)
        for x in edges[i]:
            if x not in new and degree[x] >= max_degree:  # full: its other edges leave the frontier
                frontier[:] = [j for j in frontier if x not in edges[j]]
    return frozenset(tree)


def tree_path(tree: frozenset[int], edges: list[tuple[int, int]], a: int, b: int) -> list[int]:
    """The indices of the tree edges on the path from node ``a`` to node ``b``."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for i in sorted(tree):
        u, v = edges[i]
        adj.setdefault(u, []).append((v, i))
        adj.setdefault(v, []).append((u, i))
    return _forest_path(adj, a, b) or []


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


#: (dr, dc) of the direction letters U, R, D, L (the order of the last axis of direction variables)
URDL = ((-1, 0), (0, 1), (1, 0), (0, -1))


def track_vars(f, H: int, W: int, rule: str) -> tuple[np.ndarray, np.ndarray, Callable, Callable]:
    """Lines through cell centres as four direction variables per cell (``d[r, c, k]``: the cell
    connects in direction URDL[k]; off-grid ones too, for a line entering from outside) and "on
    the line" per cell (``t``): 0 or 2 directions per cell, ``rule`` "both cells claim a
    connection" between neighbours, and no 2x2 loop (implied by any no-loop rule; it helps
    propagation). With them :func:`track_decoder` and :func:`track_cuts` (no closed loop). Tracks."""
    d, t = f.grid("dir", H, W, 4), f.grid("track", H, W)
    for r in range(H):
        for c in range(W):
            lits = [int(x) for x in d[r, c]]
            f.at_most(lits, 2)
            f.extend([[-x] + [y for y in lits if y != x] for x in lits])
            f.extend([[-x, int(t[r, c])] for x in lits] + [[-int(t[r, c])] + lits])
            if c + 1 < W:
                f.exactly([int(d[r, c, 1]), -int(d[r, c + 1, 3])], 1, rule=rule)
            if r + 1 < H:
                f.exactly([int(d[r, c, 2]), -int(d[r + 1, c, 0])], 1, rule=rule)
            if r + 1 < H and c + 1 < W:
                f.add([-int(d[r, c, 1]), -int(d[r, c + 1, 2]), -int(d[r + 1, c + 1, 3]), -int(d[r + 1, c, 0])])
    return d, t, track_decoder(d), track_cuts(d, t)


def track_cuts(d: np.ndarray, t: np.ndarray) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` of "no closed loop" over :func:`track_vars` (Tracks; the clauses of
    :func:`loop_cuts` with ``single_loop=False``, found on the value array directly): a component
    of the model's lines that nowhere leaves the grid is a closed loop S, and every solution with
    all of S on the line connects some cell of S out of S."""
    H, W = t.shape

    def cuts(value: np.ndarray) -> list[list[int]]:
        on = value[d] > 0
        seen = np.zeros((H, W), bool)
        out = []
        for r0, c0 in np.argwhere(on.any(axis=2)).tolist():
            if seen[r0, c0]:
                continue
            seen[r0, c0], comp, leaves, i = True, [(r0, c0)], False, 0
            while i < len(comp):
                r, c = comp[i]
                i += 1
                for k, (dr, dc) in enumerate(URDL):
                    if on[r, c, k]:
                        a, b = r + dr, c + dc
                        if not (0 <= a < H and 0 <= b < W) or not on[a, b, (k + 2) % 4]:
                            leaves = True
                        elif not seen[a, b]:
                            seen[a, b] = True
                            comp.append((a, b))
            if not leaves:
                cells = sorted(comp)
                inside = set(cells)
                out.append([-int(t[x]) for x in cells] + [int(d[x][k]) for x in cells for k, (dr, dc) in enumerate(URDL)
                                                          if (x[0] + dr, x[1] + dc) not in inside])
        return out

    return cuts


def track_decoder(d: np.ndarray) -> Callable[[np.ndarray], list[list[str]]]:
    """A value array over :func:`track_vars` as a grid of direction strings (URDL order)."""
    letters = np.array(["", "U", "R", "UR", "D", "UD", "RD", "URD", "L", "UL", "RL", "URL", "DL", "UDL", "RDL", "URDL"])

    def decode(value: np.ndarray) -> list[list[str]]:
        return letters[((value[d] > 0) * np.array([1, 2, 4, 8])).sum(axis=2)].tolist()

    return decode


def inside_sides(r: int, c: int, letters: str, H: int, W: int) -> str:
    """Those of the direction ``letters`` that point from (r, c) to a cell of the grid."""
    return "".join(x for x in letters if step(r, c, x, H, W) is not None)


def track_literals(d: np.ndarray, dirs: list[list[str]]) -> list[int]:
    """The literals setting every variable of :func:`track_vars` as a grid of direction strings does."""
    H, W = d.shape[:2]
    return [int(d[r, c, k]) * (1 if x in dirs[r][c] else -1) for r in range(H) for c in range(W) for k, x in enumerate("URDL")]


def track_border(d: np.ndarray, ends: set[tuple[Cell, str]]) -> list[int]:
    """The literals fixing every off-grid direction of :func:`track_vars`: true for the line's
    ``ends`` ((cell, letter) where it leaves the grid), false elsewhere (Tracks' entry and exit)."""
    H, W = d.shape[:2]
    return [int(d[r, c, k]) * (1 if ((r, c), x) in ends else -1) for r in range(H) for c in range(W)
            for k, x in enumerate("URDL") if step(r, c, x, H, W) is None]


def track_faults(grid: list[list[str]], ends: set[tuple[Cell, str]]) -> tuple[list[Cell], set, list[Cell]]:
    """What breaks a line in a grid of direction strings: the cells whose off-grid directions are
    not exactly the line's ``ends`` ((cell, letter)), the neighbour pairs (row-major) where only one
    cell claims the connection, and the cells of closed loops (Tracks' R1, R2, R3)."""
    H, W = len(grid), len(grid[0])
    off = {((0, c), "U") for c, v in enumerate(grid[0]) if "U" in v} | {((H - 1, c), "D") for c, v in enumerate(grid[-1]) if "D" in v}
    off |= {((r, 0), "L") for r, row in enumerate(grid) if "L" in row[0]} | {((r, W - 1), "R") for r, row in enumerate(grid) if "R" in row[-1]}
    one_sided = {((r, c), (r, c + 1)) for r, row in enumerate(grid) for c in range(W - 1)
                 if ("R" in row[c]) != ("L" in row[c + 1])}
    one_sided |= {((r, c), (r + 1, c)) for r in range(H - 1) for c in range(W)
                  if ("D" in grid[r][c]) != ("U" in grid[r + 1][c])}
    loops = [x for cells, n in link_components(H, W, dirs_edges(grid)) if n == len(cells) for x in cells]
    return sorted({x for x, _ in off ^ ends}), one_sided, loops


def loop_vars(f, H: int, W: int) -> tuple[np.ndarray, Callable, np.ndarray, Callable, Callable]:
    """Lines through cell centres as one variable per pair of neighbours and "on the line" per
    cell (``on``); ``e(a, d, k)`` is the edge variable leaving the cell ``k`` - 1 steps from ``a``
    in direction d (U, R, D, L), None off the grid. With them the answer variables (the edges in
    :func:`~.play.grid_edges` order), the decoder (the loops numbered, :func:`number_loops`) and
    the single-loop cuts (:func:`loop_cuts`). Pearl; :func:`loop_degree` adds each cell's rule."""
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


def loop_around(one: dict, step: dict, k: int, L: int) -> list[Cell] | None:
    """The cells numbered k - 2, k - 1, k + 1, k + 2 along a loop of :func:`loop_numbers` (None
    when the loop is broken anywhere from k - 2 to k + 2)."""
    ks = [(k + i - 1) % L + 1 for i in (-2, -1, 0, 1)] if k > 0 and L >= 4 else []
    if not ks or not all(step[j] for j in ks):
        return None
    return [one[(k + i - 1) % L + 1] for i in (-2, -1, 1, 2)]


def loop_edges(loop: list[Cell]) -> set:
    """The edges (sorted cell pairs) of a closed loop given as its cells in order."""
    return {tuple(sorted((loop[i - 1], loop[i]))) for i in range(len(loop))}


def cycle(edges) -> list[Cell]:
    """The cells of one closed loop, given as its edges (every cell on two), in the order the
    loop visits them from its first cell in reading order (the direction is immaterial to the
    callers: a loop's edges and pearls read the same either way)."""
    adj: dict = {}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    start = min(adj)
    out, prev, cur = [start], start, adj[start][0]
    while cur != start:
        out.append(cur)
        a, b = adj[cur]
        prev, cur = cur, (b if a == prev else a)
    return out


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


def random_path(rng: np.random.Generator, H: int, W: int, start: Cell, goal: Cell, length: float) -> list[Cell]:
    """A random simple path of cells from ``start`` to ``goal``: a loop-erased random walk, then
    random detours until it has ``length`` cells (:func:`stretch`; Tracks)."""
    path, where = [start], {start: 0}
    nbrs, draws = _neighbour_lists(H, W), []
    while path[-1] != goal:
        if not draws:  # random numbers in batches (one Generator call per step was most of the time)
            draws = rng.random(4 * H * W).tolist()[::-1]
        options = nbrs[path[-1]]
        nxt = options[int(draws.pop() * len(options))]
        if nxt in where:
            for x in path[where[nxt] + 1:]:
                del where[x]
            del path[where[nxt] + 1:]
        else:
            where[nxt] = len(path)
            path.append(nxt)
    return stretch(rng, H, W, path, length, closed=False)


@functools.lru_cache(maxsize=64)
def _neighbour_lists(H: int, W: int) -> dict:
    return {(r, c): list(neighbours4(r, c, H, W)) for r in range(H) for c in range(W)}


def random_loop(rng: np.random.Generator, H: int, W: int, length: float) -> list[Cell]:
    """A random closed loop of cells (in loop order): a random 2x2 square stretched by random
    detours until it has ``length`` cells (:func:`stretch`; Pearl)."""
    r, c = int(rng.integers(H - 1)), int(rng.integers(W - 1))
    return stretch(rng, H, W, [(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)], length, closed=True)


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


def straight(a: Cell, b: Cell, c: Cell) -> bool:
    """Whether the steps a -> b -> c go the same way."""
    return (b[0] - a[0], b[1] - a[1]) == (c[0] - b[0], c[1] - b[1])


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


def sight_line(grid: list[list[str]], side: str, i: int) -> list[tuple[tuple[int, int], bool]]:
    """Undead: the cells a border clue sees, in order, each with whether a mirror was passed before it.
    ``\\`` turns down into right and up into left (and back); ``/`` turns down into left and up
    into right. A cell seen twice is listed twice."""
    H, W = len(grid), len(grid[0])
    (r, c), (dr, dc) = {"top": ((0, i), (1, 0)), "bottom": ((H - 1, i), (-1, 0)),
                        "left": ((i, 0), (0, 1)), "right": ((i, W - 1), (0, -1))}[side]
    out, turned = [], False
    while 0 <= r < H and 0 <= c < W:
        if grid[r][c] == "\\":
            dr, dc, turned = dc, dr, True
        elif grid[r][c] == "/":
            dr, dc, turned = -dc, -dr, True
        else:
            out.append(((r, c), turned))
        r, c = r + dr, c + dc
    return out
# ---- symmetric regions (Galaxies) -----------------------------------------------------------------
def dot_cells(dot) -> list[Cell]:
    """The cells a dot at half-cell position (r2, c2) touches: 1, 2 or 4 of them."""
    r2, c2 = dot
    return [(r, c) for r in range(r2 // 2, (r2 + 1) // 2 + 1) for c in range(c2 // 2, (c2 + 1) // 2 + 1)]


def sight_lines(grid: list[list[str]]) -> dict[tuple[str, int], list[tuple[Cell, bool]]]:
    """Every border clue's :func:`sight_line`, keyed ``(side, index)``: top, bottom (by column),
    left, right (by row)."""
    H, W = len(grid), len(grid[0])
    return {(side, i): sight_line(grid, side, i) for side in ("top", "bottom", "left", "right")
            for i in range(W if side in ("top", "bottom") else H)}


@functools.lru_cache(maxsize=64)
def neighbour_table(H: int, W: int) -> dict[Cell, list[Cell]]:
    """Every cell's orthogonal neighbours (built once per grid size; read only)."""
    return {(r, c): list(neighbours4(r, c, H, W)) for r in range(H) for c in range(W)}


@functools.lru_cache(maxsize=64)
def dot_options(H: int, W: int) -> list[list[tuple[tuple[int, int], list[Cell]]]]:
    """Per cell (flat index), the dots at its centre, on its right or lower edge or its lower-right
    corner whose cells all lie in the grid, each with those cells."""
    out = []
    for r in range(H):
        for c in range(W):
            dots = ((2 * r, 2 * c), (2 * r, 2 * c + 1), (2 * r + 1, 2 * c), (2 * r + 1, 2 * c + 1))
            out.append([(d, dot_cells(d)) for d in dots if all(a < H and b < W for a, b in dot_cells(d))])
    return out


def random_symmetric_partition(rng: np.random.Generator, H: int, W: int, seeds: int,
                               shapes: dict) -> tuple[list, list[list]]:
    """A random partition of the grid into connected regions, each symmetric under a half turn
    about its dot: ``seeds`` dots on random free cells (at the cell's centre, on its right or lower
    edge or its lower-right corner, where those cells are free, weighted by ``shapes[(r2 % 2,
    c2 % 2)]``), then a random region grows by a free neighbour and its mirror image while any
    can, and a new dot is seeded when none can, until every cell has a region. Returns the dots
    in scan order and the grid of dot indices."""
    own = [[-1] * W for _ in range(H)]
    free = [H * W]  # how many cells have no region yet
    found: list = []
    grow: list[set] = []  # per region, the free cells it may grow by (kept up to date, not recomputed)
    near = neighbour_table(H, W)

    def fits(k: int, n: Cell) -> bool:
        a, b = found[k][0] - n[0], found[k][1] - n[1]
        return own[n[0]][n[1]] < 0 and 0 <= a < H and 0 <= b < W and own[a][b] < 0 and (a, b) != n

    def take(k: int, cells) -> None:
        """Give ``cells`` to region k: no region may grow into them (or into the cells whose
        mirror image they are) any more; region k may grow next to them."""
        for cell in cells:
            own[cell[0]][cell[1]] = k
        free[0] -= len(cells)
        for j, (r2, c2) in enumerate(found):
            g = grow[j]
            if g:
                for q in cells:
                    g.discard(q)
                    g.discard((r2 - q[0], c2 - q[1]))
        grow[k].update(n for cell in cells for n in near[cell] if fits(k, n))

    def seed() -> None:
        cells = [i for i in range(H * W) if own[i // W][i % W] < 0]
        r, c = divmod(cells[int(rng.integers(len(cells)))], W)
        opts = [d for d, cells in dot_options(H, W)[r * W + c] if all(own[a][b] < 0 for a, b in cells)]
        # rng.choice(len(opts), p=weights / their sum), with the same floating-point steps and the
        # same one uniform draw, without numpy's per-call overhead
        weight = [float(shapes[(d[0] % 2, d[1] % 2)]) for d in opts]
        total = 0.0
        for w in weight:
            total += w
        cdf, acc = [], 0.0
        for w in weight:
            acc += w / total
            cdf.append(acc)
        u = rng.random()
        found.append(opts[sum(1 for x in cdf if x / cdf[-1] <= u)])
        grow.append(set())
        take(len(found) - 1, next(cells for d, cells in dot_options(H, W)[r * W + c] if d == found[-1]))

    for _ in range(max(1, seeds)):
        if free[0]:
            seed()
    while free[0]:
        open_ = [k for k in range(len(found)) if grow[k]]
        if not open_:
            seed()
            continue
        k = open_[int(rng.integers(len(open_)))]
        cand = sorted(grow[k])
        p = cand[int(rng.integers(len(cand)))]
        take(k, {p, (found[k][0] - p[0], found[k][1] - p[1])})
    order = sorted(range(len(found)), key=lambda i: found[i])
    label = {old: new for new, old in enumerate(order)}
    return [list(found[i]) for i in order], [[label[own[r][c]] for c in range(W)] for r in range(H)]


def repair_tree(rng: np.random.Generator, tree: frozenset[int], edges: list[tuple[int, int]], wanted: set,
                ok: Callable[[frozenset], bool]) -> frozenset[int] | None:
    """A spanning tree one swap closer to the edge set ``wanted`` (Net's generator, after SAT found
    a second network): an edge of ``wanted`` outside ``tree``, taken in random order, replaces a tree
    edge that ``wanted`` lacks on the loop it closes; the first result that passes ``ok``, or None."""
    theirs = [i for i in sorted(wanted) if i not in tree]
    for j in rng.permutation(len(theirs)):
        add = theirs[int(j)]
        for cut in tree_path(tree, edges, *edges[add]):
            if cut not in wanted and ok(new := (tree - {cut}) | {add}):
                return new
    return None
