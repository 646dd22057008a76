"""Net's geometry: the links between tiles, random spanning trees and their repair, and the
spanning-tree rule of the SAT encoding (lazy cuts plus the small clauses) (docs/specs/grid_puzzles.md §8)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ....solvers.trees import random_tree
from ..geometry import OPPOSITE, Cell, step

__all__ = ["grid_links", "link_dirs", "random_tree", "repair_tree", "spanning_tree_cuts", "tree_path", "tree_rules",
           "tree_small_clauses", "union_find"]


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


def tree_path(tree: frozenset[int], edges: list[tuple[int, int]], a: int, b: int) -> list[int]:
    """The indices of the tree edges on the path from node ``a`` to node ``b``."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for i in sorted(tree):
        u, v = edges[i]
        adj.setdefault(u, []).append((v, i))
        adj.setdefault(v, []).append((u, i))
    return _forest_path(adj, a, b) or []


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
