"""Search for Inertia (a ball sliding on a grid, picking up gems; docs/games.md, Inertia).

The ball only ever rests on a stop square (the start is one) or against a wall or the grid's
edge, and gems never stop it, so where a move ends does not depend on the gems already taken: the
moves form a fixed graph over the resting places, each move labelled with the gems it passes. A
game state is ``(place, gems left)`` and the question is the shortest walk in that graph whose
labels cover every gem.

:meth:`Board.layered` is breadth-first search over those states, a whole level at a time with
numpy, that keeps only states whose depth plus an admissible estimate (for every gem left, the
fewest moves from the ball's place to a move that passes it; the largest of these) is below the
length of a known solution. It is exact when it ends within its budget of states; when it runs
out, the smallest depth plus estimate on its last level is a proven lower bound. The known solution
comes from :meth:`Board.greedy` (each time the shortest walk to the nearest move that takes a gem)
and from the same levels cut to a beam of the states with fewest gems left: an upper bound.
:func:`shortest` puts them together.
"""
from __future__ import annotations

from collections import deque

#: Tatham's eight directions, numbered as he numbers them: up, then clockwise (row step, column step)
DIRS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
#: what :meth:`Board.slide` returns for a move that cannot start (a wall or the edge next to the ball)
BLOCKED = -1
#: what it returns for a move that runs onto a mine
MINE = -2
UNREACHABLE = 1 << 30
#: the layered search keys a state as gems-left mask times places plus place in 64 bits
MAX_LAYERED_GEMS = 48
#: states kept per level by the beam search that looks for a first solution
BEAM = 3000
#: the same for the plain-Python beam of boards with more gems
PYTHON_BEAM = 300


