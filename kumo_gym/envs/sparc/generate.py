"""SPaRC puzzle generation (spec §9; paper §3.2).

The paper's loop: draw a size, choose rule types, fill about ``density * w * h`` cells with
symbols, count solutions with the cap ``k = 50``; no solution halves the density, more than ``k``
raises it by half, and ``1 <= count <= k`` accepts. Our default sampler is *planted*: it first draws
a random simple path from ``S`` to ``E`` and places only symbols that this path satisfies, so the
loop never meets an unsolvable puzzle; ``sampler="uniform"`` is the paper-like random fill. Both
share the loop, the exact enumeration and the difficulty targeting.

Everything is driven by one ``numpy.random.Generator``: the same generator state gives the same
puzzle in any process.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.errors import ConfigError, check_choice
from ...solvers.sparc import enumerate_solutions
from .difficulty import difficulty_score, level_of_score, raw_score, rules_for_level, score_of_raw
from .puzzle import (
    COLOURS,
    MAX_SIDE,
    MIN_SIDE,
    POLY,
    SQUARE,
    STAR,
    TRIANGLE,
    TRIANGLE_LETTERS,
    YLOP,
    SparcPuzzle,
    is_cell,
    shape_id,
)
from .rules import check_path, regions, touched_edges

CELL_TYPES = ("square", "star", "triangle", "poly", "ylop")
EDGE_TYPES = ("dot", "gap")
RULE_TYPES = EDGE_TYPES + CELL_TYPES
#: the official dataset configs (spec §9) as sets of rule types; "all" mixes every type
RULE_SETS = {
    "all": None, "gaps": ("gap",), "dots": ("dot",), "stones": ("square",), "stars": ("star",),
    "triangles": ("triangle",), "polys": ("poly",), "polys_ylops": ("poly", "ylop"),
    "stones_stars": ("square", "star"), "gaps_dots_triangles": ("gap", "dot", "triangle"),
    "dots_stars_polys": ("dot", "star", "poly"),
}
SAMPLERS = ("planted", "uniform")
MAX_SOLUTIONS = 50
#: mean area in cells per level in the official test split (§9), the centre of our size prior
AREA_PRIOR = {1: 6.3, 2: 9.1, 3: 10.0, 4: 13.9, 5: 19.3}
#: nodes one enumeration may spend during generation; a puzzle that needs more is redrawn
GEN_NODE_LIMIT = 500_000


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
    """Rule-type balancing over a dataset being built (§9): the next puzzle draws its types
    with probability proportional to ``1 / (1 + count)``, where ``count`` is how many puzzles
    built so far contain the type."""

    def __init__(self):
        self.counts = {t: 0 for t in RULE_TYPES}

    def weights(self, pool) -> np.ndarray:
        return np.array([1.0 / (1 + self.counts[t]) for t in pool])

    def add(self, puzzle: SparcPuzzle) -> None:
        for t in puzzle.rule_types():
            self.counts[t] += 1


def draw_rule_types(rng: np.random.Generator, pool=RULE_TYPES, balancer: RuleBalancer | None = None,
                    ylop_rate: float = 0.05) -> tuple[str, ...]:
    """1-5 distinct rule types; ylops only together with polys and only in ``ylop_rate`` of
    puzzles."""
    pool = [t for t in pool if t != "ylop"]
    n = int(rng.integers(1, min(5, len(pool)) + 1))
    w = balancer.weights(pool) if balancer else np.ones(len(pool))
    chosen = list(rng.choice(pool, size=n, replace=False, p=w / w.sum()))
    if "poly" in chosen and rng.random() < ylop_rate:
        chosen.append("ylop")
    return tuple(t for t in RULE_TYPES if t in chosen)


def random_path(rng: np.random.Generator, w: int, h: int, start, end, greed: float) -> list:
    """A random simple path from ``start`` to ``end`` over line positions: a depth-first search
    whose neighbour order is shuffled, moving toward ``end`` first with probability ``greed``."""
    cols, rows = 2 * w + 1, 2 * h + 1
    parent = {start: None}
    stack = [(start, None)]
    order: dict = {}
    while stack:
        pos, it = stack[-1]
        if pos == end:
            break
        if it is None:
            x, y = pos
            nb = [(x + dx, y + dy) for dx, dy in ((1, 0), (0, -1), (-1, 0), (0, 1))]
            nb = [(a, b) for a, b in nb if 0 <= a < cols and 0 <= b < rows and not is_cell(a, b)]
            rng.shuffle(nb)
            if rng.random() < greed:
                nb.sort(key=lambda q: abs(q[0] - end[0]) + abs(q[1] - end[1]))
            order[pos] = nb
            stack[-1] = (pos, 0)
            it = 0
        nb = order[pos]
        while it < len(nb) and nb[it] in parent:
            it += 1
        if it == len(nb):
            stack.pop()
            continue
        stack[-1] = (pos, it + 1)
        parent[nb[it]] = pos
        stack.append((nb[it], None))
    path = [end]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]


def border_positions(w: int, h: int) -> list:
    cols, rows = 2 * w + 1, 2 * h + 1
    return [(x, y) for y in range(rows) for x in range(cols)
            if not is_cell(x, y) and (x in (0, cols - 1) or y in (0, rows - 1))]


def _blank(w: int, h: int, start, end) -> list:
    grid = [["N" if is_cell(x, y) else "+" for x in range(2 * w + 1)] for y in range(2 * h + 1)]
    grid[start[1]][start[0]] = "S"
    grid[end[1]][end[0]] = "E"
    return grid


def _random_partition(rng, region: list, max_piece: int = 4) -> list | None:
    """Split a region into connected pieces of 1..max_piece cells by random growth."""
    left = set(region)
    pieces = []
    while left:
        seed = min(left, key=lambda c: (c[1], c[0])) if rng.random() < 0.5 else sorted(left)[int(rng.integers(len(left)))]
        size = int(rng.integers(1, max_piece + 1))
        piece = [seed]
        left.discard(seed)
        while len(piece) < size:
            frontier = sorted({(x + dx, y + dy) for x, y in piece for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2))}
                              & left)
            if not frontier:
                break
            c = frontier[int(rng.integers(len(frontier)))]
            piece.append(c)
            left.discard(c)
        pieces.append(piece)
    return pieces


def _cells_shape(piece: list) -> tuple:
    mx = min(x for x, _ in piece)
    my = min(y for _, y in piece)
    return tuple(sorted((((x - mx) // 2, (y - my) // 2) for x, y in piece), key=lambda c: (c[1], c[0])))


def plant_symbols(rng: np.random.Generator, w: int, h: int, path: list, types, n_symbols: int,
                  n_edge: int) -> SparcPuzzle | None:
    """Symbols of the chosen types that ``path`` satisfies (spec §9, planted sampler).

    About ``n_symbols`` cell symbols are placed (stars in pairs, ylops with the extra poly they
    cancel), plus ``n_edge`` dots (on the path) and gaps (off it). Returns None when the types do
    not fit this path.
    """
    start, end = path[0], path[-1]
    grid = _blank(w, h, start, end)
    on_path = set(path)
    probe = SparcPuzzle(w, h, grid, {}, start, end)
    regs = regions(probe, on_path)
    region_of = {c: i for i, r in enumerate(regs) for c in r}
    free = {c for r in regs for c in r}
    shapes: dict = {}
    sym: dict = {}
    cell_types = [t for t in CELL_TYPES if t in types and t != "ylop"]
    budget = {t: 0 for t in cell_types}
    if cell_types:
        # every chosen type at least once, the rest of the budget spread at random
        for i in range(max(n_symbols, len(cell_types))):
            t = cell_types[i] if i < len(cell_types) else cell_types[int(rng.integers(len(cell_types)))]
            budget[t] += 1

    def put(c, token, entry):
        grid[c[1]][c[0]] = token
        sym[c] = entry
        free.discard(c)

    def colour_counts(ri):
        cnt = {}
        for c in regs[ri]:
            if c in sym:
                cnt[sym[c][1]] = cnt.get(sym[c][1], 0) + 1
        return cnt

    # polyominoes: tile whole regions
    if budget.get("poly"):
        order = sorted(range(len(regs)), key=lambda i: len(regs[i]))
        rng.shuffle(order)
        placed = 0
        for ri in order:
            if placed >= budget["poly"]:
                break
            reg = regs[ri]
            if len(reg) > 12:
                continue
            pieces = _random_partition(rng, reg)
            cells_free = [c for c in reg if c in free]
            if len(pieces) > len(cells_free) or len(pieces) + placed > budget["poly"] + 2:
                continue
            spots = rng.permutation(len(cells_free))[:len(pieces)]
            for piece, k in zip(pieces, spots):
                cells = _cells_shape(piece)
                sid = str(shape_id(cells))
                shapes[sid] = cells
                colour = COLOURS[int(rng.integers(len(COLOURS)))]
                put(cells_free[k], f"P-{colour}-{sid}", (POLY, colour, sid))
            placed += len(pieces)
            if "ylop" in types:
                spare = [c for c in reg if c in free]
                if len(spare) >= 2:
                    size = int(rng.integers(1, 4))
                    cells = ((0, 0), (1, 0), (2, 0))[:size] if rng.random() < 0.5 else ((0, 0), (0, 1), (0, 2))[:size]
                    cells = tuple(sorted(cells, key=lambda c: (c[1], c[0])))
                    sid = str(shape_id(cells))
                    shapes[sid] = cells
                    a, b = (spare[i] for i in rng.permutation(len(spare))[:2])
                    c1, c2 = COLOURS[int(rng.integers(8))], COLOURS[int(rng.integers(8))]
                    put(a, f"P-{c1}-{sid}", (POLY, c1, sid))
                    put(b, f"Y-{c2}-{sid}", (YLOP, c2, sid))
        if placed == 0:
            return None
    # triangles: read the count off the path (the official split has no count 3)
    if budget.get("triangle"):
        cand = [c for c in sorted(free) if touched_edges(probe, c, on_path) in (1, 2, 4)]
        rng.shuffle(cand)
        if not cand:
            return None
        for c in cand[:budget["triangle"]]:
            n = touched_edges(probe, c, on_path)
            colour = COLOURS[int(rng.integers(len(COLOURS)))]
            put(c, f"{TRIANGLE_LETTERS[n - 1]}-{colour}", (TRIANGLE, colour, n))
    # squares: one colour per region, a few colours over the grid
    if budget.get("square"):
        palette = [COLOURS[i] for i in rng.permutation(len(COLOURS))[:int(rng.integers(2, 4))]]
        region_colour = {ri: palette[int(rng.integers(len(palette)))] for ri in range(len(regs))}
        cand = sorted(free)
        rng.shuffle(cand)
        for c in cand[:budget["square"]]:
            colour = region_colour[region_of[c]]
            put(c, f"o-{colour}", (SQUARE, colour, 0))
    # stars: pair with a symbol whose colour is alone in its region, or come as two stars
    if budget.get("star"):
        n_stars = 0
        tries = 0
        while n_stars < budget["star"] and tries < 4 * budget["star"] + 4:
            tries += 1
            ri = int(rng.integers(len(regs)))
            cnt = colour_counts(ri)
            spots = [c for c in regs[ri] if c in free]
            lonely = [c for c in regs[ri] if c in sym and sym[c][0] != STAR and cnt[sym[c][1]] == 1]
            if lonely and spots and rng.random() < 0.5:
                partner = lonely[int(rng.integers(len(lonely)))]
                colour = sym[partner][1]
                put(spots[int(rng.integers(len(spots)))], f"*-{colour}", (STAR, colour, 0))
                n_stars += 1
            elif len(spots) >= 2:
                unused = [c for c in COLOURS if c not in cnt]
                if not unused:
                    continue
                colour = unused[int(rng.integers(len(unused)))]
                for k in rng.permutation(len(spots))[:2]:
                    put(spots[k], f"*-{colour}", (STAR, colour, 0))
                n_stars += 2
        if n_stars == 0:
            return None
    # dots on the path, gaps off it
    n_dot = n_gap = 0
    if "dot" in types and "gap" in types:
        n_dot = max(1, n_edge // 2)
        n_gap = max(1, n_edge - n_dot)
    elif "dot" in types:
        n_dot = max(1, n_edge)
    elif "gap" in types:
        n_gap = max(1, n_edge)
    dots_cand = [q for q in path[1:-1]]
    gap_cand = [(x, y) for y in range(2 * h + 1) for x in range(2 * w + 1)
                if (x + y) % 2 == 1 and (x, y) not in on_path]
    dots = [dots_cand[i] for i in sorted(rng.permutation(len(dots_cand))[:n_dot])] if dots_cand else []
    gaps = [gap_cand[i] for i in sorted(rng.permutation(len(gap_cand))[:n_gap])] if gap_cand else []
    if ("dot" in types and not dots) or ("gap" in types and not gaps):
        return None
    for x, y in dots:
        grid[y][x] = "."
    for x, y in gaps:
        grid[y][x] = "G"
    used = {s[2] for s in sym.values() if s[0] in (POLY, YLOP)}
    return SparcPuzzle.from_grid(grid, {sid: _array(shapes[sid]) for sid in sorted(used, key=int)})


def _array(cells):
    arr = [[0] * 4 for _ in range(4)]
    for x, y in cells:
        arr[y][x] = 1
    return arr


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
        for k in rng.permutation(len(cells))[:n_symbols]:
            x, y = cells[k]
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
                shapes[sid] = _array(cells_t)
                grid[y][x] = f"{'P' if t == 'poly' else 'Y'}-{colour}-{sid}"
    edges = [(x, y) for y in range(2 * h + 1) for x in range(2 * w + 1) if not is_cell(x, y)
             and (x, y) not in (start, end)]
    kinds = [t for t in EDGE_TYPES if t in types]
    if kinds:
        for k in rng.permutation(len(edges))[:n_edge]:
            x, y = edges[k]
            t = kinds[int(rng.integers(len(kinds)))]
            if t == "gap" and (x + y) % 2 == 1:
                grid[y][x] = "G"
            elif t == "dot":
                grid[y][x] = "."
    return SparcPuzzle.from_grid(grid, shapes)


def _size_for_level(rng, level: int, n_mech: int, width, height):
    """A size (given or drawn) on which ``level`` is reachable with ``n_mech`` symbol types."""
    sizes = [(a, b) for a in range(MIN_SIDE, MAX_SIDE + 1) for b in range(MIN_SIDE, MAX_SIDE + 1)
             if (width is None or a == width) and (height is None or b == height)]
    ok = []
    for a, b in sizes:
        area = a * b
        if n_mech == 0:
            if level_of_score(score_of_raw(raw_score(0, 0, area))) == level:
                ok.append((a, b))
        else:
            counts = rules_for_level(level, n_mech, area)
            if counts and counts[0] <= area * 0.75:
                ok.append((a, b))
    if not ok:
        return None
    # prefer areas near the official split's mean area of the level
    prior = AREA_PRIOR[level]
    weights = np.array([math.exp(-abs(a * b - prior) / (0.2 * prior)) for a, b in ok])
    return ok[int(rng.choice(len(ok), p=weights / weights.sum()))]


def generate(rng: np.random.Generator, width: int | None = None, height: int | None = None,
             level: int | None = None, rules=None, density: float = 0.5, k: int = MAX_SOLUTIONS,
             sampler: str = "planted", start_on_border: bool = True, max_rounds: int = 20,
             ylop_rate: float = 0.05, balancer: RuleBalancer | None = None, forbidden=frozenset(),
             max_attempts: int = 400) -> Generated:
    """One puzzle with ``1 <= solutions <= k`` (spec §9).

    ``rules`` is a rule-set name of :data:`RULE_SETS` or a collection of rule types (drawn with
    balancing when None); ``level`` 1..5 aims at that difficulty level; ``forbidden`` holds
    fingerprints (e.g. of official test records) that must not be produced.
    """
    check_choice("sampler", sampler, SAMPLERS)
    if isinstance(rules, str):
        check_choice("rules", rules, list(RULE_SETS))
        fixed = RULE_SETS[rules]
    elif rules is None:
        fixed = None
    else:
        fixed = tuple(rules)
        for t in fixed:
            check_choice("rule type", t, RULE_TYPES)
        if "ylop" in fixed and "poly" not in fixed:
            raise ConfigError("rule type 'ylop' needs 'poly' as well")
    for name, v in (("width", width), ("height", height)):
        if v is not None and not (MIN_SIDE <= v <= MAX_SIDE):
            raise ConfigError(f"{name} {v} is outside the valid range {MIN_SIDE}..{MAX_SIDE}")
    if level is not None and level not in (1, 2, 3, 4, 5):
        raise ConfigError(f"level {level!r} is not one of: 1, 2, 3, 4, 5")
    total_rounds = 0
    for _attempt in range(max_attempts):
        types = fixed if fixed is not None else draw_rule_types(rng, balancer=balancer, ylop_rate=ylop_rate)
        if fixed is None and "poly" in types and "ylop" not in types and rng.random() < ylop_rate:
            types = types + ("ylop",)
        n_mech = len([t for t in CELL_TYPES if t in types])
        if level is not None:
            size = _size_for_level(rng, level, n_mech, width, height)
            if size is None:
                if fixed is not None:
                    raise ConfigError(f"level {level} cannot be reached with rules {fixed} at size "
                                      f"{width or 'any'} x {height or 'any'}")
                continue
            w, h = size
        else:
            w = width or int(rng.integers(MIN_SIDE, MAX_SIDE + 1))
            h = height or int(rng.integers(MIN_SIDE, MAX_SIDE + 1))
        area = w * h
        border = border_positions(w, h)
        end = border[int(rng.integers(len(border)))]
        if start_on_border:
            starts = [q for q in border if q != end]
        else:
            starts = [(x, y) for y in range(2 * h + 1) for x in range(2 * w + 1)
                      if not is_cell(x, y) and (x, y) != end]
        start = starts[int(rng.integers(len(starts)))]
        allowed = rules_for_level(level, n_mech, area) if (level is not None and n_mech) else None
        dens = density
        for _round in range(max_rounds):
            total_rounds += 1
            target = max(1 if n_mech else 0, round(dens * area))
            if allowed:
                target = min(allowed, key=lambda n: (abs(n - target), n))
            edge_only = n_mech == 0
            n_edge = max(1, round(dens * area * (1.0 if edge_only else 0.4)))
            if sampler == "planted":
                path = random_path(rng, w, h, start, end, float(rng.random()))
                puzzle = plant_symbols(rng, w, h, path, types, target, n_edge)
                if puzzle is None:
                    break
                if not check_path(puzzle, path).solved:  # planting must keep the path valid
                    break
            else:
                puzzle = uniform_symbols(rng, w, h, start, end, types, target, n_edge)
            score, lvl = difficulty_score(puzzle)
            if level is not None and lvl != level:
                if allowed and len(puzzle.symbols) < min(allowed):
                    break
                continue
            res = enumerate_solutions(puzzle, cap=k, node_limit=GEN_NODE_LIMIT)
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
                      f"level={level}, rules={rules}; loosen the constraints")


__all__ = [
    "RULE_SETS",
    "RULE_TYPES",
    "Generated",
    "RuleBalancer",
    "draw_rule_types",
    "generate",
    "plant_symbols",
    "random_path",
    "uniform_symbols",
]
