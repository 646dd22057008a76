"""Search for Cube (docs/games.md, Cube): shortest roll sequences by A*, found ones past its budget.

A position is ``(cell, faces, blue)``: the cell under the solid, the bit mask of its blue faces (in
the fixed attitude of :mod:`.geometry`, bit 0 the bottom face) and the bit mask of the blue cells.
A roll permutes the faces; then, unless every face was already blue, the bottom face and the cell
it lands on swap colours (a plain face picks up a blue cell, a blue face leaves its blue on a plain
cell). The goal is every face blue.

:func:`solve` is A* over positions (a node budget; positions reopened when reached by a shorter
path) with an admissible bound of the rolls still needed, the largest of:

* ``F``, the faces still plain: a roll turns at most one face blue;
* ``F - 1 + d``, ``d`` the rolls to the nearest blue cell the solid is not on (2 when the only one
  is under it): the first pick-up needs that many;
* where the blue cells are exactly as many as the plain faces (every game Tatham generates), each
  of them must still be visited, so the rolls of the shortest tree joining the solid's cell and the
  blue cells (grid distances; a walk through all of them is at least as long).

When the budget runs out, the smallest ``g + h`` left on the open list is a proven lower bound of
the optimum, and a weighted A* (``g + 3h``), then, if need be, a greedy search that picks up one
more face at a time (breadth-first to the nearest position with more blue faces) finds a solution.
"""
from __future__ import annotations

import heapq

import numpy as np

from .geometry import distances, moves_table

#: node budget of the exact search of the start, and of one for a later position
SOLVE_BUDGET = 400_000
DISTANCE_BUDGET = 60_000
#: node budget of the weighted search, and of each step of the greedy one
WEIGHTED_BUDGET = 400_000
GREEDY_STEP_BUDGET = 200_000
#: solids with more faces than this (the icosahedron) get the smaller exact budgets below and the
#: collecting search (:meth:`Search.collect`) instead of the weighted one
MANY_FACES = 12
MANY_SOLVE_BUDGET = 20_000
MANY_DISTANCE_BUDGET = 10_000
#: positions kept per layer of the collecting search; candidates it finishes and the node budget of each
COLLECT_WIDTH = 30
FINISH_LAYERS, FINISH_PER_LAYER, FINISH_BUDGET, FINISH_WEIGHT = 5, 6, 15_000, 5
#: the node budget of the last try, from the best position of the beam's last layer
LAST_FINISH_BUDGET = 300_000
INF = 1 << 30


