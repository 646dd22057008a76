"""Flood's searches (docs/games.md, Flood): the board as a graph of regions, Tatham's lookahead
player (which sets the move limit), a beam search and an exact A*.

A board is cut into regions, the maximal groups of one colour joined through edges. The flooded
area is always a union of regions, held as a bit mask over them; a move of colour c adds every
region of colour c next to it (two neighbouring regions never share a colour, so nothing further
joins in the same move). The searches work on these masks alone.

Tatham's player (``tatham_moves``) looks three moves ahead: it tries every colour but the current
one at each of three levels and scores the board each line leaves by breadth-first distance in the
region graph: the largest distance first (smaller is better), then the number of cells at that
distance (fewer), then the cells flooded (more); a line that completes the board beats everything,
sooner beating later, and ties go to the lowest colour. It plays the best first move and repeats.
Its number of moves plus the leniency is the move limit of a generated board.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence

#: how far Tatham's player looks ahead
LOOKAHEAD = 3
#: A* is tried only when the best line known is at most this many moves above the first lower bound
MAX_GAP = 3


def bits(mask: int):
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Regions:
    """The region graph of a board (``grid``: W*H colours in reading order)."""

    def __init__(self, grid: Sequence[int], w: int, h: int):
        self.w, self.h, self.wh = w, h, w * h
        label = [-1] * (w * h)
        colour: list[int] = []
        size: list[int] = []
        for start in range(w * h):
            if label[start] >= 0:
                continue
            r = len(colour)
            c = grid[start]
            label[start] = r
            stack, n = [start], 0
            while stack:
                i = stack.pop()
                n += 1
                y, x = divmod(i, w)
                for j, ok in ((i - 1, x > 0), (i + 1, x < w - 1), (i - w, y > 0), (i + w, y < h - 1)):
                    if ok and label[j] < 0 and grid[j] == c:
                        label[j] = r
                        stack.append(j)
            colour.append(c)
            size.append(n)
        self.label, self.colour, self.size, self.n = label, colour, size, len(colour)
        adj = [0] * self.n
        for i in range(w * h):
            a = label[i]
            if i % w < w - 1 and label[i + 1] != a:
                adj[a] |= 1 << label[i + 1]
                adj[label[i + 1]] |= 1 << a
            if i + w < w * h and label[i + w] != a:
                adj[a] |= 1 << label[i + w]
                adj[label[i + w]] |= 1 << a
        self.adj = adj
        self.full = (1 << self.n) - 1
        cmask: dict[int, int] = {}
        for r, c in enumerate(colour):
            cmask[c] = cmask.get(c, 0) | 1 << r
        self.cmask = cmask

    def start(self) -> tuple[int, int, int, int]:
        """The flooded area at the start: ``(mask, colour, cells, border)``, the border being the
        regions next to the area."""
        r = self.label[0]
        return 1 << r, self.colour[r], self.size[r], self.adj[r]

    def cells(self, mask: int) -> int:
        size, n = self.size, 0
        while mask:
            low = mask & -mask
            n += size[low.bit_length() - 1]
            mask ^= low
        return n

    def step(self, state: tuple[int, int, int, int], c: int) -> tuple[int, int, int, int]:
        """The flooded area after a move of colour ``c``."""
        mask, _, cells, border = state
        new = border & self.cmask.get(c, 0)
        if not new:
            return mask, c, cells, border
        mask |= new
        adj, size = self.adj, self.size
        for r in bits(new):
            border |= adj[r]
            cells += size[r]
        return mask, c, cells, border & ~mask

    def levels(self, mask: int, border: int) -> tuple[int, int]:
        """``(d, last)``: the largest distance in the region graph from the area ``mask`` (whose
        border is ``border``) and the regions at that distance."""
        seen, front, d, adj = mask | border, border, 1, self.adj
        while True:
            nxt, rest = 0, front
            while rest:  # the union of the neighbours of the front's regions (inlined: the hot loop)
                low = rest & -rest
                nxt |= adj[low.bit_length() - 1]
                rest ^= low
            nxt &= ~seen
            if not nxt:
                return d, front
            seen |= nxt
            front = nxt
            d += 1

    def lower_bound(self, mask: int, border: int) -> int:
        """Moves still needed at least: the largest region distance (a move brings every region at
        most one step closer) and the number of colours left outside (a move takes one colour)."""
        if mask == self.full:
            return 0
        d, _ = self.levels(mask, border)
        rest = self.full & ~mask
        return max(d, sum(1 for m in self.cmask.values() if m & rest))


def tatham_moves(rg: Regions, colours: int) -> list[int]:
    """Tatham's three-move lookahead player, played to the end (colours 0..colours-1)."""
    score_of: dict[int, tuple[int, int, int]] = {}

    def leaf(state) -> tuple[int, int, int]:
        mask = state[0]
        hit = score_of.get(mask)
        if hit is None:
            d, last = rg.levels(mask, state[3])
            # Tatham's distance counts one level more than ours; only comparisons matter
            hit = score_of[mask] = (d + 1, rg.cells(last), -state[2])
        return hit

    def choose(state, depth: int) -> tuple[int, tuple[int, int, int]]:
        best, best_move = (rg.wh + 1, 0, 0), -1
        for c in range(colours):
            if c == state[1]:
                continue
            nxt = rg.step(state, c)
            if nxt[0] == rg.full:
                return c, (-1, depth, -rg.wh)
            val = choose(nxt, depth + 1)[1] if depth < LOOKAHEAD - 1 else leaf(nxt)
            if val < best:
                best, best_move = val, c
        return best_move, best

    state, moves = rg.start(), []
    while state[0] != rg.full:
        c = choose(state, 0)[0]
        state = rg.step(state, c)
        moves.append(c)
    return moves


