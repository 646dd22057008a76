"""Graph colouring as a FineReason puzzle tree (docs/specs/finereason.md §2, row "Graph colouring").

State: a list of n colours, 0 = uncoloured; the root colours vertex 0 with 1. Tree edge: colour
the lowest-index uncoloured vertex with c = 1..min(k, max_used + 1), skipping colours of its
neighbours (new colours are interchangeable, so only the next unused one is a child). ``k`` is a
colour *budget* (the reference calls it ``chromatic_number``; for most graphs it exceeds the
true chromatic number). Label oracle: DSATUR backtracking (``kumo_gym.envs.finereason.search``).
Generator: a random graph G(n, p); its chromatic number is computed exactly and the budget is
chi + slack.
"""
from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

import numpy as np

from ...core.errors import ConfigError, check_int
from .search import coloring_extends
from .text import format_value, state_int
from .tree import MoveCheck, PuzzleRules, every_rule

MAX_VERTICES = 40


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
    presets: ClassVar[dict] = {"easy": {"n_vertices": 10, "slack": 1}, "normal": {"n_vertices": 15, "slack": 1},
               "hard": {"n_vertices": 20, "slack": 0}}

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

    def check_forward(self, data, parent, candidate, enabled=every_rule, allow_noop=True):
        diffs = [v for v in range(len(parent)) if parent[v] != candidate[v]]
        if not diffs:
            return MoveCheck("changes_state", "no_change") if enabled("changes_state") else MoveCheck(child=candidate)
        if len(diffs) > 1 and enabled("single_move"):
            return MoveCheck("single_move", "multiple_changes")
        for v in diffs:
            c = candidate[v]
            if parent[v] != 0 and enabled("keeps_filled"):
                return MoveCheck("keeps_filled", "changed_filled_cell")
            if not 1 <= c <= data["k"]:
                if enabled("allowed_values"):
                    return MoveCheck("allowed_values", "value_out_of_range")
                continue
            if any(candidate[u] == c for u in data["graph"][v]) and enabled("no_conflict"):
                return MoveCheck("no_conflict", "rule_clash")
        return MoveCheck(child=candidate)

    def illegal_moves(self, data, state, rng, allow_noop=True):
        k, graph = data["k"], data["graph"]
        free = [v for v, c in enumerate(state) if c == 0]
        done = [v for v, c in enumerate(state) if c != 0]
        ok = lambda s, v: [c for c in range(1, k + 1) if all(s[u] != c for u in graph[v])]

        def put(pairs):
            s = list(state)
            for v, c in pairs:
                s[v] = c
            return s

        out = [("changes_state", list(state))]
        for v in dict.fromkeys([free[0], free[-1]] if free else []):
            out.append(("allowed_values", put([(v, k + 1 if v % 2 else -1)])))
            taken = sorted({state[u] for u in graph[v]} - {0})
            if taken:
                out.append(("no_conflict", put([(v, taken[0])])))
        for a, b in ((0, -1), (0, 1)):
            if len(free) >= 2 and ok(state, free[a]):
                s1 = put([(free[a], ok(state, free[a])[0])])
                if ok(s1, free[b]):
                    out.append(("single_move", put([(free[a], s1[free[a]]), (free[b], ok(s1, free[b])[0])])))
        for v in [done[-1], done[0]] + [done[int(i)] for i in rng.permutation(len(done))[:10]]:
            alt = [c for c in ok(state, v) if c != state[v]]
            if alt:
                out.append(("keeps_filled", put([(v, alt[0])])))
                break
        return out

    def normalize(self, data, raw):
        n = len(data["graph"])
        if not (isinstance(raw, list) and len(raw) == n):
            raise ValueError(f"a colouring state is a list of {n} integers")
        return [state_int(v, "colour") for v in raw]

    def format_state(self, state):
        return format_value(state)

    def validate_data(self, data):
        graph, k = data.get("graph"), data.get("k")
        if not (isinstance(graph, list) and 2 <= len(graph) <= MAX_VERTICES):
            raise ConfigError(f"puzzle_data.graph must be a list of 2 to {MAX_VERTICES} adjacency lists")
        n = len(graph)
        for v, nbrs in enumerate(graph):
            if not (isinstance(nbrs, list) and all(isinstance(u, int) and not isinstance(u, bool) and 0 <= u < n
                                                   and u != v for u in nbrs)):
                raise ConfigError(f"puzzle_data.graph[{v}] must list neighbours 0..{n - 1} other than {v}")
        if not (isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= n):
            raise ConfigError(f"puzzle_data.k (the colour budget) must be an integer in 1..{n}, not {k!r}")

    def generate(self, rng, params):
        n = check_int("n_vertices", params.get("n_vertices", 15), 3, 30)
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

    move_rule = ("A forward move colours exactly one uncoloured vertex (a 0) with a colour that none of its "
                 "neighbours has, within the colour budget. Nothing else changes.")

    backward_rule = "A backward move uncolours the vertex coloured last, returning to the previous state."

    def from_reference(self, inputs: dict, outputs: dict) -> dict:
        """Puzzle data from a reference ``graphcoloring_*`` row (``chromatic_number`` is the budget)."""
        graph = [[int(u) for u in nbrs] for nbrs in inputs["graph"]]
        return {"graph": graph, "k": int(inputs["chromatic_number"])}


RULES = ColoringRules()
#: a reference row read as puzzle data (:meth:`~.tree.PuzzleRules.load_question`)
load_question = RULES.load_question
