"""Graph colouring as a FineReason puzzle tree (spec finereason.md §2, row "Graph colouring").

State: a list of n colours, 0 = uncoloured; the root colours vertex 0 with 1. Tree edge: colour
the lowest-index uncoloured vertex with c = 1..min(k, max_used + 1), skipping colours of its
neighbours (new colours are interchangeable, so only the next unused one is a child). ``k`` is a
colour *budget* (the reference calls it ``chromatic_number``; for most graphs it exceeds the
true chromatic number). Label oracle: DSATUR backtracking (``kumo_gym.solvers.finereason``).
Generator: a random graph G(n, p); its chromatic number is computed exactly and the budget is
chi + slack.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...core.errors import ConfigError, check_int
from ...solvers.finereason import coloring_extends
from .text import format_value
from .tree import PuzzleRules


@lru_cache(maxsize=256)
def _adjacency(graph_key: tuple) -> np.ndarray:
    n = len(graph_key)
    adj = np.zeros((n, n), np.uint8)
    for v, nbrs in enumerate(graph_key):
        for u in nbrs:
            if 0 <= u < n and u != v:
                adj[v, u] = adj[u, v] = 1
    return adj


def adjacency(data: dict) -> np.ndarray:
    return _adjacency(tuple(tuple(nbrs) for nbrs in data["graph"]))


def chromatic_number(graph: list[list[int]]) -> int:
    """The smallest k for which the graph has a proper k-colouring (exact search)."""
    n = len(graph)
    root = [1] + [0] * (n - 1)
    adj = _adjacency(tuple(tuple(x) for x in graph))
    for k in range(1, n + 1):
        if coloring_extends(adj, root, k):
            return k
    return n


class ColoringRules(PuzzleRules):
    name = "coloring"
    min_depth = 2
    label_words = ("Colorable", "Uncolorable")

    def root(self, data):
        return [1] + [0] * (len(data["graph"]) - 1)

    def children(self, data, state):
        try:
            v = state.index(0)
        except ValueError:
            return []
        k = data["k"]
        adj = adjacency(data)
        taken = {state[u] for u in np.flatnonzero(adj[v])}
        top = min(k, max(state) + 1)
        out = []
        for c in range(1, top + 1):
            if c not in taken:
                child = list(state)
                child[v] = c
                out.append((None, child))
        return out

    def is_complete(self, data, state):
        return 0 not in state

    def is_solution(self, data, state):
        return self.is_complete(data, state) and self.proper(data, state)

    def proper(self, data, state) -> bool:
        k = data["k"]
        if any(not (0 <= c <= k) for c in state):
            return False
        for v, nbrs in enumerate(data["graph"]):
            if state[v] and any(state[u] == state[v] for u in nbrs):
                return False
        return True

    def solvable(self, data, state):
        return coloring_extends(adjacency(data), state, data["k"])

    def max_depth(self, data):
        return len(data["graph"]) - 2

    def forward_error(self, data, parent, candidate):
        diffs = [v for v in range(len(parent)) if parent[v] != candidate[v]]
        if not diffs:
            return "no_change", None
        if len(diffs) > 1:
            return "multiple_changes", None
        v = diffs[0]
        c = candidate[v]
        if parent[v] != 0:
            return "changed_filled_cell", None
        if not (1 <= c <= data["k"]):
            return "value_out_of_range", None
        if any(parent[u] == c for u in data["graph"][v]):
            return "rule_clash", None
        return None, candidate

    def normalize(self, data, raw):
        n = len(data["graph"])
        if not (isinstance(raw, list) and len(raw) == n):
            raise ValueError(f"a colouring state is a list of {n} integers")
        out = []
        for v in raw:
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"colour {v!r} is not an integer")
            out.append(v)
        return out

    def format_state(self, state):
        return format_value(state)

    def generate(self, rng, params):
        n = check_int("n_vertices", params.get("n_vertices", 15), 3, 40)
        slack = check_int("slack", params.get("slack", 1), 0, 5)
        p = float(params.get("edge_probability", 0.5))
        if not 0.05 <= p <= 0.95:
            raise ConfigError(f"edge_probability {p} is outside the valid range 0.05..0.95")
        graph: list[list[int]] = [[] for _ in range(n)]
        for v in range(n):
            for u in range(v + 1, n):
                if rng.random() < p:
                    graph[v].append(u)
                    graph[u].append(v)
        chi = chromatic_number(graph)
        return {"graph": graph, "k": min(n, chi + slack)}

    def rules_text(self, data):
        return (f"Graph colouring: give every vertex a colour from 1 to {data['k']} (no more than "
                f"{data['k']} colours) so that no two adjacent vertices share a colour. A colouring is "
                "written as a list whose i-th entry is the colour of vertex i; 0 means not coloured yet.")

    def data_text(self, data):
        lines = [f"The graph has {len(data['graph'])} vertices, numbered from 0. Adjacency list:"]
        lines += [f"  {v}: {format_value(nbrs)}" for v, nbrs in enumerate(data["graph"])]
        return "\n".join(lines)

    def move_text(self):
        return ("A forward move colours exactly one uncoloured vertex (a 0) with a colour that none of its "
                "neighbours has, within the colour budget. Nothing else changes.")

    def backward_text(self):
        return "A backward move uncolours the vertex coloured last, returning to the previous state."


RULES = ColoringRules()


def load_question(record: dict) -> dict:
    """Puzzle data from a reference ``graphcoloring_*`` row (``chromatic_number`` is the budget)."""
    inputs = record.get("inputs", record)
    graph = [[int(u) for u in nbrs] for nbrs in inputs["graph"]]
    return {"graph": graph, "k": int(inputs["chromatic_number"])}