def beam_moves(rg: Regions, width: int) -> list[int]:
    """A beam search over flooded areas: every move that floods something, the ``width`` areas of
    least lower bound (:meth:`Regions.lower_bound`; then least region distance, then most cells) kept
    per level; the first line that completes the board."""
    start = rg.start()
    if start[0] == rg.full:
        return []
    level: list[tuple[tuple[int, int, int, int], list[int]]] = [(start, [])]
    seen = {start[0]}
    while level:
        found: list[tuple] = []
        for state, path in level:
            border = state[3]
            for c in sorted({rg.colour[r] for r in bits(border)}):
                nxt = rg.step(state, c)
                if nxt[0] == rg.full:
                    return path + [c]
                if nxt[0] in seen:
                    continue
                seen.add(nxt[0])
                d, _ = rg.levels(nxt[0], nxt[3])
                rest = rg.full & ~nxt[0]
                left = sum(1 for m in rg.cmask.values() if m & rest)
                found.append(((max(d, left), d, -nxt[2]), len(found), nxt, path + [c]))
        found.sort()
        level = [(s, p) for _, _, s, p in found[:width]]
    raise AssertionError("a connected board is always completed")  # pragma: no cover


def optimal_moves(rg: Regions, budget: int, cap: int | None = None) -> tuple[list[int] | None, bool, int]:
    """The fewest moves that flood the board, by A* over flooded areas with :meth:`Regions.lower_bound`
    (consistent, so the first completed area popped is optimal), lines longer than ``cap`` pruned.
    ``(moves, True, len)``; ``(None, True, cap + 1)`` when no line of at most ``cap`` moves exists;
    ``(None, False, lb)`` when ``budget`` expansions ran out, ``lb`` then a proven lower bound."""
    start = rg.start()
    if start[0] == rg.full:
        return [], True, 0
    parent: dict[int, tuple[int, int]] = {}
    g_of = {start[0]: 0}
    f0 = rg.lower_bound(start[0], start[3])
    if cap is not None and f0 > cap:
        return None, True, cap + 1
    heap = [(f0, 0, 0, start)]
    tick, lb = 0, f0
    while heap:
        f, _, g, state = heapq.heappop(heap)
        mask = state[0]
        if g > g_of[mask]:
            continue  # a stale entry: the area was reached sooner since
        lb = max(lb, f)
        if mask == rg.full:
            moves = []
            while mask != start[0]:
                mask, c = parent[mask]
                moves.append(c)
            return moves[::-1], True, g
        budget -= 1
        if budget < 0:
            return None, False, lb
        for c in sorted({rg.colour[r] for r in bits(state[3])}):
            nxt = rg.step(state, c)
            if g + 1 < g_of.get(nxt[0], 1 << 30):
                f2 = g + 1 + rg.lower_bound(nxt[0], nxt[3])
                if cap is not None and f2 > cap:
                    continue
                g_of[nxt[0]] = g + 1
                parent[nxt[0]] = (mask, c)
                tick += 1
                # ties: deeper first (nearer the goal), then first found
                heapq.heappush(heap, (f2, tick - (g + 1) * (1 << 40), g + 1, nxt))
    return None, True, (cap + 1 if cap is not None else lb)


def flood(grid: Sequence[int], w: int, h: int, c: int) -> list[int]:
    """The board after a move of colour ``c`` (the area joined to the top-left cell takes colour c)."""
    out = list(grid)
    old = out[0]
    if old == c:
        return out
    out[0] = c
    stack = [0]
    while stack:
        i = stack.pop()
        y, x = divmod(i, w)
        for j, ok in ((i - 1, x > 0), (i + 1, x < w - 1), (i - w, y > 0), (i + w, y < h - 1)):
            if ok and out[j] == old:
                out[j] = c
                stack.append(j)
    return out


def best_moves(rg: Regions, colours: int, width: int, budget: int) -> tuple[list[int], bool, int]:
    """The shortest line known: the better of Tatham's player and the beam search, then A* for a
    shorter one within ``budget`` expansions (when the first lower bound is within :data:`MAX_GAP`). ``(moves, exact, lower_bound)``: ``exact`` when the
    moves are proven fewest (A* found them, or proved that nothing shorter exists)."""
    found = tatham_moves(rg, colours)
    beam = beam_moves(rg, width)
    if len(beam) < len(found):
        found = beam
    start = rg.start()
    lb = rg.lower_bound(start[0], start[3])
    if len(found) - lb > MAX_GAP:
        return found, False, lb  # too far apart for A* to close within a budget worth spending
    better, decided, lb = optimal_moves(rg, budget, cap=len(found) - 1)
    if better is not None:
        return better, True, len(better)
    return found, decided, len(found) if decided else lb
