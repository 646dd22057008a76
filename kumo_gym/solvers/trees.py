"""Random spanning trees of a graph (Net's and Netslide's networks of pipes): grown from one node,
one random edge leaving the tree at a time, with a cap on every node's degree."""
from __future__ import annotations

import bisect

import numpy as np


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