class Board:
    """An Inertia grid (``w`` x ``h`` letters ``b``, ``g``, ``m``, ``s``, ``w`` and one ``S``)."""

    def __init__(self, w: int, h: int, grid: str):
        self.w, self.h, self.grid = w, h, grid
        self.start = grid.index("S")
        self.gems = [i for i, ch in enumerate(grid) if ch == "g"]
        self.gem_bit = {cell: 1 << k for k, cell in enumerate(self.gems)}
        self.all_gems = (1 << len(self.gems)) - 1
        self._moves: dict[int, list] = {}
        self._to_gem: dict[int, list[int]] | None = None
        self._by_distance: dict[int, list[tuple[int, int]]] | None = None

    # ---- the rules ------------------------------------------------------------------------------
    def open_cell(self, r: int, c: int) -> bool:
        """Whether (r, c) is inside the grid and not a wall."""
        return 0 <= r < self.h and 0 <= c < self.w and self.grid[r * self.w + c] != "w"

    def slide(self, pos: int, dr: int, dc: int, through_mines: bool = False):
        """Where a move from ``pos`` by steps of (dr, dc) ends: ``(cell, gems passed)``, or
        :data:`BLOCKED`, or :data:`MINE`. The ball passes gems, stops on a stop square or the start,
        or on the last open cell before a wall or the edge. ``through_mines``: the ball stops on
        the first mine instead (what a move does once the mine check is switched off)."""
        w = self.w
        r, c = divmod(pos, w)
        if (dr, dc) == (0, 0) or not self.open_cell(r + dr, c + dc):
            return BLOCKED
        taken = 0
        while True:
            r, c = r + dr, c + dc
            cell = r * w + c
            ch = self.grid[cell]
            if ch == "m" and not through_mines:
                return MINE
            taken |= self.gem_bit.get(cell, 0)
            if ch in "msS" or not self.open_cell(r + dr, c + dc):
                return cell, taken

    def moves(self, pos: int) -> list:
        """:meth:`slide` in each of the eight directions, in Tatham's order."""
        hit = self._moves.get(pos)
        if hit is None:
            hit = self._moves[pos] = [self.slide(pos, dr, dc) for dr, dc in DIRS]
        return hit

    def places(self, start: int | None = None) -> list[int]:
        """The resting places reachable from ``start`` (default: the start square), in BFS order."""
        s = self.start if start is None else start
        seen, queue = {s}, deque([s])
        while queue:
            p = queue.popleft()
            for res in self.moves(p):
                if isinstance(res, tuple) and res[0] not in seen:
                    seen.add(res[0])
                    queue.append(res[0])
        return list(seen)

    # ---- the estimate ---------------------------------------------------------------------------
    def to_gem(self) -> dict[int, list[int]]:
        """For each reachable place, the fewest moves to pass each gem (:data:`UNREACHABLE` if none)."""
        if self._to_gem is not None:
            return self._to_gem
        places = self.places()
        back: dict[int, list[int]] = {p: [] for p in places}
        for p in places:
            for res in self.moves(p):
                if isinstance(res, tuple):
                    back[res[0]].append(p)
        table = {p: [UNREACHABLE] * len(self.gems) for p in places}
        for k in range(len(self.gems)):
            bit = 1 << k
            queue = deque()
            for p in places:
                if any(isinstance(res, tuple) and res[1] & bit for res in self.moves(p)):
                    table[p][k] = 1
                    queue.append(p)
            while queue:
                q = queue.popleft()
                for p in back[q]:
                    if table[p][k] == UNREACHABLE:
                        table[p][k] = table[q][k] + 1
                        queue.append(p)
        self._to_gem = table
        return table

    def _order(self) -> dict[int, list[tuple[int, int]]]:
        """For each reachable place, ``(moves, gem bit)`` of every gem, farthest first."""
        if self._by_distance is None:
            self._by_distance = {p: sorted(((d, 1 << k) for k, d in enumerate(row)), reverse=True)
                                 for p, row in self.to_gem().items()}
        return self._by_distance

    def estimate(self, pos: int, left: int) -> int:
        """The admissible estimate of moves from ``(pos, left)`` (:data:`UNREACHABLE`: hopeless):
        the farthest gem left."""
        if left == 0:
            return 0
        order = self._order().get(pos)
        if order is None:
            return UNREACHABLE
        for d, bit in order:
            if left & bit:
                return d
        return 0

    # ---- the searches ---------------------------------------------------------------------------
    def play(self, pos: int, left: int, dirs: list[int]) -> tuple[int, int] | None:
        """``(place, gems left)`` after the direction numbers ``dirs``; None if one is blocked or mined."""
        for d in dirs:
            res = self.moves(pos)[d]
            if not isinstance(res, tuple):
                return None
            pos, left = res[0], left & ~res[1]
        return pos, left

    def core(self, pos: int) -> set[int]:
        """The places reachable from ``pos`` that can come back to it."""
        ahead = set(self.places(pos))
        back: dict[int, list[int]] = {p: [] for p in ahead}
        for p in ahead:
            for res in self.moves(p):
                if isinstance(res, tuple):
                    back[res[0]].append(p)
        seen, queue = {pos}, deque([pos])
        while queue:
            q = queue.popleft()
            for p in back[q]:
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        return seen

    def greedy(self, pos: int, left: int) -> list[int] | None:
        """:meth:`walk_greedy` kept inside the places that can return to ``pos`` (a walk that can
        always come back is never trapped), or, failing that, free."""
        inside = self.walk_greedy(pos, left, self.core(pos))
        return inside if inside is not None else self.walk_greedy(pos, left, None)

    def walk_greedy(self, pos: int, left: int, allowed: set[int] | None) -> list[int] | None:
        """A list of direction numbers taking every gem of ``left`` from ``pos`` (not necessarily
        shortest): each time the shortest walk to a move that takes a gem (of those, the move that
        takes most); None when some gem can no longer be reached this way."""
        out: list[int] = []
        while left:
            prev: dict[int, tuple[int, int] | None] = {pos: None}
            frontier = [pos]
            found = None
            while frontier and found is None:
                best_gain = 0
                ahead = []
                for p in frontier:
                    for d, res in enumerate(self.moves(p)):
                        if not isinstance(res, tuple):
                            continue
                        q, took = res
                        if allowed is not None and q not in allowed:
                            continue
                        gain = (took & left).bit_count()
                        if gain > best_gain:
                            best_gain, found = gain, (p, d)
                        if q not in prev:
                            prev[q] = (p, d)
                            ahead.append(q)
                frontier = ahead
            if found is None:
                return None
            p, d = found
            walk = [d]
            link = prev[p]
            while link is not None:
                p, d = link
                walk.append(d)
                link = prev[p]
            walk.reverse()
            after = self.play(pos, left, walk)
            assert after is not None
            pos, left = after
            out.extend(walk)
        return out

    def beam(self, pos: int, left: int, width: int, upper: int) -> list[int] | None:
        """A solution from ``(pos, left)`` shorter than ``upper``, or None, by a plain-Python beam: each
        level keeps the ``width`` new states with the fewest gems left (ties: the smallest estimate)
        (for boards whose gems do not fit :meth:`layered`'s keys)."""
        level = {(pos, left): None}
        links: list[dict] = []
        seen = {(pos, left)}
        for _ in range(min(upper - 1, 10 * self.w * self.h)):
            ahead: dict[tuple[int, int], tuple[tuple[int, int], int]] = {}
            for state in level:
                for d, res in enumerate(self.moves(state[0])):
                    if not isinstance(res, tuple):
                        continue
                    nxt = (res[0], state[1] & ~res[1])
                    if nxt not in seen and nxt not in ahead:
                        ahead[nxt] = (state, d)
            if not ahead:
                return None
            ranked = sorted(ahead, key=lambda st: (st[1].bit_count(), self.estimate(*st)))[:width]
            links.append({st: ahead[st] for st in ranked})
            seen.update(ranked)
            if ranked[0][1] == 0:
                at, path = ranked[0], []
                for step in reversed(links):
                    at, d = step[at]
                    path.append(d)
                return path[::-1]
            level = dict.fromkeys(ranked)
        return None

    # ---- breadth-first search, a whole level at a time ------------------------------------------
    def layered(self, pos: int, left: int, upper: int, max_states: int,
                beam: int = 0) -> tuple[list[int] | None, int, int]:
        """``(directions, lower, states)``: breadth-first search over ``(place, gems left)`` from
        ``(pos, left)``, a level at a time with numpy, keeping only states whose depth plus
        :meth:`estimate` is below ``upper`` (the length of a known solution). A list is a shortest
        one (shorter than ``upper``); None with ``lower == upper`` proves that ``upper`` is the
        optimum; None with a smaller ``lower`` means the search stopped after ``max_states`` states and
        ``lower`` is a proven lower bound. With ``beam`` > 0 each level keeps only the ``beam`` states
        with the fewest gems left (ties: the smallest estimate): a list found is then a solution, not
        necessarily a shortest one, and the bounds it returns prove nothing."""
        import numpy as np

        places = self.places(pos)
        index = {p: i for i, p in enumerate(places)}
        n_places, n_gems = len(places), len(self.gems)
        if n_gems > MAX_LAYERED_GEMS:
            raise ValueError(f"{n_gems} gems do not fit the layered search's keys")
        reach = self.to_gem()
        nxt = np.full((n_places, 8), -1, np.int64)
        took = np.zeros((n_places, 8), np.int64)
        dist = np.full((n_places, max(n_gems, 1)), UNREACHABLE, np.int64)
        for i, p in enumerate(places):
            for d, res in enumerate(self.moves(p)):
                if isinstance(res, tuple):
                    nxt[i, d], took[i, d] = index[res[0]], res[1]
            if p in reach:
                dist[i, :n_gems] = reach[p]
            else:  # a place the start does not reach (a hand-made state): no estimate
                dist[i, :] = 0
        bits = np.int64(1) << np.arange(max(n_gems, 1), dtype=np.int64)

        def estimate(masks, where):
            out = np.zeros(masks.size, np.int64)
            rows = dist[where]
            for k in range(n_gems):
                np.maximum(out, np.where(masks & bits[k], rows[:, k], 0), out=out)
            return out

        keys = np.array([left * n_places + index[pos]], np.int64)
        levels = [(keys, np.array([-1], np.int64), np.array([-1], np.int64))]
        seen = keys.copy()
        states = 1
        depth = 0
        lower = min(upper, depth + int(estimate(keys // n_places, keys % n_places)[0]))
        while True:
            masks, where = keys // n_places, keys % n_places
            done = np.nonzero(masks == 0)[0]
            if done.size:
                return self._walk_back(levels, int(done[0])), depth, states
            if depth + 1 >= upper or keys.size == 0:
                return None, upper, states
            if states > max_states:
                return None, lower, states
            if not beam and states + 8 * keys.size > 2 * max_states:
                return None, lower, states
            to = nxt[where]                                     # (n, 8)
            ok = to >= 0
            parent = np.broadcast_to(np.arange(keys.size)[:, None], to.shape)[ok]
            dirs = np.broadcast_to(np.arange(8)[None, :], to.shape)[ok]
            new_masks = (masks[:, None] & ~took[where])[ok]
            new_where = to[ok]
            h = estimate(new_masks, new_where)
            keep = depth + 1 + h < upper
            cand = (new_masks * n_places + new_where)[keep]
            parent, dirs = parent[keep], dirs[keep]
            order = np.argsort(cand, kind="stable")
            cand, parent, dirs = cand[order], parent[order], dirs[order]
            first = np.ones(cand.size, bool)
            first[1:] = cand[1:] != cand[:-1]
            at = np.searchsorted(seen, cand)
            fresh = first & ((at == seen.size) | (seen[np.minimum(at, seen.size - 1)] != cand))
            keys, parent, dirs = cand[fresh], parent[fresh], dirs[fresh]
            seen = np.insert(seen, at[fresh], keys)
            if beam and keys.size > beam:
                score = (np.bitwise_count(keys // n_places).astype(np.int64) * 4096
                         + estimate(keys // n_places, keys % n_places))
                best = np.sort(np.argsort(score, kind="stable")[:beam])
                keys, parent, dirs = keys[best], parent[best], dirs[best]
            states += keys.size
            depth += 1
            levels.append((keys, parent, dirs))
            if keys.size:
                lower = min(upper, depth + int(estimate(keys // n_places, keys % n_places).min()))
            else:
                lower = upper

    @staticmethod
    def _walk_back(levels, at: int) -> list[int]:
        """The directions leading to state ``at`` of the last level, from the levels' parent links."""
        path = []
        for _keys, parent, dirs in reversed(levels[1:]):
            path.append(int(dirs[at]))
            at = int(parent[at])
        return path[::-1]


def shortest(board: Board, pos: int, left: int, max_states: int, beam: int = BEAM) -> dict:
    """The best solution found from ``(pos, left)`` and its bounds: ``{"dirs", "lower", "upper",
    "exact", "states"}`` (``dirs`` None when no way to take every gem was found).

    A greedy walk and a beam search give a solution; the layered search then looks for a shorter one
    within ``max_states`` states, proving the optimum when it finishes (``exact``), else a lower
    bound. Boards with more than :data:`MAX_LAYERED_GEMS` gems get only the estimate as lower bound."""
    if left == 0:
        return {"dirs": [], "lower": 0, "upper": 0, "exact": True, "states": 0}
    best = board.greedy(pos, left)
    if len(board.gems) <= MAX_LAYERED_GEMS:
        found, _, _ = board.layered(pos, left, UNREACHABLE if best is None else len(best), max_states, beam=beam)
        if found is not None:
            best = found
    if best is None:
        # no walk found: the exact search decides whether one exists
        upper = UNREACHABLE
    else:
        upper = len(best)
    if len(board.gems) > MAX_LAYERED_GEMS:
        if beam:
            found = board.beam(pos, left, PYTHON_BEAM, upper)
            if found is not None:
                best, upper = found, len(found)
        est = board.estimate(pos, left) if pos in board.to_gem() else 0
        return {"dirs": best, "lower": min(est, upper), "upper": upper, "exact": est == upper, "states": 0}
    found, lower, states = board.layered(pos, left, upper, max_states)
    if found is not None:
        return {"dirs": found, "lower": len(found), "upper": len(found), "exact": True, "states": states}
    return {"dirs": best, "lower": lower, "upper": upper, "exact": lower >= upper, "states": states}
