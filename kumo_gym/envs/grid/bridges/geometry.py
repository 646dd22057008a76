"""Bridges' geometry: which islands see each other, which of those lines cross, and the bridges an
answer grid draws (the generator's random boards are drawn in ``kernel.py``)."""
from __future__ import annotations

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
