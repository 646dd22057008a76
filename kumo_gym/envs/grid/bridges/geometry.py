"""Bridges' geometry: which islands see each other, which of those lines cross, the bridges an
answer grid draws, and the random island layouts of our generator (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

import functools

import numpy as np

Cell = tuple[int, int]
WATER = "."
#: (row step, column step, answer letter) of the two bridge directions
ACROSS, DOWN = (0, 1, "H"), (1, 0, "V")


def islands_of(grid: list[list]) -> list[Cell]:
    """The island cells of a state grid (a number), in row-major order."""
    return [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if isinstance(v, int)]


def sight_lines(H: int, W: int, islands: list[Cell]) -> list[tuple[int, int, str, list[Cell]]]:
    """Every place a bridge could go: ``(i, j, letter, water cells between)`` for island ``i`` and
    the nearest island ``j`` to its right (letter ``H``) or below it (``V``), with at least one
    cell of water between them."""
    where = {cell: k for k, cell in enumerate(islands)}
    out = []
    for k, (r, c) in enumerate(islands):
        for dr, dc, letter in (ACROSS, DOWN):
            a, b, between = r + dr, c + dc, []
            while a < H and b < W and (a, b) not in where:
                between.append((a, b))
                a, b = a + dr, b + dc
            if a < H and b < W and between:
                out.append((k, where[a, b], letter, between))
    return out


def crossings(lines: list[tuple[int, int, str, list[Cell]]]) -> list[tuple[int, int]]:
    """Pairs of sight lines (indices) that share a water cell: an across one and a down one."""
    owner: dict[Cell, int] = {}
    out = []
    for n, (_, _, letter, cells) in enumerate(lines):
        if letter == "H":
            owner.update(dict.fromkeys(cells, n))
    for n, (_, _, letter, cells) in enumerate(lines):
        if letter == "V":
            out += [(owner[x], n) for x in cells if x in owner]
    return out


def bridge_symbol(letter: str, k: int) -> str:
    """The answer symbol of ``k`` bridges through a cell: ``H2`` two across, ``V1`` one down."""
    return f"{letter}{k}"


def read_bridge(v) -> tuple[str, int] | None:
    """``("H", 2)`` for the answer symbol ``H2``; None for water, an island or anything else."""
    if isinstance(v, str) and len(v) == 2 and v[0] in "HV" and v[1] in "1234":
        return v[0], int(v[1])
    return None


def joined(grid: list[list], H: int, W: int) -> list[tuple[Cell, Cell]]:
    """The links an answer grid draws between neighbouring cells: an island and a bridge cell beside it
    that runs towards it, or two bridge cells of the same direction in line (any counts)."""
    links = []
    for r in range(H):
        for c in range(W):
            here = read_bridge(grid[r][c])
            for dr, dc, letter in (ACROSS, DOWN):
                a, b = r + dr, c + dc
                if a >= H or b >= W:
                    continue
                there = read_bridge(grid[a][b])
                ends = (here is not None and here[0] == letter, there is not None and there[0] == letter)
                isl = (isinstance(grid[r][c], int), isinstance(grid[a][b], int))
                if (ends[0] or isl[0]) and (ends[1] or isl[1]) and any(ends):
                    links.append(((r, c), (a, b)))
    return links


def spread(nodes, edges: list) -> tuple[dict, dict, list[int]]:
    """Breadth-first groups of a graph: ``(first node of each node's group, the tree step into each node
    as (node before, edge index) or None at a group's first node, the edges outside those trees)``; an
    edge outside the trees closes a cycle."""
    adj: dict = {}
    for k, (a, b) in enumerate(edges):
        adj.setdefault(a, []).append((b, k))
        adj.setdefault(b, []).append((a, k))
    root: dict = {}
    up: dict = {}
    for start in nodes:
        if start in root:
            continue
        root[start], up[start], todo = start, None, [start]
        for x in todo:
            for y, k in adj.get(x, ()):
                if y not in root:
                    root[y], up[y] = start, (x, k)
                    todo.append(y)
    used = {step[1] for step in up.values() if step is not None}
    return root, up, [k for k in range(len(edges)) if k not in used]


def tree_path(up: dict, a, b) -> list[int]:
    """The edge indices on the tree path between ``a`` and ``b`` (same group) of :func:`spread`'s ``up``."""
    above: dict = {a: []}
    x, path = a, []
    while up[x] is not None:
        path = path + [up[x][1]]
        x = up[x][0]
        above[x] = path
    y, mine = b, []
    while y not in above:
        mine.append(up[y][1])
        y = up[y][0]
    return above[y] + mine


def random_layout(rng: np.random.Generator, H: int, W: int, share: int, expansion: int, maxb: int,
                  loops: bool) -> list[list] | None:
    """A random solved board grown from one island (Tatham's method, in our own code): pick an island
    and a direction, then put a new island two or more cells away along free water (the farthest
    place with probability ``expansion`` percent), or, with loops allowed and that probability,
    bridge to the island already in sight; each new bridge is 1..maxb strong. Growth stops at
    ``share`` percent of the cells as islands or after 50 failed tries in a row. None unless islands
    touch all four sides. The answer grid: numbers on islands, bridge symbols, water."""
    grid: list[list] = [[WATER] * W for _ in range(H)]
    r0, c0 = int(rng.integers(H)), int(rng.integers(W))
    isles = [(r0, c0)]
    grid[r0][c0] = 0
    want, misses = max(share * W * H // 100, 3), 0
    steps_at = _steps(H, W)
    while len(isles) < want and misses <= 50:
        r, c = isles[int(rng.integers(len(isles)))]
        ways = steps_at[r][c]
        dr, dc = ways[int(rng.integers(len(ways)))]
        a, b, far, target = r + dr, c + dc, 0, None
        if grid[a][b] != WATER:
            misses += 1
            continue
        while 0 <= a < H and 0 <= b < W:
            if grid[a][b] == WATER:
                far += 1
                a, b = a + dr, b + dc
                continue
            if isinstance(grid[a][b], int):
                target, far = (a, b), far - 1  # keep a cell of water before that island
            break
        if loops and target is not None and rng.integers(100) < expansion:
            _bridge(grid, (r, c), target, dr, dc, int(rng.integers(maxb)) + 1)
            misses = 0
            continue
        if far < 2:
            misses += 1
            continue
        dist = far if rng.integers(100) < expansion else 2 + int(rng.integers(far - 1))
        a, b = r + dr * dist, c + dc * dist
        if any(0 <= a + x < H and 0 <= b + y < W and isinstance(grid[a + x][b + y], int) for x, y in ((dc, dr), (-dc, -dr))):
            misses += 1
            continue
        grid[a][b] = 0
        isles.append((a, b))
        _bridge(grid, (r, c), (a, b), dr, dc, int(rng.integers(maxb)) + 1)
        misses = 0
    rows = {r for r, _ in isles}
    cols = {c for _, c in isles}
    if len(isles) < 2 or not {0, H - 1} <= rows or not {0, W - 1} <= cols:
        return None
    return grid


@functools.lru_cache(maxsize=64)
def _steps(H: int, W: int) -> tuple:
    """Per cell, the steps (left, right, up, down, in that order) that stay on an H x W grid."""
    steps = ((0, -1), (0, 1), (-1, 0), (1, 0))
    return tuple(tuple(tuple((dr, dc) for dr, dc in steps if 0 <= r + dr < H and 0 <= c + dc < W) for c in range(W))
                 for r in range(H))


def _bridge(grid: list[list], a: Cell, b: Cell, dr: int, dc: int, k: int) -> None:
    """Draw ``k`` bridges from island ``a`` to island ``b`` (``(dr, dc)`` the step from a to b),
    adding ``k`` to both islands' numbers."""
    letter = "H" if dr == 0 else "V"
    r, c = a[0] + dr, a[1] + dc
    while (r, c) != b:
        grid[r][c] = bridge_symbol(letter, k)
        r, c = r + dr, c + dc
    grid[a[0]][a[1]] += k
    grid[b[0]][b[1]] += k
