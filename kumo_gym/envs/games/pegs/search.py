"""Search for Pegs (peg solitaire on a board of holes; docs/games.md, Pegs).

The board's holes are numbered in reading order, skipping the cells outside the board, and a
position is the bit mask of the holes holding a peg (a board has at most :data:`MAX_HOLES` holes,
so a mask fits one machine word). A jump is three holes in a line, ``(a, b, t)``: the peg on ``a``
jumps over the peg on ``b`` (which is removed) into the empty ``t``.

Every jump removes exactly one peg, so every solution of a board with P pegs has exactly P - 1
jumps: the number of moves is fixed, and what the search decides is whether one peg can be left
at all. :func:`solve` is a depth-first search over jumps in a fixed order that remembers every
position proved dead (no jump sequence from it leaves one peg) in an open-addressing hash table, so
no dead position is searched twice. It runs in plain Python for small boards and compiled with numba
for larger ones, up to a node budget; past it the answer is "unknown" (None with ``exhausted``).
"""
from __future__ import annotations

import numpy as np

from ....solvers.native import compiled, kernel

#: a position is a mask of at most this many holes (one signed 64-bit word)
MAX_HOLES = 63
#: boards with at most this many pegs are searched in plain Python (no numba import)
PYTHON_PEGS = 14
#: nodes of each try (restarts share what they proved dead)
RESTART_NODES = 20_000
#: default node budget of one search (all its restarts)
DEFAULT_BUDGET = 40_000_000
#: slots of the dead-position table (a power of two); it stops growing at 70% full
TABLE_BITS = 22


def jump_table(w: int, h: int, holes: list[int]) -> list[tuple[int, int, int]]:
    """Every jump of a ``w`` x ``h`` board whose holes (cell indices in reading order) are ``holes``,
    as ``(from, over, to)`` cell indices, in reading order of ``from`` then right, down, left, up."""
    is_hole = set(holes)
    out = []
    for cell in holes:
        r, c = divmod(cell, w)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            r2, c2 = r + 2 * dr, c + 2 * dc
            if 0 <= r2 < h and 0 <= c2 < w:
                over, to = (r + dr) * w + c + dc, r2 * w + c2
                if over in is_hole and to in is_hole:
                    out.append((cell, over, to))
    return out


def _probe(table, s):
    """The slot of position ``s`` in the open-addressing table (its own, or the empty one to fill)."""
    mask = table.shape[0] - 1
    i = (s ^ (s >> 17) ^ (s >> 31) ^ (s >> 47)) & mask
    while table[i] != 0 and table[i] != s:
        i = (i + 1) & mask
    return i


def _isolated(s, nbr):
    """The pegs of position ``s`` with no peg on a neighbouring hole."""
    n = 0
    x = s
    k = 0
    while x != 0:
        if x & 1 and (s & nbr[k]) == 0:
            n += 1
        x >>= 1
        k += 1
    return n


@kernel(python=True, callees=("_probe", "_isolated"))
def _dfs(ja, jb, jt, nbr, rank, weight, start, max_nodes, table, filled, path):
    """Depth-first search for a jump sequence from the peg mask ``start`` to a single peg.

    ``ja``, ``jb``, ``jt``: the masks of the jumps' three holes; ``nbr``: each hole's neighbours;
    ``rank``: the tie-break order of the jumps; ``table``: the dead positions (zeros: empty slots),
    ``filled[0]`` how many it holds (both kept from one search to the next on the same board);
    ``path``: room for the jump indices. The jumps of a position are tried in order of ``rank``,
    or with ``weight`` 1 first in order of the isolated pegs they leave (fewest first). Returns ``(length, nodes)``: ``length`` >= 0 the number of jumps written to ``path``,
    -1 when ``max_nodes`` ran out, -2 when no sequence exists.
    """
    n = ja.shape[0]
    limit = path.shape[0]
    full = table.shape[0] * 7 // 10
    cand = np.zeros((limit + 1, n), np.int64)
    ncand = np.zeros(limit + 1, np.int64)
    score = np.zeros(n, np.int64)
    tried = np.zeros(limit + 1, np.int64)
    states = np.zeros(limit + 1, np.int64)
    if start != 0 and start & (start - 1) == 0:
        return 0, 0
    states[0] = start
    tried[0] = -1
    depth = 0
    nodes = 0
    while depth >= 0:
        s = states[depth]
        if tried[depth] < 0:  # first visit: order this position's jumps
            m = 0
            for j in range(n):
                if (s & ja[j]) != 0 and (s & jb[j]) != 0 and (s & jt[j]) == 0:
                    v = rank[j]
                    if weight:
                        v += _isolated(s ^ ja[j] ^ jb[j] ^ jt[j], nbr) * n
                    i = m
                    while i > 0 and score[i - 1] > v:
                        score[i] = score[i - 1]
                        cand[depth, i] = cand[depth, i - 1]
                        i -= 1
                    score[i] = v
                    cand[depth, i] = j
                    m += 1
            ncand[depth] = m
        k = tried[depth] + 1
        if k >= ncand[depth] or depth >= limit:
            if filled[0] < full:
                i = _probe(table, s)
                if table[i] == 0:
                    table[i] = s
                    filled[0] += 1
            depth -= 1
            continue
        tried[depth] = k
        j = cand[depth, k]
        u = s ^ ja[j] ^ jb[j] ^ jt[j]
        nodes += 1
        path[depth] = j
        if u & (u - 1) == 0:
            return depth + 1, nodes
        if table[_probe(table, u)] == u:
            continue
        if nodes >= max_nodes:
            return -1, nodes
        depth += 1
        states[depth] = u
        tried[depth] = -1
    return -2, nodes




