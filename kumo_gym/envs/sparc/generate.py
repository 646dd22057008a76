"""SPaRC puzzle generation (docs/specs/sparc.md §9; paper §3.2), calibrated to the official levels.

Two samplers share the acceptance rules (1 to ``k`` solutions, counted exhaustively; the level
asked for; no official test puzzle reproduced):

* ``sampler="planted"`` (default) builds each puzzle around a *planted* line. It draws the rule
  types, the grid size, the symbol count and the start and end per level
  (:data:`LEVEL_PROFILES`, calibrated so that each level's mean grid area, shortest solution,
  number of rule types and solution count lie within 10 % of those of the 500 official test
  puzzles: ``kumo_gym.analysis.sparc.OFFICIAL_TEST_LEVELS``), draws a random line from ``S`` to
  ``E`` (a random shortest line grown by random detours around cells to a drawn length), and
  places one symbol of each chosen type that this line satisfies. Then, counterexample by
  counterexample, it adds the constraint (a dot, a gap, a square, a star, a triangle or a
  polyomino tiling that the planted line satisfies) that rules out the most of the other
  solutions found, the short ones first, until at most the drawn number of solutions is left
  and none is much shorter than the planted line. The searches of these rounds are cheap: one
  tries the planted line's steps first and stops after ``GEN_NODE_LIMIT`` nodes (so it brings
  back the lines that branch off the planted line near one end; the next one searches from the
  other end); once few solutions turn up, the rest of the level's symbols are placed and the
  solutions are counted in full; once every solution is known, and while the constraints added
  since only rule lines out, the next count goes over those solutions' steps alone. An attempt
  that needs more than ``ATTEMPT_NODE_LIMIT`` search nodes is given up. No puzzle is trivial:
  it has at least :data:`MIN_CONSTRAINTS` constraints, and neither a shortest rule-blind line
  nor a walk along the border solves it.
* ``sampler="uniform"`` is the paper's random fill: symbols on random cells, the density halved
  when no solution exists and raised when more than ``k`` do.

Everything is driven by one ``numpy.random.Generator``: the same generator state gives the same
puzzle in any process, whatever its hash seed. ``benchmarks/sparc.py`` measures our level
statistics beside the official ones (docs/sparc.md shows the table).
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...core.errors import ConfigError, check_choice
from . import search
from .difficulty import difficulty_score, level_of_score, raw_score, rules_for_level, score_of_raw
from .puzzle import KIND_NAMES, MAX_SIDE, MIN_SIDE, SparcPuzzle, shape_array, shape_id
from .search import COLOURS, POLY, SQUARE, STAR, TRIANGLE, TRIANGLE_LETTERS, YLOP

CELL_TYPES = ("square", "star", "triangle", "poly", "ylop")
EDGE_TYPES = ("dot", "gap")
RULE_TYPES = EDGE_TYPES + CELL_TYPES
#: the official dataset configs (docs/specs/sparc.md §9) as sets of rule types; "all" mixes every type
RULE_SETS = {
    "all": None, "gaps": ("gap",), "dots": ("dot",), "stones": ("square",), "stars": ("star",),
    "triangles": ("triangle",), "polys": ("poly",), "polys_ylops": ("poly", "ylop"),
    "stones_stars": ("square", "star"), "gaps_dots_triangles": ("gap", "dot", "triangle"),
    "dots_stars_polys": ("dot", "star", "poly"),
}
SAMPLERS = ("planted", "uniform")
MAX_SOLUTIONS = 50
LEVELS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class LevelProfile:
    """How the planted sampler builds puzzles of one level: the knobs calibrated so that its
    puzzles have the official level statistics (:data:`kumo_gym.analysis.sparc.OFFICIAL_TEST_LEVELS`).

    ``presence``: the share of puzzles drawn to hold each rule type; ``area``, ``area_spread``:
    the centre of the size prior (cells) and its scale (a size's weight falls by ``e`` per
    ``area_spread`` cells away from the centre); ``coverage``, ``coverage_sd``: the mean and
    spread of the share of the grid's corners the planted line visits; ``solutions``: (share
    of puzzles drawn to keep a single solution, the range the most solutions kept is drawn from
    otherwise; the counts that remain are lower, the loop stops as soon as it is under, and a
    puzzle whose drawn count is out of reach keeps at most the top of the range); ``edges``:
    the most dots and the most gaps a puzzle of the level gets; ``symbols``: the number of cell
    symbols preferred among those that keep the level (below 1: per cell); ``short``: no
    solution may be shorter than this share of the planted line; ``max_area``: the largest grid
    drawn when the caller fixes no side (0: any).
    """

    presence: dict
    area: float
    area_spread: float
    coverage: float
    coverage_sd: float
    solutions: tuple
    edges: int
    symbols: float
    short: float
    max_area: int = 0


# Calibrated on the per-level statistics of the 500 official test puzzles alone (area, shortest
# solution, rule types, solution count: kumo_gym.analysis.sparc.OFFICIAL_TEST_LEVELS), 400
# generated puzzles per level at a time (benchmarks/sparc.py); no official puzzle is used. The
# presence rates split each level's mean number of rule types among the seven types in
# proportion to the per-type puzzle counts the paper reports for the same 500 puzzles
# (docs/specs/sparc.md §13), by iterative proportional fitting from the earlier rates. The preferred symbol counts
# of levels 1-4 are the earlier calibration's (the reference sample's means), kept as they were.
LEVEL_PROFILES = {
    1: LevelProfile({"dot": .84, "gap": .60, "square": .36, "star": .16, "triangle": .20, "poly": .36, "ylop": .02},
                    4.6, 1.8, 0.82, 0.35, (0.03, 5, 30), 4, 3.0, 0.6),
    2: LevelProfile({"dot": .62, "gap": .59, "square": .57, "star": .34, "triangle": .19, "poly": .71, "ylop": .02},
                    8.2, 3.1, 0.77, 0.25, (0.02, 8, 42), 3, 2.8, 0.6),
    3: LevelProfile({"dot": .47, "gap": .66, "square": .74, "star": .34, "triangle": .58, "poly": .52, "ylop": .09},
                    8.2, 2.0, 0.82, 0.35, (0.07, 4, 29), 3, 4.6, 0.6),
    4: LevelProfile({"dot": .38, "gap": .67, "square": .95, "star": .62, "triangle": .69, "poly": .62, "ylop": .09},
                    14.6, 4.0, 0.82, 0.22, (0.05, 4, 24), 3, 5.5, 0.75),
    5: LevelProfile({"dot": .69, "gap": .65, "square": .99, "star": .76, "triangle": .76, "poly": .87, "ylop": .02},
                    20.0, 2.0, 0.76, 0.28, (0.0, 18, 50), 4, 0.42, 0.8, 24),
}
#: the fewest positions of the shortest solution, per level: the official minima (short
#: solutions exist; a puzzle that a shortest rule-blind line solves is refused all the same)
MIN_LENGTH = {1: 3, 2: 2, 3: 2, 4: 7, 5: 9}
#: no trivial puzzles: the fewest constraints (cell symbols, dots and gaps together), per level
MIN_CONSTRAINTS = {1: 3, 2: 3, 3: 4, 4: 5, 5: 7}
#: nodes a round's search of the counterexample loop may spend before it is cut (it still brings
#: back the solutions it found), and nodes the final count may spend
GEN_NODE_LIMIT = 10_000
FINAL_NODE_LIMIT = 3_000_000
#: nodes a round may spend when it counts the solutions in full: after searches cut at
#: GEN_NODE_LIMIT found few other solutions or none, and the rest of the symbols were placed
WIDE_NODE_LIMIT = 400_000
#: search nodes one attempt of the planted sampler may spend in its rounds (one that needs more is
#: given up: such puzzles would take most of the generation time)
ATTEMPT_NODE_LIMIT = 400_000
#: nodes one enumeration of the uniform sampler may spend (a puzzle whose count needs more is redrawn)
UNIFORM_NODE_LIMIT = 400_000
#: solutions looked at per round of the counterexample loop
ROUND_CAP = 64
#: nodes a search of a level-1..4 puzzle may run in plain Python before numba compiles its
#: kernels (a cold-start measure: the searches of nine in ten such puzzles stay under it, so
#: their process never compiles); level 5 keeps the solver's default (its searches nearly
#: always grow)
SMALL_PYTHON_SLICE = {1: 25_000, 2: 25_000, 3: 25_000, 4: 25_000}


@dataclass
class Generated:
    """A generated puzzle with every solution (at most ``k``), its score and level."""

    puzzle: SparcPuzzle
    solutions: list
    score: float
    level: int
    rounds: int

    def record(self) -> dict:
        return self.puzzle.make_record(self.solutions, difficulty=(self.score, self.level))


class RuleBalancer:
    """Rule-type balancing over a dataset being built (docs/specs/sparc.md §9): the next puzzle draws its types
    with probability proportional to ``1 / (1 + count)``, where ``count`` is how many puzzles
    built so far contain the type (used by the uniform sampler; counts are kept for both)."""

    def __init__(self):
        self.counts = {t: 0 for t in RULE_TYPES}

    def weights(self, pool) -> np.ndarray:
        return np.array([1.0 / (1 + self.counts[t]) for t in pool])

    def add(self, puzzle: SparcPuzzle) -> None:
        for t in puzzle.rule_types():
            self.counts[t] += 1


def draw_rule_types(rng: np.random.Generator, pool=RULE_TYPES, balancer: RuleBalancer | None = None,
                    ylop_rate: float = 0.05) -> tuple[str, ...]:
    """1-5 distinct rule types, balanced; ylops only with polys and in ``ylop_rate`` of puzzles."""
    pool = [t for t in pool if t != "ylop"]
    n = int(rng.integers(1, min(5, len(pool)) + 1))
    w = balancer.weights(pool) if balancer else np.ones(len(pool))
    chosen = list(rng.choice(pool, size=n, replace=False, p=w / w.sum()))
    if "poly" in chosen and rng.random() < ylop_rate:
        chosen.append("ylop")
    return tuple(t for t in RULE_TYPES if t in chosen)


def profile_rule_types(rng: np.random.Generator, profile: LevelProfile) -> tuple[str, ...]:
    """Rule types drawn independently with the level's official presence rates (ylops only with
    polys); at least one type."""
    while True:
        chosen = [t for t in RULE_TYPES if t != "ylop" and rng.random() < profile.presence[t]]
        if "poly" in chosen and profile.presence["ylop"] and rng.random() < profile.presence["ylop"] / \
                max(profile.presence["poly"], 1e-9):
            chosen.append("ylop")
        if chosen:
            return tuple(t for t in RULE_TYPES if t in chosen)


# ---- geometry ----------------------------------------------------------------------------------
def border_positions(w: int, h: int) -> list:
    """Line positions on the outer border, clockwise from the top-left corner."""
    cols, rows = 2 * w + 1, 2 * h + 1
    top = [(x, 0) for x in range(cols)]
    right = [(cols - 1, y) for y in range(1, rows)]
    bottom = [(x, rows - 1) for x in range(cols - 2, -1, -1)]
    left = [(0, y) for y in range(rows - 2, 0, -1)]
    return top + right + bottom + left


@lru_cache(maxsize=64)
def line_neighbours(w: int, h: int) -> dict:
    """``{position: (line positions one step away)}`` in the search's direction order (shared:
    never modify it)."""
    cols, rows = 2 * w + 1, 2 * h + 1
    out = {}
    for y in range(rows):
        for x in range(cols):
            if not search.is_cell(x, y):
                out[(x, y)] = tuple((x + dx, y + dy) for dx, dy in ((1, 0), (0, -1), (-1, 0), (0, 1))
                                    if 0 <= x + dx < cols and 0 <= y + dy < rows and not search.is_cell(x + dx, y + dy))
    return out


def cell_regions(w: int, h: int, on_path) -> dict:
    """``{cell: region number}`` for the regions a line cut the cells into (docs/specs/sparc.md §5)."""
    label: dict = {}
    n = 0
    for cy in range(1, 2 * h, 2):
        for cx in range(1, 2 * w, 2):
            if (cx, cy) in label:
                continue
            label[(cx, cy)] = n
            stack = [(cx, cy)]
            while stack:
                x, y = stack.pop()
                for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2)):
                    nx, ny = x + dx, y + dy
                    if 0 < nx < 2 * w and 0 < ny < 2 * h and (nx, ny) not in label \
                            and (x + dx // 2, y + dy // 2) not in on_path:
                        label[(nx, ny)] = n
                        stack.append((nx, ny))
            n += 1
    return label


def touches(cell, on_path) -> int:
    x, y = cell
    return ((x + 1, y) in on_path) + ((x - 1, y) in on_path) + ((x, y + 1) in on_path) + ((x, y - 1) in on_path)


def shortest_line(w: int, h: int, start, end, blocked=frozenset()) -> list:
    """A shortest line from ``start`` to ``end`` avoiding ``blocked`` (breadth-first search in the
    search's direction order; [] when there is none)."""
    nbrs = line_neighbours(w, h)
    parent = {start: None}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        if p == end:
            out = [p]
            while parent[out[-1]] is not None:
                out.append(parent[out[-1]])
            return out[::-1]
        for q in nbrs[p]:
            if q not in parent and q not in blocked:
                parent[q] = p
                queue.append(q)
    return []


def distances_to(w: int, h: int, end, blocked=frozenset()) -> dict:
    """Steps from every line position to ``end`` avoiding ``blocked`` (absent: unreachable)."""
    nbrs = line_neighbours(w, h)
    dist = {end: 0}
    queue = deque([end])
    while queue:
        p = queue.popleft()
        for q in nbrs[p]:
            if q not in dist and q not in blocked:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def border_walks(w: int, h: int, start, end) -> list:
    """The two walks along the border from ``start`` to ``end`` (both must lie on the border)."""
    ring = border_positions(w, h)
    if start not in ring or end not in ring:
        return []
    i, j = ring.index(start), ring.index(end)
    n = len(ring)
    clockwise = [ring[(i + s) % n] for s in range((j - i) % n + 1)]
    counter = [ring[(i - s) % n] for s in range((i - j) % n + 1)]
    return [clockwise, counter]


def long_path(rng: np.random.Generator, w: int, h: int, start, end, target: int, budget: int = 4000) -> list:
    """A random simple line from ``start`` to ``end`` with about ``target`` positions.

    A random shortest line, then detours: a step along one side of a cell is replaced by the
    cell's three other sides (four positions longer) while the two far corners are free, each
    time a detour drawn at random among those possible, until the line is long enough or no
    detour is left (every line's length differs from the shortest by a multiple of four), drawn
    again up to five times while it stalls short of ``target``. When every draw stalls (for
    instance a start and end on edge midpoints beside one corner), a randomised depth-first walk
    of at most ``budget`` steps tries as well; the line closest to ``target`` (preferring longer)
    is returned.
    """
    line = _grown_line(rng, w, h, start, end, target)
    for _ in range(5):  # detours drawn in another order often go further
        if len(line) + 4 > target:
            break
        other = _grown_line(rng, w, h, start, end, target)
        if _closer(len(other), len(line), target):
            line = other
    if len(line) + 4 <= target and budget > 0:
        other = _walked_line(rng, w, h, start, end, target, budget)
        if other is not None and _closer(len(other), len(line), target):
            line = other
    return line


def _grown_line(rng, w: int, h: int, start, end, target: int) -> list:
    """A random shortest line grown by random detours around cells (see :func:`long_path`)."""
    nbrs = line_neighbours(w, h)
    dist = _distances(w, h, end)
    line = [start]
    while line[-1] != end:
        here = line[-1]
        steps = [q for q in nbrs[here] if dist[q] == dist[here] - 1]
        line.append(steps[int(rng.integers(len(steps)))])
    on = set(line)
    cols, rows = 2 * w + 1, 2 * h + 1
    while len(line) + 2 <= target:  # a detour adds four positions: take it when it gets closer
        options = []
        for i in range(len(line) - 2):
            (ux, uy), (vx, vy) = line[i], line[i + 2]
            if ux & 1 or uy & 1:
                continue  # i must be a corner, i + 1 the midpoint of a whole side
            dx, dy = (vx - ux) // 2, (vy - uy) // 2
            for px, py in ((-dy, dx), (dy, -dx)):  # either cell beside the side
                ax, ay, bx, by = ux + 2 * px, uy + 2 * py, vx + 2 * px, vy + 2 * py
                if 0 <= ax < cols and 0 <= ay < rows and 0 <= bx < cols and 0 <= by < rows and \
                        (ax, ay) not in on and (bx, by) not in on and (ux + px, uy + py) not in on and \
                        (vx + px, vy + py) not in on and (ux + dx + 2 * px, uy + dy + 2 * py) not in on:
                    options.append((i, px, py))
        if not options:
            break
        i, px, py = options[int(rng.integers(len(options)))]
        (ux, uy), (vx, vy) = line[i], line[i + 2]
        dx, dy = (vx - ux) // 2, (vy - uy) // 2
        on.discard(line[i + 1])
        detour = [(ux + px, uy + py), (ux + 2 * px, uy + 2 * py), (ux + dx + 2 * px, uy + dy + 2 * py),
                  (vx + 2 * px, vy + 2 * py), (vx + px, vy + py)]
        line[i + 1:i + 2] = detour
        on.update(detour)
    return line


@lru_cache(maxsize=512)
def _distances(w: int, h: int, end) -> dict:
    return distances_to(w, h, end)


def _walked_line(rng, w: int, h: int, start, end, target: int, budget: int) -> list | None:
    """A randomised depth-first walk from ``start`` that may enter ``end`` only once it is long
    enough and never cuts ``end`` off; among the lines completed within ``budget`` steps, the
    one closest to ``target`` (None when none was)."""
    nbrs = line_neighbours(w, h)
    path, on = [start], {start}
    order = {start: _shuffled(rng, nbrs[start])}
    best: list | None = None
    steps = 0
    while path and steps < budget:
        steps += 1
        head = path[-1]
        if head == end:
            if best is None or _closer(len(path), len(best), target):
                best = list(path)
            if len(path) >= target:
                break
            on.discard(path.pop())
            continue
        options = order[head]
        nxt = None
        while options:
            q = options.pop()
            if q in on or (q == end and len(path) + 1 < target):
                continue  # the end only once the line is long enough
            if q != end and not _reaches(nbrs, q, end, on):
                continue
            nxt = q
            break
        if nxt is None:
            on.discard(path.pop())
            continue
        path.append(nxt)
        on.add(nxt)
        order[nxt] = _shuffled(rng, nbrs[nxt])
    return best


def _shuffled(rng, items) -> list:
    items = list(items)
    rng.shuffle(items)
    return items


def _closer(a: int, b: int, target: int) -> bool:
    return (abs(a - target), -a) < (abs(b - target), -b)


def _reaches(nbrs, frm, end, on) -> bool:
    seen = {frm}
    stack = [frm]
    while stack:
        p = stack.pop()
        for q in nbrs[p]:
            if q == end:
                return True
            if q not in seen and q not in on:
                seen.add(q)
                stack.append(q)
    return False


class _Retry(Exception):
    """This attempt cannot be completed; draw again."""


# ---- the planted builder -------------------------------------------------------------------------
class _Planted:
    """A puzzle under construction around the planted line ``line`` (kept valid throughout)."""

    def __init__(self, rng, w: int, h: int, line: list):
        self.rng, self.w, self.h, self.line = rng, w, h, line
        self.on = set(line)
        self.grid = [["N" if search.is_cell(x, y) else "+" for x in range(2 * w + 1)] for y in range(2 * h + 1)]
        self.grid[line[0][1]][line[0][0]] = "S"
        self.grid[line[-1][1]][line[-1][0]] = "E"
        self.region = cell_regions(w, h, self.on)
        self._cells_of: dict = {}
        for c, r in self.region.items():
            self._cells_of.setdefault(r, []).append(c)
        self.symbols: dict = {}  # cell -> (kind, colour, extra)
        self.shapes: dict = {}
        self.dots: list = []
        self.gaps: list = []
        self._parts: dict = {}  # (region, pieces) -> a partition of the region, or None
        self._summary = None  # per region: (square colour, star colours), while symbols stay

    # -- bookkeeping
    def partition(self, r: int, m: int, tries: int = 2):
        """Region ``r`` cut into ``m`` pieces that fit 4x4 (drawn once per region and count: the
        regions of the planted line never change), or None."""
        key = (r, m)
        if key not in self._parts:
            self._parts[key] = _partition(self.rng, self.region_cells(r), m, tries=tries)
        return self._parts[key]

    def summary(self) -> dict:
        """``{region: (square colour or None, star colours)}`` of the symbols placed so far."""
        if self._summary is None:
            squares: dict = {}
            stars: dict = {}
            for c, sym in self.symbols.items():
                r = self.region[c]
                if sym[0] == SQUARE:
                    squares.setdefault(r, set()).add(sym[1])
                elif sym[0] == STAR:
                    stars.setdefault(r, set()).add(sym[1])
            self._summary = {r: (min(squares[r]) if r in squares else None, stars.get(r, set()))
                             for r in set(self.region.values())}
        return self._summary

    def free_cells(self) -> list:
        return [(x, y) for y in range(1, 2 * self.h, 2) for x in range(1, 2 * self.w, 2) if (x, y) not in self.symbols]

    def region_cells(self, r: int) -> list:
        return list(self._cells_of[r])

    def region_symbols(self, r: int) -> list:
        return [(c, s) for c, s in self.symbols.items() if self.region[c] == r]

    def star_colours(self, r: int) -> set:
        return self.summary()[r][1]

    def square_colour(self, r: int):
        return self.summary()[r][0]

    def quiet_colour(self, cell) -> str:
        """A colour for a new non-star symbol in ``cell`` that breaks no star there: one that no
        star of the puzzle has when there is one (such a symbol cannot complete any star's pair)."""
        safe = self.safe_colours(cell)
        stars = {c for _, st in self.summary().values() for c in st}
        quiet = [c for c in safe if c not in stars] or safe
        return quiet[int(self.rng.integers(len(quiet)))]

    def safe_colours(self, cell) -> list:
        """Colours a new non-star symbol may take in ``cell`` without breaking a star there."""
        bad = self.star_colours(self.region[cell])
        return [c for c in COLOURS if c not in bad]

    def put(self, cell, kind: int, colour: str, extra=0) -> None:
        x, y = cell
        if kind == SQUARE:
            token = f"o-{colour}"
        elif kind == STAR:
            token = f"*-{colour}"
        elif kind == TRIANGLE:
            token = f"{TRIANGLE_LETTERS[extra - 1]}-{colour}"
        else:
            token = f"{'P' if kind == POLY else 'Y'}-{colour}-{extra}"
        self.grid[y][x] = token
        self.symbols[cell] = (kind, colour, extra)
        self._summary = None

    def add_dot(self, pos) -> None:
        self.grid[pos[1]][pos[0]] = "."
        self.dots.append(pos)

    def add_gap(self, pos) -> None:
        self.grid[pos[1]][pos[0]] = "G"
        self.gaps.append(pos)

    def tables(self, flipped: bool = False) -> dict:
        """The solver's tables of the puzzle as it stands (``flipped``: ``S`` and ``E`` swapped),
        built without parsing the grid again."""
        grid = self.grid
        if flipped:
            grid = [list(row) for row in grid]
            (sx, sy), (ex, ey) = self.line[0], self.line[-1]
            grid[sy][sx], grid[ey][ex] = "E", "S"
        used = {s[2] for s in self.symbols.values() if s[0] in (POLY, YLOP)}
        return search.grid_tables(grid, {sid: self.shapes[sid] for sid in used})

    def puzzle(self) -> SparcPuzzle:
        used = {s[2] for s in self.symbols.values() if s[0] in (POLY, YLOP)}
        return SparcPuzzle.from_grid(self.grid, {sid: shape_array(self.shapes[sid]) for sid in sorted(used, key=int)})

    # -- the first symbols: one of each cell type (squares two, in two regions where possible)
    def plant_polys(self, budget: int, with_ylop: bool, every_region: bool = False) -> int:
        """Tile one region exactly with pieces whose symbols lie in it (and, with ``with_ylop``,
        add a poly and a ylop of one shape there, which cancel); with ``every_region`` as many
        regions as the budget allows (a puzzle of polyominoes alone is cheap to search only when
        they constrain most of the grid). Returns the symbols used."""
        rng = self.rng
        extra = 2 if with_ylop else 0
        used = 0
        regs = sorted(self.untiled_regions(), key=lambda r: (len(self.region_cells(r)), rng.random()))
        for r in regs if every_region else regs[:4]:
            cells = self.region_cells(r)
            free = [c for c in cells if c not in self.symbols]
            most = min(budget - used - extra, len(free) - extra, len(cells))
            for m in sorted(range(1, most + 1), key=lambda m: (m if every_region else abs(m - 2), rng.random()))[:3]:
                pieces = _partition(rng, cells, m)
                if pieces is not None:
                    self.tile(r, pieces)
                    if extra:
                        self._put_ylop_pair(r)
                    used += m + extra
                    extra = 0
                    break
            if used and not every_region:
                break
        if not used:
            raise _Retry("no region fits the polyomino budget")
        return used

    def untiled_regions(self) -> list:
        tiled = {self.region[c] for c, s in self.symbols.items() if s[0] in (POLY, YLOP)}
        return sorted(set(self.region.values()) - tiled)

    def retilable_regions(self) -> list:
        """Regions tiled by polys alone (no ylop pair), with their number of pieces."""
        out = {}
        for c, s in self.symbols.items():
            if s[0] in (POLY, YLOP):
                out.setdefault(self.region[c], []).append(s[0])
        return [(r, len(kinds)) for r, kinds in sorted(out.items()) if YLOP not in kinds]

    def tile(self, r: int, pieces: list) -> None:
        """Put one poly symbol per piece on free cells of region ``r`` (the pieces tile it),
        replacing the region's polys when it was tiled already (the new pieces take the old
        ones' colours first: a star may count one of them as its partner)."""
        colours = []
        for c in [c for c in self.region_cells(r) if self.symbols.get(c, (0,))[0] == POLY]:
            colours.append(self.symbols.pop(c)[1])
            self.grid[c[1]][c[0]] = "N"
        self._summary = None
        free = [c for c in self.region_cells(r) if c not in self.symbols]
        for j, (piece, i) in enumerate(zip(pieces, self.rng.permutation(len(free)))):
            self._put_piece(free[i], POLY, _normalise(piece), colours[j] if j < len(colours) else None)

    def _put_ylop_pair(self, r: int) -> None:
        rng = self.rng
        spare = [c for c in self.region_cells(r) if c not in self.symbols]
        if len(spare) < 2:
            raise _Retry("no room for the ylop pair")
        a, b = (spare[i] for i in rng.permutation(len(spare))[:2])
        # a straight piece that fits the grid (a ylop is placed inside the grid too)
        across = rng.random() < 0.5
        size = int(rng.integers(1, min(3, self.w if across else self.h) + 1))
        shape = tuple((i, 0) for i in range(size)) if across else tuple((0, i) for i in range(size))
        self._put_piece(a, POLY, shape)
        self._put_piece(b, YLOP, shape)  # the ylop cancels the extra poly exactly

    def _put_piece(self, cell, kind: int, shape: tuple, colour: str | None = None) -> None:
        sid = str(shape_id(shape))
        self.shapes[sid] = shape
        if colour is None:
            colours = self.safe_colours(cell)
            colour = colours[int(self.rng.integers(len(colours)))]
        self.put(cell, kind, colour, sid)

    def plant_squares(self, n: int) -> int:
        """``n`` squares, each region one colour, different regions different colours."""
        rng = self.rng
        free = self.free_cells()
        order = [free[i] for i in rng.permutation(len(free))]
        # spread over regions first
        order.sort(key=lambda c: sum(1 for d in self.symbols if self.region[d] == self.region[c]
                                     and self.symbols[d][0] == SQUARE))
        placed = 0
        for c in order:
            if placed >= n:
                break
            colour = self._square_colour_for(c)
            if colour is not None:
                self.put(c, SQUARE, colour)
                placed += 1
        return placed

    def _square_colour_for(self, cell):
        r = self.region[cell]
        have = self.square_colour(r)
        if have is not None:
            return have if have not in self.star_colours(r) else None
        taken = {sq for sq, _ in self.summary().values()} - {None}
        stars = {c for _, st in self.summary().values() for c in st}
        safe = self.safe_colours(cell)
        # a colour no other region's square has, and no star (which the square could complete)
        options = [c for c in safe if c not in taken and c not in stars] or \
            [c for c in safe if c not in taken] or safe
        return options[int(self.rng.integers(len(options)))] if options else None

    def star_options(self, limit: int = 40) -> list:
        """Ways to add a star the planted line satisfies: ``([cells], colour)`` (one star beside
        a lone non-star symbol of its colour, or two new stars of a colour the region lacks)."""
        rng = self.rng
        out = []
        free = self.free_cells()
        by_region: dict = {}
        for c in free:
            by_region.setdefault(self.region[c], []).append(c)
        for r, cells in by_region.items():
            syms = self.region_symbols(r)
            counts: dict = {}
            for _, s in syms:
                counts[s[1]] = counts.get(s[1], 0) + 1
            # colours in a fixed order: iterating a set of strings would follow the process's
            # hash seed, and the same generator state must give the same puzzle in any process
            lonely = [c for c in COLOURS if any(s[0] != STAR and s[1] == c for _, s in syms) and counts.get(c) == 1]
            for colour in lonely:
                out += [([c], colour) for c in cells]
            absent = [c for c in COLOURS if c not in counts]
            if len(cells) >= 2 and absent:
                for _ in range(min(6, len(cells))):
                    a, b = (cells[i] for i in rng.permutation(len(cells))[:2])
                    out.append(([a, b], absent[int(rng.integers(len(absent)))]))
        if len(out) > limit:
            out = [out[i] for i in rng.permutation(len(out))[:limit]]
        return out

    def gap_candidates(self) -> list:
        return [(x, y) for y in range(2 * self.h + 1) for x in range(2 * self.w + 1)
                if (x + y) % 2 == 1 and (x, y) not in self.on and self.grid[y][x] == "+"]

    def dot_candidates(self) -> list:
        return [p for p in self.line[1:-1] if self.grid[p[1]][p[0]] == "+"]


def _partition(rng, region: list, m: int, tries: int = 8) -> list | None:
    """``region`` split into exactly ``m`` connected pieces that each fit in 4x4 (grown at random
    from ``m`` seeds at once); None when no such split turns up."""
    for _ in range(tries):
        seeds = [region[i] for i in rng.permutation(len(region))[:m]]
        owner = {c: i for i, c in enumerate(seeds)}
        pieces = [[c] for c in seeds]
        stuck = False
        while len(owner) < len(region) and not stuck:
            stuck = True
            for i in rng.permutation(m):
                frontier = sorted({(x + dx, y + dy) for x, y in pieces[i] for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2))}
                                  - owner.keys() & set(region))
                frontier = [c for c in frontier if _fits(pieces[i] + [c])]
                if frontier:
                    c = frontier[int(rng.integers(len(frontier)))]
                    owner[c] = i
                    pieces[i].append(c)
                    stuck = False
        if len(owner) == len(region):
            return pieces
    return None


