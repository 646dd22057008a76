"""Grid geometry shared by the puzzles: neighbours, connected components, matchings, and the lazy
cuts that make "these cells are connected" a rule the SAT engine can enforce (grid_puzzles.md
§8; Range, Singles, Filling, Galaxies, Net, Pearl and Tracks need it)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

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
    """A random domino tiling: straight rows (or columns), then random flips of 2x2 blocks."""
    g = [["LR"[c % 2] for c in range(W)] if W % 2 == 0 else ["TB"[r % 2]] * W for r in range(H)]
    for r, c in zip(rng.integers(H - 1, size=25 * H * W).tolist(), rng.integers(W - 1, size=25 * H * W).tolist()):
        if g[r][c] == "L" and g[r + 1][c] == "L":
            g[r][c], g[r][c + 1], g[r + 1][c], g[r + 1][c + 1] = "T", "T", "B", "B"
        elif g[r][c] == "T" and g[r][c + 1] == "T":
            g[r][c], g[r][c + 1], g[r + 1][c], g[r + 1][c + 1] = "L", "R", "L", "R"
    return g


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


def spanning_tree_cuts(n_nodes: int, edges: list[tuple[int, int, int]]) -> Callable[[np.ndarray], list[list[int]]]:
    """The ``cuts`` callback for "the edges whose literal is true form a spanning tree of nodes
    0..n-1" (Net's pipes): ``edges`` are ``(u, v, literal)``, parallel edges allowed.

    A model with several components gets, for each component S but the largest, the clause "some
    edge leaving S is on" (every spanning tree has one); a connected model with a cycle gets "not
    every edge of this cycle is on". Both follow from the rule alone, so the layout keeps them.
    """
    def cuts(value: np.ndarray) -> list[list[int]]:
        parent = list(range(n_nodes))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        adj: dict[int, list[tuple[int, int]]] = {}
        cycle: list[int] | None = None
        for i, (u, v, lit) in enumerate(edges):
            if np.sign(lit) * value[abs(lit)] <= 0:
                continue
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
                inside = set(comp)
                out.append([int(lit) for u, v, lit in edges if (u in inside) != (v in inside)])
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
    degree = {start: 0}
    tree = set()
    while len(degree) < n_nodes:
        frontier = [i for i, (a, b) in enumerate(edges) if (a in degree) != (b in degree)
                    and degree.get(a, degree.get(b)) < max_degree]
        i = frontier[int(rng.integers(len(frontier)))]
        tree.add(i)
        for x in edges[i]:
            degree[x] = degree.get(x, 0) + 1
    return frozenset(tree)


def tree_path(tree: frozenset[int], edges: list[tuple[int, int]], a: int, b: int) -> list[int]:
    """The indices of the tree edges on the path from node ``a`` to node ``b``."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for i in sorted(tree):
        u, v = edges[i]
        adj.setdefault(u, []).append((v, i))
        adj.setdefault(v, []).append((u, i))
    return _forest_path(adj, a, b) or []
