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
#: nodes of each image of a symmetric position in the first round (doubling each round)
ROUND_NODES = 250_000
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

    def symmetries(self) -> list[list[int]]:
        """The symmetries of the grid (turns and reflections; four of them on a square grid's
        eight when it is not square) that map the board's holes onto themselves, each as the image
        of every cell; the identity first."""
        w, h = self.w, self.h
        maps = [lambda r, c: (r, c), lambda r, c: (r, w - 1 - c), lambda r, c: (h - 1 - r, c),
                lambda r, c: (h - 1 - r, w - 1 - c)]
        if w == h:
            maps += [lambda r, c: (c, r), lambda r, c: (w - 1 - c, r), lambda r, c: (c, h - 1 - r),
                     lambda r, c: (w - 1 - c, h - 1 - r)]
        holes = set(self.holes)
        out = []
        for f in maps:
            image = [f(*divmod(cell, w)) for cell in range(w * h)]
            image_cells = [r * w + c for r, c in image]
            if {image_cells[cell] for cell in holes} == holes:
                out.append(image_cells)
        return out

    def solve(self, pegs, max_nodes: int = DEFAULT_BUDGET) -> tuple[list[tuple[int, int, int]] | None, bool, int]:
        """``(jumps, decided, nodes)`` from the pegs on cells ``pegs``: a jump list leaving one peg
        (``(from, over, to)`` cells), or None with ``decided`` True when none exists and False when
        the node budget ran out first.

        On a board with symmetries (the cross, the octagon) the distinct images of the position
        are searched side by side, each with its own restarts and lost positions, in rounds of
        :data:`ROUND_NODES` nodes each that double every round, and the first line found is mapped
        back: the search time of one image is heavy-tailed, and one of several is rarely slow. The
        line is kept (mapped onto the position's canonical image) for every other position of its
        symmetry class."""
        pegs = list(pegs)
        images: dict = {}
        for g in self.symmetries():
            images.setdefault(tuple(sorted(g[c] for c in pegs)), g)
        if len(images) == 1:
            run = _Run(self, pegs, TABLE_BITS)
            run.advance(max_nodes)
            return run.result()
        canonical = min(images)
        key = (self.w, self.h, tuple(self.holes), canonical)
        if key not in _SOLVED:
            found = self._race(images, max_nodes)
            if found[0] is None:
                return found
            if len(_SOLVED) >= SOLVED_CACHE:
                _SOLVED.clear()
            g = images[canonical]
            _SOLVED[key] = ([(g[a], g[b], g[t]) for a, b, t in found[0]], found[2])
        jumps, nodes = _SOLVED[key]
        back = _inverse(images[canonical])
        return [(back[a], back[b], back[t]) for a, b, t in jumps], True, nodes

    def _race(self, images: dict, max_nodes: int) -> tuple[list[tuple[int, int, int]] | None, bool, int]:
        """The images searched side by side in doubling rounds; the first line found, on the
        start's cells."""
        runs = [(_Run(self, list(image), TABLE_BITS), g) for image, g in images.items()]
        limit = ROUND_NODES
        while True:
            for run, g in runs:
                run.advance(min(limit, max_nodes - sum(r.used for r, _ in runs) + run.used))
                if run.length != -1:
                    jumps, decided, _ = run.result()
                    if jumps is not None:
                        back = _inverse(g)
                        jumps = [(back[a], back[b], back[t]) for a, b, t in jumps]
                    return jumps, decided, sum(r.used for r, _ in runs)
            if sum(r.used for r, _ in runs) >= max_nodes:
                return None, False, sum(r.used for r, _ in runs)
            limit *= 2


def _inverse(g: list[int]) -> list[int]:
    out = [0] * len(g)
    for cell, image in enumerate(g):
        out[image] = cell
    return out


#: lines found from symmetric positions, by board and canonical image (their smallest image): every
#: position of a symmetry class (the octagon has three) is searched once per process
_SOLVED: dict = {}
SOLVED_CACHE = 256


class _Run:
    """One search from one position, resumable: restarts of :data:`RESTART_NODES` nodes sharing a
    table of lost positions (the first in board order, the rest preferring jumps that leave few
    isolated pegs, ties broken by a seeded order each)."""

    def __init__(self, board: Board, pegs: list[int], table_bits: int):
        self.board = board
        self.start = board.mask(pegs)
        small = len(pegs) <= PYTHON_PEGS
        self.path = np.zeros(max(1, len(pegs)), np.int64)
        self.table = np.zeros(1 << (16 if small else table_bits), np.int64)
        self.filled = np.zeros(1, np.int64)
        self.dfs = _dfs if small else compiled(_dfs)
        self.rank = np.arange(len(board.jumps), dtype=np.int64)
        self.used, self.restart = 0, 0
        self.length = -2 if self.start == 0 else -1

    def advance(self, limit: int) -> None:
        """Search on until a line is found, none can be, or ``limit`` nodes were used in all."""
        b = self.board
        while self.length == -1 and self.used < limit:
            budget = min(limit - self.used, RESTART_NODES)
            length, nodes = self.dfs(b.ja, b.jb, b.jt, b.nbr, self.rank, min(self.restart, 1), np.int64(self.start),
                                     budget, self.table, self.filled, self.path)
            self.used += int(nodes)
            self.length = int(length)
            if self.length == -1 and nodes >= budget:
                self.restart += 1
                self.rank = np.random.default_rng(self.restart).permutation(len(b.jumps)).astype(np.int64)

    def result(self) -> tuple[list[tuple[int, int, int]] | None, bool, int]:
        if self.length >= 0:
            return [self.board.jumps[int(j)] for j in self.path[:self.length]], True, self.used
        return None, self.length == -2, self.used