def _fits(piece) -> bool:
    xs = [x for x, _ in piece]
    ys = [y for _, y in piece]
    return max(xs) - min(xs) <= 6 and max(ys) - min(ys) <= 6


def _normalise(piece: list) -> tuple:
    mx = min(x for x, _ in piece)
    my = min(y for _, y in piece)
    return tuple(sorted((((x - mx) // 2, (y - my) // 2) for x, y in piece), key=lambda c: (c[1], c[0])))


# ---- counterexamples -----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Geometry:
    """Index tables of a ``w x h`` grid: positions ``q = y * cols + x``, cells ``ci = cy * w +
    cx`` (the cell at ``(2 cx + 1, 2 cy + 1)``)."""

    cols: int
    npos: int
    nc: int
    cell_index: dict
    cell_edges: np.ndarray  # (nc, 4): the positions of each cell's four sides
    pairs: tuple  # (cells a, cells b, the side between them), across and down


@lru_cache(maxsize=64)
def _geometry(w: int, h: int) -> _Geometry:
    cols = 2 * w + 1
    cells = [(2 * cx + 1, 2 * cy + 1) for cy in range(h) for cx in range(w)]
    edges = np.array([[(y) * cols + x + 1, (y - 1) * cols + x, (y) * cols + x - 1, (y + 1) * cols + x]
                      for x, y in cells], np.int64)
    pairs = []
    for dx, dy in ((1, 0), (0, 1)):
        a = [ci for ci, (x, y) in enumerate(cells) if x + 2 * dx < cols and y + 2 * dy < 2 * h + 1]
        b = [ci + dx + dy * w for ci in a]
        side = [(cells[ci][1] + dy) * cols + cells[ci][0] + dx for ci in a]
        pairs.append((np.array(a, np.int64), np.array(b, np.int64), np.array(side, np.int64)))
    return _Geometry(cols, cols * (2 * h + 1), w * h, {c: i for i, c in enumerate(cells)}, edges, tuple(pairs))


def _region_labels(g: _Geometry, on: np.ndarray) -> np.ndarray:
    """``(lines, cells)`` labels: each cell's region under each line of ``on`` (``(lines,
    positions)`` booleans) named by its smallest cell index (neighbour minima and label jumps
    until nothing changes)."""
    lab = np.tile(np.arange(g.nc), (on.shape[0], 1))
    opens = [(a, b, ~on[:, side]) for a, b, side in g.pairs]
    while True:
        before = lab.copy()
        for a, b, open_ in opens:
            low = np.minimum(lab[:, a], lab[:, b])
            lab[:, a] = np.where(open_, low, lab[:, a])
            lab[:, b] = np.where(open_, low, lab[:, b])
        lab = np.take_along_axis(lab, lab, axis=1)
        if np.array_equal(lab, before):
            return lab


class _Alternatives:
    """The solutions found in one round, other than the planted line, as arrays (row ``i`` =
    alternative ``i``) for counting at once which of them each candidate constraint would rule
    out; kill masks are ints (bit ``i`` = alternative ``i``). Alternatives ruled out by
    constraints applied since (:meth:`drop`) no longer count."""

    def __init__(self, b: _Planted, paths: list, short_len: int):
        self.b = b
        self.paths = paths
        g = self.g = _geometry(b.w, b.h)
        n = len(paths)
        self.n = n
        self.on = np.zeros((n, g.npos), bool)
        if n:
            cols = g.cols
            rows = np.repeat(np.arange(n), [len(p) for p in paths])
            self.on[rows, [y * cols + x for path in paths for x, y in path]] = True
        self.touch = self.on[:, g.cell_edges].sum(axis=2)
        self.labels = _region_labels(g, self.on)
        flat = self.labels + (np.arange(n) * g.nc)[:, None]
        self.sizes = np.bincount(flat.ravel(), minlength=n * g.nc).reshape(n, g.nc)
        self.all = (1 << n) - 1
        # short alternatives weigh more: they are the ones that make a puzzle easy
        short = np.array([len(p) < short_len for p in paths], bool)
        self.short = _bits(short[:, None])[0] if n else 0
        self.weights = 1.0 + 2.0 * short
        self.alive = np.ones(n, bool)
        self._counts = None

    def drop(self, mask: int) -> None:
        """The alternatives of ``mask`` are ruled out."""
        if mask and self.n:
            self.alive &= ~_unbits(mask, self.n)
            self._counts = None

    def counts(self) -> tuple:
        """Per alternative and region of it: symbols of each colour, squares of each colour,
        stars of each colour (``(n, cells, 8)`` each)."""
        if self._counts is None:
            g, n = self.g, self.n
            syms = [(g.cell_index[c], s[0], COLOURS.index(s[1])) for c, s in self.b.symbols.items()]
            out = []
            for keep in (None, SQUARE, STAR):
                chosen = [(ci, col) for ci, kind, col in syms if keep is None or kind == keep]
                if not chosen or not n:
                    out.append(np.zeros((n, g.nc, 8), np.int64))
                    continue
                ci = np.array([c for c, _ in chosen])
                col = np.array([c for _, c in chosen])
                idx = ((np.arange(n)[:, None] * g.nc + self.labels[:, ci]) * 8 + col[None, :]).ravel()
                out.append(np.bincount(idx, minlength=n * g.nc * 8).reshape(n, g.nc, 8))
            self._counts = tuple(out)
        return self._counts

    def scored(self, kill: np.ndarray) -> tuple:
        """``(values, masks)`` of the candidates whose kills are the columns of ``kill``."""
        kill = kill & self.alive[:, None]
        return self.weights @ kill, _bits(kill)

    def without(self, positions: list) -> np.ndarray:
        return ~self.on[:, [y * self.g.cols + x for x, y in positions]]

    def containing(self, positions: list) -> np.ndarray:
        return self.on[:, [y * self.g.cols + x for x, y in positions]]

    def touch_not(self, cells: list, counts: list) -> np.ndarray:
        return self.touch[:, [self.g.cell_index[c] for c in cells]] != np.array(counts)[None, :]

    def region_differs(self, cells: list) -> np.ndarray:
        """``(n,)``: alternatives in which ``cells`` (one region of the planted line) are not one
        region."""
        ci = np.array([self.g.cell_index[c] for c in cells])
        first = self.labels[:, ci[0]]
        same = (self.labels[:, ci] == first[:, None]).all(axis=1) & \
            (self.sizes[np.arange(self.n), first] == len(cells))
        return ~same

    def squares_break(self, cells: list, colours: list) -> np.ndarray:
        """``(n, candidates)``: alternatives a square of ``colours[j]`` in ``cells[j]`` breaks (a
        square of another colour in its region there, or a star of its colour)."""
        _, sq, star = self.counts()
        ci = np.array([self.g.cell_index[c] for c in cells])
        col = np.array([COLOURS.index(c) for c in colours])
        rows = np.arange(self.n)[:, None]
        reg = self.labels[:, ci]
        squares = sq[rows, reg]  # (n, candidates, 8)
        mine = np.take_along_axis(squares, np.broadcast_to(col[None, :, None], (self.n, len(ci), 1)), 2)[..., 0]
        return (squares.sum(axis=2) > mine) | (star[rows, reg, col[None, :]] > 0)

    def stars_break(self, options: list) -> np.ndarray:
        """``(n, options)``: alternatives broken by the stars of each option ``([cells], colour)``:
        every region that gets one must hold exactly two symbols of its colour then."""
        every, _, _ = self.counts()
        rows = np.arange(self.n)
        out = np.zeros((self.n, len(options)), bool)
        for j, (cells, colour) in enumerate(options):
            col = COLOURS.index(colour)
            regs = [self.labels[:, self.g.cell_index[c]] for c in cells]
            if len(regs) == 1:
                out[:, j] = every[rows, regs[0], col] != 1
            else:
                one = regs[0] == regs[1]
                out[:, j] = np.where(one, every[rows, regs[0], col] != 0,
                                     (every[rows, regs[0], col] != 1) | (every[rows, regs[1], col] != 1))
        return out


def _bits(kill: np.ndarray) -> list:
    """The columns of an ``(n, k)`` boolean array as ``k`` ints (bit ``i`` = row ``i``)."""
    if kill.shape[0] == 0:
        return [0] * kill.shape[1]
    packed = np.packbits(kill.T, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _unbits(mask: int, n: int) -> np.ndarray:
    raw = np.frombuffer(mask.to_bytes((n + 7) // 8, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(bool)


def _candidates(b: _Planted, alts: _Alternatives, types, budget: dict, fill: bool = False) -> list:
    """``(value, budget, cost, move, kill mask)`` for every constraint the planted line satisfies,
    most valuable first."""
    rng = b.rng
    out = []

    def add(kind: str, cost, moves: list, kill: np.ndarray) -> None:
        if moves:
            values, masks = alts.scored(kill)
            cost = cost if isinstance(cost, list) else [cost] * len(moves)
            out.extend((float(v) / c, kind, c, m, k) for v, c, m, k in zip(values, cost, moves, masks))

    if "dot" in types and budget["dot"] > 0:
        spots = b.dot_candidates()
        add("dot", 1, [("dot", p) for p in spots], alts.without(spots))
    if "gap" in types and budget["gap"] > 0:
        spots = b.gap_candidates()
        add("gap", 1, [("gap", p) for p in spots], alts.containing(spots))
    if budget["cell"] > 0:
        free = b.free_cells()
        if "triangle" in types:
            spots = [(c, touches(c, b.on)) for c in free]
            spots = [(c, n) for c, n in spots if n in (1, 2, 4)]
            if spots:
                add("cell", 1, [("triangle", c, n, b.quiet_colour(c)) for c, n in spots],
                    alts.touch_not([c for c, _ in spots], [n for _, n in spots]))
        if "square" in types:
            spots = [(c, b._square_colour_for(c)) for c in free]
            spots = [(c, col) for c, col in spots if col is not None]
            if spots:
                add("cell", 1, [("square", c, col) for c, col in spots],
                    alts.squares_break([c for c, _ in spots], [col for _, col in spots]))
        if "poly" in types:
            # tile one more region of the planted line: the pieces fit no other region shape
            moves, kills, costs = [], [], []
            for r in b.untiled_regions():
                cells = b.region_cells(r)
                room = sum(c not in b.symbols for c in cells)
                differs = None
                for m in range(1, min(budget["cell"] if fill else 3, room) + 1):
                    pieces = b.partition(r, m, tries=2)
                    if pieces is not None:
                        differs = alts.region_differs(cells) if differs is None else differs
                        moves.append(("poly", r, pieces))
                        kills.append(differs)
                        costs.append(m)
            if moves:
                add("cell", costs, moves, np.stack(kills, axis=1))
        if "poly" in types and fill:
            # spending the budget: a tiled region cut into more pieces rules out no more
            for r, have in b.retilable_regions():
                cells = b.region_cells(r)
                room = have + sum(c not in b.symbols for c in cells)
                for m in range(have + 1, min(room, have + budget["cell"]) + 1):
                    pieces = b.partition(r, m, tries=3)
                    if pieces is not None:
                        out.append((0.0, "cell", m - have, ("poly", r, pieces), 0))
        if "star" in types:
            options = [(cells, colour) for cells, colour in b.star_options(limit=24) if len(cells) <= budget["cell"]]
            if options:
                add("cell", [len(c) for c, _ in options], [("star", c, col) for c, col in options],
                    alts.stars_break(options))
    rng.shuffle(out)  # ties broken at random
    out.sort(key=lambda t: -t[0])
    return out


def _apply(b: _Planted, move) -> None:
    kind = move[0]
    if kind == "dot":
        b.add_dot(move[1])
    elif kind == "gap":
        b.add_gap(move[1])
    elif kind == "triangle":
        b.put(move[1], TRIANGLE, move[3], move[2])
    elif kind == "square":
        b.put(move[1], SQUARE, move[2])
    elif kind == "poly":
        b.tile(move[1], move[2])
    else:
        for c in move[1]:
            b.put(c, STAR, move[2])


# ---- sizes and counts ---------------------------------------------------------------------------
@lru_cache(maxsize=1024)
def _size_options(level: int | None, n_mech: int, width, height, min_symbols: int) -> tuple:
    """``(w, h, symbol counts)`` on which ``level`` is reachable with ``n_mech`` cell types."""
    out = []
    for a in range(MIN_SIDE, MAX_SIDE + 1):
        for b in range(MIN_SIDE, MAX_SIDE + 1):
            if (width is not None and a != width) or (height is not None and b != height):
                continue
            area = a * b
            if n_mech == 0:
                if level is None or level_of_score(score_of_raw(raw_score(0, 0, area))) == level:
                    out.append((a, b, (0,)))
                continue
            top = max(min_symbols, int(0.7 * area))
            counts = tuple(range(min_symbols, top + 1)) if level is None else \
                tuple(n for n in rules_for_level(level, n_mech, area) if min_symbols <= n <= top)
            if counts:
                out.append((a, b, counts))
    return tuple(out)


def _target_solutions(rng, profile: LevelProfile, k: int) -> int:
    """The most solutions this puzzle may keep: 1 with the level's single-solution share, else
    uniform in the level's range (never above ``k``)."""
    single, low, high = profile.solutions
    if rng.random() < single:
        return 1
    return int(min(k, rng.integers(low, high + 1)))


# ---- the generator -------------------------------------------------------------------------------
def _resolve_rules(rules):
    """The rule types of ``rules`` (a rule-set name, types joined by commas, or a list), in
    canonical order; None for the level's official mix."""
    if isinstance(rules, str):
        if rules in RULE_SETS:
            return RULE_SETS[rules]
        if "," not in rules and "+" not in rules:
            check_choice("rules", rules, list(RULE_SETS) + list(RULE_TYPES))
        rules = [t.strip() for t in rules.replace("+", ",").split(",") if t.strip()]
        if not rules:
            check_choice("rules", "", list(RULE_SETS))
    if rules is None:
        return None
    fixed = tuple(t for t in RULE_TYPES if t in set(rules))
    for t in rules:
        check_choice("rule type", t, RULE_TYPES)
    if "ylop" in fixed and "poly" not in fixed:
        raise ConfigError("rule type 'ylop' needs 'poly' as well")
    return fixed


def generate(rng: np.random.Generator, width: int | None = None, height: int | None = None,
             level: int | None = None, rules=None, density: float = 0.5, k: int = MAX_SOLUTIONS,
             sampler: str = "planted", start_on_border: bool = True, max_rounds: int = 20,
             ylop_rate: float = 0.05, balancer: RuleBalancer | None = None, forbidden=frozenset(),
             max_attempts: int = 300) -> Generated:
    """One puzzle with ``1 <= solutions <= k`` (docs/specs/sparc.md §9; see the module docstring).

    ``rules`` is a rule-set name of :data:`RULE_SETS`, a list of rule types, or None (the
    level's official mix); ``level`` 1..5 aims at that difficulty level (None: any level for
    the uniform sampler, a level drawn at random for the planted one); ``forbidden`` holds
    fingerprints (e.g. of official test records) that must not be produced. ``density``,
    ``max_rounds``, ``ylop_rate`` and ``balancer`` steer the uniform sampler.
    """
    check_choice("sampler", sampler, SAMPLERS)
    fixed = _resolve_rules(rules)
    for name, v in (("width", width), ("height", height)):
        if v is not None and not (MIN_SIDE <= v <= MAX_SIDE):
            raise ConfigError(f"{name} {v} is outside the valid range {MIN_SIDE}..{MAX_SIDE}")
    if level is not None and level not in LEVELS:
        raise ConfigError(f"level {level!r} is not one of: 1, 2, 3, 4, 5")
    if not isinstance(k, int) or k < 1:
        raise ConfigError(f"k {k!r} is not a positive integer")
    if sampler == "uniform":
        return _generate_uniform(rng, width, height, level, fixed, density, k, start_on_border, max_rounds,
                                 ylop_rate, balancer, forbidden, max_attempts)
    if level is None:
        # a level drawn among those these sizes and rules can reach (the next one when the
        # first proves impossible in practice)
        levels = [lv for lv in LEVELS if _reachable(lv, fixed, width, height)]
        order = [levels[i] for i in rng.permutation(len(levels))]
    elif _reachable(level, fixed, width, height):
        order = [level]
    else:
        order = []
    for lv in order:
        g = _planted(rng, lv, fixed, width, height, k, start_on_border, forbidden, max(1, max_attempts // len(order)))
        if g is not None:
            if balancer is not None:
                balancer.add(g.puzzle)
            return g
    what = f"level {level}" if level is not None else "any difficulty level"
    raise ConfigError(f"no SPaRC puzzle of {what} with rules {rules or 'mixed'!r} at size {width or 'any'} x "
                      f"{height or 'any'} and at most k={k} solutions: "
                      + ("the difficulty score cannot reach it with these rules and sizes" if not order else
                         f"none found in {max_attempts} attempts (too few symbols of these types fit this level "
                         "to bring the solutions down to k); choose another level, rule set or size, or a larger k"))


def _planted(rng, level: int, fixed, width, height, k: int, start_on_border: bool, forbidden,
             attempts: int) -> Generated | None:
    """One planted puzzle of ``level`` within ``attempts`` attempts, or None."""
    plan = types = None
    for attempt in range(attempts):
        # a plan (rule types, size, symbol count) is kept for several attempts, so that plans
        # that are harder to build are not under-represented: rejection would bias the level's
        # official presence rates and sizes
        if plan is None or attempt % 6 == 0:
            if types is None or attempt % 60 == 0:
                types = fixed if fixed is not None else profile_rule_types(rng, LEVEL_PROFILES[level])
            plan = _draw_plan(rng, level, types, width, height, dense=fixed is not None)
            if plan is None:
                types = None
                continue
        try:
            g = _planted_attempt(rng, level, plan, k, start_on_border, forbidden, mixed=fixed is None)
        except _Retry:
            continue
        g.rounds = attempt + 1
        return g
    return None


def _reachable(level: int, fixed, width, height) -> bool:
    """Whether some puzzle of these rule types (any of the level's mixes when None) and sizes
    lands on ``level``."""
    if fixed is None:
        profile = LEVEL_PROFILES[level]
        mixes = [()] + [(t,) for t in ("square", "triangle", "poly")] + [("square", "triangle"),
                                                                         ("square", "star", "triangle"),
                                                                         ("square", "star", "triangle", "poly")]
        return any(_size_options(level, len(m), width, height, _min_symbols(m)) for m in mixes
                   if all(profile.presence[t] > 0 for t in m))
    n_mech = sum(t in fixed for t in CELL_TYPES)
    return bool(_size_options(level, n_mech, width, height, _min_symbols(fixed)))


def _min_symbols(types) -> int:
    """Cell symbols needed to show every chosen cell type once (a star needs a partner)."""
    n = sum(t in types for t in ("square", "triangle", "poly"))
    if "star" in types:
        n += 1 if n else 2
    if "ylop" in types:
        n += 2
    return n


def _draw_plan(rng, level: int, types, width, height, dense: bool = False):
    """A size near the level's official area and a symbol count that keeps the level, for these
    rule types; None when the types cannot reach the level. ``dense``: a fixed rule set has
    one or two types to constrain the line with, so its counts come from the upper half of
    those that keep the level."""
    profile = LEVEL_PROFILES[level]
    n_mech = sum(t in types for t in CELL_TYPES)
    options = _size_options(level, n_mech, width, height, _min_symbols(types))
    if profile.max_area and (width is None or height is None):
        options = [o for o in options if o[0] * o[1] <= profile.max_area]
    if not options:
        return None
    weights = np.array([math.exp(-abs(a * b - profile.area) / profile.area_spread) for a, b, _ in options])
    w, h, counts = options[int(rng.choice(len(options), p=weights / weights.sum()))]
    if dense:
        # many small pieces tile almost any region: polyominoes constrain best when few
        half = counts[:len(counts) // 2 + 1] if types[0] == "poly" else counts[len(counts) // 2:]
        return types, w, h, half[int(rng.integers(len(half)))]
    want = profile.symbols * w * h if profile.symbols < 1 else profile.symbols
    near = np.array([math.exp(-abs(n - want) / 2) for n in counts])
    return types, w, h, counts[int(rng.choice(len(counts), p=near / near.sum()))]


def _planted_attempt(rng, level: int, plan, k: int, start_on_border: bool, forbidden,
                     mixed: bool = True) -> Generated:
    """One try at a puzzle of ``plan``; raises _Retry when it fails (``mixed``: the level's
    official mix of rule types rather than a fixed rule set)."""
    profile = LEVEL_PROFILES[level]
    types, w, h, n_symbols = plan
    n_mech = sum(t in types for t in CELL_TYPES)
    # start and end: the end on the border, the start too unless asked otherwise
    ring = border_positions(w, h)
    end = ring[int(rng.integers(len(ring)))]
    starts = [q for q in (ring if start_on_border else list(line_neighbours(w, h))) if q != end]
    start = starts[int(rng.integers(len(starts)))]
    corners = (w + 1) * (h + 1)
    coverage = float(np.clip(rng.normal(profile.coverage, profile.coverage_sd), 0.2, 1.0))
    target_len = max(MIN_LENGTH[level], 2 * round(coverage * corners) - 1)
    line = long_path(rng, w, h, start, end, target_len, budget=0)  # may come back shorter than asked
    if len(line) < MIN_LENGTH[level]:
        raise _Retry("planted line too short")
    b = _Planted(rng, w, h, line)
    edge_only = n_mech == 0
    budget = {"cell": n_symbols,
              "dot": (len(line) // 2 if edge_only else int(rng.integers(1, profile.edges + 1))) if "dot" in types else 0,
              "gap": (len(line) if edge_only else int(rng.integers(1, profile.edges + 1))) if "gap" in types else 0}
    # polyominoes first: they tile whole regions of the planted line; one square, which alone
    # rules nothing out but lets the next squares bite
    if "poly" in types:
        others = [t for t in types if t not in ("poly", "ylop")]
        # what the other types still need once polys are there (a star may pair with a poly)
        others_need = _min_symbols(types) - 1 - 2 * ("ylop" in types)
        budget["cell"] -= b.plant_polys(budget["cell"] - others_need, "ylop" in types,
                                        every_region=not any(t in CELL_TYPES for t in others))
    if "square" in types:
        budget["cell"] -= b.plant_squares(1)
    if budget["cell"] < 0:
        raise _Retry("symbol budget exceeded")
    # every other chosen type once, where the planted line allows (placed before any solution
    # is counted, so the loop below already counts the lines they rule out)
    _fill(b, types, budget, _Alternatives(b, [], 0), False, keep=budget["cell"])
    # counterexamples until few, long solutions are left
    target_count = _target_solutions(rng, profile, k)
    short_len = max(MIN_LENGTH[level], int(profile.short * len(line)))
    fewest = MIN_CONSTRAINTS[level] if any(t in EDGE_TYPES for t in types) or mixed else 0
    if n_symbols + budget["dot"] + budget["gap"] < fewest:
        raise _Retry("trivial")
    # the search of a round: the first from S, trying the planted line's steps first, cut after
    # GEN_NODE_LIMIT nodes. A cut search brings back the solutions that branch off the planted
    # line near its end, so the next one searches from E. When one finds no other solution from
    # either end, or fewer than the drawn count, the rest of the symbols are placed (keeping two
    # for more rounds in the second case: they narrow the search as well) and the next search
    # may run to WIDE_NODE_LIMIT nodes, usually to the end. Once a search has found every
    # solution, and while the constraints added since only rule lines out, the next search goes
    # over those solutions' steps alone.
    limit, backwards, turned = GEN_NODE_LIMIT, False, False
    known_set = None
    spent = 0  # search nodes of this attempt: ATTEMPT_NODE_LIMIT at most
    for _round in range(60):
        if known_set is not None:
            res = search.enumerate_solutions(b.tables(), cap=ROUND_CAP, node_limit=FINAL_NODE_LIMIT,
                                      python_slice=SMALL_PYTHON_SLICE.get(level), within_paths=known_set)
        else:
            if spent >= ATTEMPT_NODE_LIMIT:
                raise _Retry("enumeration too expensive")
            res = _round_search(b, min(limit, ATTEMPT_NODE_LIMIT - spent), backwards, SMALL_PYTHON_SLICE.get(level))
        spent += res.nodes
        known = res.complete and not res.capped
        if not res.complete and len(res.solutions) < 2:
            backwards = not backwards
            if not turned:
                turned = True
                continue
            if limit >= WIDE_NODE_LIMIT:
                raise _Retry("enumeration too expensive")
            # other solutions are rare here: the rest of the symbols now (they narrow the search
            # as well), then a wider look
            _fill(b, types, budget, _Alternatives(b, [], 0), False)
            limit = WIDE_NODE_LIMIT
            continue
        turned = False
        if not res.complete and not res.capped and res.count <= target_count and limit < WIDE_NODE_LIMIT:
            # few enough found that the drawn count may be met already: the rest of the symbols
            # but two (to rule out more if the count is still too high), then the whole count
            _fill(b, types, budget, _Alternatives(b, [], 0), False, keep=2)
            limit = WIDE_NODE_LIMIT
            continue
        limit = GEN_NODE_LIMIT
        if not res.complete:
            backwards = not backwards
        known_set = res.solutions if known else None
        shortest = min(len(s) for s in res.solutions)
        if known and res.count <= target_count and shortest >= short_len:
            break
        alts = _Alternatives(b, [s for s in res.solutions if s != line], short_len)
        # keep room for the chosen types that are still missing (each must appear once)
        spendable = {**budget, "cell": budget["cell"] - _min_symbols(_missing(b, types, cells_only=True))}
        moves = [m for m in _candidates(b, alts, types, spendable) if m[0] > 0]
        if known:
            # constraints that only rule lines out keep every solution known
            moves = [m for m in moves if _narrows(b, m[3])] or moves
        if not moves:
            if known and res.count <= min(k, max(target_count, profile.solutions[2])) and \
                    shortest >= MIN_LENGTH[level]:
                break  # the drawn count was out of reach; the count is still within the level's range
            raise _Retry("no constraint rules out another solution")
        finishing = []
        if known:
            # every solution is known: prefer a move that finishes the job while leaving as many
            # solutions as the drawn count allows (a single strong constraint would overshoot)
            for m in moves:
                kill = m[4]
                left = res.count - kill.bit_count()
                if left <= target_count and not alts.short & ~kill:
                    finishing.append((left, m))
        if finishing:
            best = max(left for left, _ in finishing)
            chosen = [next(m for left, m in finishing if left == best)]
        else:
            top = moves[:3]
            chosen = [top[int(rng.integers(len(top)))] if rng.random() < 0.3 else top[0]]
            if not known:
                # far from done: a few more dots or gaps that rule out other solutions at once
                alive = alts.all & ~chosen[0][4]
                taken = {chosen[0][3][1]} if chosen[0][1] in EDGE_TYPES else set()
                for m in moves:
                    if len(chosen) >= 4:
                        break
                    if m[1] in EDGE_TYPES and m[3][1] not in taken and m[4] & alive and \
                            spendable[m[1]] > sum(c[1] == m[1] for c in chosen):
                        chosen.append(m)
                        taken.add(m[3][1])
                        alive &= ~m[4]
        for m in chosen:
            if known_set is not None and not _narrows(b, m[3]):
                known_set = None
            _apply(b, m[3])
            budget[m[1]] -= m[2]
    else:
        raise _Retry("too many rounds")
    alts = _Alternatives(b, [s for s in res.solutions if s != line], 0)
    known_solutions = res.solutions
    narrowing = _fill(b, types, budget, alts, True)
    if len(b.symbols) + len(b.dots) + len(b.gaps) < fewest:
        raise _Retry("trivial")
    puzzle = b.puzzle()
    # the final count: among the known solutions when the last constraints only ruled lines out
    # (a search over the moves they use, so in the same order as a full one), else in full
    res = search.enumerate_solutions(puzzle, cap=k, node_limit=FINAL_NODE_LIMIT, python_slice=SMALL_PYTHON_SLICE.get(level),
                              within_paths=known_solutions if narrowing else None)
    if not res.complete or res.capped or res.count == 0:
        raise _Retry("final count out of range")
    score, lvl = difficulty_score(puzzle)
    if lvl != level:
        raise _Retry("level missed")
    # with cell symbols alone the level fixes their number: only the line length can say trivial
    if min(len(s) for s in res.solutions) < MIN_LENGTH[level] or \
            len(puzzle.symbols) + len(puzzle.dots) + len(puzzle.gaps) < fewest:
        raise _Retry("trivial")
    if _cheaply_solved(puzzle, res.solutions):
        raise _Retry("a rule-blind line solves it")
    if puzzle.fingerprint() in forbidden:
        raise _Retry("official puzzle")
    return Generated(puzzle, res.solutions, score, lvl, 0)


def _fill(b: _Planted, types, budget: dict, alts: _Alternatives, narrowing: bool, keep: int = 0) -> bool:
    """Every chosen type at least once, then the rest of the symbol budget but ``keep`` (the
    level needs exactly this many symbols), each time the constraint that rules out the fewest
    of the solutions ``alts`` left, so the drawn count survives; with ``narrowing``, constraints
    that only rule lines out first. Returns whether every constraint placed only ruled lines
    out."""
    while True:
        missing = _missing(b, types)
        if missing:
            kinds = {missing[0]}
            spend = {"cell": budget["cell"], "dot": 1, "gap": 1}
        elif budget["cell"] > keep:
            kinds = set(types)
            spend = {"cell": budget["cell"] - keep, "dot": 0, "gap": 0}
        else:
            return narrowing
        moves = _candidates(b, alts, kinds, spend, fill=True)
        if not moves:
            raise _Retry("symbol budget cannot be spent")
        if narrowing:
            moves = [m for m in moves if _narrows(b, m[3])] or moves
        least = min(m[0] * m[2] for m in moves)
        move = next(m for m in moves if m[0] * m[2] == least)
        narrowing = narrowing and _narrows(b, move[3])
        _apply(b, move[3])
        alts.drop(move[4])
        budget[move[1]] -= move[2]


def _round_search(b: _Planted, limit: int, backwards: bool, python_slice):
    """One round's search for solutions, trying the planted line's steps first; ``backwards``:
    from ``E`` to ``S`` (the same lines, found in another order)."""
    if not backwards:
        return search.enumerate_solutions(b.tables(), cap=ROUND_CAP, node_limit=limit, python_slice=python_slice,
                                   prefer=b.line)
    res = search.enumerate_solutions(b.tables(flipped=True), cap=ROUND_CAP, node_limit=limit, python_slice=python_slice,
                              prefer=b.line[::-1])
    res.solutions = [s[::-1] for s in res.solutions]
    return res


def _narrows(b: _Planted, move) -> bool:
    """Whether a constraint can only rule lines out (no line becomes a solution by it): a dot or
    a gap; a square, triangle or stars of a colour no star has yet (a symbol of a colour some
    star has may complete that star's pair). Polyominoes can let a region be tiled that could
    not be before."""
    kind = move[0]
    if kind in ("dot", "gap"):
        return True
    if kind == "poly":
        return False
    return move[-1] not in {s[1] for s in b.symbols.values() if s[0] == STAR}


def _missing(b: _Planted, types, cells_only: bool = False) -> list:
    """The chosen rule types the puzzle does not hold yet."""
    have = {KIND_NAMES[s[0]] for s in b.symbols.values()}
    if b.dots:
        have.add("dot")
    if b.gaps:
        have.add("gap")
    return [t for t in types if t not in have and not (cells_only and t in EDGE_TYPES)]


def _cheaply_solved(p: SparcPuzzle, solutions: list) -> bool:
    """Whether a rule-blind answer solves the puzzle: a shortest line or a walk along the
    border. (In a puzzle of gaps alone the shortest line around the gaps is a real solution.)"""
    sols = {tuple(s) for s in solutions}
    if min(len(s) for s in solutions) <= len(shortest_line(p.width, p.height, p.start, p.end)):
        return True
    return any(tuple(wk) in sols for wk in border_walks(p.width, p.height, p.start, p.end))


# ---- the paper's uniform sampler -----------------------------------------------------------------
def _blank(w: int, h: int, start, end) -> list:
    grid = [["N" if search.is_cell(x, y) else "+" for x in range(2 * w + 1)] for y in range(2 * h + 1)]
    grid[start[1]][start[0]] = "S"
    grid[end[1]][end[0]] = "E"
    return grid


def uniform_symbols(rng: np.random.Generator, w: int, h: int, start, end, types, n_symbols: int,
                    n_edge: int) -> SparcPuzzle:
    """The paper-like random fill: symbols of the chosen types on random cells, random colours,
    random triangle counts and small random shapes; dots and gaps on random edge positions."""
    grid = _blank(w, h, start, end)
    cells = [(x, y) for y in range(1, 2 * h + 1, 2) for x in range(1, 2 * w + 1, 2)]
    cell_types = [t for t in CELL_TYPES if t in types]
    shapes = {}
    palette = [COLOURS[i] for i in rng.permutation(len(COLOURS))[:3]]
    if cell_types:
        for i in rng.permutation(len(cells))[:n_symbols]:
            x, y = cells[i]
            t = cell_types[int(rng.integers(len(cell_types)))]
            colour = palette[int(rng.integers(len(palette)))]
            if t == "square":
                grid[y][x] = f"o-{colour}"
            elif t == "star":
                grid[y][x] = f"*-{colour}"
            elif t == "triangle":
                grid[y][x] = f"{'ABD'[int(rng.integers(3))]}-{colour}"
            else:
                size = int(rng.integers(1, 4))
                piece = [(0, 0)]
                while len(piece) < size:
                    bx, by = piece[int(rng.integers(len(piece)))]
                    nx, ny = (bx + 1, by) if rng.random() < 0.5 else (bx, by + 1)
                    if (nx, ny) not in piece and nx < 4 and ny < 4:
                        piece.append((nx, ny))
                cells_t = tuple(sorted(piece, key=lambda c: (c[1], c[0])))
                sid = str(shape_id(cells_t))
                shapes[sid] = shape_array(cells_t)
                grid[y][x] = f"{'P' if t == 'poly' else 'Y'}-{colour}-{sid}"
    edges = [(x, y) for y in range(2 * h + 1) for x in range(2 * w + 1) if not search.is_cell(x, y)
             and (x, y) not in (start, end)]
    kinds = [t for t in EDGE_TYPES if t in types]
    if kinds:
        for i in rng.permutation(len(edges))[:n_edge]:
            x, y = edges[i]
            t = kinds[int(rng.integers(len(kinds)))]
            if t == "gap" and (x + y) % 2 == 1:
                grid[y][x] = "G"
            elif t == "dot":
                grid[y][x] = "."
    return SparcPuzzle.from_grid(grid, shapes)


def _generate_uniform(rng, width, height, level, fixed, density, k, start_on_border, max_rounds, ylop_rate,
                      balancer, forbidden, max_attempts) -> Generated:
    """The paper's loop (docs/specs/sparc.md §9): random fill, density halved on no solution, raised on too many."""
    total_rounds = 0
    for _attempt in range(max_attempts):
        types = fixed if fixed is not None else draw_rule_types(rng, balancer=balancer, ylop_rate=ylop_rate)
        n_mech = len([t for t in CELL_TYPES if t in types])
        options = _size_options(level, n_mech, width, height, 1 if n_mech else 0)
        if not options:
            if fixed is not None:
                raise ConfigError(f"level {level} cannot be reached with rules {fixed} at size "
                                  f"{width or 'any'} x {height or 'any'}")
            continue
        w, h, allowed = options[int(rng.integers(len(options)))]
        area = w * h
        ring = border_positions(w, h)
        end = ring[int(rng.integers(len(ring)))]
        starts = [q for q in (ring if start_on_border else list(line_neighbours(w, h))) if q != end]
        start = starts[int(rng.integers(len(starts)))]
        dens = density
        for _round in range(max_rounds):
            total_rounds += 1
            target = max(1 if n_mech else 0, round(dens * area))
            if n_mech:
                target = min(allowed, key=lambda n: (abs(n - target), n))
            n_edge = max(1, round(dens * area * (1.0 if n_mech == 0 else 0.4)))
            puzzle = uniform_symbols(rng, w, h, start, end, types, target, n_edge)
            score, lvl = difficulty_score(puzzle)
            if level is not None and lvl != level:
                continue
            res = search.enumerate_solutions(puzzle, cap=k, node_limit=UNIFORM_NODE_LIMIT)
            if not res.complete:
                break
            if res.count == 0:
                dens = dens / 2
                continue
            if res.capped:
                dens = min(1.0, 1.5 * dens)
                continue
            if puzzle.fingerprint() in forbidden:
                break
            if balancer is not None:
                balancer.add(puzzle)
            return Generated(puzzle, res.solutions, score, lvl, total_rounds)
    raise ConfigError(f"no SPaRC puzzle found after {max_attempts} attempts for width={width}, height={height}, "
                      f"level={level}, rules={fixed}; loosen the constraints")


__all__ = [
    "LEVEL_PROFILES",
    "RULE_SETS",
    "RULE_TYPES",
    "Generated",
    "RuleBalancer",
    "draw_rule_types",
    "generate",
    "long_path",
    "uniform_symbols",
]