class Board:
    """The holes and jumps of one board, and searches from any position on it."""

    def __init__(self, w: int, h: int, holes: list[int]):
        if len(holes) > MAX_HOLES:
            raise ValueError(f"a board of {len(holes)} holes is more than the search's {MAX_HOLES}")
        self.w, self.h, self.holes = w, h, list(holes)
        self.bit = {cell: k for k, cell in enumerate(self.holes)}
        self.jumps = jump_table(w, h, self.holes)
        self.ja = np.array([1 << self.bit[a] for a, _, _ in self.jumps], np.int64)
        self.jb = np.array([1 << self.bit[b] for _, b, _ in self.jumps], np.int64)
        self.jt = np.array([1 << self.bit[t] for _, _, t in self.jumps], np.int64)
        self.nbr = np.zeros(max(1, len(self.holes)), np.int64)
        for cell, k in self.bit.items():
            r, c = divmod(cell, w)
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                other = (r + dr) * w + c + dc
                if 0 <= r + dr < h and 0 <= c + dc < w and other in self.bit:
                    self.nbr[k] |= 1 << self.bit[other]

    def mask(self, pegs) -> int:
        """The position of the pegs on cells ``pegs``."""
        return sum(1 << self.bit[c] for c in pegs)

    def solve(self, pegs, max_nodes: int = DEFAULT_BUDGET) -> tuple[list[tuple[int, int, int]] | None, bool, int]:
        """``(jumps, decided, nodes)`` from the pegs on cells ``pegs``: a jump list leaving one peg
        (``(from, over, to)`` cells), or None with ``decided`` True when none exists and False when
        the node budget ran out first."""
        start = self.mask(pegs)
        n_pegs = len(list(pegs)) if not isinstance(pegs, (set, frozenset, list, tuple)) else len(pegs)
        if start == 0:
            return None, True, 0
        path = np.zeros(max(1, n_pegs), np.int64)
        small = n_pegs <= PYTHON_PEGS
        table = np.zeros(1 << (16 if small else TABLE_BITS), np.int64)
        filled = np.zeros(1, np.int64)
        dfs = _dfs if small else compiled(_dfs)
        n = len(self.jumps)
        rank = np.arange(n, dtype=np.int64)
        used, restart, length = 0, 0, -1
        while used < max_nodes:
            # the jumps in board order first, then short restarts that prefer jumps leaving few
            # isolated pegs, each with another tie-break order; they share the dead positions (the
            # search time of one order is heavy-tailed, and a dead position stays dead)
            budget = min(max_nodes - used, RESTART_NODES)
            length, nodes = dfs(self.ja, self.jb, self.jt, self.nbr, rank, min(restart, 1), np.int64(start), budget, table, filled,
                                path)
            used += int(nodes)
            if length != -1:
                break
            restart += 1
            rank = np.random.default_rng(restart).permutation(n).astype(np.int64)
        nodes = used
        if length >= 0:
            return [self.jumps[int(j)] for j in path[:length]], True, int(nodes)
        return None, length == -2, int(nodes)