class Search:
    """The rolls of one grid and solid, and searches from any position on it."""

    def __init__(self, solid: str, d1: int, d2: int):
        self.table, self.nf = moves_table(solid, d1, d2)
        self.n = len(self.table)
        self.full = (1 << self.nf) - 1
        self.dist = distances(solid, d1, d2).tolist()
        # a return trip to a cell: the shortest way off it and back
        self.back = [2 * min((1 for _ in row), default=INF) for row in self.table]
        perms = sorted({p for row in self.table for _, _, p in row})
        self._perm_index = {p: i for i, p in enumerate(perms)}
        self.perm_tables: list = []
        # up to 12 faces, one table of every face mask; above, a table per byte of the mask
        self.byte_tables: list = []
        if self.nf <= 12:
            for p in perms:
                t = np.zeros(1 << self.nf, np.int64)
                for i, src in enumerate(p):
                    t |= ((np.arange(1 << self.nf) >> src) & 1) << i
                self.perm_tables.append(t.tolist())
        else:
            for p in perms:
                tables = []
                for lo in range(0, self.nf, 8):
                    t = [0] * 256
                    for v in range(256):
                        for i, src in enumerate(p):
                            if lo <= src < lo + 8 and v >> (src - lo) & 1:
                                t[v] |= 1 << i
                    tables.append(t)
                self.byte_tables.append(tables)
        self.rolls = [[(name, t, self._perm_index[p], p) for name, t, p in row] for row in self.table]
        self._mst: dict = {}

    # ---- rules ------------------------------------------------------------------------------------
    def permute(self, faces: int, k: int, perm: tuple) -> int:
        if self.perm_tables:
            return self.perm_tables[k][faces]
        out = 0
        for j, t in enumerate(self.byte_tables[k]):
            out |= t[(faces >> (8 * j)) & 255]
        return out

    def step(self, state: tuple[int, int, int], direction: str) -> tuple[int, int, int] | None:
        """The position after rolling ``direction`` (None when there is no cell that way)."""
        pos, faces, blue = state
        for name, t, k, perm in self.rolls[pos]:
            if name == direction:
                return self._roll(faces, blue, t, k, perm)
        return None

    def _roll(self, faces: int, blue: int, t: int, k: int, perm: tuple) -> tuple[int, int, int]:
        if faces == self.full:
            return t, faces, blue
        f = self.permute(faces, k, perm)
        b, q = f & 1, (blue >> t) & 1
        if b != q:
            f ^= 1
            blue ^= 1 << t
        return t, f, blue

    def directions(self, pos: int) -> list[str]:
        return [name for name, _, _, _ in self.rolls[pos]]

    # ---- the bound ----------------------------------------------------------------------------------
    def bound(self, state: tuple[int, int, int]) -> int:
        """An admissible bound of the rolls from ``state`` to every face blue (INF: none can)."""
        pos, faces, blue = state
        plain = self.nf - faces.bit_count()
        if plain == 0:
            return 0
        nblue = blue.bit_count()
        if nblue < plain:
            return INF
        key = (pos, blue)
        hit = self._mst.get(key)
        if hit is None:
            cells = [i for i in range(self.n) if blue >> i & 1]
            dpos = self.dist[pos]
            near = min((dpos[c] if c != pos else self.back[pos]) for c in cells)
            tree = self._tree(pos, cells)
            if len(self._mst) > 1_000_000:
                self._mst.clear()
            hit = self._mst[key] = (near, tree)
        near, tree = hit
        best = plain - 1 + near
        if nblue == plain:
            best = max(best, tree)
        return best

    def _tree(self, pos: int, cells: list[int]) -> int:
        """The weight of the shortest tree joining ``pos`` and ``cells`` (Prim, grid distances); a
        blue cell under the solid counts as a return trip away."""
        nodes = [c for c in cells if c != pos]
        extra = self.back[pos] if pos in cells else 0
        if not nodes:
            return extra
        dist = self.dist
        best = [dist[pos][c] for c in nodes]
        total = 0
        left = list(range(len(nodes)))
        while left:
            j = min(left, key=best.__getitem__)
            total += best[j]
            left.remove(j)
            row = dist[nodes[j]]
            for i in left:
                best[i] = min(best[i], row[nodes[i]])
        return max(total, extra)

    # ---- searches -----------------------------------------------------------------------------------
    def astar(self, start: tuple[int, int, int], budget: int, weight: int = 1) -> tuple[list[str] | None, int, int]:
        """``(rolls, lower, nodes)``: a shortest roll list (weight 1; with a larger weight, a roll list
        found by ``g + weight*h``) from ``start``, or None with ``lower`` a proven lower bound of the
        optimum once ``budget`` nodes were expanded (INF when no roll list exists)."""
        h0 = self.bound(start)
        if h0 == INF:
            return None, INF, 0
        if h0 == 0:
            return [], 0, 0
        g = {start: 0}
        parent: dict = {start: None}
        heap = [(weight * h0, h0, 0, start)]
        nodes = 0
        while heap:
            f, h, g_neg, s = heapq.heappop(heap)
            gs = g[s]
            if -g_neg > gs:
                continue
            if h == 0:
                return self._path(parent, s), gs, nodes
            nodes += 1
            if nodes > budget:
                lower = h0 if weight != 1 else min(f, min((e[0] for e in heap), default=f))
                return None, lower, nodes
            pos, faces, blue = s
            for name, t, k, perm in self.rolls[pos]:
                u = self._roll(faces, blue, t, k, perm)
                gu = gs + 1
                old = g.get(u)
                if old is not None and old <= gu:
                    continue
                hu = self.bound(u)
                if hu == INF:
                    continue
                g[u] = gu
                parent[u] = (s, name)
                heapq.heappush(heap, (gu + weight * hu, hu, -gu, u))
        return None, INF, nodes

    @staticmethod
    def _path(parent: dict, s) -> list[str]:
        out = []
        while parent[s] is not None:
            s, name = parent[s]
            out.append(name)
        return out[::-1]

    def greedy(self, start: tuple[int, int, int]) -> list[str] | None:
        """Rolls to every face blue, one more blue face at a time (each stretch breadth-first)."""
        out: list[str] = []
        s = start
        while s[1] != self.full:
            target = s[1].bit_count()
            seen = {s: None}
            todo = [s]
            found = None
            for u in todo:
                if len(seen) > GREEDY_STEP_BUDGET:
                    return None
                pos, faces, blue = u
                for name, t, k, perm in self.rolls[pos]:
                    v = self._roll(faces, blue, t, k, perm)
                    if v in seen:
                        continue
                    seen[v] = (u, name)
                    if v[1].bit_count() > target and self.bound(v) < INF:
                        found = v
                        break
                    todo.append(v)
                if found is not None:
                    break
            if found is None:
                return None
            out += self._path(seen, found)
            s = found
        return out

    def _stretches(self, state: tuple[int, int, int]) -> dict:
        """Every position with one more blue face that ``state`` reaches by rolls that never leave a
        blue face on a plain cell (so the blue cells stay as they are until the last roll, which
        picks one up), each with its shortest roll list (breadth-first over cell and faces)."""
        pos, faces, blue = state
        parent: dict = {(pos, faces): None}
        todo = [(pos, faces)]
        out: dict = {}
        for node in todo:
            p, f = node
            for name, t, k, perm in self.rolls[p]:
                g = self.permute(f, k, perm)
                b, q = g & 1, (blue >> t) & 1
                if b == q:
                    if (t, g) not in parent:
                        parent[(t, g)] = (node, name)
                        todo.append((t, g))
                elif b == 0:
                    u = (t, g | 1, blue ^ (1 << t))
                    if u not in out:
                        out[u] = self._path(parent, node) + [name]
        return out

    def collect(self, start: tuple[int, int, int], width: int = COLLECT_WIDTH) -> list[str] | None:
        """Rolls to every face blue, found by a beam over pick-ups, then weighted A* (or None).

        Layer ``k`` holds positions with ``k`` more blue faces than the start, each reached by
        stretches of :meth:`_stretches` (one pick-up each, no blue ever left behind); the ``width``
        positions with the smallest ``g + bound`` of a layer are expanded into the next. Late in the
        game every roll may have to leave blue behind, and the beam dies out; then the positions of
        its last layers, best first, are finished by weighted A* (``g + 5h``) with a small budget
        each (then the best one with a large budget), and the first roll list found is returned."""
        layers: list[dict] = [{start: (0, None, [])}]
        while True:
            layer = layers[-1]
            done = [s for s in layer if s[1] == self.full]
            if done:
                return self._collected(layers, min(done, key=lambda s: layer[s][0]))
            ranked = sorted(layer, key=lambda s: (layer[s][0] + self.bound(s), layer[s][0]))[:width]
            nxt: dict = {}
            for s in ranked:
                g0 = layer[s][0]
                for u, rolls in self._stretches(s).items():
                    g = g0 + len(rolls)
                    if (u not in nxt or nxt[u][0] > g) and self.bound(u) < INF:
                        nxt[u] = (g, s, rolls)
            if not nxt:
                break
            layers.append(nxt)
        tries = []
        for depth in range(len(layers) - 1, max(-1, len(layers) - 1 - FINISH_LAYERS), -1):
            layer = layers[depth]
            best = sorted(layer, key=lambda s: (layer[s][0] + self.bound(s), layer[s][0]))[:FINISH_PER_LAYER]
            tries += [(depth, s, FINISH_BUDGET) for s in best]
        tries.append((tries[0][0], tries[0][1], LAST_FINISH_BUDGET))
        for depth, s, budget in tries:
            rest, _, _ = self.astar(s, budget, weight=FINISH_WEIGHT)
            if rest is not None:
                return self._collected(layers[:depth + 1], s) + rest
        return None

    @staticmethod
    def _collected(layers: list[dict], s) -> list[str]:
        out: list[str] = []
        for layer in reversed(layers):
            _, prev, rolls = layer[s]
            out = rolls + out
            s = prev
        return out

    def solve(self, start: tuple[int, int, int], budget: int = SOLVE_BUDGET) -> dict:
        """``{"moves", "lower", "upper", "exact", "nodes"}`` from ``start`` (moves None: no solution found;
        ``lower`` INF: none exists)."""
        path, lower, nodes = self.astar(start, budget)
        if path is not None:
            return {"moves": path, "lower": len(path), "upper": len(path), "exact": True, "nodes": nodes}
        if lower == INF:
            return {"moves": None, "lower": INF, "upper": INF, "exact": True, "nodes": nodes}
        if self.nf > MANY_FACES:
            found = self.collect(start)
        else:
            found, _, more = self.astar(start, WEIGHTED_BUDGET, weight=3)
            nodes += more
        if found is None:
            found = self.greedy(start)
        if found is None:
            return {"moves": None, "lower": lower, "upper": INF, "exact": False, "nodes": nodes}
        return {"moves": found, "lower": min(lower, len(found)), "upper": len(found),
                "exact": lower >= len(found), "nodes": nodes}
